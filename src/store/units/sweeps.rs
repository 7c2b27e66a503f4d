//! A stretch of a sweep, in one transaction: the conflicts it found queued (with the
//! resolutions policies decided on), and its checkpoint moved past the memories it compared.
//! Both commit or neither does, so a sweep that restarts from its checkpoint compares again
//! only what was not recorded, and finds the pairs it queued remembered.

use crate::domain::sweep::Sweep;
use crate::store::backend::{Backend, Id, QueryExt, Ts};
use crate::store::units::policy;
use crate::store::{StoreResult, SweepChunk, conflicts, locks, sweeps};

/// Queues what `chunk` found and records its progress; `None` (and nothing written) when the
/// sweep is no longer its runner's to record: cancelled, or taken over after its lease ran out.
pub async fn record<B: Backend>(store: &B, chunk: &SweepChunk) -> StoreResult<Option<Sweep>> {
    let mut tx = store.write().await?;
    let mut queued = 0i64;
    for (node, found) in &chunk.found {
        // The memory compared may have been resolved away since it was read.
        let active = B::query("select 1 from nodes where node_id = $1 and state = 'active'")
            .arg(Id(*node))
            .optional(&mut tx)
            .await?;
        if active.is_none() || found.is_empty() {
            continue;
        }
        if found.iter().any(|h| h.resolve.is_some()) {
            let olds = found.iter().map(|h| h.conflict.old_node_id).collect();
            locks::lock_nodes::<B>(&mut tx, olds).await?;
        }
        for hit in found {
            if let Some(c) = conflicts::insert_detected::<B>(&mut tx, hit).await? {
                if let Some(req) = &hit.resolve {
                    policy::apply::<B>(&mut tx, c, req).await?;
                }
                queued += 1;
            }
        }
        if found.iter().any(|h| h.quarantine) {
            // A stored memory a policy holds back leaves the current set as a write's would.
            B::query(
                "update nodes set state = 'quarantined', updated_at = $2 \
                 where node_id = $1 and state = 'active'",
            )
            .arg(Id(*node))
            .arg(Ts(chunk.at))
            .run(&mut tx)
            .await?;
        }
    }
    let recorded = B::query(
        "update sweeps set checkpoint = $3, compared = compared + $4, queued = queued + $5, \
           lease_until = $6, updated_at = $7 \
         where sweep_id = $1 and status = 'running' and lease_owner = $2",
    )
    .arg(Id(chunk.sweep))
    .arg(&chunk.owner)
    .arg(Id(chunk.checkpoint))
    .arg(chunk.compared)
    .arg(queued)
    .arg(Ts(chunk.lease_until))
    .arg(Ts(chunk.at))
    .run(&mut tx)
    .await?;
    if recorded == 0 {
        // Dropped, so rolled back: someone else records this sweep now, or no one.
        return Ok(None);
    }
    if chunk.progress_event {
        sweeps::event::<B>(&mut tx, "sweep.progress", chunk.sweep).await?;
    }
    let sweep = sweeps::get_in::<B>(&mut tx, chunk.sweep).await?;
    B::commit(tx).await?;
    Ok(Some(sweep))
}
