//! Conflicts: a new piece of knowledge that contradicts an old node, waiting for (or having had)
//! a human or agent verdict. The detection, recommendation and actions are stored as JSON, so
//! their shapes are defined here once for both databases and the wire.

use std::str::FromStr;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::node::Node;
use super::time::Timestamp;

pub const CONFLICT_TYPES: [&str; 4] = [
    "direct-contradiction",
    "numeric-mismatch",
    "temporal-mismatch",
    "scope-mismatch",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Pending,
    Resolved,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Resolved => "resolved",
        }
    }
}

impl FromStr for Status {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "pending" => Ok(Self::Pending),
            "resolved" => Ok(Self::Resolved),
            _ => Err("must be pending or resolved".into()),
        }
    }
}

/// The four resolution strategies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    NewIsCurrent,
    OldIsCurrent,
    KeepBoth,
    Merge,
}

impl Strategy {
    pub const ALL: [&'static str; 4] = ["new_is_current", "old_is_current", "keep_both", "merge"];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::NewIsCurrent => "new_is_current",
            Self::OldIsCurrent => "old_is_current",
            Self::KeepBoth => "keep_both",
            Self::Merge => "merge",
        }
    }
}

impl FromStr for Strategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "new_is_current" => Ok(Self::NewIsCurrent),
            "old_is_current" => Ok(Self::OldIsCurrent),
            "keep_both" => Ok(Self::KeepBoth),
            "merge" => Ok(Self::Merge),
            _ => Err(format!("must be one of {}", Self::ALL.join(", "))),
        }
    }
}

/// How a conflict was found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Detection {
    pub tier: String,
    pub probability: f64,
    pub signals: Vec<String>,
    pub overlap: Option<f64>,
    pub similarity: Option<f64>,
    pub explanation: String,
    /// Why a configured LLM tier did not give the verdict (timeout, error), when it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llm_fallback: Option<String>,
    /// The resolution policy that fired on the conflict at write time (or would have, in a
    /// dry run), when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<super::policy::PolicyMark>,
}

impl Detection {
    pub fn manual() -> Self {
        Self {
            tier: "manual".into(),
            probability: 1.0,
            signals: Vec::new(),
            overlap: None,
            similarity: None,
            explanation: "queued by a client".into(),
            llm_fallback: None,
            policy: None,
        }
    }
}

/// What concord suggests a reviewer do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recommendation {
    /// `prefer-recent`, `prefer-authoritative` or `escalate-to-user`.
    pub resolution: String,
    /// The strategy it suggests; null for `escalate-to-user`.
    pub strategy: Option<Strategy>,
    pub reasoning: String,
}

/// What the detector found and what concord suggests, as two sentences: the detector's
/// explanation ("value changed: 30 vs 60") is a phrase, so it gets its stop.
pub fn found_and_suggested(explanation: &str, reasoning: &str) -> String {
    let explanation = explanation.trim();
    let stop = if explanation.ends_with(['.', '!', '?']) || explanation.is_empty() {
        ""
    } else {
        "."
    };
    format!("{explanation}{stop} {}", reasoning.trim())
        .trim()
        .to_owned()
}

/// One step a resolution (or a revert) executed, as reported to the client and stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    NodeCreated {
        summary: String,
        node_id: Uuid,
    },
    NodeStateChanged {
        summary: String,
        node_id: Uuid,
        from: String,
        to: String,
    },
    EdgeCreated {
        summary: String,
        edge_id: Uuid,
        kind: String,
        source_id: Uuid,
        target_id: Uuid,
    },
    NodeBodyMerged {
        summary: String,
        node_id: Uuid,
        chars_added: i64,
    },
    EdgesMoved {
        summary: String,
        from_node_id: Uuid,
        to_node_id: Uuid,
        count: u64,
    },
    NodeDeleted {
        summary: String,
        node_id: Uuid,
    },
    ConflictResolved {
        summary: String,
        conflict_id: Uuid,
    },
    /// A revert deleted an edge its resolution created.
    EdgeDeleted {
        summary: String,
        edge_id: Uuid,
        kind: String,
        source_id: Uuid,
        target_id: Uuid,
    },
    /// A revert re-created the node a merge deleted.
    NodeRestored {
        summary: String,
        node_id: Uuid,
    },
    /// A revert put back the body and labels a merge replaced.
    NodeBodyRestored {
        summary: String,
        node_id: Uuid,
    },
}

impl Action {
    /// The `action` tag, e.g. `edge_created`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::NodeCreated { .. } => "node_created",
            Self::NodeStateChanged { .. } => "node_state_changed",
            Self::EdgeCreated { .. } => "edge_created",
            Self::NodeBodyMerged { .. } => "node_body_merged",
            Self::EdgesMoved { .. } => "edges_moved",
            Self::NodeDeleted { .. } => "node_deleted",
            Self::ConflictResolved { .. } => "conflict_resolved",
            Self::EdgeDeleted { .. } => "edge_deleted",
            Self::NodeRestored { .. } => "node_restored",
            Self::NodeBodyRestored { .. } => "node_body_restored",
        }
    }
}

/// A conflict with both sides in full.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict {
    pub id: Uuid,
    pub status: Status,
    pub conflict_type: String,
    pub old_node_id: Option<Uuid>,
    pub new_node_id: Option<Uuid>,
    pub old_node: Option<Node>,
    pub new_node: Option<Node>,
    pub new_content: Option<String>,
    pub detection: Detection,
    pub recommendation: Recommendation,
    pub resolution: Option<Strategy>,
    pub resolved_at: Option<Timestamp>,
    pub resolved_by: Option<String>,
    pub note: Option<String>,
    pub actions: Option<Vec<Action>>,
    pub created_at: Timestamp,
    /// Monotonic sequence number: the wake cursor and the SSE event id.
    pub seq: i64,
}

impl Conflict {
    /// The text of the new side: the new node's body, or the stored content.
    pub fn new_text(&self) -> Option<&str> {
        self.new_node
            .as_ref()
            .map(|n| n.body.as_str())
            .or(self.new_content.as_deref())
    }
}

/// A conflict to be queued.
#[derive(Debug, Clone, PartialEq)]
pub struct NewConflict {
    pub id: Uuid,
    pub old_node_id: Uuid,
    pub new_node_id: Option<Uuid>,
    pub new_content: Option<String>,
    pub conflict_type: String,
    pub detection: Detection,
    pub recommendation: Recommendation,
    pub note: Option<String>,
    pub created_at: Timestamp,
    /// The name of the key whose write queued it (null without keys, and for a sweep's).
    pub key: Option<String>,
}

impl NewConflict {
    /// The key that makes a pending conflict unique per (old, new) pair: the new node's id or
    /// a digest of the new content (content can be up to 1 MiB, too long for an index).
    pub fn new_key(&self) -> String {
        new_key(self.new_node_id, self.new_content.as_deref())
    }
}

pub fn new_key(new_node_id: Option<Uuid>, new_content: Option<&str>) -> String {
    use sha2::{Digest, Sha256};
    match (new_node_id, new_content) {
        (Some(id), _) => id.to_string(),
        (None, content) => {
            let digest = Sha256::digest(content.unwrap_or_default().as_bytes());
            format!("sha256:{}", hex(&digest))
        }
    }
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Filters of `GET /conflicts`.
#[derive(Debug, Clone, Default)]
pub struct ConflictFilter {
    /// None means all.
    pub status: Option<Status>,
    pub conflict_type: Option<String>,
    pub label: Option<String>,
    /// Only conflicts resolved by exactly this name, or, when it ends in `*`, by any name that
    /// starts with what comes before (`policy:*`, `mcp:*`).
    pub resolved_by: Option<String>,
    /// Only conflicts a policy resolved (`true`) or not (`false`).
    pub auto: Option<bool>,
    pub newest_first: bool,
    pub limit: usize,
    pub after: Option<super::cursor::Cursor>,
    /// The caller's scope patterns (`Caller::visible`); every scope when `None`.
    pub scopes: Option<String>,
}

impl Conflict {
    /// Whether a key with the scope patterns `scopes` (`Caller::visible`; `None`: every
    /// scope) sees the conflict: both of its memories that still exist are in its scopes, and
    /// one does. The rule of every conflict read.
    pub fn seen_by(&self, scopes: Option<&str>) -> bool {
        let sides = [&self.old_node, &self.new_node];
        sides.iter().any(|n| n.is_some())
            && sides.iter().all(|n| {
                n.as_ref()
                    .is_none_or(|n| super::access::in_scopes(Some(&n.scope), scopes))
            })
    }
}

/// `GET /conflicts/stats`.
#[derive(Debug, Clone, PartialEq)]
pub struct ConflictStats {
    pub pending: i64,
    pub resolved: i64,
    pub by_type: Vec<(String, i64)>,
    pub oldest_pending_at: Option<Timestamp>,
}

#[cfg(test)]
mod reasoning_tests {
    use super::found_and_suggested;

    #[test]
    fn a_finding_and_a_suggestion_read_as_two_sentences() {
        assert_eq!(
            found_and_suggested(
                "value changed: 30 vs 60",
                "The new side was observed later."
            ),
            "value changed: 30 vs 60. The new side was observed later."
        );
        assert_eq!(
            found_and_suggested("Negated.", " Ask the user. "),
            "Negated. Ask the user."
        );
        assert_eq!(found_and_suggested("", "Ask the user."), "Ask the user.");
    }
}
