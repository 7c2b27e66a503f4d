//! A conflict's history: every change of it (queued, resolved, reverted, auto-resolved) as one
//! entry, kept forever, so a reviewer can see who decided what, when and why, and an undo can
//! be undone again.

use std::str::FromStr;

use super::conflict::{Action, Strategy};
use super::time::Timestamp;

/// What happened to a conflict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryKind {
    /// Detected at write time or queued by a client.
    Queued,
    /// Resolved by a reviewer or an agent.
    Resolved,
    /// A resolution undone; the conflict is pending again.
    Reverted,
    /// Resolved by a configured policy at write time.
    AutoResolved,
}

impl HistoryKind {
    pub const ALL: [&'static str; 4] = ["queued", "resolved", "reverted", "auto_resolved"];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Resolved => "resolved",
            Self::Reverted => "reverted",
            Self::AutoResolved => "auto_resolved",
        }
    }
}

impl FromStr for HistoryKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "queued" => Ok(Self::Queued),
            "resolved" => Ok(Self::Resolved),
            "reverted" => Ok(Self::Reverted),
            "auto_resolved" => Ok(Self::AutoResolved),
            _ => Err(format!("must be one of {}", Self::ALL.join(", "))),
        }
    }
}

/// One change of a conflict.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryEntry {
    pub at: Timestamp,
    pub kind: HistoryKind,
    /// Who made the change: `resolved_by`, `reverted_by`, `policy:<name>`, or null.
    pub by: Option<String>,
    /// The name of the key that made it (null without keys, and for a sweep's queueing).
    pub key: Option<String>,
    /// The strategy applied (resolved, auto-resolved) or undone (reverted).
    pub resolution: Option<Strategy>,
    pub note: Option<String>,
    /// What the change did, in the order it did it.
    pub actions: Vec<Action>,
}

impl HistoryEntry {
    /// The first entry of every conflict.
    pub fn queued(at: Timestamp, note: Option<String>, key: Option<String>) -> Self {
        Self {
            at,
            kind: HistoryKind::Queued,
            by: None,
            key,
            resolution: None,
            note,
            actions: Vec::new(),
        }
    }
}

/// The prefix of `resolved_by` for conflicts a policy resolved (`policy:<name>`).
pub const POLICY_PREFIX: &str = "policy:";

/// Whether a `resolved_by` names a policy rather than a person or agent.
pub fn is_automatic(resolved_by: Option<&str>) -> bool {
    resolved_by.is_some_and(|by| by.starts_with(POLICY_PREFIX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_through_their_names() {
        for name in HistoryKind::ALL {
            assert_eq!(name.parse::<HistoryKind>().unwrap().as_str(), name);
        }
        assert!("deleted".parse::<HistoryKind>().is_err());
    }

    #[test]
    fn only_policy_names_are_automatic() {
        assert!(is_automatic(Some("policy:newer-sensor-wins")));
        assert!(!is_automatic(Some("alice")));
        assert!(!is_automatic(Some("policies")));
        assert!(!is_automatic(None));
    }
}
