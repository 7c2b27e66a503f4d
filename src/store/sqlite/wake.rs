//! Wake batches and the event log on SQLite. Waiters are woken in process (one process serves
//! one database file), so `listen` has nothing to subscribe to.

use std::sync::Arc;

use sqlx::{Row, SqlitePool};

use super::rows::{self, conflict_columns};
use crate::store::notify::Notifier;
use crate::store::*;

const BATCH: &str = concat!(
    "select ",
    conflict_columns!(),
    " from conflict_queue c \
      left join nodes o on o.node_id = c.old_node_id \
      left join nodes n on n.node_id = c.new_node_id \
     where c.status = 'pending' and c.seq > $1 order by c.seq limit $2"
);

pub async fn batch(pool: &SqlitePool, after: i64, max: usize) -> StoreResult<WakeBatch> {
    let mut conn = pool.acquire().await?;
    let rows = sqlx::query(BATCH)
        .bind(after)
        .bind(max as i64)
        .fetch_all(&mut *conn)
        .await?;
    let conflicts = rows
        .iter()
        .map(rows::conflict)
        .collect::<StoreResult<Vec<_>>>()?;
    let counts = sqlx::query(
        "select count(*) as total, coalesce(sum(seq > $1), 0) as after \
         from conflict_queue where status = 'pending'",
    )
    .bind(after)
    .fetch_one(&mut *conn)
    .await?;
    Ok(WakeBatch::new(
        conflicts,
        counts.try_get("after")?,
        counts.try_get("total")?,
    ))
}

pub async fn events_after(pool: &SqlitePool, after: i64, limit: usize) -> StoreResult<Vec<Event>> {
    let rows = sqlx::query(
        "select event_id, kind, conflict_id, created_at from events \
         where event_id > $1 order by event_id limit $2",
    )
    .bind(after)
    .bind(limit as i64)
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(Event {
                id: r.try_get("event_id")?,
                kind: r.try_get("kind")?,
                conflict_id: rows::uuid(&r.try_get::<String, _>("conflict_id")?)?,
                created_at: rows::ts(&r.try_get::<String, _>("created_at")?)?,
            })
        })
        .collect()
}

pub async fn listen(_pool: &SqlitePool, _notifier: Arc<Notifier>) -> StoreResult<()> {
    Ok(())
}
