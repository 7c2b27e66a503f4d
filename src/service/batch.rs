//! Writing many memories at once (`POST /nodes/batch`, `concord import`): validate every
//! item, detect against the store and among the batch, and write it all in one transaction.

use crate::domain::batch::{BatchInput, BatchWritten};
use crate::domain::contradiction::Sensitivity;
use crate::domain::time;
use crate::service::idempotency::{self, Claim};
use crate::service::{Error, Result, Services, replies};

/// Validates a batch and writes it with what detection finds for each node (unless `detect`
/// is false), all or nothing, and wakes waiters when any conflict was queued. Each node is
/// judged against the stored memories and the batch's earlier nodes, as though the batch had
/// been written one node at a time in its order. With a claimed key its reply
/// ([`replies::batch_written`]) commits in that transaction. `by` is who writes it.
pub async fn remember_all(
    svc: &Services,
    input: BatchInput,
    by: Option<String>,
    detect: bool,
    sensitivity: Option<Sensitivity>,
    claim: Option<&Claim>,
) -> Result<BatchWritten> {
    let mut batch = input.parse(time::now()).map_err(Error::Invalid)?;
    for b in &mut batch.nodes {
        b.node.changed_by.clone_from(&by);
    }
    let store = &*svc.store;
    let found = if detect {
        let nodes: Vec<_> = batch.nodes.iter().map(|b| b.node.clone()).collect();
        svc.detector
            .detect_batch(store, &nodes, sensitivity)
            .await?
    } else {
        vec![Vec::new(); batch.nodes.len()]
    };
    let written = match claim {
        None => store.create_batch(batch, found).await?,
        Some(c) => {
            let pending = store.create_batch_keyed(batch, found).await?;
            idempotency::commit(c, pending, replies::batch_written).await?
        }
    };
    if written.nodes.iter().any(|n| !n.conflicts.is_empty()) {
        svc.notifier.bump();
    }
    Ok(written)
}
