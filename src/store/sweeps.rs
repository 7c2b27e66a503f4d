//! The `sweeps` table: one row per sweep (`POST /sweeps`, `concord sweep`), with its filter,
//! its progress and checkpoint, and the lease of whoever runs it; and the page of stored
//! memories a sweep compares next. Each statement runs on its own connection; a sweep's
//! checkpoint commits with the conflicts it queued (`units::sweeps`).

use uuid::Uuid;

use super::backend::{Backend, Cols, Conn, Id, QueryExt, Row, Ts};
use super::sql::{in_scopes, node_columns};
use super::{conflicts, rows};
use crate::domain::node::{self as dn, Node};
use crate::domain::sweep::{NewSweep, Sweep, SweepFilter, SweepStatus};
use crate::domain::time::{self, Timestamp};
use crate::store::{PassedNode, StoreError, StoreResult};

macro_rules! columns {
    () => {
        "sweep_id, scope, label, since, until_id, status, total, compared, queued, checkpoint, \
         resumed_at, resumed_compared, error, created_by, created_at, updated_at, finished_at"
    };
}

/// The filter's tests on node `n`: `$1` scope, `$2` label, `$3` since.
macro_rules! filter {
    () => {
        "($1 is null or n.scope = $1) \
         and ($2 is null or exists (select 1 from node_labels l \
                                    where l.label = $2 and l.node_id = n.node_id)) \
         and ($3 is null or n.created_at >= $3)"
    };
}

/// The newest node and how many active memories up to it the filter names: what a sweep
/// starting now compares.
pub async fn extent<B: Backend>(
    store: &B,
    filter: &SweepFilter,
) -> StoreResult<(Option<Uuid>, i64)> {
    let mut conn = store.pool().acquire().await?;
    // Not `max(node_id)`: PostgreSQL before 16 has no `max` of uuid.
    let row = B::query("select node_id from nodes order by node_id desc limit 1")
        .optional(&mut conn)
        .await?;
    let Some(until) = row
        .map(|r| Cols::<B::Db>::new(&r).id("node_id"))
        .transpose()?
    else {
        return Ok((None, 0));
    };
    let row = B::query(concat!(
        "select count(*) as total from nodes n where n.state = 'active' and n.node_id <= $4 and ",
        filter!()
    ))
    .arg(&filter.scope)
    .arg(&filter.label)
    .arg(filter.since.map(Ts))
    .arg(Id(until))
    .optional(&mut conn)
    .await?
    .ok_or(StoreError::NotFound("count"))?;
    Ok((Some(until), Cols::<B::Db>::new(&row).get("total")?))
}

/// Stores a running sweep with its `sweep.started` event; false when one runs already (one
/// runs at a time, by a unique index).
pub async fn insert<B: Backend>(store: &B, s: &NewSweep) -> StoreResult<bool> {
    let mut tx = store.write().await?;
    let inserted = B::query(
        "insert into sweeps (sweep_id, scope, label, since, until_id, status, total, \
         resumed_at, created_by, created_at, updated_at) \
         values ($1, $2, $3, $4, $5, 'running', $6, $7, $8, $7, $7) on conflict do nothing",
    )
    .arg(Id(s.id))
    .arg(&s.filter.scope)
    .arg(&s.filter.label)
    .arg(s.filter.since.map(Ts))
    .arg(s.until.map(Id))
    .arg(s.total)
    .arg(Ts(s.created_at))
    .arg(&s.created_by)
    .run(&mut tx)
    .await?
        == 1;
    if inserted {
        event::<B>(&mut tx, "sweep.started", s.id).await?;
    }
    B::commit(tx).await?;
    Ok(inserted)
}

/// Records a sweep event (`sweep.started`, `sweep.progress`, `sweep.done`, …) on the event
/// log, whose subject column holds the sweep's id.
pub async fn event<B: Backend>(conn: &mut Conn<B>, kind: &str, sweep: Uuid) -> StoreResult<()> {
    conflicts::event::<B>(conn, kind, sweep, 0).await
}

pub async fn get<B: Backend>(store: &B, id: Uuid) -> StoreResult<Sweep> {
    let mut conn = store.pool().acquire().await?;
    get_in::<B>(&mut conn, id).await
}

pub async fn get_in<B: Backend>(conn: &mut Conn<B>, id: Uuid) -> StoreResult<Sweep> {
    let row = B::query(concat!(
        "select ",
        columns!(),
        " from sweeps where sweep_id = $1"
    ))
    .arg(Id(id))
    .optional(conn)
    .await?
    .ok_or(StoreError::NotFound("sweep"))?;
    sweep_of::<B>(&row)
}

/// The running sweep, if any.
pub async fn running<B: Backend>(store: &B) -> StoreResult<Option<Sweep>> {
    let mut conn = store.pool().acquire().await?;
    let row = B::query(concat!(
        "select ",
        columns!(),
        " from sweeps where status = 'running'"
    ))
    .optional(&mut conn)
    .await?;
    row.as_ref().map(sweep_of::<B>).transpose()
}

/// The newest sweeps, at most `limit`.
/// The newest sweeps the caller sees (`scopes`): one of a scope it holds; one of every scope
/// only when it holds every scope.
pub async fn list<B: Backend>(
    store: &B,
    limit: usize,
    scopes: Option<&str>,
) -> StoreResult<Vec<Sweep>> {
    let mut conn = store.pool().acquire().await?;
    let rows = B::query(concat!(
        "select ",
        columns!(),
        " from sweeps where ",
        in_scopes!("coalesce(scope, '*')", "$2"),
        " order by created_at desc, sweep_id desc limit $1"
    ))
    .arg(limit as i64)
    .arg(scopes)
    .all(&mut conn)
    .await?;
    rows.iter().map(sweep_of::<B>).collect()
}

/// Takes the running sweep for `owner` until `until` when nobody holds it (its runner stopped
/// or its lease ran out), `owner` does, or `take_over` says its holder is gone; `None` when
/// there is none to take. A new run starts its rate afresh.
pub async fn claim<B: Backend>(
    store: &B,
    owner: &str,
    now: Timestamp,
    until: Timestamp,
    take_over: bool,
) -> StoreResult<Option<Sweep>> {
    let mut conn = store.pool().acquire().await?;
    let row = B::query(concat!(
        "update sweeps set lease_owner = $1, lease_until = $3, \
           resumed_at = case when lease_owner = $1 then resumed_at else $2 end, \
           resumed_compared = case when lease_owner = $1 then resumed_compared else compared end \
         where status = 'running' \
           and (lease_owner is null or lease_owner = $1 or lease_until < $2 or $4) \
         returning ",
        columns!()
    ))
    .arg(owner)
    .arg(Ts(now))
    .arg(Ts(until))
    .arg(take_over)
    .optional(&mut conn)
    .await?;
    row.as_ref().map(sweep_of::<B>).transpose()
}

/// Ends a running sweep as `status` (`cancelled` by anyone; `done` or `failed` by its runner
/// `owner`) with its event, and returns it as it stands: unchanged when it had ended already.
pub async fn finish<B: Backend>(
    store: &B,
    id: Uuid,
    status: SweepStatus,
    owner: Option<&str>,
    error: Option<&str>,
) -> StoreResult<Sweep> {
    let now = Ts(time::now());
    let mut tx = store.write().await?;
    let ended = B::query(
        "update sweeps set status = $2, error = $3, finished_at = $4, updated_at = $4, \
           lease_owner = null, lease_until = null \
         where sweep_id = $1 and status = 'running' and ($5 is null or lease_owner = $5)",
    )
    .arg(Id(id))
    .arg(status.as_str())
    .arg(error)
    .arg(now)
    .arg(owner)
    .run(&mut tx)
    .await?
        == 1;
    if ended {
        event::<B>(&mut tx, &format!("sweep.{}", status.as_str()), id).await?;
    }
    let sweep = get_in::<B>(&mut tx, id).await?;
    B::commit(tx).await?;
    Ok(sweep)
}

/// A page of a sweep: the memories after node `$4` up to `$5` that the filter (`$1` to `$3`)
/// names, in node id order, at most `$6`, with their embeddings.
///
/// The state is tested as `n.state || ''` so that no index on it can be used: it is the
/// node id range that bounds a page. SQLite, without statistics of the table, took the
/// equality on the state for the better index (`nodes_newest`), read every active memory of
/// the store for each page and sorted them all to keep 500: 145–217 ms a page at 100k
/// memories against at most 3 ms by the id range, a third of a 100k sweep on one thread.
pub const PAGE: &str = concat!(
    "select ",
    node_columns!("n", ""),
    ", n.embedding from nodes n \
     where n.node_id > $4 and n.node_id <= $5 and n.state || '' = 'active' and ",
    filter!(),
    " order by n.node_id limit $6"
);

/// The next `limit` memories sweep `s` compares after node `after`, in node id order, with
/// their embeddings ([`PAGE`]).
pub async fn page<B: Backend>(
    store: &B,
    s: &Sweep,
    after: Option<Uuid>,
    limit: usize,
) -> StoreResult<Vec<(Node, Option<Vec<f32>>)>> {
    let Some(until) = s.until else {
        return Ok(Vec::new());
    };
    let mut conn = store.reader().await?;
    let rows = B::query(PAGE)
        .arg(&s.filter.scope)
        .arg(&s.filter.label)
        .arg(s.filter.since.map(Ts))
        .arg(Id(after.unwrap_or(Uuid::nil())))
        .arg(Id(until))
        .arg(limit as i64)
        .all(&mut conn)
        .await?;
    rows.iter()
        .map(|r| {
            let node = rows::some_node::<B::Db>(r)?;
            let bytes: Option<Vec<u8>> = Cols::<B::Db>::new(r).get("embedding")?;
            Ok((node, bytes.as_deref().map(dn::embedding_from_bytes)))
        })
        .collect()
}

/// The row key and `search_tokens` of the nodes with ids after `after` up to `to`, in id order.
pub async fn tokens_between<B: Backend>(
    store: &B,
    after: Uuid,
    to: Uuid,
) -> StoreResult<Vec<PassedNode>> {
    let mut conn = store.reader().await?;
    let rows = B::query(B::TOKENS_BETWEEN)
        .arg(Id(after))
        .arg(Id(to))
        .all(&mut conn)
        .await?;
    rows.iter()
        .map(|r| {
            let c = Cols::<B::Db>::new(r);
            Ok(PassedNode {
                id: c.id("node_id")?,
                key: c.get("key")?,
                scope: c.get("scope")?,
                tokens: c.get("search_tokens")?,
            })
        })
        .collect()
}

fn sweep_of<B: Backend>(r: &Row<B>) -> StoreResult<Sweep> {
    let c = Cols::<B::Db>::new(r);
    Ok(Sweep {
        id: c.id("sweep_id")?,
        filter: SweepFilter {
            scope: c.get("scope")?,
            label: c.get("label")?,
            since: c.opt_ts("since")?,
        },
        until: c.opt_id("until_id")?,
        status: c.parse::<SweepStatus>("status")?,
        total: c.get("total")?,
        compared: c.get("compared")?,
        queued: c.get("queued")?,
        checkpoint: c.opt_id("checkpoint")?,
        resumed_at: c.ts("resumed_at")?,
        resumed_compared: c.get("resumed_compared")?,
        error: c.get("error")?,
        created_by: c.get("created_by")?,
        created_at: c.ts("created_at")?,
        updated_at: c.ts("updated_at")?,
        finished_at: c.opt_ts("finished_at")?,
    })
}
