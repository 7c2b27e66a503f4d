//! Wake batches, the event log, and LISTEN/NOTIFY on PostgreSQL: a conflict committed by any
//! instance sharing the database wakes the waiters of every instance. A lost listener
//! connection reconnects; notifications missed meanwhile are harmless because waiters re-read
//! from their cursor, so the listener simply wakes everyone after reconnecting.

use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::PgListener;
use sqlx::{PgPool, Row};

use super::EVENTS_CHANNEL;
use super::rows::{self, conflict_columns};
use crate::domain::time::Timestamp;
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

pub async fn batch(pool: &PgPool, after: i64, max: usize) -> StoreResult<WakeBatch> {
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
        "select count(*) as total, count(*) filter (where seq > $1) as after \
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

pub async fn events_after(pool: &PgPool, after: i64, limit: usize) -> StoreResult<Vec<Event>> {
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
                conflict_id: r.try_get("conflict_id")?,
                created_at: r.try_get::<Timestamp, _>("created_at")?,
            })
        })
        .collect()
}

pub async fn listen(pool: &PgPool, notifier: Arc<Notifier>) -> StoreResult<()> {
    let mut listener = PgListener::connect_with(pool).await?;
    listener.listen(EVENTS_CHANNEL).await?;
    let pool = pool.clone();
    tokio::spawn(async move {
        loop {
            match listener.recv().await {
                Ok(_) => notifier.bump(),
                Err(e) => {
                    if pool.is_closed() || notifier.is_shutting_down() {
                        return;
                    }
                    tracing::warn!(error = %e, "event listener lost its connection; reconnecting");
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    // Whatever was missed meanwhile is found by re-reading from the cursors.
                    notifier.bump();
                }
            }
        }
    });
    Ok(())
}
