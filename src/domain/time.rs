//! Timestamps are UTC with millisecond precision everywhere, so that both databases store the
//! same instant and a cursor built from a returned timestamp finds the row again.

use chrono::{DateTime, SecondsFormat, SubsecRound, Utc};

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

/// Parses any RFC 3339 timestamp, converts it to UTC and truncates it to milliseconds.
pub fn parse(text: &str) -> Option<Timestamp> {
    DateTime::parse_from_rfc3339(text.trim())
        .ok()
        .map(|t| t.with_timezone(&Utc).trunc_subsecs(3))
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
    fn garbage_is_not_a_timestamp() {
        assert_eq!(parse("yesterday"), None);
    }
}
