//! Resolution as a plan: the strategy logic of contract section 4 written once, as a list of
//! steps that each backend executes in one transaction. The databases differ only in SQL.

use uuid::Uuid;

use super::conflict::{Action, Conflict, Strategy};
use super::edge::{self, Edge};
use super::history;
use super::node::{MAX_BODY_BYTES, NewNode, Node, NodeState, union_labels};
use super::time::{self, Timestamp};
use super::valid_time::{self, Reason, Validity};
use super::validate::{Errors, FieldError, check_text};

/// A validated request to resolve one conflict.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolve {
    pub conflict_id: Uuid,
    pub strategy: Strategy,
    pub merged_content: Option<String>,
    pub resolved_by: Option<String>,
    pub note: Option<String>,
    /// Why the losing side stops holding; chosen from the winner's words when absent.
    pub reason: Option<Reason>,
    /// The scope patterns of the key that asks (`Caller::visible`; `None`: every scope): a
    /// conflict it does not see is resolved as one that does not exist.
    pub scopes: Option<String>,
    /// The name of the key that asks (null without keys): what history and versions record.
    pub key: Option<String>,
}

impl Resolve {
    /// The request with the client's `reason`: only `new_is_current` and `old_is_current`
    /// end a memory, and `old_is_current` always as a correction (the new memory never held).
    pub fn with_reason(mut self, reason: Option<&str>) -> Result<Self, Vec<FieldError>> {
        let Some(text) = reason else {
            return Ok(self);
        };
        let reason = text
            .parse::<Reason>()
            .map_err(|m| vec![FieldError::new("/reason", m)])?;
        match (self.strategy, reason) {
            (Strategy::NewIsCurrent, _) | (Strategy::OldIsCurrent, Reason::Correction) => {
                self.reason = Some(reason);
                Ok(self)
            }
            (Strategy::OldIsCurrent, Reason::Update) => Err(vec![FieldError::new(
                "/reason",
                "old_is_current makes the new memory a correction (it never held)",
            )]),
            _ => Err(vec![FieldError::new(
                "/reason",
                "is only allowed with new_is_current or old_is_current",
            )]),
        }
    }

    pub fn parse(
        conflict_id: Uuid,
        resolution: &str,
        merged_content: Option<String>,
        resolved_by: Option<String>,
        note: Option<String>,
    ) -> Result<Self, Vec<FieldError>> {
        let mut e = Errors::default();
        let strategy = resolution.parse::<Strategy>().unwrap_or_else(|msg| {
            e.add("/resolution", msg);
            Strategy::KeepBoth
        });
        if let Some(m) = &merged_content {
            if strategy != Strategy::Merge {
                e.add("/merged_content", "is only allowed with the merge strategy");
            }
            if m.len() > MAX_BODY_BYTES {
                e.add("/merged_content", "must be at most 1 MiB");
            }
            check_text(&mut e, "/merged_content", m);
        }
        for (pointer, text) in [("/resolved_by", &resolved_by), ("/note", &note)] {
            if let Some(t) = text {
                check_text(&mut e, pointer, t);
            }
        }
        if resolved_by
            .as_ref()
            .is_some_and(|r| r.chars().count() > 200)
        {
            e.add("/resolved_by", "must be at most 200 characters");
        }
        if history::is_automatic(resolved_by.as_deref()) {
            e.add(
                "/resolved_by",
                "must not start with `policy:`, which names the configured resolution policies",
            );
        }
        if note.as_ref().is_some_and(|n| n.chars().count() > 10_000) {
            e.add("/note", "must be at most 10000 characters");
        }
        e.finish(Self {
            conflict_id,
            strategy,
            merged_content,
            resolved_by,
            note,
            reason: None,
            scopes: None,
            key: None,
        })
    }

    /// Whether a resolved conflict was resolved by this same request (a safe retry).
    pub fn repeats(&self, conflict: &Conflict, stored_merged_content: Option<&str>) -> bool {
        conflict.resolution == Some(self.strategy)
            && stored_merged_content == self.merged_content.as_deref()
    }
}

/// One unit of work of a resolution.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    CreateNode(Box<NewNode>),
    /// A state change, with the node's standing in valid time after it.
    SetState {
        node_id: Uuid,
        from: NodeState,
        to: NodeState,
        validity: Validity,
    },
    CreateEdge(Edge),
    MergeBody {
        node_id: Uuid,
        body: String,
        labels: Vec<String>,
        chars_added: i64,
    },
    /// Moves every edge of `from` that does not link it to `to`.
    MoveEdges {
        from: Uuid,
        to: Uuid,
    },
    DeleteNode {
        node_id: Uuid,
    },
    MarkResolved,
}

impl Step {
    /// The action this step reports once done; `moved` is the count a `MoveEdges` moved.
    pub fn action(&self, conflict_id: Uuid, moved: u64) -> Action {
        match self {
            Self::CreateNode(n) => Action::NodeCreated {
                summary: format!("New node {} created from the conflict's new content", n.id),
                node_id: n.id,
            },
            Self::SetState {
                node_id,
                from,
                to,
                validity,
            } => Action::NodeStateChanged {
                summary: format!("Node {node_id} {from} → {to}{}", held(validity)),
                node_id: *node_id,
                from: from.to_string(),
                to: to.to_string(),
            },
            Self::CreateEdge(e) => Action::EdgeCreated {
                summary: format!("Edge {} {} → {}", e.kind, e.source_id, e.target_id),
                edge_id: e.id,
                kind: e.kind.clone(),
                source_id: e.source_id,
                target_id: e.target_id,
            },
            Self::MergeBody {
                node_id,
                chars_added,
                ..
            } => Action::NodeBodyMerged {
                summary: format!("Node {node_id} body merged ({chars_added:+} characters)"),
                node_id: *node_id,
                chars_added: *chars_added,
            },
            Self::MoveEdges { from, to } => Action::EdgesMoved {
                summary: format!("{moved} edge(s) moved from {from} to {to}"),
                from_node_id: *from,
                to_node_id: *to,
                count: moved,
            },
            Self::DeleteNode { node_id } => Action::NodeDeleted {
                summary: format!("Node {node_id} deleted"),
                node_id: *node_id,
            },
            Self::MarkResolved => Action::ConflictResolved {
                summary: format!("Conflict {conflict_id} resolved"),
                conflict_id,
            },
        }
    }
}

/// How a state change left valid time, for its action's summary.
fn held(v: &Validity) -> String {
    match (v.corrected, v.valid_until) {
        (true, _) => " (a correction: it never held)".to_owned(),
        (false, Some(until)) => format!(" (held until {})", time::format(&until)),
        (false, None) => String::new(),
    }
}

/// The steps of one resolution, in order, and the node ids the response names.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub steps: Vec<Step>,
    pub old_node_id: Uuid,
    pub new_node_id: Option<Uuid>,
    pub resolved_at: Timestamp,
    /// Why the losing side stopped holding, and whether concord chose it (no `reason` in
    /// the request); absent for `keep_both` and `merge`, which end nothing.
    pub reason: Option<(Reason, bool)>,
}

/// Why a plan cannot be made.
#[derive(Debug, Clone, PartialEq)]
pub enum PlanError {
    /// The node the strategy keeps current is no longer active.
    Stale { node_id: Uuid, state: NodeState },
    /// The old node is gone (only a resolved conflict can lose it).
    MissingOldNode,
}

/// Plans a resolution of a pending conflict whose nodes were read in the same transaction.
pub fn plan(conflict: &Conflict, req: &Resolve, now: Timestamp) -> Result<Plan, PlanError> {
    let old = conflict
        .old_node
        .as_ref()
        .ok_or(PlanError::MissingOldNode)?;
    let new = conflict.new_node.as_ref();
    let kept = match req.strategy {
        Strategy::OldIsCurrent | Strategy::Merge => Some(old),
        Strategy::NewIsCurrent | Strategy::KeepBoth => new,
    };
    // A quarantined new memory is kept by promoting it; any other state than active means
    // the conflict is stale.
    let promotable =
        |n: &Node| n.state == NodeState::Quarantined && Some(n.id) == new.map(|m| m.id);
    if let Some(node) = kept.filter(|n| n.state != NodeState::Active && !promotable(n)) {
        return Err(PlanError::Stale {
            node_id: node.id,
            state: node.state,
        });
    }
    let mut steps = Vec::new();
    let mut new_node_id = new.map(|n| n.id);
    let mut winner_observed = new.map(|n| n.observed_at);
    let needs_node = matches!(req.strategy, Strategy::NewIsCurrent | Strategy::KeepBoth);
    if new.is_none() && needs_node {
        let created = node_from_content(old, conflict.new_content.as_deref(), now);
        new_node_id = Some(created.id);
        winner_observed = Some(created.observed_at);
        steps.push(Step::CreateNode(Box::new(created)));
    }
    let mut reason = None;
    match req.strategy {
        Strategy::NewIsCurrent => {
            let new_id = new_node_id.expect("created above");
            let chosen = req.reason.map(|r| (r, false)).unwrap_or_else(|| {
                let text = new
                    .map(|n| n.body.as_str())
                    .or(conflict.new_content.as_deref());
                (valid_time::infer(text.unwrap_or_default()), true)
            });
            reason = Some(chosen);
            push_promotion(&mut steps, new);
            let since = winner_observed.unwrap_or(now);
            push_dormant(&mut steps, old, chosen.0, since);
            steps.push(resolution_edge(new_id, old.id, edge::SUPERSEDES, now));
        }
        Strategy::OldIsCurrent => {
            if let Some(n) = new {
                reason = Some((Reason::Correction, req.reason.is_none()));
                push_dormant(&mut steps, n, Reason::Correction, now);
                steps.push(resolution_edge(old.id, n.id, edge::SUPERSEDES, now));
            }
        }
        Strategy::KeepBoth => {
            let new_id = new_node_id.expect("created above");
            push_promotion(&mut steps, new);
            steps.push(resolution_edge(old.id, new_id, edge::RELATES_TO, now));
        }
        Strategy::Merge => {
            steps.push(merge_step(old, new, conflict, req, now));
            if let Some(n) = new {
                steps.push(Step::MoveEdges {
                    from: n.id,
                    to: old.id,
                });
                steps.push(Step::DeleteNode { node_id: n.id });
            }
        }
    }
    steps.push(Step::MarkResolved);
    Ok(Plan {
        steps,
        old_node_id: old.id,
        new_node_id,
        resolved_at: now,
        reason,
    })
}

/// A quarantined new memory the resolution keeps becomes current, holding as it was written.
fn push_promotion(steps: &mut Vec<Step>, new: Option<&Node>) {
    if let Some(n) = new.filter(|n| n.state == NodeState::Quarantined) {
        steps.push(Step::SetState {
            node_id: n.id,
            from: n.state,
            to: NodeState::Active,
            validity: n.validity,
        });
    }
}

/// The loser stops being current, and stops holding for `reason` (the winner observed at
/// `since`); a rejected quarantined memory is dormant the same way. Making an already
/// dormant (or archived) node dormant is not an error, and not a step: its standing stays as
/// it is.
fn push_dormant(steps: &mut Vec<Step>, node: &Node, reason: Reason, since: Timestamp) {
    if matches!(node.state, NodeState::Active | NodeState::Quarantined) {
        steps.push(Step::SetState {
            node_id: node.id,
            from: node.state,
            to: NodeState::Dormant,
            validity: node.validity.ended(reason, node.observed_at, since),
        });
    }
}

fn resolution_edge(source: Uuid, target: Uuid, kind: &str, now: Timestamp) -> Step {
    let mut e = Edge::system(source, target, kind, edge::RESOLUTION_CONFIDENCE);
    e.valid_from = now;
    e.created_at = now;
    Step::CreateEdge(e)
}

fn merge_step(
    old: &Node,
    new: Option<&Node>,
    conflict: &Conflict,
    req: &Resolve,
    now: Timestamp,
) -> Step {
    let body = match &req.merged_content {
        Some(m) => m.clone(),
        None => {
            let added = new
                .map(|n| n.body.as_str())
                .or(conflict.new_content.as_deref())
                .unwrap_or_default();
            format!(
                "{}\n\n--- Merged ({}) ---\n\n{}",
                old.body,
                time::day(&now),
                added
            )
        }
    };
    let labels = new.map_or_else(
        || old.labels.clone(),
        |n| union_labels(&old.labels, &n.labels),
    );
    let chars_added = body.chars().count() as i64 - old.body.chars().count() as i64;
    Step::MergeBody {
        node_id: old.id,
        body,
        labels,
        chars_added,
    }
}

/// The new node made from a conflict's `new_content`: the old node's title, type, labels, scope.
fn node_from_content(old: &Node, content: Option<&str>, now: Timestamp) -> NewNode {
    NewNode {
        id: Uuid::now_v7(),
        title: old.title.clone(),
        body: content.unwrap_or_default().to_owned(),
        memory_type: old.memory_type.clone(),
        labels: old.labels.clone(),
        scope: old.scope.clone(),
        source: None,
        confidence: old.confidence,
        state: NodeState::Active,
        observed_at: now,
        created_at: now,
        embedding: None,
        provenance: None,
        // The resolution's change context says who made it.
        changed_by: None,
        changed_key: None,
    }
}

#[cfg(test)]
mod tests;
