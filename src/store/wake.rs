//! Wake batches and the event log, on either database.

use super::backend::{Backend, Cols, QueryExt};
use super::rows;
use super::sql::{conflict_columns, conflict_in_scope, conflict_in_scopes, in_scopes, one_scope};
use crate::store::*;

macro_rules! batch_sql {
    ($scoped:ident) => {
        concat!(
            "select ",
            conflict_columns!(),
            " from conflict_queue c \
              left join nodes o on o.node_id = c.old_node_id \
              left join nodes n on n.node_id = c.new_node_id \
             where c.status = 'pending' and c.seq > $1 and ",
            $scoped!("c", "$3"),
            " order by c.seq limit $2"
        )
    };
}

macro_rules! counts_sql {
    ($scoped:ident) => {
        concat!(
            "select count(*) as total, \
                    coalesce(sum(case when seq > $1 then 1 else 0 end), 0) as after \
             from conflict_queue c where status = 'pending' and ",
            $scoped!("c", "$2")
        )
    };
}

/// A wake batch and its counts, by (one exact scope): a caller of one scope reads
/// `conflicts_in_scope_seq` (scopes, status, seq) from its own scope's range.
pub(crate) const BATCH: [&str; 2] = [
    batch_sql!(conflict_in_scopes),
    batch_sql!(conflict_in_scope),
];
pub(crate) const COUNTS: [&str; 2] = [
    counts_sql!(conflict_in_scopes),
    counts_sql!(conflict_in_scope),
];

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
    let one = usize::from(one_scope(scopes).is_some());
    let mut conn = store.pool().acquire().await?;
    let rows = B::query(BATCH[one])
        .arg(after)
        .arg(max as i64)
        .arg(scopes)
        .all(&mut conn)
        .await?;
    let conflicts = rows::conflicts::<B::Db>(&rows)?;
    let counts = B::query(COUNTS[one])
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
