//! "As of" stamps: a memory that says when its statement holds ("As of March 2024, the team
//! has 12 engineers") carries its own valid time, whatever day it was written. Two such
//! statements are ordered by their stamps, so the earlier stamp is history even when it is
//! written last. Policies read the stamp as the side's valid time (`domain::policy`).
//!
//! English forms only: `as of 2024-03-01`, `as of March 2024`, `as of March 1, 2024`,
//! `as of 1 March 2024`, `as of 2024`. A relative stamp ("as of today") is not a date.

use chrono::{NaiveDate, TimeZone, Utc};

use super::time::Timestamp;

/// How much of a text is read for a stamp (a stamp sits near the statement's start).
const READ_BYTES: usize = 2_000;

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// The instant a text's "as of" stamp names (the start of its day, month or year, UTC);
/// none without a stamp, or when its stamps name different instants.
pub fn stamped(text: &str) -> Option<Timestamp> {
    let end = (0..=READ_BYTES.min(text.len()))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let lower = text[..end].to_lowercase();
    let mut found: Option<Timestamp> = None;
    for (at, m) in lower.match_indices("as of ") {
        let word_start = lower[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        let Some(date) = word_start
            .then(|| date_at(&lower[at + m.len()..]))
            .flatten()
        else {
            continue;
        };
        match found {
            Some(d) if d != date => return None,
            _ => found = Some(date),
        }
    }
    found
}

/// The date a stamp's words start with.
fn date_at(rest: &str) -> Option<Timestamp> {
    let words: Vec<&str> = rest
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .take(3)
        .map(|w| w.trim_end_matches(['.', ';', ':', ')']))
        .collect();
    let first = *words.first()?;
    let day = |w: &str| -> Option<u32> {
        let digits = w.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        let ordinal = ["st", "nd", "rd", "th", ""].contains(&&w[digits.len()..]);
        (ordinal && (1..=2).contains(&digits.len()))
            .then(|| digits.parse().ok())
            .flatten()
    };
    let date = if let Some(d) = iso(first) {
        d
    } else if let Some(m) = month(first) {
        // "March 2024" or "March 1, 2024".
        match (words.get(1).copied().and_then(day), words.get(2).copied()) {
            (Some(d), Some(y)) => NaiveDate::from_ymd_opt(year(y)?, m, d)?,
            _ => NaiveDate::from_ymd_opt(year(words.get(1)?)?, m, 1)?,
        }
    } else if let Some(d) = day(first) {
        // "1 March 2024".
        NaiveDate::from_ymd_opt(year(words.get(2)?)?, month(words.get(1)?)?, d)?
    } else {
        NaiveDate::from_ymd_opt(year(first)?, 1, 1)?
    };
    Some(Utc.from_utc_datetime(&date.and_hms_opt(0, 0, 0)?))
}

fn iso(w: &str) -> Option<NaiveDate> {
    (w.len() == 10)
        .then(|| NaiveDate::parse_from_str(w, "%Y-%m-%d").ok())
        .flatten()
}

fn month(w: &str) -> Option<u32> {
    let w = w.trim_end_matches('.');
    (w.len() >= 3)
        .then(|| MONTHS.iter().position(|m| m.starts_with(w)))
        .flatten()
        .filter(|&i| w.len() == MONTHS[i].len() || w.len() == 3 || w == "sept")
        .map(|i| i as u32 + 1)
}

fn year(w: &str) -> Option<i32> {
    (w.len() == 4 && w.bytes().all(|b| b.is_ascii_digit()))
        .then(|| w.parse().ok())
        .flatten()
        .filter(|y| (1000..3000).contains(y))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::time;

    fn day(s: &str) -> Option<Timestamp> {
        time::parse(&format!("{s}T00:00:00Z"))
    }

    #[test]
    fn each_written_form_names_its_date() {
        for (text, date) in [
            ("As of 2024-03-05, rent is 1500.", "2024-03-05"),
            ("As of March 2024, the team has 12 engineers.", "2024-03-01"),
            ("as of March 5, 2024 the office is in Lyon", "2024-03-05"),
            ("As of Sept. 5th, 2024: 40 cases.", "2024-09-05"),
            (
                "The album sold 10 million copies as of 5 March 2024.",
                "2024-03-05",
            ),
            (
                "As of 2020, the album sold 10 million copies.",
                "2020-01-01",
            ),
            ("Sales as of Dec 2019 were flat", "2019-12-01"),
        ] {
            assert_eq!(stamped(text), day(date), "{text}");
        }
    }

    #[test]
    fn no_date_or_disagreeing_dates_are_no_stamp() {
        for text in [
            "As of today the key is 5 units.",
            "As of now, Ana works at Initech.",
            "The rent is 1500.",
            "Alias of 2024 release",
            "As of March 2024 it was 3; as of May 2024 it was 4.",
            "As of 30 February 2024 nothing.",
            "As of 12345, a number.",
        ] {
            assert_eq!(stamped(text), None, "{text}");
        }
        assert_eq!(
            stamped("As of 2024-05-01 it is 4, as of 2024-05-01 still."),
            day("2024-05-01")
        );
    }
}
