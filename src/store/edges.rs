//! Edges, on either database. An edge is inserted only while both endpoints exist (and, on
//! PostgreSQL, are share-locked), so a missing endpoint is a 422 naming it, never a failed
//! statement that would abort the surrounding transaction.

use uuid::Uuid;

use super::backend::{Backend, Conn, Id, Q, QueryExt, Sql, Ts};
use super::nodes;
use super::rows::{self, ts_key};
use super::sql::in_scopes;
use crate::domain::FieldError;
use crate::domain::cursor::{Cursor, Page};
use crate::domain::edge::Edge;
use crate::domain::time;
use crate::store::*;

pub async fn insert<B: Backend>(conn: &mut Conn<B>, e: &Edge) -> StoreResult<()> {
    let inserted = bind::<B::Db>(B::query(B::INSERT_EDGE), e).run(conn).await?;
    if inserted == 0 {
        return Err(missing_endpoint::<B>(conn, e).await);
    }
    Ok(())
}

/// Binds an edge's nine values in `INSERT_EDGE`'s order, after those already bound.
pub(crate) fn bind<D: Sql>(q: Q<D>, e: &Edge) -> Q<D> {
    q.arg(Id(e.id))
        .arg(Id(e.source_id))
        .arg(Id(e.target_id))
        .arg(&e.kind)
        .arg(e.neural_weight)
        .arg(e.strength)
        .arg(e.confidence)
        .arg(Ts(e.valid_from))
        .arg(Ts(e.created_at))
}

/// Names the endpoint that does not exist, so the 422 points at the right field.
async fn missing_endpoint<B: Backend>(conn: &mut Conn<B>, e: &Edge) -> StoreError {
    let mut errors = Vec::new();
    for (pointer, id) in [("/source_id", e.source_id), ("/target_id", e.target_id)] {
        let exists = B::query("select 1 from nodes where node_id = $1")
            .arg(Id(id))
            .optional(conn)
            .await;
        match exists {
            Ok(Some(_)) => {}
            Ok(None) => errors.push(FieldError::new(
                pointer,
                format!("node {id} does not exist"),
            )),
            Err(err) => return err,
        }
    }
    StoreError::Refused(Refusal::Invalid(errors))
}

const LIST: &str = concat!(
    "select edge_id, source_id, target_id, kind, neural_weight, strength, \
    confidence, valid_from, created_at from edges \
    where (($2 in ('out', 'both') and source_id = $1) or ($2 in ('in', 'both') and target_id = $1)) \
      and ($3 is null or kind = $3) \
      and ($4 is null or (created_at, edge_id) > ($4, $5)) and ",
    in_scopes!(
        "(select x.scope from nodes x where x.node_id = \
           case when source_id = $1 then target_id else source_id end)",
        "$7"
    ),
    " order by created_at, edge_id limit $6"
);

pub async fn list<B: Backend>(store: &B, node_id: Uuid, q: EdgeQuery) -> StoreResult<Page<Edge>> {
    let mut conn = store.pool().acquire().await?;
    nodes::fetch::<B>(&mut conn, nodes::SELECT_ONE, node_id).await?;
    let rows = B::query(LIST)
        .arg(Id(node_id))
        .arg(q.direction.to_string())
        .arg(&q.kind)
        .arg(ts_key(q.after.as_ref())?)
        .arg(q.after.as_ref().map(|c| Id(c.id)))
        .arg((q.limit + 1) as i64)
        .arg(&q.scopes)
        .all(&mut conn)
        .await?;
    let edges = rows
        .iter()
        .map(rows::edge::<B::Db>)
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(Page::from_rows(edges, q.limit, |e| {
        Cursor::new(time::format(&e.created_at), e.id)
    }))
}

/// Moves every edge of `from` that does not link it to `to` over to `to`; returns the count.
pub async fn move_edges<B: Backend>(conn: &mut Conn<B>, from: Uuid, to: Uuid) -> StoreResult<u64> {
    let now = time::now();
    let mut moved = 0;
    for sql in [
        "update edges set source_id = $2, updated_at = $3 where source_id = $1 and target_id <> $2",
        "update edges set target_id = $2, updated_at = $3 where target_id = $1 and source_id <> $2",
    ] {
        moved += B::query(sql)
            .arg(Id(from))
            .arg(Id(to))
            .arg(Ts(now))
            .run(conn)
            .await?;
    }
    Ok(moved)
}
