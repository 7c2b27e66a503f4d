//! Executes a revert (`domain::revert`) in one write transaction, on either database.
//!
//! It locks as a resolution does ([`Backend::lock_for_resolution`]: the conflict's nodes in id
//! order, then its row), so reverts and resolutions sharing a node run one after the other and
//! cannot deadlock each other. Then it reads the resolution's history entry and pre-image and
//! the rows as they are now, lets the domain decide (later changes in the way, or the steps),
//! and runs the steps, each followed by a failpoint. Row restores that the locks do not cover
//! are conditional on the row being as the domain saw it, so a concurrent change is refused
//! rather than overwritten.

mod now;
mod rows;

use std::collections::HashMap;

use crate::domain::conflict::{Action, Conflict, Status};
use crate::domain::history::{HistoryEntry, HistoryKind};
use crate::domain::resolution::Resolution;
use crate::domain::revert::{
    Obstacle, Resolved, Revert, RevertError, RevertStep, Reverted, uncount,
};
use crate::domain::time::{self, Timestamp};
use crate::store::backend::{Backend, Cols, Conn, Id, QueryExt, Ts};
use crate::store::nodes::{Change, delete_row};
use crate::store::pre_image::source_row;
use crate::store::units::{Open, Uncommitted};
use crate::store::{Failure, Refusal};
use crate::store::{StoreError, StoreResult, conflicts, failpoints, history};
use now::read_now;
use rows::{insert_edge, insert_node, move_back, restore_conflict, restore_row, write_source};

/// Reverts in its own write transaction, left open for its commit (a failed commit reports
/// the actions done, like a failed step); a replay only reads.
pub async fn revert<B: Backend>(store: &B, req: Revert) -> StoreResult<Open<B, Reverted>> {
    let mut tx = store.write().await?;
    let (outcome, done) = revert_in::<B>(&mut tx, &req).await?;
    let tx = if outcome.replayed {
        Uncommitted::read_only(tx)
    } else {
        Uncommitted::revert(tx, done)
    };
    Ok(Open { outcome, tx })
}

async fn revert_in<B: Backend>(
    tx: &mut Conn<B>,
    req: &Revert,
) -> StoreResult<(Reverted, Vec<Action>)> {
    B::lock_for_resolution(tx, req.conflict_id).await?;
    let conflict = conflicts::get_in::<B>(tx, req.conflict_id).await?;
    if !conflict.seen_by(req.scopes.as_deref()) {
        return Err(StoreError::NotFound("conflict"));
    }
    let latest = history::latest::<B>(tx, conflict.id).await?;
    if conflict.status == Status::Pending {
        return match (latest.entry.kind, latest.entry.resolution) {
            (HistoryKind::Reverted, Some(strategy)) => Ok((
                Reverted {
                    conflict_id: conflict.id,
                    strategy,
                    actions: latest.entry.actions,
                    reverted_at: latest.entry.at,
                    replayed: true,
                },
                Vec::new(),
            )),
            _ => Err(StoreError::Refused(Refusal::NotResolved)),
        };
    }
    let pre = latest
        .pre_image
        .ok_or(StoreError::Refused(Refusal::RevertBlocked(vec![
            Obstacle::NoPreImage,
        ])))?;
    let (new_key, outcome) = resolution_row::<B>(tx, &conflict).await?;
    let resolved = Resolved {
        conflict_id: conflict.id,
        strategy: outcome.strategy,
        old_node_id: outcome.old_node_id,
        new_node_id: outcome.new_node_id,
        new_key,
        resolved_at: latest.entry.at,
        actions: latest.entry.actions,
        pre,
    };
    let now = read_now::<B>(tx, &resolved, latest.entry_id).await?;
    let steps = resolved.plan(&now).map_err(|e| match e {
        RevertError::InTheWay(found) => StoreError::Refused(Refusal::RevertBlocked(found)),
        RevertError::Corrupt(why) => StoreError::Failed(Failure::Corrupt(why)),
    })?;
    let run = Run {
        conflict: &conflict,
        resolved: &resolved,
        req,
        at: time::now(),
    };
    let mut done: Vec<Action> = Vec::with_capacity(steps.len());
    for step in &steps {
        match run.execute::<B>(tx, step, &done).await {
            Ok(action) => done.extend(action),
            Err(e @ StoreError::Refused(Refusal::RevertBlocked(_))) => return Err(e),
            Err(cause) => {
                return Err(StoreError::Failed(Failure::Revert {
                    failed_action: step.name().to_owned(),
                    partial_actions: done,
                    cause: Box::new(cause),
                }));
            }
        }
    }
    Ok((run.reply(done.clone()), done))
}

/// The conflict's pair key and the stored reply of its resolution (which names its nodes).
async fn resolution_row<B: Backend>(
    conn: &mut Conn<B>,
    conflict: &Conflict,
) -> StoreResult<(String, Resolution)> {
    let row = B::query("select new_key, outcome from conflict_queue where conflict_id = $1")
        .arg(Id(conflict.id))
        .optional(conn)
        .await?
        .ok_or(StoreError::NotFound("conflict"))?;
    let c = Cols::<B::Db>::new(&row);
    let outcome = c.opt_json("outcome")?.ok_or_else(|| {
        StoreError::Failed(Failure::Corrupt("resolved conflict without outcome".into()))
    })?;
    Ok((c.get("new_key")?, outcome))
}

/// One revert under way.
struct Run<'a> {
    conflict: &'a Conflict,
    resolved: &'a Resolved,
    req: &'a Revert,
    at: Timestamp,
}

impl Run<'_> {
    async fn execute<B: Backend>(
        &self,
        conn: &mut Conn<B>,
        step: &RevertStep,
        done: &[Action],
    ) -> StoreResult<Option<Action>> {
        let mut moved = 0;
        let change = Change::in_conflict(
            self.conflict.id,
            self.req.reverted_by.as_deref(),
            self.req.key.as_deref(),
        );
        match step {
            RevertStep::DeleteEdge { edge_id, .. } => {
                B::query("delete from edges where edge_id = $1")
                    .arg(Id(*edge_id))
                    .run(conn)
                    .await?;
            }
            RevertStep::RestoreNode {
                node,
                edges,
                conflicts,
            } => {
                insert_node::<B>(conn, node, &change).await?;
                for edge in edges {
                    insert_edge::<B>(conn, edge).await?;
                }
                for c in conflicts {
                    restore_conflict::<B>(conn, c, node).await?;
                }
            }
            RevertStep::MoveEdgesBack { from, to, edges } => {
                for edge in edges {
                    moved += move_back::<B>(conn, edge, *to, *from).await?;
                }
            }
            RevertStep::RestoreRow { node, .. } => restore_row::<B>(conn, node, &change).await?,
            RevertStep::DeleteNode { node_id } => delete_row::<B>(conn, *node_id, &change).await?,
            RevertStep::MarkReverted => self.mark_reverted::<B>(conn, done).await?,
        }
        failpoints::hit(self.conflict.id, step.name())?;
        Ok(step.action(moved))
    }

    /// The conflict row as it was before the resolution, the verdicts uncounted, the history
    /// entry (which is also the stored reply) and the event.
    async fn mark_reverted<B: Backend>(
        &self,
        conn: &mut Conn<B>,
        done: &[Action],
    ) -> StoreResult<()> {
        let before = &self.resolved.pre.conflict;
        B::query(
            "update conflict_queue set status = 'pending', resolution = null, \
             merged_content = null, resolved_at = null, resolved_by = null, actions = null, \
             outcome = null, note = $2, new_node_id = $3, new_content = $4, updated_at = $5 \
             where conflict_id = $1 and status = 'resolved'",
        )
        .arg(Id(self.conflict.id))
        .arg(&before.note)
        .arg(before.new_node_id.map(Id))
        .arg(&before.new_content)
        .arg(Ts(before.updated_at))
        .run(conn)
        .await?;
        let pre = &self.resolved.pre;
        let mut counters = HashMap::new();
        for s in &pre.sources {
            if let Some(row) = source_row::<B>(conn, &s.scope, &s.source).await? {
                counters.insert((s.scope.clone(), s.source.clone()), row);
            }
        }
        for write in uncount(pre, &counters, self.at) {
            write_source::<B>(conn, &write).await?;
        }
        let actions = done.to_vec();
        let entry = HistoryEntry {
            at: self.at,
            kind: HistoryKind::Reverted,
            by: self.req.reverted_by.clone(),
            key: self.req.key.clone(),
            resolution: Some(self.resolved.strategy),
            note: self.req.note.clone(),
            actions,
        };
        history::record::<B>(conn, self.conflict.id, &entry, None).await?;
        conflicts::event::<B>(
            conn,
            "conflict.reverted",
            self.conflict.id,
            self.conflict.seq,
        )
        .await
    }

    fn reply(&self, actions: Vec<Action>) -> Reverted {
        Reverted {
            conflict_id: self.conflict.id,
            strategy: self.resolved.strategy,
            actions,
            reverted_at: self.at,
            replayed: false,
        }
    }
}
