//! Writing many memories at once (`POST /nodes/batch`, `concord import`): validate every
//! item, detect against the store and among the batch, and write it all in one transaction.

use async_trait::async_trait;

use crate::domain::FieldError;
use crate::domain::access::Caller;
use crate::domain::batch::{BatchInput, BatchWritten, NewBatch};
use crate::domain::contradiction::Sensitivity;
use crate::domain::node::NewNode;
use crate::domain::time;
use crate::service::idempotency::{self, Claim};
use crate::service::scopes::may_write;
use crate::service::{Error, Result, Services, edges, nodes, replies};
use crate::store::{BatchJudge, Candidate, CandidateQuery, DetectedConflict, StoreResult};
use std::collections::HashMap;

/// Validates a batch and writes it with what detection finds for each node (unless `detect`
/// is false), all or nothing, and wakes waiters when any conflict was queued. Each node's
/// candidates are searched in the batch's transaction, after its earlier nodes were written
/// there, so the batch queues exactly what writing its nodes one at a time in its order would.
/// The transaction is held while they are judged (with the LLM tier, for its answers too). With a claimed key its reply
/// ([`replies::batch_written`]) commits in that transaction. `by` is who writes it. The
/// caller's key must hold every item's scope (`default` for an item without one, as for
/// `POST /nodes`), and edges reach only stored nodes it sees.
#[allow(clippy::too_many_arguments)]
pub async fn remember_all(
    svc: &Services,
    caller: &Caller,
    input: BatchInput,
    by: Option<String>,
    detect: bool,
    sensitivity: Option<Sensitivity>,
    claim: Option<&Claim>,
) -> Result<BatchWritten> {
    let mut batch = input.parse(time::now()).map_err(Error::Invalid)?;
    for b in &mut batch.nodes {
        may_write(caller, &b.node.scope)?;
        b.node.changed_by.clone_from(&by);
        b.node.changed_key = caller.writer();
    }
    let stored: Vec<(String, uuid::Uuid)> = batch
        .edges
        .iter()
        .enumerate()
        .flat_map(|(j, e)| {
            [
                (format!("/edges/{j}/source"), e.source_id),
                (format!("/edges/{j}/target"), e.target_id),
            ]
        })
        .filter(|(_, id)| !batch.nodes.iter().any(|b| b.node.id == *id))
        .collect();
    let ends: Vec<(&str, uuid::Uuid)> = stored.iter().map(|(p, id)| (p.as_str(), *id)).collect();
    edges::unseen_ends(svc, caller, &ends).await?;
    let mut declared = HashMap::new();
    let mut errors = Vec::new();
    for (i, b) in batch.nodes.iter().enumerate() {
        match nodes::declared_replacements(svc, caller, &b.node).await {
            Ok(olds) if olds.is_empty() => {}
            Ok(olds) => {
                declared.insert(b.node.id, olds);
            }
            Err(Error::Invalid(e)) => {
                let under =
                    |e: FieldError| FieldError::new(format!("/nodes/{i}{}", e.pointer), e.detail);
                errors.extend(e.into_iter().map(under));
            }
            Err(e) => return Err(e),
        }
    }
    if !errors.is_empty() {
        return Err(Error::Invalid(errors));
    }
    let store = &*svc.store;
    let written = if detect || !declared.is_empty() {
        let judge = (svc.detector)
            .for_batch(store, sensitivity, detect, declared)
            .await?;
        write(svc, batch, &judge, claim).await?
    } else {
        write(svc, batch, &NoDetection, claim).await?
    };
    if written.nodes.iter().any(|n| !n.conflicts.is_empty()) {
        svc.notifier.bump();
    }
    Ok(written)
}

async fn write(
    svc: &Services,
    batch: NewBatch,
    judge: &dyn BatchJudge,
    claim: Option<&Claim>,
) -> Result<BatchWritten> {
    Ok(match claim {
        None => svc.store.create_batch(batch, judge).await?,
        Some(c) => {
            let pending = svc.store.create_batch_keyed(batch, judge).await?;
            idempotency::commit(c, pending, replies::batch_written).await?
        }
    })
}

/// A batch written with `?detect=false`.
struct NoDetection;

#[async_trait]
impl BatchJudge for NoDetection {
    fn query(&self, _: &NewNode) -> Option<CandidateQuery> {
        None
    }

    async fn judge(&self, _: &NewNode, _: Vec<Candidate>) -> StoreResult<Vec<DetectedConflict>> {
        Ok(Vec::new())
    }
}
