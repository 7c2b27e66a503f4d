//! The rows a revert compares before it decides, read inside its transaction after the locks.

use crate::domain::revert::{Now, Resolved};
use crate::store::backend::{Backend, Cols, Conn, Id, QueryExt};
use crate::store::pre_image::node_image;
use crate::store::{StoreResult, rows};

/// The rows the domain asks for ([`Resolved::wants`]), as they are now.
pub async fn read_now<B: Backend>(
    conn: &mut Conn<B>,
    resolved: &Resolved,
    entry_id: i64,
) -> StoreResult<Now> {
    let wants = resolved.wants();
    // Only a resolution that created a node has `created`, and it moved no edges: its
    // wanted edges are the ones it created.
    let created_edges = wants.edges.clone();
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
            now.conflicts
                .insert(id, rows::conflict_refs::<B::Db>(&row)?);
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
