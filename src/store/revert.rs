//! Executes a revert (`domain::revert`) in one write transaction, on either database.
//!
//! It locks as a resolution does ([`Backend::lock_for_resolution`]: the conflict row, then its
//! nodes in id order), so reverts and resolutions sharing a node run one after the other and
//! cannot deadlock each other. Then it reads the resolution's history entry and pre-image and
//! the rows as they are now, lets the domain decide (later changes in the way, or the steps),
//! and runs the steps, each followed by a failpoint. Row restores that the locks do not cover
//! are conditional on the row being as the domain saw it, so a concurrent change is refused
//! rather than overwritten.

use std::collections::HashMap;

use sqlx::types::Json;

use super::backend::{Backend, Cols, Conn, Id, QueryExt, Ts};
use super::pre_image::{node_image, source_row};
use super::{StoreError, StoreResult, conflicts, failpoints, history, nodes};
use crate::domain::conflict::{Action, Conflict, Status};
use crate::domain::history::{HistoryEntry, HistoryKind};
use crate::domain::pre_image::{ConflictImage, EdgeImage, NodeImage, unhex};
use crate::domain::resolution::Resolution;
use crate::domain::revert::{
    Now, Obstacle, Resolved, Revert, RevertError, RevertStep, Reverted, SourceWrite, uncount,
};
use crate::domain::time::{self, Timestamp};

pub async fn revert<B: Backend>(store: &B, req: Revert) -> StoreResult<Reverted> {
    let mut tx = store.write().await?;
    let (outcome, done) = revert_in::<B>(&mut tx, &req).await?;
    if outcome.replayed {
        return Ok(outcome);
    }
    B::commit(tx).await.map_err(|e| StoreError::RevertFailed {
        failed_action: "commit".into(),
        partial_actions: done,
        cause: Box::new(e.into()),
    })?;
    Ok(outcome)
}

async fn revert_in<B: Backend>(
    tx: &mut Conn<B>,
    req: &Revert,
) -> StoreResult<(Reverted, Vec<Action>)> {
    B::lock_for_resolution(tx, req.conflict_id).await?;
    let conflict = conflicts::get_in::<B>(tx, req.conflict_id).await?;
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
            _ => Err(StoreError::NotResolved),
        };
    }
    let pre = latest
        .pre_image
        .ok_or(StoreError::RevertConflict(vec![Obstacle::NoPreImage]))?;
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
        RevertError::InTheWay(found) => StoreError::RevertConflict(found),
        RevertError::Corrupt(why) => StoreError::Corrupt(why),
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
            Ok(action) => done.push(action),
            Err(e @ StoreError::RevertConflict(_)) => return Err(e),
            Err(cause) => {
                return Err(StoreError::RevertFailed {
                    failed_action: step.action(conflict.id, 0).name().to_owned(),
                    partial_actions: done,
                    cause: Box::new(cause),
                });
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
    let outcome = c
        .opt_json("outcome")?
        .ok_or_else(|| StoreError::Corrupt("resolved conflict without outcome".into()))?;
    Ok((c.get("new_key")?, outcome))
}

/// The rows the domain asks for ([`Resolved::wants`]), as they are now.
async fn read_now<B: Backend>(
    conn: &mut Conn<B>,
    resolved: &Resolved,
    entry_id: i64,
) -> StoreResult<Now> {
    let wants = resolved.wants();
    let mut now = Now::default();
    for id in wants.nodes {
        if let Some(row) = node_image::<B>(conn, id).await? {
            now.nodes.insert(id, row);
        }
    }
    for id in wants.edges {
        let row = B::query("select source_id, target_id from edges where edge_id = $1")
            .arg(Id(id))
            .optional(conn)
            .await?;
        if let Some(row) = row {
            let c = Cols::<B::Db>::new(&row);
            now.edges
                .insert(id, (c.id("source_id")?, c.id("target_id")?));
        }
    }
    for id in wants.conflicts {
        let row = B::query(
            "select old_node_id, new_node_id, new_content from conflict_queue \
             where conflict_id = $1",
        )
        .arg(Id(id))
        .optional(conn)
        .await?;
        if let Some(row) = row {
            let c = Cols::<B::Db>::new(&row);
            let refs = crate::domain::pre_image::ConflictRefs {
                old_node_id: c.opt_id("old_node_id")?,
                new_node_id: c.opt_id("new_node_id")?,
                new_content: c.get("new_content")?,
            };
            now.conflicts.insert(id, refs);
        }
    }
    for node in wants.watched {
        let rows = B::query(
            "select c.conflict_id from conflict_queue c \
             where c.conflict_id <> $2 and c.status = 'resolved' \
               and (c.old_node_id = $1 or c.new_node_id = $1) \
               and exists (select 1 from conflict_history h \
                           where h.conflict_id = c.conflict_id \
                             and h.kind in ('resolved', 'auto_resolved') and h.entry_id > $3) \
             order by c.seq",
        )
        .arg(Id(node))
        .arg(Id(resolved.conflict_id))
        .arg(entry_id)
        .all(conn)
        .await?;
        for row in &rows {
            let id = Cols::<B::Db>::new(row).id("conflict_id")?;
            now.resolved_since.push((id, node));
        }
    }
    if let Some(old) = resolved.old_node_id {
        let row = B::query(
            "select conflict_id from conflict_queue \
             where old_node_id = $1 and new_key = $2 and status = 'pending' \
               and conflict_id <> $3",
        )
        .arg(Id(old))
        .arg(&resolved.new_key)
        .arg(Id(resolved.conflict_id))
        .optional(conn)
        .await?;
        if let Some(row) = row {
            now.pair_taken_by = Some(Cols::<B::Db>::new(&row).id("conflict_id")?);
        }
    }
    let created_edges: Vec<uuid::Uuid> = resolved.wants().edges;
    for node in wants.created {
        let rows = B::query(
            "select edge_id as id from edges where source_id = $1 or target_id = $1 \
             union all \
             select conflict_id as id from conflict_queue \
             where (old_node_id = $1 or new_node_id = $1) and conflict_id <> $2",
        )
        .arg(Id(node))
        .arg(Id(resolved.conflict_id))
        .all(conn)
        .await?;
        for row in &rows {
            let id = Cols::<B::Db>::new(row).id("id")?;
            if !created_edges.contains(&id) {
                now.links.push((node, id));
            }
        }
    }
    Ok(now)
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
    ) -> StoreResult<Action> {
        let mut moved = 0;
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
                insert_node::<B>(conn, node).await?;
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
            RevertStep::RestoreRow { node, .. } => restore_row::<B>(conn, node).await?,
            RevertStep::DeleteNode { node_id } => {
                B::query("delete from nodes where node_id = $1")
                    .arg(Id(*node_id))
                    .run(conn)
                    .await?;
            }
            RevertStep::MarkReverted => self.mark_reverted::<B>(conn, step, done).await?,
        }
        let action = step.action(self.conflict.id, moved);
        failpoints::hit(self.conflict.id, action.name())?;
        Ok(action)
    }

    /// The conflict row as it was before the resolution, the verdicts uncounted, the history
    /// entry (which is also the stored reply) and the event.
    async fn mark_reverted<B: Backend>(
        &self,
        conn: &mut Conn<B>,
        step: &RevertStep,
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
            if let Some(row) = source_row::<B>(conn, &s.source).await? {
                counters.insert(s.source.clone(), row);
            }
        }
        for write in uncount(pre, &counters, self.at) {
            write_source::<B>(conn, &write).await?;
        }
        let mut actions = done.to_vec();
        actions.push(step.action(self.conflict.id, 0));
        let entry = HistoryEntry {
            at: self.at,
            kind: HistoryKind::Reverted,
            by: self.req.reverted_by.clone(),
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

fn embedding(node: &NodeImage) -> StoreResult<Option<Vec<u8>>> {
    node.embedding
        .as_deref()
        .map(|h| unhex(h).ok_or_else(|| StoreError::Corrupt("embedding pre-image".into())))
        .transpose()
}

async fn insert_node<B: Backend>(conn: &mut Conn<B>, n: &NodeImage) -> StoreResult<()> {
    B::query(
        "insert into nodes (node_id, title, body, memory_type, labels, scope, source, \
         confidence, state, observed_at, created_at, updated_at, embedding, embedding_dim, \
         search_tokens) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
    )
    .arg(Id(n.node_id))
    .arg(&n.title)
    .arg(&n.body)
    .arg(&n.memory_type)
    .arg(Json(&n.labels))
    .arg(&n.scope)
    .arg(&n.source)
    .arg(n.confidence)
    .arg(&n.state)
    .arg(Ts(n.observed_at))
    .arg(Ts(n.created_at))
    .arg(Ts(n.updated_at))
    .arg(embedding(n)?)
    .arg(n.embedding_dim)
    .arg(&n.search_tokens)
    .run(conn)
    .await?;
    nodes::write_labels::<B>(conn, n.node_id, &n.labels).await
}

async fn restore_row<B: Backend>(conn: &mut Conn<B>, n: &NodeImage) -> StoreResult<()> {
    B::query(
        "update nodes set title = $2, body = $3, memory_type = $4, labels = $5, scope = $6, \
         source = $7, confidence = $8, state = $9, observed_at = $10, created_at = $11, \
         updated_at = $12, embedding = $13, embedding_dim = $14, search_tokens = $15 \
         where node_id = $1",
    )
    .arg(Id(n.node_id))
    .arg(&n.title)
    .arg(&n.body)
    .arg(&n.memory_type)
    .arg(Json(&n.labels))
    .arg(&n.scope)
    .arg(&n.source)
    .arg(n.confidence)
    .arg(&n.state)
    .arg(Ts(n.observed_at))
    .arg(Ts(n.created_at))
    .arg(Ts(n.updated_at))
    .arg(embedding(n)?)
    .arg(n.embedding_dim)
    .arg(&n.search_tokens)
    .run(conn)
    .await?;
    nodes::write_labels::<B>(conn, n.node_id, &n.labels).await
}

async fn insert_edge<B: Backend>(conn: &mut Conn<B>, e: &EdgeImage) -> StoreResult<()> {
    B::query(
        "insert into edges (edge_id, source_id, target_id, kind, neural_weight, strength, \
         confidence, valid_from, created_at, updated_at) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .arg(Id(e.edge_id))
    .arg(Id(e.source_id))
    .arg(Id(e.target_id))
    .arg(&e.kind)
    .arg(e.neural_weight)
    .arg(e.strength)
    .arg(e.confidence)
    .arg(Ts(e.valid_from))
    .arg(Ts(e.created_at))
    .arg(Ts(e.updated_at))
    .run(conn)
    .await?;
    Ok(())
}

/// Moves one edge back from `kept` to `gone`, if it is still where the merge left it.
async fn move_back<B: Backend>(
    conn: &mut Conn<B>,
    e: &EdgeImage,
    gone: uuid::Uuid,
    kept: uuid::Uuid,
) -> StoreResult<u64> {
    let Some((source, target)) = e.after_merge(gone, kept) else {
        return Ok(0);
    };
    let moved = B::query(
        "update edges set source_id = $2, target_id = $3, updated_at = $4 \
         where edge_id = $1 and source_id = $5 and target_id = $6",
    )
    .arg(Id(e.edge_id))
    .arg(Id(e.source_id))
    .arg(Id(e.target_id))
    .arg(Ts(e.updated_at))
    .arg(Id(source))
    .arg(Id(target))
    .run(conn)
    .await?;
    if moved == 0 {
        return Err(StoreError::RevertConflict(vec![Obstacle::EdgeChanged {
            edge_id: e.edge_id,
        }]));
    }
    Ok(moved)
}

/// Puts back what deleting `gone` did to another conflict: re-inserts it (with its history)
/// when the delete deleted it, else restores its references if they are as the delete left them.
async fn restore_conflict<B: Backend>(
    conn: &mut Conn<B>,
    c: &ConflictImage,
    gone: &NodeImage,
) -> StoreResult<()> {
    if c.deleted_with(gone.node_id) {
        return insert_conflict::<B>(conn, c).await;
    }
    let left = c.refs_after_delete(gone.node_id, &gone.body);
    let restored = B::query(
        "update conflict_queue set old_node_id = $2, new_node_id = $3, new_content = $4 \
         where conflict_id = $1 and old_node_id is not distinct from $5 \
           and new_node_id is not distinct from $6 and new_content is not distinct from $7",
    )
    .arg(Id(c.conflict_id))
    .arg(c.old_node_id.map(Id))
    .arg(c.new_node_id.map(Id))
    .arg(&c.new_content)
    .arg(left.old_node_id.map(Id))
    .arg(left.new_node_id.map(Id))
    .arg(&left.new_content)
    .run(conn)
    .await?;
    if restored == 0 {
        return Err(StoreError::RevertConflict(vec![
            Obstacle::ConflictChanged {
                conflict_id: c.conflict_id,
            },
        ]));
    }
    Ok(())
}

async fn insert_conflict<B: Backend>(conn: &mut Conn<B>, c: &ConflictImage) -> StoreResult<()> {
    B::query(
        "insert into conflict_queue (conflict_id, seq, old_node_id, new_node_id, new_content, \
         new_key, conflict_type, detection, recommendation, status, resolution, \
         merged_content, resolved_at, resolved_by, note, actions, outcome, created_at, \
         updated_at) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, \
                 $18, $19)",
    )
    .arg(Id(c.conflict_id))
    .arg(c.seq)
    .arg(c.old_node_id.map(Id))
    .arg(c.new_node_id.map(Id))
    .arg(&c.new_content)
    .arg(&c.new_key)
    .arg(&c.conflict_type)
    .arg(Json(&c.detection))
    .arg(Json(&c.recommendation))
    .arg(&c.status)
    .arg(&c.resolution)
    .arg(&c.merged_content)
    .arg(c.resolved_at.map(Ts))
    .arg(&c.resolved_by)
    .arg(&c.note)
    .arg(c.actions.as_ref().map(Json))
    .arg(c.outcome.as_ref().map(Json))
    .arg(Ts(c.created_at))
    .arg(Ts(c.updated_at))
    .run(conn)
    .await?;
    for h in &c.history {
        B::query(
            "insert into conflict_history \
               (entry_id, conflict_id, at, kind, by_whom, resolution, note, actions, pre_image) \
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .arg(h.entry_id)
        .arg(Id(c.conflict_id))
        .arg(Ts(h.at))
        .arg(&h.kind)
        .arg(&h.by_whom)
        .arg(&h.resolution)
        .arg(&h.note)
        .arg(Json(&h.actions))
        .arg(h.pre_image.as_ref().map(Json))
        .run(conn)
        .await?;
    }
    Ok(())
}

async fn write_source<B: Backend>(conn: &mut Conn<B>, write: &SourceWrite) -> StoreResult<()> {
    match write {
        SourceWrite::Delete { source } => {
            B::query("delete from sources where source = $1")
                .arg(source)
                .run(conn)
                .await?;
        }
        SourceWrite::Set { source, row } => {
            B::query(
                "update sources set upheld = $2, contradicted = $3, created_at = $4, \
                 updated_at = $5 where source = $1",
            )
            .arg(source)
            .arg(row.upheld)
            .arg(row.contradicted)
            .arg(Ts(row.created_at))
            .arg(Ts(row.updated_at))
            .run(conn)
            .await?;
        }
    }
    Ok(())
}
