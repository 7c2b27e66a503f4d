//! Wire shapes shared by several resources, by both doors, or rendered by the service (the
//! replies of the writes a retry may repeat, `service::replies`), and the members both doors
//! attach to a failure's problem details. DTOs live next to their handlers otherwise; domain
//! types never derive `ToSchema`.

use serde::{Deserialize, Deserializer, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::domain::conflict::{Action, Conflict, Detection, Recommendation};
use crate::domain::edge::Edge;
use crate::domain::evidence::{self, Evidence};
use crate::domain::history::HistoryEntry;
use crate::domain::node::{Node, NodeState};
use crate::domain::policy::PolicyMark;
use crate::domain::provenance::Provenance;
use crate::domain::resolution::Resolution;
use crate::domain::revert::{Obstacle, Reverted};
use crate::domain::time;
use crate::domain::timeline::Entry;
use crate::domain::version::NodeVersion;

/// Lifecycle state of a node; only `active` nodes take part in detection.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum NodeStateDto {
    Active,
    Dormant,
    Archived,
    /// Stored but not current: a policy held it back until a reviewer promotes
    /// (`new_is_current`, `keep_both`) or rejects (`old_is_current`) it.
    Quarantined,
}

impl NodeStateDto {
    pub fn from_domain(s: NodeState) -> Self {
        match s {
            NodeState::Active => Self::Active,
            NodeState::Dormant => Self::Dormant,
            NodeState::Archived => Self::Archived,
            NodeState::Quarantined => Self::Quarantined,
        }
    }
}

/// A node. Nodes inside conflicts always carry their full body.
#[derive(Debug, Serialize, ToSchema)]
pub struct NodeDto {
    /// UUID v7.
    pub id: Uuid,
    /// 1..500 characters, trimmed.
    pub title: String,
    /// Up to 1 MiB.
    pub body: String,
    /// `[a-z0-9_-]{1,40}`.
    pub memory_type: String,
    /// Trimmed, lowercased, deduplicated; at most 32.
    pub labels: Vec<String>,
    /// Detection compares nodes of the same scope only.
    pub scope: String,
    /// Where the knowledge came from, e.g. `file:src/cache.rs:42`.
    pub source: Option<String>,
    /// 0..1.
    pub confidence: f64,
    pub state: NodeStateDto,
    /// When the knowledge was observed (RFC 3339, UTC, milliseconds).
    #[schema(format = DateTime)]
    pub observed_at: String,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
    /// Whether an embedding is stored (embeddings are write-only).
    pub has_embedding: bool,
    /// Valid time: until when the memory held (set when a resolution said it was replaced
    /// by an update); null while it holds.
    #[schema(format = DateTime)]
    pub valid_until: Option<String>,
    /// True when a resolution said the memory was never true (a correction).
    pub corrected: bool,
    /// Pending conflicts of this node; present only when it has any (node reads only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflict_ids: Option<Vec<Uuid>>,
    /// How well the memory's own words, source and provenance support it.
    pub evidence: EvidenceDto,
    /// How it was obtained, as its writer declared; absent when not declared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<ProvenanceDto>,
}

/// How a memory was obtained, as its writer declares it (contract section 14). Written with
/// the memory and never changed; its evidence strength reads it: `hearsay`, `inferred`,
/// `scanned` and `web` count as weak evidence, `verified: true` as strong.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProvenanceDto {
    /// How it was obtained. Read as text and checked by the service (so that an unknown
    /// value is a 422 naming `/provenance/method`); the document lists the values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<ProvenanceMethodDto>)]
    pub method: Option<String>,
    /// Whether the writer checked it (a signature, a second source).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<bool>,
    /// Ids of memories the writer declares this one replaces (at most 100, a repeat counts once; on
    /// `POST /nodes` and MCP `remember`): each must be a current memory of the same scope,
    /// and is queued as a conflict with the new memory that the policies decide like any
    /// detected one, so a declaration never makes a memory current that a policy would not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_items = 100)]
    pub replaces: Option<Vec<Uuid>>,
}

impl ProvenanceDto {
    pub fn into_domain(self) -> Provenance {
        Provenance {
            method: self.method,
            verified: self.verified,
            replaces: self.replaces.unwrap_or_default(),
        }
    }

    pub fn from_domain(p: Provenance) -> Self {
        Self {
            method: p.method,
            verified: p.verified,
            replaces: (!p.replaces.is_empty()).then_some(p.replaces),
        }
    }
}

/// How a memory was obtained (`domain::provenance::METHODS`, kept equal by a unit test).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ProvenanceMethodDto {
    /// The writer saw it happen.
    Observed,
    /// The user said so.
    ToldByUser,
    /// Read from a document.
    ReadFromDocument,
    /// Concluded from other memories.
    Inferred,
    /// Someone else said so.
    Hearsay,
    /// Read from a scan (OCR).
    Scanned,
    /// Read on the web.
    Web,
}

/// Evidence strength, read from the memory's title, the first 2,000 characters of its body
/// and its source: hedges and weak sources ("someone said", "might", "draft", "OCR",
/// "anonymous", "unverified"; their Chinese and Korean forms) lower it, strong markers
/// ("signed", "verified", "per the contract") raise it, each kind once, from a neutral 0.5 by
/// 0.15 within 0.05..0.95. Text shaped like an instruction to the store ("ignore all
/// previous records") is 0.05 and `injection`.
#[derive(Debug, Serialize, ToSchema)]
pub struct EvidenceDto {
    /// 0..1.
    pub strength: f64,
    /// Each cue found, e.g. `hedge "might" in the text`.
    pub reasons: Vec<String>,
    /// Present and true when the text reads as an instruction to the store.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub injection: bool,
}

impl From<Evidence> for EvidenceDto {
    fn from(e: Evidence) -> Self {
        Self {
            strength: e.strength,
            reasons: e.reasons,
            injection: e.injection,
        }
    }
}

impl NodeDto {
    pub fn from_domain(n: Node) -> Self {
        let evidence = evidence::assess(&n.title, &n.body, n.source.as_deref())
            .with_provenance(n.provenance.as_ref())
            .into();
        Self {
            evidence,
            provenance: n.provenance.map(ProvenanceDto::from_domain),
            id: n.id,
            title: n.title,
            body: n.body,
            memory_type: n.memory_type,
            labels: n.labels,
            scope: n.scope,
            source: n.source,
            confidence: n.confidence,
            state: NodeStateDto::from_domain(n.state),
            observed_at: time::format(&n.observed_at),
            created_at: time::format(&n.created_at),
            updated_at: time::format(&n.updated_at),
            has_embedding: n.has_embedding,
            valid_until: n.validity.valid_until.as_ref().map(time::format),
            corrected: n.validity.corrected,
            conflict_ids: (!n.conflict_ids.is_empty()).then_some(n.conflict_ids),
        }
    }
}

/// One version of a memory: the whole node as it stood after one change, with when concord
/// held it (system time), who made the change and in which conflict.
#[derive(Debug, Serialize, ToSchema)]
pub struct NodeVersionDto {
    pub node_id: Uuid,
    /// 1, 2, … in the order of the changes.
    pub version: i64,
    /// `created` (written, or put back by a revert), `changed` (an edit, a resolution, a
    /// revert) or `deleted` (a tombstone, with the last text).
    pub kind: String,
    /// When concord started to hold this version (RFC 3339, UTC, milliseconds).
    #[schema(format = DateTime)]
    pub recorded_at: String,
    /// Who made the change: a resolution's `resolved_by`, a revert's `reverted_by`,
    /// `policy:<name>`, `mcp:<client>`; null when the writer is not named.
    pub changed_by: Option<String>,
    /// The name of the API key that made the change (`GET /audit`); null when the service
    /// runs without keys.
    pub key: Option<String>,
    /// The conflict whose resolution or revert made the change.
    pub conflict_id: Option<Uuid>,
    pub title: String,
    pub body: String,
    pub memory_type: String,
    pub labels: Vec<String>,
    pub scope: String,
    pub source: Option<String>,
    pub confidence: f64,
    pub state: NodeStateDto,
    /// When the memory started to hold (valid time).
    #[schema(format = DateTime)]
    pub observed_at: String,
    /// Until when it held (valid time); null while it holds.
    #[schema(format = DateTime)]
    pub valid_until: Option<String>,
    /// True when a resolution said it was never true.
    pub corrected: bool,
}

impl NodeVersionDto {
    pub fn from_domain(v: NodeVersion) -> Self {
        let s = v.standing;
        Self {
            node_id: v.node_id,
            version: v.version,
            kind: v.kind.as_str().to_owned(),
            recorded_at: time::format(&v.recorded_at),
            changed_by: v.by,
            key: v.key,
            conflict_id: v.conflict_id,
            title: v.title,
            body: v.body,
            memory_type: s.memory_type,
            labels: s.labels,
            scope: s.scope,
            source: s.source,
            confidence: v.confidence,
            state: NodeStateDto::from_domain(s.state),
            observed_at: time::format(&s.observed_at),
            valid_until: s.valid_until.as_ref().map(time::format),
            corrected: s.corrected,
        }
    }
}

/// What replaced a memory.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReplacementDto {
    /// The memory that superseded this one.
    pub node_id: Uuid,
    /// The resolved conflict that decided it; null for a `supersedes` edge written by hand.
    pub conflict_id: Option<Uuid>,
    pub resolved_by: Option<String>,
    #[schema(format = DateTime)]
    pub resolved_at: Option<String>,
}

/// One memory of a timeline: the memory (its `observed_at`, `valid_until` and `corrected`
/// say when it held) and what replaced it.
#[derive(Debug, Serialize, ToSchema)]
pub struct TimelineEntryDto {
    pub node: NodeDto,
    /// Null for the memory nothing replaced.
    pub replaced_by: Option<ReplacementDto>,
}

/// The memories that superseded one another about one subject, oldest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct TimelineResponse {
    pub node_id: Uuid,
    /// The chain in one sentence, e.g. "“Region is us-east-1” until 2026-03-01, replaced as
    /// decided by ops-lead; then “Region is eu-west-1”."
    pub summary: String,
    /// Oldest first, at most 100.
    pub entries: Vec<TimelineEntryDto>,
}

impl TimelineResponse {
    pub fn from_domain(node_id: Uuid, summary: String, entries: Vec<Entry>) -> Self {
        Self {
            node_id,
            summary,
            entries: entries
                .into_iter()
                .map(|e| TimelineEntryDto {
                    replaced_by: e.replaced_by.map(|r| ReplacementDto {
                        node_id: r.winner,
                        conflict_id: r.conflict_id,
                        resolved_by: r.resolved_by,
                        resolved_at: r.resolved_at.as_ref().map(time::format),
                    }),
                    node: NodeDto::from_domain(e.node),
                })
                .collect(),
        }
    }
}

/// A typed, weighted edge. `A supersedes B` means A replaced B.
#[derive(Debug, Serialize, ToSchema)]
pub struct EdgeDto {
    pub id: Uuid,
    pub source_id: Uuid,
    pub target_id: Uuid,
    /// `[a-z_]{1,40}`; concord writes `contradicts`, `supersedes`, `relates_to`.
    pub kind: String,
    pub neural_weight: f64,
    pub strength: f64,
    pub confidence: f64,
    #[schema(format = DateTime)]
    pub valid_from: String,
    #[schema(format = DateTime)]
    pub created_at: String,
}

impl From<Edge> for EdgeDto {
    fn from(e: Edge) -> Self {
        Self {
            id: e.id,
            source_id: e.source_id,
            target_id: e.target_id,
            kind: e.kind,
            neural_weight: e.neural_weight,
            strength: e.strength,
            confidence: e.confidence,
            valid_from: time::format(&e.valid_from),
            created_at: time::format(&e.created_at),
        }
    }
}

/// How a conflict was found.
#[derive(Debug, Serialize, ToSchema)]
pub struct DetectionDto {
    /// `heuristic`, `vector`, `llm` or `manual`.
    pub tier: String,
    /// Probability of a contradiction (0..1).
    pub probability: f64,
    /// `negation`, `replacement`, `value_change`, `scope_change`, `vector_similarity`.
    pub signals: Vec<String>,
    /// Token overlap (Jaccard) of the two texts.
    pub overlap: Option<f64>,
    /// Cosine similarity of the embeddings, when both have one.
    pub similarity: Option<f64>,
    /// The conflicting spans, e.g. `value changed: "80%" vs "60%"`.
    pub explanation: String,
    /// Why a configured LLM tier did not decide, when it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llm_fallback: Option<String>,
    /// The resolution policy that fired at write time (or would have, in a dry run); absent
    /// when none did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<PolicyMarkDto>,
}

impl From<Detection> for DetectionDto {
    fn from(d: Detection) -> Self {
        Self {
            tier: d.tier,
            probability: d.probability,
            signals: d.signals,
            overlap: d.overlap,
            similarity: d.similarity,
            explanation: d.explanation,
            llm_fallback: d.llm_fallback,
            policy: d.policy.map(Into::into),
        }
    }
}

/// A resolution policy that fired on a conflict.
#[derive(Debug, Serialize, ToSchema)]
pub struct PolicyMarkDto {
    /// The rule's name; a resolution it made has `resolved_by` = `policy:<name>`.
    #[schema(example = "newer-sensor-wins")]
    pub name: String,
    /// The strategy of the rule.
    #[schema(example = "new_is_current")]
    pub action: String,
    /// True when policies run dry: the conflict was left pending and only this record (and
    /// the `queued` history entry's note) says what the rule would have done.
    pub dry_run: bool,
}

impl From<PolicyMark> for PolicyMarkDto {
    fn from(p: PolicyMark) -> Self {
        Self {
            name: p.name,
            action: p.action.as_str().to_owned(),
            dry_run: p.dry_run,
        }
    }
}

/// What concord suggests.
#[derive(Debug, Serialize, ToSchema)]
pub struct RecommendationDto {
    /// `prefer-recent`, `prefer-authoritative` or `escalate-to-user`.
    pub resolution: String,
    /// Suggested strategy; null for `escalate-to-user`.
    pub strategy: Option<String>,
    /// One line of reasoning.
    pub reasoning: String,
}

impl From<Recommendation> for RecommendationDto {
    fn from(r: Recommendation) -> Self {
        Self {
            resolution: r.resolution,
            strategy: r.strategy.map(|s| s.as_str().to_owned()),
            reasoning: r.reasoning,
        }
    }
}

/// One step a resolution or a revert took. Which id fields are present depends on `action`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ActionDto {
    /// `node_created`, `node_state_changed`, `edge_created`, `node_body_merged`,
    /// `edges_moved`, `node_deleted` or `conflict_resolved`; a revert also reports
    /// `edge_deleted`, `node_restored` and `node_body_restored`.
    pub action: String,
    /// One human line, e.g. `Node … active → dormant`.
    pub summary: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edge_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chars_added: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_node_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_node_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflict_id: Option<Uuid>,
}

impl From<&Action> for ActionDto {
    fn from(a: &Action) -> Self {
        let mut d = ActionDto {
            action: a.name().to_owned(),
            summary: String::new(),
            node_id: None,
            from: None,
            to: None,
            edge_id: None,
            kind: None,
            source_id: None,
            target_id: None,
            chars_added: None,
            from_node_id: None,
            to_node_id: None,
            count: None,
            conflict_id: None,
        };
        match a.clone() {
            Action::NodeCreated { summary, node_id }
            | Action::NodeDeleted { summary, node_id }
            | Action::NodeRestored { summary, node_id }
            | Action::NodeBodyRestored { summary, node_id } => {
                d.summary = summary;
                d.node_id = Some(node_id);
            }
            Action::NodeStateChanged {
                summary,
                node_id,
                from,
                to,
            } => {
                (d.summary, d.node_id, d.from, d.to) =
                    (summary, Some(node_id), Some(from), Some(to));
            }
            Action::EdgeCreated {
                summary,
                edge_id,
                kind,
                source_id,
                target_id,
            }
            | Action::EdgeDeleted {
                summary,
                edge_id,
                kind,
                source_id,
                target_id,
            } => {
                d.summary = summary;
                d.edge_id = Some(edge_id);
                d.kind = Some(kind);
                d.source_id = Some(source_id);
                d.target_id = Some(target_id);
            }
            Action::NodeBodyMerged {
                summary,
                node_id,
                chars_added,
            } => {
                (d.summary, d.node_id, d.chars_added) = (summary, Some(node_id), Some(chars_added));
            }
            Action::EdgesMoved {
                summary,
                from_node_id,
                to_node_id,
                count,
            } => {
                d.summary = summary;
                d.from_node_id = Some(from_node_id);
                d.to_node_id = Some(to_node_id);
                d.count = Some(count);
            }
            Action::ConflictResolved {
                summary,
                conflict_id,
            } => {
                (d.summary, d.conflict_id) = (summary, Some(conflict_id));
            }
        }
        d
    }
}

/// A conflict with both sides in full.
#[derive(Debug, Serialize, ToSchema)]
pub struct ConflictDto {
    pub id: Uuid,
    /// `pending` or `resolved`.
    pub status: String,
    /// `direct-contradiction`, `numeric-mismatch`, `temporal-mismatch` or `scope-mismatch`.
    pub conflict_type: String,
    /// The existing node; null once a resolved conflict's old node was deleted.
    pub old_node: Option<NodeDto>,
    /// The new node; null when the new side is only text or the node was deleted.
    pub new_node: Option<NodeDto>,
    /// The new side's text when it is not (or no longer) a node.
    pub new_content: Option<String>,
    pub detection: DetectionDto,
    pub recommendation: RecommendationDto,
    /// The strategy it was resolved with.
    pub resolution: Option<String>,
    #[schema(format = DateTime)]
    pub resolved_at: Option<String>,
    pub resolved_by: Option<String>,
    pub note: Option<String>,
    /// What the resolution did.
    pub actions: Option<Vec<ActionDto>>,
    #[schema(format = DateTime)]
    pub created_at: String,
    /// The latest entry of the conflict's history (`GET /conflicts/{id}` only; the full list
    /// is `GET /conflicts/{id}/history`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest: Option<HistoryEntryDto>,
}

/// One change of a conflict.
#[derive(Debug, Serialize, ToSchema)]
pub struct HistoryEntryDto {
    #[schema(format = DateTime)]
    pub at: String,
    /// `queued`, `resolved`, `reverted` or `auto_resolved`.
    #[schema(pattern = "^(queued|resolved|reverted|auto_resolved)$")]
    pub kind: String,
    /// Who made the change (`resolved_by`, `reverted_by`, `policy:<name>`); null when unnamed.
    pub by: Option<String>,
    /// The name of the API key that made it (`GET /audit`): for `queued` and `auto_resolved`,
    /// the key of the write that found the conflict; null without keys and for a sweep's.
    pub key: Option<String>,
    /// The strategy applied, or undone by a revert.
    pub resolution: Option<String>,
    pub note: Option<String>,
    /// What the change did, in order.
    pub actions: Vec<ActionDto>,
}

impl From<HistoryEntry> for HistoryEntryDto {
    fn from(h: HistoryEntry) -> Self {
        Self {
            at: time::format(&h.at),
            kind: h.kind.as_str().to_owned(),
            by: h.by,
            key: h.key,
            resolution: h.resolution.map(|r| r.as_str().to_owned()),
            note: h.note,
            actions: h.actions.iter().map(ActionDto::from).collect(),
        }
    }
}

impl ConflictDto {
    /// `max_chars` truncates node bodies and `new_content` for clients that ask for it.
    pub fn from_domain(c: Conflict, max_chars: Option<usize>) -> Self {
        let cut = |s: String| match max_chars {
            Some(n) if s.chars().count() > n => s.chars().take(n).collect(),
            _ => s,
        };
        let node = |n: Node| {
            let mut d = NodeDto::from_domain(Node {
                conflict_ids: Vec::new(),
                ..n
            });
            d.body = cut(d.body);
            d
        };
        Self {
            id: c.id,
            status: c.status.as_str().to_owned(),
            conflict_type: c.conflict_type,
            old_node: c.old_node.map(node),
            new_node: c.new_node.map(node),
            new_content: c.new_content.map(cut),
            detection: c.detection.into(),
            recommendation: c.recommendation.into(),
            resolution: c.resolution.map(|r| r.as_str().to_owned()),
            resolved_at: c.resolved_at.as_ref().map(time::format),
            resolved_by: c.resolved_by,
            note: c.note,
            actions: c.actions.map(|a| a.iter().map(ActionDto::from).collect()),
            created_at: time::format(&c.created_at),
            latest: None,
        }
    }
}

/// A conflict found by a write or a check.
#[derive(Debug, Serialize, ToSchema)]
pub struct ConflictHitDto {
    /// The conflict that stands for this pair: on a write, the one it queued; on a check
    /// (which queues nothing), a pending conflict queued earlier or one decided `keep_both`,
    /// absent for a new finding.
    pub conflict_id: Option<Uuid>,
    pub old_node_id: Uuid,
    pub conflict_type: String,
    pub probability: f64,
    pub signals: Vec<String>,
    pub recommendation: RecommendationDto,
    /// The strategy a resolution policy applied in the same write; on a check, `keep_both`
    /// when a reviewer (or policy) decided earlier that both hold. Absent while the conflict
    /// is pending.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution: Option<String>,
    /// `policy:<name>` when a resolution policy resolved the conflict in the same write; on a
    /// check, who decided `keep_both`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved_by: Option<String>,
    /// The policy that fired (or would have, in a dry run); absent when none did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<PolicyMarkDto>,
}

impl ConflictHitDto {
    pub fn from_conflict(c: Conflict) -> Self {
        Self {
            conflict_id: Some(c.id),
            old_node_id: c.old_node_id.unwrap_or_default(),
            conflict_type: c.conflict_type,
            probability: c.detection.probability,
            signals: c.detection.signals,
            recommendation: c.recommendation.into(),
            resolution: c.resolution.map(|s| s.as_str().to_owned()),
            resolved_by: c.resolved_by,
            policy: c.detection.policy.map(Into::into),
        }
    }
}

/// Deserialises a present field (even `null`) as `Some`, so `null` can clear a value.
pub fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// What the resolution did.
#[derive(Debug, Serialize, ToSchema)]
pub struct ResolveResponse {
    /// Always true.
    pub ok: bool,
    pub conflict_id: Uuid,
    /// The strategy applied.
    pub resolution: String,
    pub old_node_id: Option<Uuid>,
    /// The new node (created from `new_content` when needed; deleted by `merge`).
    pub new_node_id: Option<Uuid>,
    /// Every step taken, in order.
    pub actions: Vec<ActionDto>,
    #[schema(format = DateTime)]
    pub resolved_at: String,
    /// True when this reply is the stored result of an earlier identical request.
    pub replayed: bool,
    /// Why the losing side stopped holding: `update` (it held until the winner's
    /// `observed_at`: its `valid_until`) or `correction` (it never held: `corrected`). Absent
    /// for `keep_both` and `merge`, which end nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// True when concord chose the reason from the winner's words (the request gave none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason_inferred: Option<bool>,
}

impl From<Resolution> for ResolveResponse {
    fn from(r: Resolution) -> Self {
        Self {
            ok: true,
            conflict_id: r.conflict_id,
            resolution: r.strategy.as_str().to_owned(),
            old_node_id: r.old_node_id,
            new_node_id: r.new_node_id,
            actions: r.actions.iter().map(ActionDto::from).collect(),
            resolved_at: time::format(&r.resolved_at),
            replayed: r.replayed,
            reason: r.reason.map(|x| x.as_str().to_owned()),
            reason_inferred: r.reason.map(|_| r.reason_inferred),
        }
    }
}

/// The extension members a failed use case adds to its problem details, whichever door
/// reports it (`service::Error::members` fills them; each is absent unless its outcome has it).
#[derive(Debug, Default, Serialize)]
pub struct ProblemMembers {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current: Option<CurrentResolution>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_state: Option<NodeStateDto>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial_actions: Option<Vec<ActionDto>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_action: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rolled_back: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<Vec<ChangeDto>>,
    /// The sweep that is running (`/problems/sweep-running`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sweep_id: Option<Uuid>,
}

/// The resolution a conflict already has.
#[derive(Debug, Serialize, ToSchema)]
pub struct CurrentResolution {
    /// Strategy used.
    pub resolution: String,
    /// When it was resolved.
    pub resolved_at: String,
    /// What it did.
    pub actions: Vec<ActionDto>,
}

impl From<&Resolution> for CurrentResolution {
    fn from(r: &Resolution) -> Self {
        Self {
            resolution: r.strategy.as_str().to_owned(),
            resolved_at: time::format(&r.resolved_at),
            actions: r.actions.iter().map(ActionDto::from).collect(),
        }
    }
}

/// A change made after a resolution that a revert would overwrite.
#[derive(Debug, Serialize, ToSchema)]
pub struct ChangeDto {
    /// `node_edited`, `node_deleted`, `resolved_again`, `pair_pending`, `node_linked`,
    /// `edge_changed`, `conflict_changed` or `no_pre_image`.
    pub change: String,
    /// The change, in words.
    pub detail: String,
    /// The node edited, deleted, resolved again or linked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_id: Option<Uuid>,
    /// The conflict that resolved the node again, holds the pair, or changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflict_id: Option<Uuid>,
    /// The edge that changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edge_id: Option<Uuid>,
    /// The edge or conflict linked to a node the resolution created.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub linked_id: Option<Uuid>,
}

impl From<&Obstacle> for ChangeDto {
    fn from(o: &Obstacle) -> Self {
        let mut d = ChangeDto {
            change: o.name().to_owned(),
            detail: o.to_string(),
            node_id: None,
            conflict_id: None,
            edge_id: None,
            linked_id: None,
        };
        match *o {
            Obstacle::NodeEdited { node_id } | Obstacle::NodeDeleted { node_id } => {
                d.node_id = Some(node_id);
            }
            Obstacle::ResolvedAgain {
                node_id,
                conflict_id,
            } => (d.node_id, d.conflict_id) = (Some(node_id), Some(conflict_id)),
            Obstacle::PairPending { conflict_id } | Obstacle::ConflictChanged { conflict_id } => {
                d.conflict_id = Some(conflict_id);
            }
            Obstacle::NodeLinked { node_id, link_id } => {
                (d.node_id, d.linked_id) = (Some(node_id), Some(link_id));
            }
            Obstacle::EdgeChanged { edge_id } => d.edge_id = Some(edge_id),
            Obstacle::NoPreImage => {}
        }
        d
    }
}

/// The stored node and what it contradicts.
#[derive(Debug, Serialize, ToSchema)]
pub struct NodeWriteResponse {
    pub node: NodeDto,
    /// Conflicts detected and queued by this write; absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflicts: Option<Vec<ConflictHitDto>>,
}

/// A restatement: the stored memory the write repeated, word for word (whitespace and case
/// aside); nothing new was stored.
#[derive(Debug, Serialize, ToSchema)]
pub struct NodeRestatedResponse {
    pub node: NodeDto,
    /// Always `true`.
    pub restated: bool,
    /// Every source that restated the memory (other than its own), oldest first.
    pub corroborated_by: Vec<String>,
}

/// A written batch: its nodes in input order, each with the conflicts its write queued, and
/// its edges.
#[derive(Debug, Serialize, ToSchema)]
pub struct BatchWriteResponse {
    pub nodes: Vec<BatchNodeWritten>,
    pub edges: Vec<EdgeDto>,
}

/// One node of a written batch.
#[derive(Debug, Serialize, ToSchema)]
pub struct BatchNodeWritten {
    /// The item's `ref`, when it had one.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    pub node: NodeDto,
    /// Conflicts detected and queued by this node's write (against the store or an earlier
    /// node of the batch); absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflicts: Option<Vec<ConflictHitDto>>,
}

/// What the revert did.
#[derive(Debug, Serialize, ToSchema)]
pub struct RevertResponse {
    /// Always true.
    pub ok: bool,
    pub conflict_id: Uuid,
    /// The strategy undone.
    #[schema(pattern = "^(new_is_current|old_is_current|keep_both|merge)$")]
    pub reverted: String,
    /// Every change undone, in order (`edge_deleted`, `node_restored`, `node_body_restored`,
    /// `node_state_changed`, `edges_moved`, `node_deleted`); empty when the resolution changed
    /// no node or edge (`old_is_current` of text only). The conflict is `pending` again.
    pub actions: Vec<ActionDto>,
    #[schema(format = DateTime)]
    pub reverted_at: String,
    /// True when this reply is the stored result of an earlier revert.
    pub replayed: bool,
}

impl From<Reverted> for RevertResponse {
    fn from(r: Reverted) -> Self {
        Self {
            ok: true,
            conflict_id: r.conflict_id,
            reverted: r.strategy.as_str().to_owned(),
            actions: r.actions.iter().map(ActionDto::from).collect(),
            reverted_at: time::format(&r.reverted_at),
            replayed: r.replayed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ProvenanceMethodDto;
    use crate::domain::provenance::METHODS;

    #[test]
    fn the_documented_provenance_methods_are_the_ones_the_service_accepts() {
        let all = [
            ProvenanceMethodDto::Observed,
            ProvenanceMethodDto::ToldByUser,
            ProvenanceMethodDto::ReadFromDocument,
            ProvenanceMethodDto::Inferred,
            ProvenanceMethodDto::Hearsay,
            ProvenanceMethodDto::Scanned,
            ProvenanceMethodDto::Web,
        ];
        let documented: Vec<String> = all
            .iter()
            .map(|m| {
                serde_json::to_value(m)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(documented, METHODS);
    }
}
