//! Wake batches and the event log, on either database.

use super::backend::{Backend, Cols, QueryExt};
use super::rows;
use super::sql::conflict_columns;
use crate::store::*;

const BATCH: &str = concat!(
    "select ",
    conflict_columns!(),
    " from conflict_queue c \
      left join nodes o on o.node_id = c.old_node_id \
      left join nodes n on n.node_id = c.new_node_id \
     where c.status = 'pending' and c.seq > $1 order by c.seq limit $2"
);

pub async fn batch<B: Backend>(store: &B, after: i64, max: usize) -> StoreResult<WakeBatch> {
    let mut conn = store.pool().acquire().await?;
    let rows = B::query(BATCH)
        .arg(after)
        .arg(max as i64)
        .all(&mut conn)
        .await?;
    let conflicts = rows::conflicts::<B::Db>(&rows)?;
    let counts = B::query(
        "select count(*) as total, \
                coalesce(sum(case when seq > $1 then 1 else 0 end), 0) as after \
         from conflict_queue where status = 'pending'",
    )
    .arg(after)
    .optional(&mut conn)
    .await?
    .ok_or(StoreError::Failed(Failure::Corrupt(
        "count without a row".into(),
    )))?;
    let c = Cols::<B::Db>::new(&counts);
    Ok(WakeBatch::new(conflicts, c.get("after")?, c.get("total")?))
}

pub async fn events_after<B: Backend>(
    store: &B,
    after: i64,
    limit: usize,
) -> StoreResult<Vec<Event>> {
    let mut conn = store.pool().acquire().await?;
    let rows = B::query(
        "select event_id, kind, conflict_id, created_at from events \
         where event_id > $1 order by event_id limit $2",
    )
    .arg(after)
    .arg(limit as i64)
    .all(&mut conn)
    .await?;
    rows.iter().map(rows::event::<B::Db>).collect()
}
