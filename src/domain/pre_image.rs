//! What a resolution overwrites, captured inside its own transaction before its first step and
//! stored with its history entry, so that a revert restores the rows exactly instead of
//! reconstructing them. Rows are kept as their columns are stored (timestamps, text, hex bytes),
//! and every node the resolution leaves behind is also fingerprinted as it left it, so a revert
//! can tell an edit made since, even within the same millisecond.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::conflict::{Action, Detection, Recommendation, hex};
use super::contradiction::index_tokens;
use super::node::{NewNode, embedding_to_bytes};
use super::plan::Step;
use super::provenance::Provenance;
use super::resolution::Resolution;
use super::time::Timestamp;

/// Everything a resolution overwrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PreImage {
    /// The conflict's own fields that resolving changes beyond its resolution fields.
    pub conflict: ConflictBefore,
    /// Every node the resolution changed, created or deleted.
    pub nodes: Vec<NodeChange>,
    /// Every edge of the node a merge deleted: moved to the old node, or deleted with it.
    pub edges: Vec<EdgeImage>,
    /// The other conflicts that pointed at the node a merge deleted.
    pub conflicts: Vec<ConflictImage>,
    /// The counter rows of the sources the resolution counted verdicts for.
    pub sources: Vec<SourceBefore>,
    /// The verdicts it counted.
    pub verdicts: Vec<SourceVerdict>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConflictBefore {
    pub note: Option<String>,
    pub new_node_id: Option<Uuid>,
    pub new_content: Option<String>,
    pub updated_at: Timestamp,
}

/// A node as the resolution found it (`None`: it created it) and the fingerprint of the row it
/// left (`None`: it deleted it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeChange {
    pub node_id: Uuid,
    pub before: Option<NodeImage>,
    pub after: Option<String>,
}

/// A whole `nodes` row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeImage {
    pub node_id: Uuid,
    pub title: String,
    pub body: String,
    pub memory_type: String,
    pub labels: Vec<String>,
    pub scope: String,
    pub source: Option<String>,
    pub confidence: f64,
    pub state: String,
    pub observed_at: Timestamp,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// The stored bytes, as hex.
    pub embedding: Option<String>,
    pub embedding_dim: Option<i32>,
    pub search_tokens: String,
    /// Valid time; absent from images taken before it existed, and then as if open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_until: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub corrected: bool,
    /// Absent from images taken before it existed, and from memories written without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
}

impl NodeImage {
    /// A digest of every column: equal digests mean an unchanged row.
    pub fn fingerprint(&self) -> String {
        let text = serde_json::to_string(self).expect("a node image serialises");
        hex(&Sha256::digest(text.as_bytes()))
    }

    /// The row a resolution step leaves, for the steps that change a stored node.
    pub fn after(&self, step: &Step, at: Timestamp) -> Option<Self> {
        let mut row = self.clone();
        match step {
            Step::SetState { to, validity, .. } => {
                row.state = to.as_str().to_owned();
                row.valid_until = validity.valid_until;
                row.corrected = validity.corrected;
            }
            Step::MergeBody { body, labels, .. } => {
                row.search_tokens = index_tokens(&row.title, body).join(" ");
                row.body = body.clone();
                row.labels = labels.clone();
            }
            _ => return None,
        }
        row.updated_at = at;
        Some(row)
    }

    /// The row a resolution's `CreateNode` step writes.
    pub fn created(node: &NewNode) -> Self {
        Self {
            node_id: node.id,
            title: node.title.clone(),
            body: node.body.clone(),
            memory_type: node.memory_type.clone(),
            labels: node.labels.clone(),
            scope: node.scope.clone(),
            source: node.source.clone(),
            confidence: node.confidence,
            state: node.state.as_str().to_owned(),
            observed_at: node.observed_at,
            created_at: node.created_at,
            updated_at: node.created_at,
            embedding: node
                .embedding
                .as_deref()
                .map(|e| hex(&embedding_to_bytes(e))),
            embedding_dim: node.embedding.as_ref().map(|e| e.len() as i32),
            search_tokens: index_tokens(&node.title, &node.body).join(" "),
            provenance: node.provenance.clone(),
            valid_until: None,
            corrected: false,
        }
    }
}

/// Bytes from [`hex`]; `None` for text that is not.
pub fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// A whole `edges` row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EdgeImage {
    pub edge_id: Uuid,
    pub source_id: Uuid,
    pub target_id: Uuid,
    pub kind: String,
    pub neural_weight: f64,
    pub strength: f64,
    pub confidence: f64,
    pub valid_from: Timestamp,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl EdgeImage {
    /// Where a merge that deleted `gone` into `kept` left this edge: its endpoints, or `None`
    /// when it was deleted with `gone` (the edges linking the two, and loops). Mirrors the two
    /// updates of the store's `move_edges`, the second seeing the first's result.
    pub fn after_merge(&self, gone: Uuid, kept: Uuid) -> Option<(Uuid, Uuid)> {
        let source = match self.source_id == gone && self.target_id != kept {
            true => kept,
            false => self.source_id,
        };
        let target = match self.target_id == gone && source != kept {
            true => kept,
            false => self.target_id,
        };
        (source != gone && target != gone).then_some((source, target))
    }
}

/// A whole `conflict_queue` row, with its history when the merge deleted it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConflictImage {
    pub conflict_id: Uuid,
    pub seq: i64,
    pub old_node_id: Option<Uuid>,
    pub new_node_id: Option<Uuid>,
    pub new_content: Option<String>,
    pub new_key: String,
    pub conflict_type: String,
    pub detection: Detection,
    pub recommendation: Recommendation,
    pub status: String,
    pub resolution: Option<String>,
    pub merged_content: Option<String>,
    pub resolved_at: Option<Timestamp>,
    pub resolved_by: Option<String>,
    pub note: Option<String>,
    pub actions: Option<Vec<Action>>,
    pub outcome: Option<Resolution>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub history: Vec<HistoryImage>,
}

/// The node references of a conflict row: what deleting a node changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConflictRefs {
    pub old_node_id: Option<Uuid>,
    pub new_node_id: Option<Uuid>,
    pub new_content: Option<String>,
}

impl ConflictImage {
    pub fn refs(&self) -> ConflictRefs {
        ConflictRefs {
            old_node_id: self.old_node_id,
            new_node_id: self.new_node_id,
            new_content: self.new_content.clone(),
        }
    }

    /// Whether deleting `gone` deleted this conflict (a pending one whose old node it was).
    pub fn deleted_with(&self, gone: Uuid) -> bool {
        self.status == "pending" && self.old_node_id == Some(gone)
    }

    /// Its references after deleting `gone` (whose body was `body`), as the store's node
    /// delete leaves them: the ids set null, the new side's text kept as `new_content`.
    pub fn refs_after_delete(&self, gone: Uuid, body: &str) -> ConflictRefs {
        let was_new = self.new_node_id == Some(gone);
        ConflictRefs {
            old_node_id: self.old_node_id.filter(|id| *id != gone),
            new_node_id: self.new_node_id.filter(|id| *id != gone),
            new_content: match was_new {
                true => Some(self.new_content.clone().unwrap_or_else(|| body.to_owned())),
                false => self.new_content.clone(),
            },
        }
    }
}

/// A whole `conflict_history` row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryImage {
    pub entry_id: i64,
    pub at: Timestamp,
    pub kind: String,
    pub by_whom: Option<String>,
    /// The key that made the entry; absent from pre-images kept before keys were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_name: Option<String>,
    pub resolution: Option<String>,
    pub note: Option<String>,
    pub actions: Vec<Action>,
    pub pre_image: Option<serde_json::Value>,
}

/// A source's counter row in a scope before the resolution; `row: None` when it had none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceBefore {
    /// Pre-images kept while credibility was shared by every scope name none: `default`.
    #[serde(default = "default_scope")]
    pub scope: String,
    pub source: String,
    pub row: Option<SourceRow>,
}

fn default_scope() -> String {
    "default".to_owned()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceRow {
    pub upheld: i64,
    pub contradicted: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// One verdict a resolution counted for a source, in the scope of the memory bearing it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceVerdict {
    #[serde(default = "default_scope")]
    pub scope: String,
    pub source: String,
    pub upheld: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(source: Uuid, target: Uuid) -> EdgeImage {
        let now = crate::domain::time::now();
        EdgeImage {
            edge_id: Uuid::now_v7(),
            source_id: source,
            target_id: target,
            kind: "depends_on".into(),
            neural_weight: 1.0,
            strength: 1.0,
            confidence: 1.0,
            valid_from: now,
            created_at: now,
            updated_at: now,
        }
    }

    #[test]
    fn a_merge_moves_the_outer_edges_and_deletes_those_between_the_two_and_loops() {
        let (gone, kept, other) = (Uuid::now_v7(), Uuid::now_v7(), Uuid::now_v7());
        assert_eq!(
            edge(gone, other).after_merge(gone, kept),
            Some((kept, other))
        );
        assert_eq!(
            edge(other, gone).after_merge(gone, kept),
            Some((other, kept))
        );
        assert_eq!(edge(gone, kept).after_merge(gone, kept), None);
        assert_eq!(edge(kept, gone).after_merge(gone, kept), None);
        assert_eq!(edge(gone, gone).after_merge(gone, kept), None);
        assert_eq!(
            edge(kept, other).after_merge(gone, kept),
            Some((kept, other))
        );
    }

    #[test]
    fn hex_round_trips_and_rejects_what_is_not_hex() {
        let bytes = vec![0u8, 1, 127, 128, 255];
        assert_eq!(unhex(&hex(&bytes)), Some(bytes));
        assert_eq!(unhex("abc"), None);
        assert_eq!(unhex("zz"), None);
    }

    #[test]
    fn deleting_the_new_node_keeps_its_text_and_deletes_pending_conflicts_it_was_old_in() {
        let now = crate::domain::time::now();
        let (gone, other) = (Uuid::now_v7(), Uuid::now_v7());
        let mut c = ConflictImage {
            conflict_id: Uuid::now_v7(),
            seq: 1,
            old_node_id: Some(other),
            new_node_id: Some(gone),
            new_content: None,
            new_key: gone.to_string(),
            conflict_type: "numeric-mismatch".into(),
            detection: Detection::manual(),
            recommendation: Recommendation {
                resolution: "escalate-to-user".into(),
                strategy: None,
                reasoning: "r".into(),
            },
            status: "pending".into(),
            resolution: None,
            merged_content: None,
            resolved_at: None,
            resolved_by: None,
            note: None,
            actions: None,
            outcome: None,
            created_at: now,
            updated_at: now,
            history: Vec::new(),
        };
        assert!(!c.deleted_with(gone));
        let after = c.refs_after_delete(gone, "the body");
        assert_eq!(after.new_node_id, None);
        assert_eq!(after.new_content.as_deref(), Some("the body"));
        c.old_node_id = Some(gone);
        assert!(c.deleted_with(gone));
    }
}
