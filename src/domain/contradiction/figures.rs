//! What a side's figures measure and when: the words a value counts or dates, the stamps that
//! place figures in time, and the evidence a changed value gives. Shared by the value rules
//! (`numeric`, `bounds`).

use super::evidence::Evidence;
use super::side::{self, Side};
use super::tokens::Kind;
use super::value::{Class, Value};
use super::{ConflictType, Signal};

pub fn evidence(old: &Side, new: &Side, va: &Value, vb: &Value, p: f64) -> Evidence {
    let kind = if va.class.is_temporal() {
        ConflictType::TemporalMismatch
    } else {
        ConflictType::NumericMismatch
    };
    let expl = format!(
        "value changed: \"{}\" vs \"{}\"",
        old.quote(va.first..va.end),
        new.quote(vb.first..vb.end)
    );
    Evidence::new(Signal::ValueChange, kind, p, expl)
}

/// Dates that time-stamp another figure ("as of April 2020", "by 2019") rather than state
/// an event.
pub fn is_timestamp(side: &Side, v: &Value) -> bool {
    let as_of = v.first >= 2
        && side.tokens[v.first - 2].norm == "as"
        && side.tokens[v.first - 1].norm == "of";
    v.class == Class::Date && (v.bounded || as_of)
}

/// Figures stamped with different times describe different moments, not conflicting facts.
/// Stamps are compared by the date stated, not the range a comparative opens: "by 20 April"
/// and "as of 12 April" are two moments even though one range contains the other.
pub fn different_moments(old: &Side, new: &Side) -> bool {
    let dates = |s: &Side| -> Vec<Value> {
        s.values
            .iter()
            .filter(|v| v.class == Class::Date)
            .cloned()
            .collect()
    };
    let (da, db) = (dates(old), dates(new));
    // "after April 17" is a later moment than "as of April 17".
    let same_moment = |a: &Value, b: &Value| {
        (a.nominal - b.nominal).abs() < 0.5 && a.comparative == b.comparative
    };
    // Only a stamp fixes the moment of a figure: a year both sides mention elsewhere (a shared
    // title such as "2020 pandemic in Washington") says nothing about when it was counted.
    let stamps = |s: &Side, d: &[Value]| -> Vec<Value> {
        d.iter().filter(|v| is_timestamp(s, v)).cloned().collect()
    };
    let (sa, sb) = (stamps(old, &da), stamps(new, &db));
    let matched = |stamps: &[Value], other: &[Value]| {
        stamps
            .iter()
            .any(|s| other.iter().any(|d| same_moment(s, d)))
    };
    // A figure without a stamp cannot be placed in time, so it is compared with any other.
    !sa.is_empty() && !sb.is_empty() && !matched(&sa, &db) && !matched(&sb, &da)
}

/// Tokens on each side of a value read as what it measures.
const REACH: usize = 6;
/// Content words after a figure that name what it counts ("6 *positive coronavirus* cases"
/// is a miss, "83 *deaths have* been reported" keeps the deaths apart from the counties).
const NOUN_WORDS: usize = 3;
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

/// What a value measures: the content words after it ("87 *people have recovered*", "32
/// *critics*"), or, when none follow, those before it ("an approval *rating* of 53%").
/// Neither crosses a clause or another value, so a list's figures keep their own nouns.
/// A life span, "(14 April 1891 -- 6 December 1956)", dates a birth and a death.
pub fn context<'s>(side: &'s Side, v: &Value) -> Vec<&'s str> {
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
