//! Valid time: a memory holds from its `observed_at` until its `valid_until` (open while
//! null), and a `corrected` memory never held. A resolution says why the losing side stops
//! holding: an **update** (it was true until the winner's `observed_at`) or a **correction**
//! (it was never true). Without a reason in the request, the winner's words choose it.

use std::str::FromStr;

use super::time::{self, Timestamp};
use super::validate::{Errors, FieldError};

/// Why the losing side of a resolution stops holding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reason {
    /// The old memory was true until the new one's `observed_at`.
    Update,
    /// The losing memory was never true.
    Correction,
}

impl Reason {
    pub const ALL: [&'static str; 2] = ["update", "correction"];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Update => "update",
            Self::Correction => "correction",
        }
    }
}

impl FromStr for Reason {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "update" => Ok(Self::Update),
            "correction" => Ok(Self::Correction),
            _ => Err("must be update or correction".into()),
        }
    }
}

/// Words that say the earlier statement was wrong rather than out of date. Anything else,
/// change announcements ("moved to", "now", "switched") included, reads as an update: an
/// agent that writes a new value more often reports a change than a mistake.
const CORRECTION_MARKERS: &[&str] = &[
    "actually",
    "in fact",
    "was wrong",
    "were wrong",
    "is wrong",
    "was incorrect",
    "is incorrect",
    "incorrectly",
    "mistake",
    "mistaken",
    "mistyped",
    "typo",
    "correction",
    "to correct",
    "corrected",
    "not true",
    "never was",
    "never were",
    "never had",
    "misremembered",
    "erroneous",
    "其实",
    "实际上",
    "更正",
    "搞错",
    "写错",
    "记错",
    "사실은",
    "정정",
];

/// The reason a winner's text gives for replacing the loser: a correction when it says the
/// earlier statement was wrong, else an update.
pub fn infer(winner_text: &str) -> Reason {
    let lower = winner_text.to_lowercase();
    let says = |marker: &str| {
        lower.match_indices(marker).any(|(at, m)| {
            // Whole words for Latin script: "actually" must not match inside "factually".
            let before = lower[..at].chars().next_back();
            let after = lower[at + m.len()..].chars().next();
            let letter = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphabetic());
            !m.is_ascii() || (!letter(before) && !letter(after))
        })
    };
    if CORRECTION_MARKERS.iter().any(|m| says(m)) {
        Reason::Correction
    } else {
        Reason::Update
    }
}

/// A point on both time axes: what held at `valid` (valid time) as concord knew it at
/// `known` (system time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PointInTime {
    pub valid: Timestamp,
    pub known: Timestamp,
}

impl PointInTime {
    /// `as_of` and `known_at` as a client sent them, each RFC 3339 and defaulting to `now`;
    /// `None` when both are absent (a current read). System time cannot be in the future:
    /// concord does not know yet what it will hold.
    pub fn parse(
        as_of: Option<&str>,
        known_at: Option<&str>,
        now: Timestamp,
    ) -> Result<Option<Self>, Vec<FieldError>> {
        if as_of.is_none() && known_at.is_none() {
            return Ok(None);
        }
        let mut e = Errors::default();
        let mut instant = |pointer: &str, text: Option<&str>| match text {
            None => Some(now),
            Some(t) => match time::parse(t) {
                Some(ts) if time::in_range(&ts) => Some(ts),
                _ => {
                    e.add(
                        pointer,
                        "must be an RFC 3339 instant between years 0000 and 9999",
                    );
                    None
                }
            },
        };
        let valid = instant("/as_of", as_of);
        let known = instant("/known_at", known_at);
        if known.is_some_and(|k| k > now) {
            e.add(
                "/known_at",
                "is in the future: concord cannot know yet what it will hold",
            );
        }
        e.finish(Self {
            valid: valid.unwrap_or(now),
            known: known.unwrap_or(now),
        })
        .map(Some)
    }
}

/// How a memory stands in valid time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Validity {
    pub valid_until: Option<Timestamp>,
    pub corrected: bool,
}

impl Validity {
    /// The loser's standing after a resolution for `reason`, the winner observed at `since`.
    /// An update never extends an earlier end, and never ends a memory before it began.
    pub fn ended(self, reason: Reason, observed_at: Timestamp, since: Timestamp) -> Self {
        match reason {
            Reason::Correction => Self {
                valid_until: self.valid_until,
                corrected: true,
            },
            Reason::Update => {
                let end = since.max(observed_at);
                Self {
                    valid_until: Some(self.valid_until.map_or(end, |u| u.min(end))),
                    corrected: self.corrected,
                }
            }
        }
    }

    /// Whether a memory observed at `observed_at` held at `at`.
    pub fn holds_at(self, observed_at: Timestamp, at: Timestamp) -> bool {
        !self.corrected && observed_at <= at && self.valid_until.is_none_or(|u| at < u)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::time;

    fn t(s: &str) -> Timestamp {
        time::parse(s).unwrap()
    }

    #[test]
    fn corrections_are_read_from_words_that_say_the_old_was_wrong() {
        for text in [
            "Actually, the port is 9090",
            "The earlier note was wrong: rent is 1500",
            "Correction: Bob lives in Leeds",
            "That was a typo, it is 30 seconds",
            "其实服务用的是 Postgres",
        ] {
            assert_eq!(infer(text), Reason::Correction, "{text}");
        }
        for text in [
            "Bob moved to Leeds",
            "My rent went up to 1800",
            "I switched to badminton",
            "We now deploy on Fridays",
            "The report is factually complete",
            "",
        ] {
            assert_eq!(infer(text), Reason::Update, "{text}");
        }
    }

    #[test]
    fn an_update_ends_the_loser_when_the_winner_began_and_a_correction_voids_it() {
        let open = Validity::default();
        let began = t("2026-01-01T00:00:00Z");
        let winner = t("2026-03-01T00:00:00Z");
        let updated = open.ended(Reason::Update, began, winner);
        assert_eq!(updated.valid_until, Some(winner));
        assert!(updated.holds_at(began, t("2026-02-28T23:59:59Z")));
        assert!(!updated.holds_at(began, winner));
        assert!(!updated.holds_at(began, t("2025-12-31T00:00:00Z")));
        // A winner observed before the loser began ends it at its own start: it held at no
        // instant after, rather than ending before it began.
        let early = open.ended(Reason::Update, winner, began);
        assert_eq!(early.valid_until, Some(winner));
        // An earlier end is kept.
        assert_eq!(
            updated.ended(Reason::Update, began, t("2026-05-01T00:00:00Z")),
            updated
        );
        let corrected = open.ended(Reason::Correction, began, winner);
        assert!(corrected.corrected);
        assert!(!corrected.holds_at(began, t("2026-02-01T00:00:00Z")));
    }
}
