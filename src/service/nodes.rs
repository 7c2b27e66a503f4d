//! Writing and checking memories: validate, detect, store, and wake the watchers. `POST
//! /nodes`, `POST /nodes/{id}/check` and the MCP tools `remember` and `check_contradictions`
//! all come through here.

use uuid::Uuid;

use crate::domain::conflict::{Conflict, Detection, Recommendation};
use crate::domain::contradiction::Sensitivity;
use crate::domain::node::{NewNode, Node, NodeInput};
use crate::domain::time;
use crate::service::detect::{Finding, Probe, credibility_table, recommend_for};
use crate::state::AppState;
use crate::store::{StoreError, StoreResult};

/// A contradiction a check found; nothing was queued for it.
pub struct Hit {
    /// The stored node the checked text contradicts.
    pub old: Node,
    pub conflict_type: String,
    pub detection: Detection,
    pub recommendation: Recommendation,
}

impl Hit {
    fn new(f: Finding, recommendation: Recommendation) -> Self {
        Self {
            conflict_type: f.verdict.conflict_type.as_str().to_owned(),
            detection: f.detection(),
            recommendation,
            old: f.old,
        }
    }
}

/// Validates and stores a node, with the conflicts detection finds (unless `detect` is
/// false) in the same transaction, and wakes waiters when any was queued.
pub async fn remember(
    state: &AppState,
    input: NodeInput,
    detect: bool,
    sensitivity: Option<Sensitivity>,
) -> StoreResult<(Node, Vec<Conflict>)> {
    let node = NewNode::parse(input, time::now()).map_err(StoreError::Invalid)?;
    let (node, conflicts) = state
        .detector
        .write_node(&*state.store, node, detect, sensitivity)
        .await?;
    if !conflicts.is_empty() {
        state.notifier.bump();
    }
    Ok((node, conflicts))
}

/// What a stored node contradicts now among the active nodes; writes nothing.
pub async fn check_node(
    state: &AppState,
    id: Uuid,
    sensitivity: Option<Sensitivity>,
) -> StoreResult<Vec<Hit>> {
    let found = state
        .detector
        .check_node(&*state.store, id, sensitivity)
        .await?;
    Ok(found.into_iter().map(|(f, r)| Hit::new(f, r)).collect())
}

/// What a memory that is not stored would contradict if it were written; writes nothing.
/// The input is validated exactly as a write would be.
pub async fn check_text(
    state: &AppState,
    input: NodeInput,
    sensitivity: Option<Sensitivity>,
) -> StoreResult<Vec<Hit>> {
    let node = NewNode::parse(input, time::now()).map_err(StoreError::Invalid)?;
    let store = &*state.store;
    let probe = Probe::of_new(&node);
    let findings = state.detector.find(store, &probe, sensitivity).await?;
    if findings.is_empty() {
        return Ok(Vec::new());
    }
    let table = credibility_table(store).await?;
    Ok(findings
        .into_iter()
        .map(|f| {
            let r = recommend_for(&f.old, &probe, &table);
            Hit::new(f, r)
        })
        .collect())
}
