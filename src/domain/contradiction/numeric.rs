//! Value changes: the same key carrying disjoint values. In a near-duplicate the key is the
//! shared context around the differing hunk; otherwise it is the nearby words (the counted noun
//! after a number, the event word before a date), and a value only conflicts when *no* value
//! with that key on the other side is consistent with it, so lists of figures do not clash
//! with one of their members.

use super::align::Alignment;
use super::align::NEAR_DUPLICATE;
use super::evidence::{At, Evidence};
use super::figures::{different_moments, evidence, is_timestamp, same_life_event};
use super::side::{Key, Side, Words};
use super::value::{Class, Value};
use super::words::{days_swapped, many_valued_object};

fn compatible(a: &Value, b: &Value) -> bool {
    a.class == b.class
}

/// Values inside the differing hunks of a near-duplicate, at most one per hunk.
pub fn aligned_change(old: &Side, new: &Side, al: &Alignment) -> Vec<Evidence> {
    let mut out = Vec::new();
    if al.ratio < NEAR_DUPLICATE {
        return out;
    }
    // A figure beside a swapped day is another event's ("wakes at 6 on weekdays" / "at 9 on
    // weekends").
    // Likewise beside another object of a many-valued verb: "visited Rome in 2019" / "visited
    // Paris in 2021" are two visits.
    let other_object = al
        .hunks
        .iter()
        .any(|h| !h.a.is_empty() && !h.b.is_empty() && many_valued_object(old, h.a.start));
    if days_swapped(old, new, al) || other_object {
        return out;
    }
    // Two versions of one statement, each "as of" its own date, are the same figure updated:
    // the newer states what is true now.
    let moments = different_moments(old, new) && !(as_of_stamped(old) && as_of_stamped(new));
    for (k, h) in al.hunks.iter().enumerate() {
        let inside = |s: &Side, r: &std::ops::Range<usize>| -> Vec<Value> {
            s.values
                .iter()
                .filter(|v| v.first < r.end.max(r.start + 1) && r.start < v.end)
                .cloned()
                .collect()
        };
        let (va, vb) = (inside(old, &h.a), inside(new, &h.b));
        for b in vb
            .iter()
            .filter(|v| !(moments && (v.class != Class::Date || is_timestamp(new, v))))
        {
            let recount = year_as_count(new, b, &va);
            let b = recount.as_ref().unwrap_or(b);
            let same: Vec<&Value> = va.iter().filter(|a| compatible(a, b)).collect();
            let changed = |a: &&Value| a.disjoint(b) || a.restated_differently(b);
            if let Some(a) = same.first().filter(|_| same.iter().all(changed)) {
                let e = evidence(old, new, a, b, 0.8 + 0.15 * al.ratio);
                out.push(e.at(At::Value(k)));
                break;
            }
        }
    }
    out
}

/// A bare four-digit number read as a year, in the slot where the other side states a plain
/// count ("187 confirmed cases" / "1870 confirmed cases"): aligned, it is the same count.
fn year_as_count(side: &Side, v: &Value, others: &[Value]) -> Option<Value> {
    let bare = v.class == Class::Date && v.end == v.first + 1 && !v.bounded;
    let count = others.iter().any(|o| o.class == Class::Count && !o.bounded);
    if !bare || !count || others.iter().any(|o| o.class == Class::Date) {
        return None;
    }
    let n: f64 = side.tokens[v.first].norm.parse().ok()?;
    Some(Value {
        class: Class::Count,
        lo: n,
        hi: n,
        nominal: n,
        ..v.clone()
    })
}

/// Whether the text stamps its figures "as of" a date (not "by" or "before" one, which bound
/// when something happened).
fn as_of_stamped(side: &Side) -> bool {
    side.values
        .iter()
        .any(|v| v.class == Class::Date && !v.bounded && is_timestamp(side, v))
}

/// Counts must name the same thing after the number ("399 deaths" / "390 deaths"); dates and
/// measured quantities may share any neighbour ("buried ... 1635" / "buried in 1636").
fn same_key(class: Class, a: &Key, b: &Key) -> bool {
    let shares = |x: &Words, y: &Words| !x.is_disjoint(y);
    match class {
        Class::Count | Class::Money => shares(&a.after, &b.after),
        _ => shares(&a.after, &b.after) || shares(&a.before, &b.before),
    }
}

/// Values with the same key in memories that are not versions of one statement.
pub fn keyed_change(old: &Side, new: &Side) -> Option<Evidence> {
    let moments = different_moments(old, new);
    let keys_a = &old.value_keys;
    for (vb, kb) in new
        .values
        .iter()
        .zip(&new.value_keys)
        .filter(|(v, _)| !(moments && (v.class != Class::Date || is_timestamp(new, v))))
    {
        let same: Vec<&Value> = old
            .values
            .iter()
            .zip(keys_a)
            .filter(|(va, ka)| compatible(va, vb) && same_key(vb.class, ka, kb))
            .filter(|(va, _)| same_life_event(old, va, new, vb))
            .map(|(va, _)| va)
            .collect();
        if let Some(va) = same
            .first()
            .filter(|_| same.iter().all(|va| va.disjoint(vb)))
        {
            let p = if vb.class.is_temporal() { 0.6 } else { 0.65 };
            return Some(evidence(old, new, va, vb, p));
        }
    }
    None
}

#[cfg(test)]
mod tests;
