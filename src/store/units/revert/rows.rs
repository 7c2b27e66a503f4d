//! The row writes of a revert's steps: whole rows put back from the pre-image.

use sqlx::types::Json;
use uuid::Uuid;

use crate::domain::pre_image::{ConflictImage, EdgeImage, NodeImage, unhex};
use crate::domain::provenance::Provenance;
use crate::domain::revert::{Obstacle, SourceWrite};
use crate::store::backend::{Backend, Conn, Id, QueryExt, Ts};
use crate::store::nodes::Change;
use crate::store::{Failure, Refusal};
use crate::store::{StoreError, StoreResult};

fn embedding(node: &NodeImage) -> StoreResult<Option<Vec<u8>>> {
    node.embedding
        .as_deref()
        .map(|h| {
            unhex(h)
                .ok_or_else(|| StoreError::Failed(Failure::Corrupt("embedding pre-image".into())))
        })
        .transpose()
}

/// Both statements take the node's columns as `$1..$20` in the same order, the change's
/// context (what the version records) last.
const INSERT_NODE: &str = "insert into nodes (node_id, title, body, memory_type, labels, scope, \
     source, confidence, state, observed_at, created_at, updated_at, embedding, embedding_dim, \
     search_tokens, valid_until, corrected, changed_by, changed_in, changed_key, provenance) \
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, \
     $19, $20, $21)";
const RESTORE_NODE: &str = "update nodes set title = $2, body = $3, memory_type = $4, \
     labels = $5, scope = $6, source = $7, confidence = $8, state = $9, observed_at = $10, \
     created_at = $11, updated_at = $12, embedding = $13, embedding_dim = $14, \
     search_tokens = $15, valid_until = $16, corrected = $17, changed_by = $18, \
     changed_in = $19, changed_key = $20, provenance = $21 where node_id = $1";

/// Re-creates a node a merge deleted, with its id, fields, timestamps and labels.
pub async fn insert_node<B: Backend>(
    conn: &mut Conn<B>,
    n: &NodeImage,
    change: &Change,
) -> StoreResult<()> {
    write_node::<B>(conn, INSERT_NODE, n, change).await
}

/// Writes a node row back exactly as it was before the resolution.
pub async fn restore_row<B: Backend>(
    conn: &mut Conn<B>,
    n: &NodeImage,
    change: &Change,
) -> StoreResult<()> {
    write_node::<B>(conn, RESTORE_NODE, n, change).await
}

async fn write_node<B: Backend>(
    conn: &mut Conn<B>,
    sql: &'static str,
    n: &NodeImage,
    change: &Change,
) -> StoreResult<()> {
    B::query(sql)
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
        .arg(n.valid_until.map(Ts))
        .arg(n.corrected)
        .arg(change.by.clone())
        .arg(change.conflict.map(Id))
        .arg(change.key.clone())
        .arg(n.provenance.as_ref().map(Provenance::to_json))
        .run(conn)
        .await?;
    Ok(())
}

pub async fn insert_edge<B: Backend>(conn: &mut Conn<B>, e: &EdgeImage) -> StoreResult<()> {
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
pub async fn move_back<B: Backend>(
    conn: &mut Conn<B>,
    e: &EdgeImage,
    gone: Uuid,
    kept: Uuid,
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
        return Err(StoreError::Refused(Refusal::RevertBlocked(vec![
            Obstacle::EdgeChanged { edge_id: e.edge_id },
        ])));
    }
    Ok(moved)
}

/// Puts back what deleting `gone` did to another conflict: re-inserts it (with its history)
/// when the delete deleted it, else restores its references if they are as the delete left them.
pub async fn restore_conflict<B: Backend>(
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
        return Err(StoreError::Refused(Refusal::RevertBlocked(vec![
            Obstacle::ConflictChanged {
                conflict_id: c.conflict_id,
            },
        ])));
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
               (entry_id, conflict_id, at, kind, by_whom, resolution, note, actions, pre_image, \
                key_name) \
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
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
        .arg(&h.key_name)
        .run(conn)
        .await?;
    }
    Ok(())
}

pub async fn write_source<B: Backend>(conn: &mut Conn<B>, write: &SourceWrite) -> StoreResult<()> {
    match write {
        SourceWrite::Delete { scope, source } => {
            B::query("delete from sources where scope = $1 and source = $2")
                .arg(scope)
                .arg(source)
                .run(conn)
                .await?;
        }
        SourceWrite::Set { scope, source, row } => {
            B::query(
                "update sources set upheld = $2, contradicted = $3, created_at = $4, \
                 updated_at = $5 where source = $1 and scope = $6",
            )
            .arg(source)
            .arg(row.upheld)
            .arg(row.contradicted)
            .arg(Ts(row.created_at))
            .arg(Ts(row.updated_at))
            .arg(scope)
            .run(conn)
            .await?;
        }
    }
    Ok(())
}
