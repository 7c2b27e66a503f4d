//! Row decoding, written once per row type (node, conflict, edge, edge pre-image, history
//! entry): [`Cols`] reads ids, timestamps and JSON the way each database stores them, so a row
//! maps the same on both.

use super::StoreError;
use super::StoreResult;
use super::backend::{Cols, Sql, Ts};
use crate::domain::FieldError;
use crate::domain::conflict::Conflict;
use crate::domain::cursor::Cursor;
use crate::domain::edge::Edge;
use crate::domain::history::HistoryEntry;
use crate::domain::node::Node;
use crate::domain::pre_image::EdgeImage;
use crate::domain::time;
use crate::store::Refusal;

/// A node from columns named `{prefix}node_id`…; `None` when the (left-joined) node is absent.
pub fn node<D: Sql>(row: &D::Row, prefix: &'static str) -> StoreResult<Option<Node>> {
    let c = Cols::<D>::prefixed(row, prefix);
    let Some(id) = c.opt_id("node_id")? else {
        return Ok(None);
    };
    Ok(Some(Node {
        id,
        title: c.get("title")?,
        body: c.get("body")?,
        memory_type: c.get("memory_type")?,
        labels: c.json("labels")?,
        scope: c.get("scope")?,
        source: c.get("source")?,
        confidence: c.get("confidence")?,
        state: c.parse("state")?,
        observed_at: c.ts("observed_at")?,
        created_at: c.ts("created_at")?,
        updated_at: c.ts("updated_at")?,
        has_embedding: c.get("has_embedding")?,
        conflict_ids: Vec::new(),
    }))
}

/// A node of an unprefixed row that must be there.
pub fn some_node<D: Sql>(row: &D::Row) -> StoreResult<Node> {
    node::<D>(row, "")?.ok_or(super::StoreError::NotFound("node"))
}

/// An edge (`edge_id`, `source_id`, … `created_at`).
pub fn edge<D: Sql>(row: &D::Row) -> StoreResult<Edge> {
    let c = Cols::<D>::new(row);
    Ok(Edge {
        id: c.id("edge_id")?,
        source_id: c.id("source_id")?,
        target_id: c.id("target_id")?,
        kind: c.get("kind")?,
        neural_weight: c.get("neural_weight")?,
        strength: c.get("strength")?,
        confidence: c.get("confidence")?,
        valid_from: c.ts("valid_from")?,
        created_at: c.ts("created_at")?,
    })
}

/// An edge as a pre-image keeps it: the edge's columns and `updated_at`.
pub fn edge_image<D: Sql>(row: &D::Row) -> StoreResult<EdgeImage> {
    let e = edge::<D>(row)?;
    Ok(EdgeImage {
        edge_id: e.id,
        source_id: e.source_id,
        target_id: e.target_id,
        kind: e.kind,
        neural_weight: e.neural_weight,
        strength: e.strength,
        confidence: e.confidence,
        valid_from: e.valid_from,
        created_at: e.created_at,
        updated_at: Cols::<D>::new(row).ts("updated_at")?,
    })
}

/// A history entry (`at`, `kind`, `by_whom`, `resolution`, `note`, `actions`).
pub fn history_entry<D: Sql>(row: &D::Row) -> StoreResult<HistoryEntry> {
    let c = Cols::<D>::new(row);
    Ok(HistoryEntry {
        at: c.ts("at")?,
        kind: c.parse("kind")?,
        by: c.get("by_whom")?,
        resolution: c.opt_parse("resolution")?,
        note: c.get("note")?,
        actions: c.json("actions")?,
    })
}

/// A conflict with both of its nodes (`conflict_columns!()`).
pub fn conflict<D: Sql>(row: &D::Row) -> StoreResult<Conflict> {
    let c = Cols::<D>::new(row);
    Ok(Conflict {
        id: c.id("conflict_id")?,
        seq: c.get("seq")?,
        status: c.parse("status")?,
        conflict_type: c.get("conflict_type")?,
        old_node_id: c.opt_id("old_node_id")?,
        new_node_id: c.opt_id("new_node_id")?,
        old_node: node::<D>(row, "o_")?,
        new_node: node::<D>(row, "n_")?,
        new_content: c.get("new_content")?,
        detection: c.json("detection")?,
        recommendation: c.json("recommendation")?,
        resolution: c.opt_parse("resolution")?,
        resolved_at: c.opt_ts("resolved_at")?,
        resolved_by: c.get("resolved_by")?,
        note: c.get("note")?,
        actions: c.opt_json("actions")?,
        created_at: c.ts("created_at")?,
    })
}

pub fn conflicts<D: Sql>(rows: &[D::Row]) -> StoreResult<Vec<Conflict>> {
    rows.iter().map(conflict::<D>).collect()
}

/// The timestamp key of a newest-first or oldest-first cursor.
pub fn ts_key(cursor: Option<&Cursor>) -> StoreResult<Option<Ts>> {
    cursor
        .map(|c| {
            time::parse(&c.key).map(Ts).ok_or_else(|| {
                StoreError::Refused(Refusal::Invalid(vec![FieldError::new(
                    "/cursor",
                    "is not a cursor of this list",
                )]))
            })
        })
        .transpose()
}
