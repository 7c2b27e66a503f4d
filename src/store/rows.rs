//! Row decoding, written once: [`Cols`] reads ids, timestamps and JSON the way each database
//! stores them, so a node or a conflict maps the same on both.

use super::StoreError;
use super::StoreResult;
use super::backend::{Cols, Sql, Ts};
use crate::domain::FieldError;
use crate::domain::conflict::Conflict;
use crate::domain::cursor::Cursor;
use crate::domain::node::Node;
use crate::domain::time;

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
                StoreError::Invalid(vec![FieldError::new(
                    "/cursor",
                    "is not a cursor of this list",
                )])
            })
        })
        .transpose()
}
