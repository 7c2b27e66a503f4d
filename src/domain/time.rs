//! Timestamps are UTC with millisecond precision everywhere, so that both databases store the
//! same instant and a cursor built from a returned timestamp finds the row again. Only
//! instants from `0000-01-01T00:00:00.000Z` to `9999-12-31T23:59:59.999Z` exist for concord:
//! RFC 3339 has four-digit years, and SQLite's text columns sort only those correctly.

use chrono::{DateTime, Datelike, SecondsFormat, SubsecRound, Utc};

pub type Timestamp = DateTime<Utc>;

/// The current time, truncated to milliseconds.
pub fn now() -> Timestamp {
    Utc::now().trunc_subsecs(3)
}

/// RFC 3339 with milliseconds and `Z`, the only form concord writes (`2026-11-22T18:13:00.123Z`).
/// Its lexical order is its chronological order, which SQLite's text columns rely on.
pub fn format(ts: &Timestamp) -> String {
    ts.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Whether an instant has a four-digit year in UTC, so that [`format`] writes valid RFC 3339.
pub fn in_range(ts: &Timestamp) -> bool {
    (0..=9999).contains(&ts.year())
}

/// Parses any RFC 3339 timestamp, converts it to UTC and truncates it to milliseconds. An
/// offset that moves the instant before year 0 or past year 9999
/// (`9999-12-31T23:59:59-23:59`) makes it no timestamp: its UTC form has no RFC 3339 spelling.
pub fn parse(text: &str) -> Option<Timestamp> {
    DateTime::parse_from_rfc3339(text.trim())
        .ok()
        .map(|t| t.with_timezone(&Utc).trunc_subsecs(3))
        .filter(in_range)
}

/// The `YYYY-MM-DD` day used in merge separators.
pub fn day(ts: &Timestamp) -> String {
    ts.format("%Y-%m-%d").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formatting_round_trips_through_parse() {
        let t = now();
        assert_eq!(parse(&format(&t)), Some(t));
        assert!(format(&t).ends_with('Z'));
    }

    #[test]
    fn offsets_are_converted_to_utc_and_truncated() {
        let t = parse("2026-01-02T03:04:05.678999+02:00").unwrap();
        assert_eq!(format(&t), "2026-01-02T01:04:05.678Z");
    }

    #[test]
    fn instants_outside_years_0_to_9999_are_not_timestamps() {
        for text in [
            "9999-12-31T23:59:59-23:59",
            "9999-12-31T23:59:59.999-00:01",
            "0000-01-01T00:00:00+00:01",
            "0000-01-01T00:00:00.000+23:59",
        ] {
            assert_eq!(parse(text), None, "{text}");
        }
    }

    #[test]
    fn the_first_and_last_instants_round_trip_as_rfc_3339() {
        for text in ["0000-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z"] {
            let t = parse(text).expect(text);
            assert_eq!(format(&t), text);
        }
        let t = parse("9999-12-31T23:59:59.999+00:00").unwrap();
        assert_eq!(format(&t), "9999-12-31T23:59:59.999Z");
        let t = parse("0000-01-01T23:59:00-00:00").unwrap();
        assert_eq!(format(&t), "0000-01-01T23:59:00.000Z");
    }

    #[test]
    fn garbage_is_not_a_timestamp() {
        assert_eq!(parse("yesterday"), None);
    }
}
