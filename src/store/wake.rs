//! Wake batches and the event log, on either database.

use super::backend::{Backend, Cols, QueryExt};
use super::rows;
use super::sql::{conflict_columns, conflict_in_scopes, in_scopes};
use crate::store::*;

const BATCH: &str = concat!(
    "select ",
    conflict_columns!(),
    " from conflict_queue c \
      left join nodes o on o.node_id = c.old_node_id \
      left join nodes n on n.node_id = c.new_node_id \
     where c.status = 'pending' and c.seq > $1 and ",
    conflict_in_scopes!("c", "$3"),
    " order by c.seq limit $2"
);

const COUNTS: &str = concat!(
    "select count(*) as total, \
            coalesce(sum(case when seq > $1 then 1 else 0 end), 0) as after \
     from conflict_queue c where status = 'pending' and ",
    conflict_in_scopes!("c", "$2")
);

/// The events of conflicts and sweeps the caller sees (`$3`); a sweep of every scope is seen
/// by callers of every scope.
const EVENTS: &str = concat!(
    "select e.event_id, e.kind, e.conflict_id, e.created_at from events e \
     where e.event_id > $1 and ($3 is null \
       or exists (select 1 from conflict_queue c where c.conflict_id = e.conflict_id and ",
    conflict_in_scopes!("c", "$3"),
    ") or exists (select 1 from sweeps s where s.sweep_id = e.conflict_id and ",
    in_scopes!("coalesce(s.scope, '*')", "$3"),
    ")) order by e.event_id limit $2"
);

pub async fn batch<B: Backend>(
    store: &B,
    after: i64,
    max: usize,
    scopes: Option<&str>,
) -> StoreResult<WakeBatch> {
    let mut conn = store.pool().acquire().await?;
    let rows = B::query(BATCH)
        .arg(after)
        .arg(max as i64)
        .arg(scopes)
        .all(&mut conn)
        .await?;
    let conflicts = rows::conflicts::<B::Db>(&rows)?;
    let counts = B::query(COUNTS)
        .arg(after)
        .arg(scopes)
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
    scopes: Option<&str>,
) -> StoreResult<Vec<Event>> {
    let mut conn = store.pool().acquire().await?;
    let rows = B::query(EVENTS)
        .arg(after)
        .arg(limit as i64)
        .arg(scopes)
        .all(&mut conn)
        .await?;
    rows.iter().map(rows::event::<B::Db>).collect()
}
