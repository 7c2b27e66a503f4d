//! Recall (`GET /recall`, the MCP tool `recall`): full-text search over active memories,
//! answered in the conflict-aware envelope. A memory is never returned as if it were
//! undisputed: pending conflicts that touch a returned memory are listed (the other side is
//! added to `sources` when the search did not find it), and the returned memories are judged
//! against each other. `conflicts` is absent when they agree. Recall writes nothing.

use std::collections::{BTreeSet, HashSet};

use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::domain::access::Caller;
use crate::domain::conflict::{Conflict, Status, found_and_suggested};
use crate::domain::contradiction::index_tokens;
use crate::domain::edge::{self, Direction};
use crate::domain::history::HistoryKind;
use crate::domain::node::{Node, NodeState, normalize_labels};
use crate::domain::valid_time::PointInTime;
use crate::domain::validate::{Errors, FieldError};
use crate::domain::version;
use crate::service::report::{PairConflict, ReportSource, judge_pairs, search_active, source_of};
use crate::service::scopes::sees_conflict;
use crate::service::{Result, Services, nodes};
use crate::store::{EdgeQuery, StoreError, StoreResult};

/// Default and largest number of memories one recall returns.
pub const DEFAULT_LIMIT: i64 = 10;
pub const MAX_LIMIT: i64 = 50;

/// A validated recall request.
#[derive(Debug, Clone)]
pub struct RecallQuery {
    pub query: String,
    pub labels: Vec<String>,
    pub limit: usize,
    /// Recall as of a point in time instead of now.
    pub at: Option<PointInTime>,
}

impl RecallQuery {
    /// `query_pointer` names the query field as the front door calls it (`/q`, `/query`);
    /// `at` is `(as_of, known_at)` as the client sent them.
    pub fn parse(
        query_pointer: &str,
        query: Option<String>,
        labels: Vec<String>,
        limit: Option<i64>,
        at: (Option<&str>, Option<&str>),
    ) -> Result<Self, Vec<FieldError>> {
        let mut e = Errors::default();
        let at =
            PointInTime::parse(at.0, at.1, crate::domain::time::now()).unwrap_or_else(|errs| {
                for err in errs {
                    e.add(&err.pointer, err.detail);
                }
                None
            });
        let query = query.unwrap_or_default().trim().to_owned();
        if query.is_empty() || query.chars().count() > 500 {
            e.add(query_pointer, "must be 1..500 characters");
        }
        crate::domain::validate::check_text(&mut e, query_pointer, &query);
        let limit = limit.unwrap_or(DEFAULT_LIMIT);
        if !(1..=MAX_LIMIT).contains(&limit) {
            e.add("/limit", format!("must be between 1 and {MAX_LIMIT}"));
        }
        let labels = normalize_labels(labels, &mut e);
        e.finish(Self {
            query,
            labels,
            limit: limit as usize,
            at,
        })
    }
}

/// Two memories that disagree.
#[derive(Debug, Serialize, ToSchema)]
pub struct RecallConflict {
    /// `direct-contradiction`, `numeric-mismatch`, `temporal-mismatch` or `scope-mismatch`.
    pub conflict_type: String,
    /// The older (or already stored) memory first; both are in `sources`.
    #[schema(value_type = Vec<Uuid>)]
    pub sources: [Uuid; 2],
    /// `prefer-recent`, `prefer-authoritative` or `escalate-to-user`.
    pub recommended_resolution: String,
    /// What disagrees and why the recommendation.
    pub reasoning: String,
    /// The queued conflict to resolve; absent when recall's own detection found the
    /// disagreement (nothing is queued by a recall).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflict_id: Option<Uuid>,
}

impl RecallConflict {
    /// A queued conflict between the memories `old` and `new`.
    fn queued(c: &Conflict, old: Uuid, new: Uuid) -> Self {
        Self {
            conflict_type: c.conflict_type.clone(),
            sources: [old, new],
            recommended_resolution: c.recommendation.resolution.clone(),
            reasoning: found_and_suggested(&c.detection.explanation, &c.recommendation.reasoning),
            conflict_id: Some(c.id),
        }
    }

    /// A disagreement recall's own detection found (nothing is queued).
    fn found(p: PairConflict<'_>) -> Self {
        Self {
            conflict_type: p.verdict.conflict_type.as_str().to_owned(),
            sources: [p.old.id, p.new.id],
            recommended_resolution: p.recommendation.resolution,
            reasoning: found_and_suggested(&p.verdict.explanation, &p.recommendation.reasoning),
            conflict_id: None,
        }
    }
}

/// Memories that answer a query, and where they disagree.
#[derive(Debug, Serialize, ToSchema)]
pub struct Recall {
    /// The query, trimmed.
    pub query: String,
    /// Best match first; the other side of a pending conflict follows the matches.
    pub sources: Vec<ReportSource>,
    /// Absent when the returned memories agree.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<RecallConflict>,
}

/// Searches, then lists what the found memories disagree about.
pub async fn recall(svc: &Services, caller: &Caller, q: RecallQuery) -> Result<Recall> {
    if let Some(at) = q.at {
        return recall_at(svc, caller, q, at).await;
    }
    let store = &*svc.store;
    let mut nodes = search_active(store, caller, &q.query, &q.labels, q.limit).await?;
    let (pending, others) = pending_among(svc, caller, &nodes).await?;
    nodes.extend(others);
    let mut conflicts: Vec<RecallConflict> = pending
        .iter()
        .filter_map(|c| {
            Some(RecallConflict::queued(
                c,
                c.old_node.as_ref()?.id,
                c.new_node.as_ref()?.id,
            ))
        })
        .collect();
    let known: HashSet<(Uuid, Uuid)> = conflicts
        .iter()
        .flat_map(|c| [(c.sources[0], c.sources[1]), (c.sources[1], c.sources[0])])
        .collect();
    let active: Vec<&Node> = nodes
        .iter()
        .filter(|n| n.state == NodeState::Active)
        .collect();
    let cfg = svc.detector.config();
    let table = svc.detector.credibility(store).await?;
    for p in judge_pairs(&active, &cfg, &table) {
        if known.contains(&(p.old.id, p.new.id)) || has_verdict(svc, p.old, p.new).await? {
            continue;
        }
        conflicts.push(RecallConflict::found(p));
    }
    Ok(Recall {
        query: q.query,
        sources: nodes.iter().map(source_of).collect(),
        conflicts,
    })
}

/// Recall as concord would have answered at `at.known` about what held at `at.valid`: the
/// memories' texts and standing then ([`nodes::memories_at`]), the conflicts pending then, and
/// detection among them.
async fn recall_at(
    svc: &Services,
    caller: &Caller,
    q: RecallQuery,
    at: PointInTime,
) -> Result<Recall> {
    let store = &*svc.store;
    let tokens = index_tokens("", &q.query);
    let mut found = nodes::memories_at(svc, caller, &tokens, &q.labels, q.limit, at).await?;
    // The conflicts that touched these memories, as they stood at `at.known`.
    let mut seen: HashSet<Uuid> = found.iter().map(|n| n.id).collect();
    let mut existing: HashSet<(Uuid, Uuid)> = HashSet::new();
    let mut conflicts = Vec::new();
    let mut others = Vec::new();
    let mut visited = HashSet::new();
    for id in found.iter().map(|n| n.id).collect::<Vec<_>>() {
        for c in store.conflicts_of_node(id).await? {
            if !visited.insert(c.id) || c.created_at > at.known || !sees_conflict(caller, &c) {
                continue;
            }
            let (Some(old), Some(new)) = (c.old_node_id, c.new_node_id) else {
                continue;
            };
            existing.extend([(old, new), (new, old)]);
            let history = store.conflict_history(c.id).await?;
            let pending_then = history
                .iter()
                .rfind(|e| e.at <= at.known)
                .is_some_and(|e| matches!(e.kind, HistoryKind::Queued | HistoryKind::Reverted));
            if !pending_then {
                continue;
            }
            for side in [old, new] {
                if seen.insert(side) {
                    // The other side as concord knew it then, whether or not it held.
                    let versions = store.node_versions(side).await?;
                    if let Some(v) = version::known_at(&versions, at.known) {
                        others.push(v.to_node(versions[0].recorded_at, false));
                    }
                }
            }
            conflicts.push(RecallConflict::queued(&c, old, new));
        }
    }
    found.extend(others);
    let active: Vec<&Node> = found
        .iter()
        .filter(|n| n.state == NodeState::Active && n.validity.holds_at(n.observed_at, at.valid))
        .collect();
    let cfg = svc.detector.config();
    let table = svc.detector.credibility(store).await?;
    for p in judge_pairs(&active, &cfg, &table) {
        // A pair a conflict already stood for by then was decided or queued: not news.
        if existing.contains(&(p.old.id, p.new.id)) {
            continue;
        }
        conflicts.push(RecallConflict::found(p));
    }
    Ok(Recall {
        query: q.query,
        sources: found.iter().map(source_of).collect(),
        conflicts,
    })
}

/// Pending conflicts between two stored nodes where at least one is among `nodes`, and the
/// other sides that `nodes` lacks. A conflict whose new side is only text has no second
/// memory to cite and is left to the review queue.
async fn pending_among(
    svc: &Services,
    caller: &Caller,
    nodes: &[Node],
) -> StoreResult<(Vec<Conflict>, Vec<Node>)> {
    let ids: BTreeSet<Uuid> = nodes
        .iter()
        .flat_map(|n| n.conflict_ids.iter().copied())
        .collect();
    let mut seen: HashSet<Uuid> = nodes.iter().map(|n| n.id).collect();
    let (mut pending, mut others) = (Vec::new(), Vec::new());
    for id in ids {
        let c = match svc.store.get_conflict(id).await {
            Ok(c) => c,
            // Resolved or deleted since the search read the ids.
            Err(StoreError::NotFound(_)) => continue,
            Err(e) => return Err(e),
        };
        let (Some(old), Some(new)) = (&c.old_node, &c.new_node) else {
            continue;
        };
        // A quarantined side is not current: recall keeps the claim a policy held back from
        // the agent until a reviewer promotes it.
        let held = [old, new].iter().any(|n| n.state == NodeState::Quarantined);
        if c.status != Status::Pending || held || !sees_conflict(caller, &c) {
            continue;
        }
        for side in [old, new] {
            if seen.insert(side.id) {
                others.push(side.clone());
            }
        }
        pending.push(c);
    }
    Ok((pending, others))
}

/// Whether a verdict on the pair is already remembered (`supersedes`, `relates_to` or
/// `contradicts` between them), as write-time detection never queues such a pair again.
async fn has_verdict(svc: &Services, a: &Node, b: &Node) -> StoreResult<bool> {
    let mut after = None;
    loop {
        let page = svc
            .store
            .list_edges(
                a.id,
                EdgeQuery {
                    direction: Direction::Both,
                    kind: None,
                    limit: 200,
                    after,
                    scopes: None,
                },
            )
            .await?;
        let found = page.items.iter().any(|e| {
            (e.source_id == b.id || e.target_id == b.id)
                && [edge::SUPERSEDES, edge::RELATES_TO, edge::CONTRADICTS]
                    .contains(&e.kind.as_str())
        });
        if found {
            return Ok(true);
        }
        match page.next_cursor {
            Some(c) => after = Some(c),
            None => return Ok(false),
        }
    }
}
