//! A stated bound against a stated figure: "more than 87 people have recovered" against "85
//! recoveries", "born after 1990" against "(born 1988)", "sold under 99,500 copies" against
//! "about 100,000 copies". A comparative is a claim about one quantity, so a figure of the
//! same measure outside it contradicts the claim even when the two memories share few other
//! words. Agents write the same kind of statement ("the queue holds more than 500 jobs" /
//! "the queue holds 120 jobs").

use super::evidence::Evidence;
use super::figures::{self, context};
use super::side::Side;
use super::value::{Class, Value};

/// Letters two stems must share from the start to name one measure ("recovered" /
/// "recoveries", "reviewed" / "reviews").
const SHARED_PREFIX: usize = 5;

/// The first bound of the new memory that a related figure of the stored one falls outside,
/// when no related figure of the stored one agrees with it (a list of figures never clashes
/// with one of its members).
pub fn violated(old: &Side, new: &Side) -> Option<Evidence> {
    let moments = figures::different_moments(old, new) || stamped_apart(old, new);
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
            return Some(figures::evidence(old, new, va, vb, p));
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
        .filter(|v| v.class == Class::Date && figures::is_timestamp(stamped, v))
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
