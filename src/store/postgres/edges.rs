//! Edges on PostgreSQL. An edge is inserted only while both endpoints exist and are share-locked,
//! so a missing endpoint is a 422 naming it, never a failed statement that would abort the
//! surrounding transaction.

use sqlx::{PgConnection, PgPool, Row};
use uuid::Uuid;

use super::rows;
use crate::domain::FieldError;
use crate::domain::cursor::{Cursor, Page};
use crate::domain::edge::Edge;
use crate::domain::time;
use crate::store::*;

pub async fn insert(conn: &mut PgConnection, e: &Edge) -> StoreResult<()> {
    // `for key share` waits for a concurrent delete of an endpoint and then sees it gone,
    // where a foreign key violation would poison the whole transaction.
    let done = sqlx::query(
        "insert into edges (edge_id, source_id, target_id, kind, neural_weight, strength, \
         confidence, valid_from, created_at, updated_at) \
         select $1, $2, $3, $4, $5, $6, $7, $8, $9, $9 \
         where exists (select 1 from nodes where node_id = $2 for key share) \
           and exists (select 1 from nodes where node_id = $3 for key share)",
    )
    .bind(e.id)
    .bind(e.source_id)
    .bind(e.target_id)
    .bind(&e.kind)
    .bind(e.neural_weight)
    .bind(e.strength)
    .bind(e.confidence)
    .bind(e.valid_from)
    .bind(e.created_at)
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() == 0 {
        return Err(missing_endpoint(conn, e).await);
    }
    Ok(())
}

/// Names the endpoint that does not exist, so the 422 points at the right field.
async fn missing_endpoint(conn: &mut PgConnection, e: &Edge) -> StoreError {
    let mut errors = Vec::new();
    for (pointer, id) in [("/source_id", e.source_id), ("/target_id", e.target_id)] {
        let exists: Result<Option<i32>, _> =
            sqlx::query_scalar("select 1 from nodes where node_id = $1")
                .bind(id)
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
      and ($3::text is null or kind = $3) \
      and ($4::timestamptz is null or (created_at, edge_id) > ($4, $5)) \
    order by created_at, edge_id limit $6";

pub async fn list(pool: &PgPool, node_id: Uuid, q: EdgeQuery) -> StoreResult<Page<Edge>> {
    let mut conn = pool.acquire().await?;
    super::nodes::fetch(&mut conn, node_id).await?;
    let key = q.after.as_ref().map(|c| rows::ts_key(&c.key)).transpose()?;
    let rows = sqlx::query(LIST)
        .bind(node_id)
        .bind(q.direction.to_string())
        .bind(&q.kind)
        .bind(key)
        .bind(q.after.as_ref().map(|c| c.id))
        .bind((q.limit + 1) as i64)
        .fetch_all(&mut *conn)
        .await?;
    let edges = rows.iter().map(edge).collect::<StoreResult<Vec<_>>>()?;
    Ok(Page::from_rows(edges, q.limit, |e| {
        Cursor::new(time::format(&e.created_at), e.id)
    }))
}

fn edge(row: &sqlx::postgres::PgRow) -> StoreResult<Edge> {
    Ok(Edge {
        id: row.try_get("edge_id")?,
        source_id: row.try_get("source_id")?,
        target_id: row.try_get("target_id")?,
        kind: row.try_get("kind")?,
        neural_weight: row.try_get("neural_weight")?,
        strength: row.try_get("strength")?,
        confidence: row.try_get("confidence")?,
        valid_from: row.try_get("valid_from")?,
        created_at: row.try_get("created_at")?,
    })
}

/// Moves every edge of `from` that does not link it to `to` over to `to`; returns the count.
pub async fn move_edges(conn: &mut PgConnection, from: Uuid, to: Uuid) -> StoreResult<u64> {
    let now = time::now();
    let out = sqlx::query(
        "update edges set source_id = $2, updated_at = $3 where source_id = $1 and target_id <> $2",
    )
    .bind(from)
    .bind(to)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    let inbound = sqlx::query(
        "update edges set target_id = $2, updated_at = $3 where target_id = $1 and source_id <> $2",
    )
    .bind(from)
    .bind(to)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    Ok(out.rows_affected() + inbound.rows_affected())
}
