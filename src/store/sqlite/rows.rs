//! Row decoding for SQLite: ids and timestamps are text, JSON columns are text.

use sqlx::Row;
use sqlx::sqlite::SqliteRow;
use uuid::Uuid;

use crate::domain::conflict::{Conflict, Status};
use crate::domain::node::Node;
use crate::domain::time::{self, Timestamp};
use crate::store::{StoreError, StoreResult};

pub(super) use crate::store::sql::{conflict_columns, node_columns};

pub fn uuid(text: &str) -> StoreResult<Uuid> {
    Uuid::parse_str(text).map_err(|e| StoreError::Corrupt(format!("bad uuid {text}: {e}")))
}

pub fn ts(text: &str) -> StoreResult<Timestamp> {
    time::parse(text).ok_or_else(|| StoreError::Corrupt(format!("bad timestamp {text}")))
}

fn opt<T>(v: Option<String>, f: impl Fn(&str) -> StoreResult<T>) -> StoreResult<Option<T>> {
    v.as_deref().map(f).transpose()
}

fn corrupt(e: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(e.to_string())
}

/// A node from columns named `{prefix}node_id`…; `None` when the (left-joined) node is absent.
pub fn node(row: &SqliteRow, p: &str) -> StoreResult<Option<Node>> {
    let col = |c: &str| format!("{p}{c}");
    let Some(id) = row.try_get::<Option<String>, _>(col("node_id").as_str())? else {
        return Ok(None);
    };
    let get = |c: &str| row.try_get::<String, _>(col(c).as_str());
    Ok(Some(Node {
        id: uuid(&id)?,
        title: get("title")?,
        body: get("body")?,
        memory_type: get("memory_type")?,
        labels: serde_json::from_str(&get("labels")?)?,
        scope: get("scope")?,
        source: row.try_get(col("source").as_str())?,
        confidence: row.try_get(col("confidence").as_str())?,
        state: get("state")?.parse().map_err(corrupt)?,
        observed_at: ts(&get("observed_at")?)?,
        created_at: ts(&get("created_at")?)?,
        updated_at: ts(&get("updated_at")?)?,
        has_embedding: row.try_get(col("has_embedding").as_str())?,
        conflict_ids: Vec::new(),
    }))
}

pub fn conflict(row: &SqliteRow) -> StoreResult<Conflict> {
    let status: String = row.try_get("status")?;
    Ok(Conflict {
        id: uuid(&row.try_get::<String, _>("conflict_id")?)?,
        seq: row.try_get("seq")?,
        status: status.parse::<Status>().map_err(corrupt)?,
        conflict_type: row.try_get("conflict_type")?,
        old_node_id: opt(row.try_get("old_node_id")?, uuid)?,
        new_node_id: opt(row.try_get("new_node_id")?, uuid)?,
        old_node: node(row, "o_")?,
        new_node: node(row, "n_")?,
        new_content: row.try_get("new_content")?,
        detection: serde_json::from_str(&row.try_get::<String, _>("detection")?)?,
        recommendation: serde_json::from_str(&row.try_get::<String, _>("recommendation")?)?,
        resolution: opt(row.try_get("resolution")?, |s| s.parse().map_err(corrupt))?,
        resolved_at: opt(row.try_get("resolved_at")?, ts)?,
        resolved_by: row.try_get("resolved_by")?,
        note: row.try_get("note")?,
        actions: opt(row.try_get("actions")?, |s| Ok(serde_json::from_str(s)?))?,
        created_at: ts(&row.try_get::<String, _>("created_at")?)?,
    })
}
