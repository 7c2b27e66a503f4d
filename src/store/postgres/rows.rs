//! Row decoding for PostgreSQL: ids are `uuid`, timestamps `timestamptz`, JSON columns `jsonb`,
//! so values decode natively; only enums stored as text are parsed here.

use sqlx::Row;
use sqlx::postgres::PgRow;
use sqlx::types::Json;
use uuid::Uuid;

use crate::domain::FieldError;
use crate::domain::conflict::{Action, Conflict, Status};
use crate::domain::node::Node;
use crate::domain::time::{self, Timestamp};
use crate::store::{StoreError, StoreResult};

pub(super) use crate::store::sql::{conflict_columns, node_columns};

fn corrupt(e: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(e.to_string())
}

/// A cursor's key that is not of this list is the client's error, not a fault.
fn bad_cursor() -> StoreError {
    StoreError::Invalid(vec![FieldError::new(
        "/cursor",
        "is not a cursor of this list",
    )])
}

/// The timestamp key of a newest-first or oldest-first cursor.
pub fn ts_key(key: &str) -> StoreResult<Timestamp> {
    time::parse(key).ok_or_else(bad_cursor)
}

/// The rank key of a full-text cursor (`f64::to_string` round-trips exactly).
pub fn rank_key(key: &str) -> StoreResult<f64> {
    key.parse::<f64>().map_err(|_| bad_cursor())
}

/// A node from columns named `{prefix}node_id`…; `None` when the (left-joined) node is absent.
pub fn node(row: &PgRow, p: &str) -> StoreResult<Option<Node>> {
    let col = |c: &str| format!("{p}{c}");
    let Some(id) = row.try_get::<Option<Uuid>, _>(col("node_id").as_str())? else {
        return Ok(None);
    };
    let text = |c: &str| row.try_get::<String, _>(col(c).as_str());
    let ts = |c: &str| row.try_get::<Timestamp, _>(col(c).as_str());
    Ok(Some(Node {
        id,
        title: text("title")?,
        body: text("body")?,
        memory_type: text("memory_type")?,
        labels: row
            .try_get::<Json<Vec<String>>, _>(col("labels").as_str())?
            .0,
        scope: text("scope")?,
        source: row.try_get(col("source").as_str())?,
        confidence: row.try_get(col("confidence").as_str())?,
        state: text("state")?.parse().map_err(corrupt)?,
        observed_at: ts("observed_at")?,
        created_at: ts("created_at")?,
        updated_at: ts("updated_at")?,
        has_embedding: row.try_get(col("has_embedding").as_str())?,
        conflict_ids: Vec::new(),
    }))
}

pub fn conflict(row: &PgRow) -> StoreResult<Conflict> {
    let status: String = row.try_get("status")?;
    let resolution: Option<String> = row.try_get("resolution")?;
    let actions: Option<Json<Vec<Action>>> = row.try_get("actions")?;
    Ok(Conflict {
        id: row.try_get("conflict_id")?,
        seq: row.try_get("seq")?,
        status: status.parse::<Status>().map_err(corrupt)?,
        conflict_type: row.try_get("conflict_type")?,
        old_node_id: row.try_get("old_node_id")?,
        new_node_id: row.try_get("new_node_id")?,
        old_node: node(row, "o_")?,
        new_node: node(row, "n_")?,
        new_content: row.try_get("new_content")?,
        detection: row.try_get::<Json<_>, _>("detection")?.0,
        recommendation: row.try_get::<Json<_>, _>("recommendation")?.0,
        resolution: resolution.map(|s| s.parse()).transpose().map_err(corrupt)?,
        resolved_at: row.try_get("resolved_at")?,
        resolved_by: row.try_get("resolved_by")?,
        note: row.try_get("note")?,
        actions: actions.map(|a| a.0),
        created_at: row.try_get("created_at")?,
    })
}
