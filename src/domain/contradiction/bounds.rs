//! A stated bound against a stated figure: "more than 87 people have recovered" against "85
//! recoveries", "born after 1990" against "(born 1988)", "sold under 99,500 copies" against
//! "about 100,000 copies". A comparative is a claim about one quantity, so a figure of the
//! same measure outside it contradicts the claim even when the two memories share few other
//! words. Agents write the same kind of statement ("the queue holds more than 500 jobs" /
//! "the queue holds 120 jobs").

use super::evidence::Evidence;
use super::numeric;
use super::side::{self, Side};
use super::tokens::Kind;
use super::values::{Class, Value};

/// Tokens on each side of a value read as what it measures.
const REACH: usize = 6;
/// Content words after a figure that name what it counts ("6 *positive coronavirus* cases"
/// is a miss, "83 *deaths have* been reported" keeps the deaths apart from the counties).
const NOUN_WORDS: usize = 3;
/// Letters two stems must share from the start to name one measure ("recovered" /
/// "recoveries", "reviewed" / "reviews").
const SHARED_PREFIX: usize = 5;

/// The first bound of the new memory that a related figure of the stored one falls outside,
/// when no related figure of the stored one agrees with it (a list of figures never clashes
/// with one of its members).
pub fn violated(old: &Side, new: &Side) -> Option<Evidence> {
    let moments = numeric::different_moments(old, new) || stamped_apart(old, new);
    for vb in &new.values {
        if moments && !vb.class.is_temporal() {
            continue;
        }
        // Each side's context is read once per value, not once per pair of values.
        let cb = context(new, vb);
        let related: Vec<(&Value, Vec<&str>)> = old
            .values
            .iter()
            .filter(|va| va.class == vb.class)
            .map(|va| (va, context(old, va)))
            .filter(|(_, ca)| ca.iter().any(|x| cb.iter().any(|y| alike(x, y))))
            .collect();
        // A thing is born, founded or first synthesized once: two dates of one such event are
        // compared even when both are exact.
        let once = |ca: &[&str]| {
            vb.class == Class::Date && ca.iter().any(|e| once_only(e) && cb.contains(e))
        };
        let opposed = related
            .iter()
            .find(|(va, ca)| va.bounded || vb.bounded || once(ca))
            .map(|(va, _)| *va)
            .filter(|_| related.iter().all(|(a, _)| a.disjoint(vb)));
        if let Some(va) = opposed {
            let p = if vb.class.is_temporal() { 0.6 } else { 0.65 };
            return Some(numeric::evidence(old, new, va, vb, p));
        }
    }
    None
}

/// A bound stamped "by" or "as of" a date against figures dated otherwise ("764 in service in
/// July 2017" / "by mid-2018, under 750"): two moments, even when only one side is a stamp.
fn stamped_apart(old: &Side, new: &Side) -> bool {
    stamp_apart(new, old) || stamp_apart(old, new)
}

/// Whether `stamped` stamps a figure with a date that no date of `other` matches.
fn stamp_apart(stamped: &Side, other: &Side) -> bool {
    let dates = |s: &Side| s.values.iter().filter(|v| v.class == Class::Date).count();
    let mut stamps = stamped
        .values
        .iter()
        .filter(|v| v.class == Class::Date && numeric::is_timestamp(stamped, v))
        .peekable();
    stamps.peek().is_some()
        && dates(other) > 0
        && !stamps.any(|s| {
            other
                .values
                .iter()
                .any(|o| o.class == Class::Date && (s.nominal - o.nominal).abs() < 0.5)
        })
}

/// Whether two dates may date one event as far as life spans tell: a date of a life span
/// ("(1466 -- 1503)") is a birth or a death and only meets a date of the same event.
pub fn same_life_event(old: &Side, va: &Value, new: &Side, vb: &Value) -> bool {
    match (life_span(old, va), life_span(new, vb)) {
        (None, None) => true,
        (Some(e), None) => context(new, vb).contains(&e),
        (None, Some(e)) => context(old, va).contains(&e),
        (Some(a), Some(b)) => a == b,
    }
}

/// Whether two context words name one measure.
fn alike(x: &str, y: &str) -> bool {
    if x == y {
        return true;
    }
    let (xb, yb) = (x.as_bytes(), y.as_bytes());
    xb.len() >= SHARED_PREFIX
        && yb.len() >= SHARED_PREFIX
        && x.is_ascii()
        && y.is_ascii()
        && xb[..SHARED_PREFIX] == yb[..SHARED_PREFIX]
}

/// What a value measures: the content words after it ("87 *people have recovered*", "32
/// *critics*"), or, when none follow, those before it ("an approval *rating* of 53%").
/// Neither crosses a clause or another value, so a list's figures keep their own nouns.
/// A life span, "(14 April 1891 -- 6 December 1956)", dates a birth and a death.
fn context<'s>(side: &'s Side, v: &Value) -> Vec<&'s str> {
    if let Some(event) = life_span(side, v) {
        return vec![event];
    }
    let content = |i: &usize| {
        let t = &side.tokens[*i];
        t.is_content() && t.kind != Kind::Number && !reporting(&t.norm)
    };
    let stem = |i: usize| event(&side.tokens[i].stem);
    let open = |i: usize| !in_any_value(side, i) && !joins(&side.tokens[i].norm);
    let after: Vec<&str> = (v.end..side.tokens.len().min(v.end + REACH))
        .take_while(|&i| !side::boundary(side, i - 1) && open(i))
        .filter(content)
        .take(NOUN_WORDS)
        .map(stem)
        .collect();
    if !after.is_empty() && v.class != Class::Date {
        return after;
    }
    // An event is named before its date ("born after 1990", "died in 1998").
    let before: Vec<&str> = (v.first.saturating_sub(REACH)..v.first)
        .rev()
        .take_while(|&i| !side::boundary(side, i) && open(i))
        .filter(content)
        .map(stem)
        .collect();
    if before.is_empty() { after } else { before }
}

/// Words that join two statements of figures: what follows measures something else.
fn joins(w: &str) -> bool {
    matches!(
        w,
        "and" | "with" | "while" | "but" | "or" | "whereas" | "against"
    )
}

/// Verbs that report any figure: they say nothing of what it measures.
fn reporting(w: &str) -> bool {
    matches!(
        w,
        "reported" | "registered" | "recorded" | "confirmed" | "announced" | "estimated" | "total"
    )
}

/// Events that happen to their subject once.
fn once_only(w: &str) -> bool {
    matches!(
        w,
        "born"
            | "die"
            | "founded"
            | "established"
            | "formed"
            | "incorporated"
            | "launched"
            | "premiered"
            | "debuted"
            | "synthesized"
            | "synthesised"
            | "discovered"
            | "invented"
            | "inaugurated"
    )
}

/// One word for the forms of a life event.
fn event(stem: &str) -> &str {
    match stem {
        "died" | "die" | "death" | "dead" => "die",
        "born" | "birth" => "born",
        other => other,
    }
}

/// "born" or "die" for the first or second date of two joined by a dash or "to".
fn life_span(side: &Side, v: &Value) -> Option<&'static str> {
    if v.class != Class::Date {
        return None;
    }
    let dates: Vec<&Value> = side
        .values
        .iter()
        .filter(|d| d.class == Class::Date)
        .collect();
    let joined = |a: &Value, b: &Value| {
        let between =
            |x: usize, y: usize| side.text[side.tokens[x].end..side.tokens[y].start].trim();
        if b.first == a.end {
            matches!(between(a.end - 1, b.first), "-" | "--" | "–" | "—" | "-–")
        } else {
            b.first == a.end + 1 && matches!(side.tokens[a.end].norm.as_str(), "to" | "until")
        }
    };
    if dates.iter().any(|b| joined(v, b)) {
        Some("born")
    } else if dates.iter().any(|a| joined(a, v)) {
        Some("die")
    } else {
        None
    }
}

fn in_any_value(side: &Side, i: usize) -> bool {
    side.values.iter().any(|v| v.first <= i && i < v.end)
}
