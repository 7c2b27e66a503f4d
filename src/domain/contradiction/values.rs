//! Typed values: numbers are read as *intervals* in a canonical unit, so that two statements
//! contradict only when their intervals are disjoint. Comparatives widen a value into a bound
//! ("over 64" is (64, ∞) and therefore agrees with 65), units are normalised ("60s" and
//! "1 minute" are both 60 seconds), round figures carry their rounding error, and dates become
//! day ranges whose width is their precision ("1635" contains "3 October 1635").

use super::comparatives::apply_comparatives;
use super::dates::{decade_raw, read_date, year_raw};
use super::lexicon::{month, number_word, scale_word};
use super::tokens::{Kind, Token};
use super::value::{Class, Raw, Value, next_is};

pub fn extract(tokens: &[Token], text: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match read_raw(tokens, text, i) {
            Some(raw) => {
                let next = raw.end;
                out.push(apply_comparatives(tokens, text, i, raw));
                i = next;
            }
            None => i += 1,
        }
    }
    out
}

fn read_raw(tokens: &[Token], text: &str, i: usize) -> Option<Raw> {
    let t = &tokens[i];
    // Most tokens are plain words: only numbers, months, number words and versions open a value.
    if t.kind != Kind::Number
        && month(&t.norm).is_none()
        && (t.kind != Kind::Word || (!t.norm.starts_with('v') && number_word(&t.norm).is_none()))
    {
        return None;
    }
    if let Some(raw) = read_date(tokens, text, i).or_else(|| read_clock(tokens, text, i)) {
        return Some(raw);
    }
    if is_label_part(tokens, text, i) {
        return None;
    }
    if t.kind == Kind::Word {
        if let Some(v) = version_of(&t.norm) {
            return Some(version_raw(v, i + 1));
        }
        let n = number_word(&t.norm)?;
        return Some(quantity(tokens, text, i, n, ""));
    }
    if t.kind != Kind::Number {
        return None;
    }
    if t.norm.matches('.').count() >= 2 {
        return Some(version_raw(t.norm.to_string(), i + 1));
    }
    let split = t
        .norm
        .find(|c: char| !(c.is_ascii_digit() || c == ',' || c == '.'));
    let (digits, suffix) = t.norm.split_at(split.unwrap_or(t.norm.len()));
    let n = parse_number(digits)?;
    Some(quantity(tokens, text, i, n, suffix))
}

/// A time of day: "9:30", "10:00", "14:05", "9:30 pm". Times of day are values ("Standup is at
/// 9:30" / "at 10:00"), never quantities or names.
fn read_clock(tokens: &[Token], text: &str, i: usize) -> Option<Raw> {
    let (h, m) = (&tokens[i], tokens.get(i + 1)?);
    let whole = |t: &Token| t.kind == Kind::Number && t.norm.chars().all(|c| c.is_ascii_digit());
    if !whole(h) || !whole(m) || &text[h.end..m.start] != ":" || m.norm.len() != 2 {
        return None;
    }
    if i > 0 && &text[tokens[i - 1].end..h.start] == ":" {
        return None;
    }
    let (mut hour, minute): (f64, f64) = (h.norm.parse().ok()?, m.norm.parse().ok()?);
    let mut end = i + 2;
    match tokens.get(end).map(|t| t.norm.as_str()) {
        Some("pm" | "p.m") if hour < 12.0 => {
            hour += 12.0;
            end += 1;
        }
        Some("am" | "a.m") => end += 1,
        _ => {}
    }
    if hour > 24.0 || minute >= 60.0 {
        return None;
    }
    let at = hour * 60.0 + minute;
    Some(Raw {
        class: Class::Clock,
        lo: at,
        hi: at,
        nominal: at,
        version: String::new(),
        end,
    })
}

/// Numbers that are parts of names or clock times ("COVID-19", "11:30"), a day of a month
/// without a year ("April 15"), or a number naming its noun ("service 3") are not quantities.
/// Called after full dates were tried.
fn is_label_part(tokens: &[Token], text: &str, i: usize) -> bool {
    let t = &tokens[i];
    let glued = |a: &Token, b: &Token, sep: &str| text[a.end..b.start] == *sep;
    let prev = i.checked_sub(1).map(|p| &tokens[p]);
    let next = tokens.get(i + 1);
    let named = prev.is_some_and(|p| glued(p, t, "-") && p.kind == Kind::Word);
    let clock = prev.is_some_and(|p| glued(p, t, ":") && p.kind == Kind::Number)
        || next.is_some_and(|n| glued(t, n, ":") && n.kind == Kind::Number);
    let day = t.kind == Kind::Number
        && t.norm.len() <= 4
        && (prev.is_some_and(|p| month(&p.norm).is_some())
            || next.is_some_and(|n| month(&n.norm).is_some()));
    named || clock || day || names_subject(tokens, text, i)
}

/// Words that introduce a noun phrase: a numbered noun right after one of these is a name
/// ("for service 3", "in room 12"), while after a verb the number counts ("won 3 titles").
const NOUN_OPENERS: &[&str] = &[
    "the", "a", "an", "for", "of", "in", "on", "at", "to", "from", "with", "by", "each", "every",
    "per", "and", "or", "this", "that", "our", "their", "its", "his", "her", "my", "your",
];

/// Whether the integer at `i` is the number of the noun before it, which it names: "service 3",
/// "Room 12", "Terminal 2". The noun is capitalised or opens a noun phrase, the number has no
/// unit or grouping, and no counted noun follows it ("the ward 3 beds" is not a name).
pub fn names_subject(tokens: &[Token], text: &str, i: usize) -> bool {
    let t = &tokens[i];
    if t.kind != Kind::Number || !t.norm.chars().all(|c| c.is_ascii_digit()) || i == 0 {
        return false;
    }
    let noun = &tokens[i - 1];
    let plain_gap = |a: &Token, b: &Token| text[a.end..b.start].chars().all(char::is_whitespace);
    let is_noun = noun.kind == Kind::Word
        && noun.is_content()
        && plain_gap(noun, t)
        && month(&noun.norm).is_none()
        && number_word(&noun.norm).is_none()
        && scale_word(&noun.norm).is_none()
        && unit(&noun.norm).is_none();
    // "born 1988", "founded 1900": a year after an event word dates it, it names nothing.
    let year_of_event = t.norm.len() == 4
        && (noun.norm == "born" || (noun.norm.len() > 4 && noun.norm.ends_with("ed")));
    if !is_noun || year_of_event {
        return false;
    }
    let capitalised = text[noun.start..noun.end]
        .chars()
        .next()
        .is_some_and(char::is_uppercase);
    let opened = match i.checked_sub(2).map(|p| &tokens[p]) {
        None => true,
        Some(p) => {
            NOUN_OPENERS.contains(&p.norm.as_str())
                || text[p.end..noun.start].contains(['.', '!', '?', '\n', ',', ':', ';', '('])
        }
    };
    // A counted noun is plural, or counted by one: "3 beds", "1 bed"; "service 0 disk quota"
    // names service 0 and then its disk quota.
    let counted = |n: &Token| {
        let plural = n.norm.len() > 3 && n.norm.ends_with('s') && !n.norm.ends_with("ss");
        let irregular = matches!(
            n.norm.as_str(),
            "people"
                | "children"
                | "men"
                | "women"
                | "staff"
                | "feet"
                | "teeth"
                | "mice"
                | "geese"
                | "persons"
                | "cattle"
                | "personnel"
                | "police"
        );
        plural || irregular || t.norm == "1"
    };
    let counts_next = tokens.get(i + 1).is_some_and(|n| {
        n.is_content() && plain_gap(t, n) && !text[t.end..n.start].is_empty() && counted(n)
    });
    (capitalised || opened) && !counts_next && !currency_precedes(text, t.start)
}

fn version_of(word: &str) -> Option<String> {
    let rest = word.strip_prefix('v')?;
    let ok = rest.starts_with(|c: char| c.is_ascii_digit())
        && rest.chars().all(|c| c.is_ascii_digit() || c == '.');
    ok.then(|| rest.to_string())
}

fn version_raw(v: String, end: usize) -> Raw {
    let v = v.trim_start_matches('v').trim_end_matches(".0").to_string();
    Raw {
        class: Class::Version,
        lo: 0.0,
        hi: 0.0,
        nominal: 0.0,
        version: v,
        end,
    }
}

fn parse_number(digits: &str) -> Option<f64> {
    let grouped = digits.contains(',') && digits.split(',').skip(1).all(|g| g.len() == 3);
    let clean = if grouped {
        digits.replace(',', "")
    } else {
        digits.to_string()
    };
    clean.trim_end_matches('.').parse::<f64>().ok()
}

/// Half of the last significant place of a figure: "52,000" may stand for 51,500..52,500.
fn rounding(digits: &str, n: f64) -> f64 {
    if digits.contains('.') {
        let decimals = digits.rsplit('.').next().map_or(0, str::len) as i32;
        return 0.5 * 10f64.powi(-decimals);
    }
    let plain = digits.replace(',', "");
    let zeros = plain.len() - plain.trim_end_matches('0').len();
    if n >= 1000.0 && zeros >= 2 {
        0.5 * 10f64.powi(zeros as i32)
    } else {
        0.0
    }
}

/// Reads unit, scale and class of a number whose value is `n` at token `i`.
fn quantity(tokens: &[Token], text: &str, i: usize, n: f64, suffix: &str) -> Raw {
    let t = &tokens[i];
    let digits = &t.norm[..t.norm.len() - suffix.len()];
    let mut end = i + 1;
    let mut n = n;
    let mut tol = if t.kind == Kind::Number {
        rounding(digits, n)
    } else {
        0.0
    };
    if let Some(scale) = tokens.get(end).and_then(|x| scale_word(&x.norm)) {
        // "21 million" is a rounded figure: anything that rounds to it is consistent.
        tol = if digits.contains('.') {
            tol * scale
        } else {
            0.5 * scale
        };
        n *= scale;
        end += 1;
    }
    let mut class = Class::Count;
    let mut factor = 1.0;
    if percent_follows(text, tokens[end - 1].end) || next_is(tokens, end, &["percent"]) {
        class = Class::Percent;
        end += usize::from(next_is(tokens, end, &["percent"]));
    } else if let Some((c, f)) = unit(suffix) {
        (class, factor) = (c, f);
    } else if let Some((c, f)) = tokens.get(end).and_then(|x| unit(&x.norm)) {
        (class, factor) = (c, f);
        end += 1;
    } else if currency_precedes(text, t.start) {
        class = Class::Money;
    }
    if class == Class::Count && is_year(digits, suffix, n) {
        return year_raw(n, end);
    }
    if suffix == "s" && class == Class::Duration && n >= 1000.0 && n % 10.0 == 0.0 {
        return decade_raw(n, end);
    }
    let (lo, hi) = ((n - tol) * factor, (n + tol) * factor);
    Raw {
        class,
        lo,
        hi,
        nominal: n * factor,
        version: String::new(),
        end,
    }
}

fn is_year(digits: &str, suffix: &str, n: f64) -> bool {
    digits.len() == 4
        && !digits.contains([',', '.'])
        && suffix.is_empty()
        && (1000.0..=2100.0).contains(&n)
}

fn percent_follows(text: &str, at: usize) -> bool {
    text[at..].trim_start().starts_with(['%', '％'])
}

fn currency_precedes(text: &str, at: usize) -> bool {
    text[..at].trim_end().ends_with(['$', '€', '£', '¥'])
}

/// Canonical class and factor of a unit word or suffix.
fn unit(u: &str) -> Option<(Class, f64)> {
    let d = |f: f64| Some((Class::Duration, f));
    let b = |f: f64| Some((Class::Bytes, f));
    match u {
        "ms" | "millisecond" | "milliseconds" | "毫秒" => d(0.001),
        "s" | "sec" | "secs" | "second" | "seconds" | "秒" => d(1.0),
        "m" | "min" | "mins" | "minute" | "minutes" | "分钟" => d(60.0),
        "h" | "hr" | "hrs" | "hour" | "hours" | "小时" | "时" => d(3600.0),
        "d" | "day" | "days" | "天" => d(86400.0),
        "week" | "weeks" | "周" => d(604_800.0),
        "b" | "byte" | "bytes" => b(1.0),
        "kb" | "kib" => b(1024.0),
        "mb" | "mib" => b(1024.0 * 1024.0),
        "gb" | "gib" => b(1024.0 * 1024.0 * 1024.0),
        "tb" | "tib" => b(1024f64.powi(4)),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
