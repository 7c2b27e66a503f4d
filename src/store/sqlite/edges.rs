//! Edges on SQLite.

use sqlx::{Row, SqliteConnection, SqlitePool};
use uuid::Uuid;

use super::rows::{self, ts};
use crate::domain::FieldError;
use crate::domain::cursor::{Cursor, Page};
use crate::domain::edge::Edge;
use crate::domain::time;
use crate::store::*;

pub async fn insert(conn: &mut SqliteConnection, e: &Edge) -> StoreResult<()> {
    let result = sqlx::query(
        "insert into edges (edge_id, source_id, target_id, kind, neural_weight, strength, \
         confidence, valid_from, created_at, updated_at) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)",
    )
    .bind(e.id.to_string())
    .bind(e.source_id.to_string())
    .bind(e.target_id.to_string())
    .bind(&e.kind)
    .bind(e.neural_weight)
    .bind(e.strength)
    .bind(e.confidence)
    .bind(time::format(&e.valid_from))
    .bind(time::format(&e.created_at))
    .execute(&mut *conn)
    .await;
    match result {
        Err(sqlx::Error::Database(d)) if d.is_foreign_key_violation() => {
            Err(missing_endpoint(conn, e).await)
        }
        other => other.map(|_| ()).map_err(Into::into),
    }
}

/// Names the endpoint that does not exist, so the 422 points at the right field.
async fn missing_endpoint(conn: &mut SqliteConnection, e: &Edge) -> StoreError {
    let mut errors = Vec::new();
    for (pointer, id) in [("/source_id", e.source_id), ("/target_id", e.target_id)] {
        let exists: Result<Option<i64>, _> =
            sqlx::query_scalar("select 1 from nodes where node_id = $1")
                .bind(id.to_string())
                .fetch_optional(&mut *conn)
                .await;
        match exists {
            Ok(Some(_)) => {}
            Ok(None) => errors.push(FieldError::new(
                pointer,
                format!("node {id} does not exist"),
            )),
            Err(err) => return err.into(),
        }
    }
    StoreError::Invalid(errors)
}

const LIST: &str = "select edge_id, source_id, target_id, kind, neural_weight, strength, \
    confidence, valid_from, created_at from edges \
    where (($2 in ('out', 'both') and source_id = $1) or ($2 in ('in', 'both') and target_id = $1)) \
      and ($3 is null or kind = $3) \
      and ($4 is null or (created_at, edge_id) > ($4, $5)) \
    order by created_at, edge_id limit $6";

pub async fn list(pool: &SqlitePool, node_id: Uuid, q: EdgeQuery) -> StoreResult<Page<Edge>> {
    let mut conn = pool.acquire().await?;
    super::nodes::fetch(&mut conn, node_id).await?;
    let rows = sqlx::query(LIST)
        .bind(node_id.to_string())
        .bind(q.direction.to_string())
        .bind(&q.kind)
        .bind(q.after.as_ref().map(|c| c.key.clone()))
        .bind(q.after.as_ref().map(|c| c.id.to_string()))
        .bind((q.limit + 1) as i64)
        .fetch_all(&mut *conn)
        .await?;
    let edges = rows.iter().map(edge).collect::<StoreResult<Vec<_>>>()?;
    Ok(Page::from_rows(edges, q.limit, |e| {
        Cursor::new(time::format(&e.created_at), e.id)
    }))
}

fn edge(row: &sqlx::sqlite::SqliteRow) -> StoreResult<Edge> {
    let id = |c: &str| -> StoreResult<Uuid> { rows::uuid(&row.try_get::<String, _>(c)?) };
    Ok(Edge {
        id: id("edge_id")?,
        source_id: id("source_id")?,
        target_id: id("target_id")?,
        kind: row.try_get("kind")?,
        neural_weight: row.try_get("neural_weight")?,
        strength: row.try_get("strength")?,
        confidence: row.try_get("confidence")?,
        valid_from: ts(&row.try_get::<String, _>("valid_from")?)?,
        created_at: ts(&row.try_get::<String, _>("created_at")?)?,
    })
}

/// Moves every edge of `from` that does not link it to `to` over to `to`; returns the count.
pub async fn move_edges(conn: &mut SqliteConnection, from: Uuid, to: Uuid) -> StoreResult<u64> {
    let (from, to) = (from.to_string(), to.to_string());
    let now = time::format(&time::now());
    let out = sqlx::query(
        "update edges set source_id = $2, updated_at = $3 where source_id = $1 and target_id <> $2",
    )
    .bind(&from)
    .bind(&to)
    .bind(&now)
    .execute(&mut *conn)
    .await?;
    let inbound = sqlx::query(
        "update edges set target_id = $2, updated_at = $3 where target_id = $1 and source_id <> $2",
    )
    .bind(&from)
    .bind(&to)
    .bind(&now)
    .execute(&mut *conn)
    .await?;
    Ok(out.rows_affected() + inbound.rows_affected())
}
