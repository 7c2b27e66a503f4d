//! The parts of executing a resolution that do not depend on the database: what a retry of a
//! resolved conflict gets, what a plan error means, and which sources a verdict counts for.

use crate::domain::conflict::{Action, Conflict, Strategy};
use crate::domain::plan::{Plan, PlanError, Resolve};

use super::{Resolution, StoreError, StoreResult};

/// A resolved conflict asked again: the same request replays, another one is refused.
pub fn already_resolved(
    req: &Resolve,
    conflict: &Conflict,
    stored_merged: Option<&str>,
    mut stored: Resolution,
) -> StoreResult<Resolution> {
    if req.repeats(conflict, stored_merged) {
        stored.replayed = true;
        Ok(stored)
    } else {
        Err(StoreError::AlreadyResolved(Box::new(stored)))
    }
}

pub fn plan_error(e: PlanError) -> StoreError {
    match e {
        PlanError::Stale { node_id, state } => StoreError::Stale { node_id, state },
        PlanError::MissingOldNode => StoreError::NotFound("node"),
    }
}

pub fn outcome(
    conflict: &Conflict,
    req: &Resolve,
    plan: &Plan,
    actions: Vec<Action>,
) -> Resolution {
    Resolution {
        conflict_id: conflict.id,
        strategy: req.strategy,
        old_node_id: Some(plan.old_node_id),
        new_node_id: plan.new_node_id,
        actions,
        resolved_at: plan.resolved_at,
        replayed: false,
    }
}

/// `(source, upheld)` pairs a verdict counts: `new_is_current` upholds the new side's source and
/// contradicts the old side's; `old_is_current` the reverse; the other strategies count nothing.
pub fn verdicts(conflict: &Conflict, strategy: Strategy) -> Vec<(String, bool)> {
    let old = conflict.old_node.as_ref().and_then(|n| n.source.clone());
    let new = conflict.new_node.as_ref().and_then(|n| n.source.clone());
    let new_won = match strategy {
        Strategy::NewIsCurrent => true,
        Strategy::OldIsCurrent => false,
        Strategy::KeepBoth | Strategy::Merge => return Vec::new(),
    };
    let mut out = Vec::new();
    if let Some(s) = new {
        out.push((s, new_won));
    }
    if let Some(s) = old {
        out.push((s, !new_won));
    }
    out
}
