//! Comparatives turn a stated figure into a bound: "over 64" is (64, ∞) and agrees with 65,
//! "under 27" is (−∞, 27) and excludes 27. Strict bounds start at the stated figure rather than
//! its rounding range, and words that only bound points in time ("before", "by") apply to
//! dates alone.

use super::tokens::Token;
use super::value::{Class, Raw, Value};

/// Comparative phrases before a value, longest first, and how they bound it.
#[derive(Clone, Copy)]
enum Bound {
    Above,
    AtLeast,
    Below,
    AtMost,
    Near,
    About,
}

const BEFORE: &[(&str, Bound)] = &[
    ("more than", Bound::Above),
    ("greater than", Bound::Above),
    ("higher than", Bound::Above),
    ("larger than", Bound::Above),
    ("upwards of", Bound::Above),
    ("in excess of", Bound::Above),
    ("at least", Bound::AtLeast),
    ("no less than", Bound::AtLeast),
    ("less than", Bound::Below),
    ("fewer than", Bound::Below),
    ("lower than", Bound::Below),
    ("at most", Bound::AtMost),
    ("up to", Bound::AtMost),
    ("no more than", Bound::AtMost),
    ("close to", Bound::Near),
    ("over", Bound::Above),
    ("above", Bound::Above),
    ("exceeding", Bound::Above),
    ("after", Bound::Above),
    ("beyond", Bound::Above),
    ("under", Bound::Below),
    ("below", Bound::Below),
    ("before", Bound::Below),
    ("by", Bound::AtMost),
    ("until", Bound::AtMost),
    ("within", Bound::AtMost),
    ("nearly", Bound::Near),
    ("almost", Bound::Near),
    ("about", Bound::About),
    ("approximately", Bound::About),
    ("around", Bound::About),
    ("roughly", Bound::About),
    ("circa", Bound::About),
    ("estimated", Bound::About),
    ("some", Bound::About),
    ("超过", Bound::Above),
    ("多于", Bound::Above),
    ("少于", Bound::Below),
    ("不到", Bound::Below),
    ("约", Bound::About),
    ("大约", Bound::About),
    ("近", Bound::Near),
];

const AFTER: &[(&str, Bound)] = &[
    ("or more", Bound::AtLeast),
    ("or over", Bound::AtLeast),
    ("or less", Bound::AtMost),
    ("or fewer", Bound::AtMost),
    ("plus", Bound::AtLeast),
    ("以上", Bound::AtLeast),
    ("以下", Bound::AtMost),
    ("以内", Bound::AtMost),
    ("左右", Bound::About),
];

/// Comparatives that only bound points in time ("by 5%" is a difference, not a deadline).
const DATE_ONLY: &[&str] = &["after", "before", "by", "until"];

/// Tokens in `phrase`: one per CJK character, else one per word. Every value is tried against
/// every phrase, so nothing here allocates.
fn word_count(phrase: &str) -> usize {
    if phrase.chars().all(super::tokens::is_cjk) {
        phrase.chars().count()
    } else {
        phrase.split(' ').count()
    }
}

/// Whether the tokens `at..` (or ending just before `at` when `backwards`) spell `phrase`.
fn phrase_at(tokens: &[Token], at: usize, phrase: &str, backwards: bool) -> Option<usize> {
    let n = word_count(phrase);
    let start = if backwards { at.checked_sub(n)? } else { at };
    let slice = tokens.get(start..start + n)?;
    let spelled = if phrase.is_ascii() {
        slice
            .iter()
            .zip(phrase.split(' '))
            .all(|(t, w)| t.norm == w)
    } else {
        let one = |t: &Token, c: char| t.norm.chars().eq(std::iter::once(c));
        slice.iter().zip(phrase.chars()).all(|(t, c)| one(t, c))
    };
    spelled.then_some(start)
}

pub fn apply_comparatives(tokens: &[Token], text: &str, i: usize, raw: Raw) -> Value {
    let mut v = Value {
        class: raw.class,
        lo: raw.lo,
        hi: raw.hi,
        version: raw.version,
        first: i,
        end: raw.end,
        bounded: false,
        nominal: raw.nominal,
        comparative: "",
    };
    if v.class == Class::Version {
        return v;
    }
    // A phrase can only match when it ends with the word before the value (or starts with the
    // word after it): that cheap test spares spelling out every phrase at every value.
    let prev = i.checked_sub(1).map_or("", |p| tokens[p].norm.as_str());
    let applies = |p: &str| {
        !prev.is_empty() && p.ends_with(prev) && (v.class == Class::Date || !DATE_ONLY.contains(&p))
    };
    let next = tokens.get(v.end).map_or("", |t| t.norm.as_str());
    let before = BEFORE.iter().filter(|(p, _)| applies(p));
    if let Some((start, p, b)) = before
        .filter_map(|(p, b)| Some((phrase_at(tokens, i, p, true)?, *p, *b)))
        .next()
    {
        v.first = start;
        bound(&mut v, p, b);
    } else if let Some((p, b)) = AFTER.iter().find(|(p, _)| {
        !next.is_empty() && p.starts_with(next) && phrase_at(tokens, v.end, p, false).is_some()
    }) {
        v.end += word_count(p);
        bound(&mut v, p, *b);
    } else if text[tokens[v.end - 1].end..].starts_with('+') {
        bound(&mut v, "+", Bound::AtLeast);
    }
    v
}

/// Strict bounds start at the stated figure, not its rounding range: "less than 128,000"
/// admits 127,854.
fn bound(v: &mut Value, phrase: &'static str, b: Bound) {
    let dated = v.class == Class::Date;
    let eps = 1e-9 * v.hi.abs().max(1.0);
    let (top, bottom) = if dated {
        (v.hi, v.lo)
    } else {
        (v.nominal, v.nominal)
    };
    v.bounded = true;
    v.comparative = phrase;
    match b {
        Bound::Above => (v.lo, v.hi) = (top + eps, f64::INFINITY),
        Bound::AtLeast => (v.lo, v.hi) = (bottom.min(v.lo), f64::INFINITY),
        Bound::Below => (v.lo, v.hi) = (f64::NEG_INFINITY, bottom - eps),
        Bound::AtMost => (v.lo, v.hi) = (f64::NEG_INFINITY, top.max(v.hi)),
        Bound::Near => v.lo -= 0.1 * v.lo.abs(),
        Bound::About => (v.lo, v.hi) = (v.lo - 0.15 * v.lo.abs(), v.hi + 0.15 * v.hi.abs()),
    }
}
