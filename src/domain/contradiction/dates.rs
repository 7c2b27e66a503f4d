//! Calendar dates become ranges of day numbers whose width is their precision, so a year
//! contains each of its days and "3 October 1635" agrees with "1635" but not with "1636".
//! A day and month without a year is not read: it cannot be placed on the line.

use super::lexicon::month;
use super::tokens::{Kind, Token};
use super::value::{Class, Raw, next_is};

/// Day number of a calendar date; months are 32 days wide so partial dates nest cleanly.
fn day_number(y: f64, m: u32, d: u32) -> f64 {
    y * 416.0 + f64::from(m) * 32.0 + f64::from(d)
}

fn date_raw(y: f64, m: Option<u32>, d: Option<u32>, end: usize) -> Raw {
    let lo = day_number(y, m.unwrap_or(1), d.unwrap_or(1));
    let hi = day_number(y, m.unwrap_or(12), d.unwrap_or(31));
    Raw {
        class: Class::Date,
        lo,
        hi,
        nominal: lo,
        version: String::new(),
        end,
    }
}

pub fn year_raw(y: f64, end: usize) -> Raw {
    date_raw(y, None, None, end)
}

pub fn decade_raw(y: f64, end: usize) -> Raw {
    let mut r = date_raw(y, None, None, end);
    r.hi = day_number(y + 9.0, 12, 31);
    r
}

fn small_int(t: &Token, max: u32) -> Option<u32> {
    let digits = t.norm.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let n: u32 = digits.parse().ok()?;
    (t.kind == Kind::Number && (1..=max).contains(&n)).then_some(n)
}

fn year_at(tokens: &[Token], i: usize) -> Option<f64> {
    let t = tokens.get(i)?;
    let n: f64 = t.norm.parse().ok()?;
    (t.kind == Kind::Number && t.norm.len() == 4 && (1000.0..=2100.0).contains(&n)).then_some(n)
}

/// Calendar dates: ISO "2024-03-01", "3 October 1635", "October 3, 1635", "March 2021",
/// "2024年3月1日". A date without a year is not read: it cannot be placed on the day line.
pub fn read_date(tokens: &[Token], text: &str, i: usize) -> Option<Raw> {
    let t = &tokens[i];
    if let Some(y) = year_at(tokens, i) {
        return iso_or_cjk_date(tokens, text, i, y);
    }
    if let (Some(d), Some(m)) = (
        small_int(t, 31),
        tokens.get(i + 1).and_then(|x| month(&x.norm)),
    ) {
        let y = year_at(tokens, i + 2)?;
        return Some(date_raw(y, Some(m), Some(d), i + 3));
    }
    let m = month(&t.norm)?;
    if let Some(y) = year_at(tokens, i + 1) {
        return Some(date_raw(y, Some(m), None, i + 2));
    }
    let d = small_int(tokens.get(i + 1)?, 31)?;
    let y = year_at(tokens, i + 2)?;
    Some(date_raw(y, Some(m), Some(d), i + 3))
}

fn iso_or_cjk_date(tokens: &[Token], text: &str, i: usize, y: f64) -> Option<Raw> {
    let joined = |j: usize, sep: &str| {
        tokens
            .get(j + 1)
            .is_some_and(|n| text[tokens[j].end..n.start] == *sep)
    };
    if joined(i, "-") && joined(i + 1, "-") {
        let m = small_int(tokens.get(i + 1)?, 12)?;
        let d = small_int(tokens.get(i + 2)?, 31)?;
        return Some(date_raw(y, Some(m), Some(d), i + 3));
    }
    if !next_is(tokens, i + 1, &["年"]) {
        return None;
    }
    let m = tokens
        .get(i + 2)
        .and_then(|t| small_int(t, 12))
        .filter(|_| next_is(tokens, i + 3, &["月"]));
    let d = m.and(tokens.get(i + 4)).and_then(|t| small_int(t, 31));
    let d = d.filter(|_| next_is(tokens, i + 5, &["日", "号"]));
    let end = i
        + 2
        + if d.is_some() {
            4
        } else if m.is_some() {
            2
        } else {
            0
        };
    Some(date_raw(y, m, d, end))
}
