//! Reads a resolution's pre-image (`domain::pre_image`) inside its transaction, after the locks
//! and before the first step, and the same rows again when a revert checks what changed since.
//! The rows are mapped in `rows.rs`.

use std::collections::BTreeSet;

use uuid::Uuid;

use super::backend::{Backend, Conn, Id, QueryExt};
use super::rows;
use super::sql::node_columns;
use super::{StoreError, StoreResult};
use crate::domain::conflict::{Conflict, Strategy};
use crate::domain::plan::{Plan, Step};
use crate::domain::pre_image::{
    ConflictImage, EdgeImage, HistoryImage, NodeChange, NodeImage, PreImage, SourceBefore,
    SourceRow, SourceVerdict,
};

/// What the plan's steps will overwrite, read before they run.
pub async fn capture<B: Backend>(
    conn: &mut Conn<B>,
    conflict: &Conflict,
    plan: &Plan,
    strategy: Strategy,
) -> StoreResult<PreImage> {
    let row = B::query(
        "select note, new_node_id, new_content, updated_at from conflict_queue \
         where conflict_id = $1",
    )
    .arg(Id(conflict.id))
    .optional(conn)
    .await?
    .ok_or(StoreError::NotFound("conflict"))?;
    let mut pre = PreImage {
        conflict: rows::conflict_before::<B::Db>(&row)?,
        nodes: Vec::new(),
        edges: Vec::new(),
        conflicts: Vec::new(),
        sources: Vec::new(),
        verdicts: Vec::new(),
    };
    for step in &plan.steps {
        let node_id = match step {
            Step::CreateNode(node) => {
                pre.nodes.push(NodeChange {
                    node_id: node.id,
                    before: None,
                    after: Some(NodeImage::created(node).fingerprint()),
                });
                continue;
            }
            Step::SetState { node_id, .. }
            | Step::MergeBody { node_id, .. }
            | Step::DeleteNode { node_id } => *node_id,
            _ => continue,
        };
        let before = node_image::<B>(conn, node_id)
            .await?
            .ok_or(StoreError::NotFound("node"))?;
        let after = before.after(step, plan.resolved_at);
        if let Step::DeleteNode { .. } = step {
            pre.edges = edges_of::<B>(conn, node_id).await?;
            pre.conflicts = conflicts_of::<B>(conn, node_id, conflict.id).await?;
        }
        pre.nodes.push(NodeChange {
            node_id,
            before: Some(before),
            after: after.map(|a| a.fingerprint()),
        });
    }
    let counted = verdicts(conflict, strategy);
    let sources: BTreeSet<(&String, &String)> =
        counted.iter().map(|v| (&v.scope, &v.source)).collect();
    for (scope, source) in sources {
        pre.sources.push(SourceBefore {
            scope: scope.clone(),
            source: source.clone(),
            row: source_row::<B>(conn, scope, source).await?,
        });
    }
    pre.verdicts = counted;
    Ok(pre)
}

/// A whole node row, or `None` when the node does not exist.
pub async fn node_image<B: Backend>(
    conn: &mut Conn<B>,
    id: Uuid,
) -> StoreResult<Option<NodeImage>> {
    let row = B::query(concat!(
        "select ",
        node_columns!("n", ""),
        ", n.embedding, n.embedding_dim, n.search_tokens from nodes n where n.node_id = $1"
    ))
    .arg(Id(id))
    .optional(conn)
    .await?;
    match row {
        Some(row) => rows::node_image::<B::Db>(&row),
        None => Ok(None),
    }
}

async fn edges_of<B: Backend>(conn: &mut Conn<B>, node: Uuid) -> StoreResult<Vec<EdgeImage>> {
    let rows = B::query(
        "select edge_id, source_id, target_id, kind, neural_weight, strength, confidence, \
         valid_from, created_at, updated_at from edges \
         where source_id = $1 or target_id = $1 order by edge_id",
    )
    .arg(Id(node))
    .all(conn)
    .await?;
    rows.iter().map(rows::edge_image::<B::Db>).collect()
}

/// The other conflicts naming `node`, each with its history when deleting the node deletes it.
async fn conflicts_of<B: Backend>(
    conn: &mut Conn<B>,
    node: Uuid,
    except: Uuid,
) -> StoreResult<Vec<ConflictImage>> {
    let rows = B::query(
        "select conflict_id, seq, old_node_id, new_node_id, new_content, new_key, conflict_type, \
         detection, recommendation, status, resolution, merged_content, resolved_at, \
         resolved_by, note, actions, outcome, created_at, updated_at from conflict_queue \
         where (old_node_id = $1 or new_node_id = $1) and conflict_id <> $2 order by seq",
    )
    .arg(Id(node))
    .arg(Id(except))
    .all(conn)
    .await?;
    let mut out = Vec::with_capacity(rows.len());
    for row in &rows {
        let mut image = rows::conflict_image::<B::Db>(row)?;
        if image.deleted_with(node) {
            image.history = history_of::<B>(conn, image.conflict_id).await?;
        }
        out.push(image);
    }
    Ok(out)
}

async fn history_of<B: Backend>(conn: &mut Conn<B>, id: Uuid) -> StoreResult<Vec<HistoryImage>> {
    let rows = B::query(
        "select entry_id, at, kind, by_whom, key_name, resolution, note, actions, pre_image \
         from conflict_history where conflict_id = $1 order by entry_id",
    )
    .arg(Id(id))
    .all(conn)
    .await?;
    rows.iter().map(rows::history_image::<B::Db>).collect()
}

/// A source's counter row in a scope, or `None` when it has none.
pub async fn source_row<B: Backend>(
    conn: &mut Conn<B>,
    scope: &str,
    source: &str,
) -> StoreResult<Option<SourceRow>> {
    let row = B::query(
        "select upheld, contradicted, created_at, updated_at from sources \
         where scope = $1 and source = $2",
    )
    .arg(scope)
    .arg(source)
    .optional(conn)
    .await?;
    row.map(|row| rows::source_row::<B::Db>(&row)).transpose()
}

/// The verdicts a resolution counts, each in the scope of the memory bearing the source:
/// `new_is_current` upholds the new side's source and contradicts the old side's;
/// `old_is_current` the reverse; the other strategies count nothing.
pub fn verdicts(conflict: &Conflict, strategy: Strategy) -> Vec<SourceVerdict> {
    let new_won = match strategy {
        Strategy::NewIsCurrent => true,
        Strategy::OldIsCurrent => false,
        Strategy::KeepBoth | Strategy::Merge => return Vec::new(),
    };
    let sides = [
        (&conflict.new_node, new_won),
        (&conflict.old_node, !new_won),
    ];
    sides
        .into_iter()
        .filter_map(|(node, upheld)| {
            let node = node.as_ref()?;
            Some(SourceVerdict {
                scope: node.scope.clone(),
                source: node.source.clone()?,
                upheld,
            })
        })
        .collect()
}
