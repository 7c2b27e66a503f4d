//! Conflict rows, on either database: inserting one (one pending conflict per pair), reading
//! one or a full-content listing in one query, stats, sources, reports and the event log. Every queued or resolved
//! conflict records an event and is announced through [`Backend::notify`].

use sqlx::types::Json;
use uuid::Uuid;

use super::backend::{Backend, Cols, Conn, Id, Q, QueryExt, Sql, Ts};
use super::rows::ts_key;
use super::sql::{conflict_columns, conflict_in_scope, conflict_in_scopes, in_scopes, one_scope};
use super::{edges, history, locks, rows};
use crate::domain::conflict::{Conflict, ConflictFilter, ConflictStats, NewConflict};
use crate::domain::cursor::{Cursor, Page};
use crate::domain::history::HistoryEntry;
use crate::domain::time;
use crate::store::*;

pub(crate) const SELECT_ONE: &str = concat!(
    "select ",
    conflict_columns!(),
    " from conflict_queue c \
      left join nodes o on o.node_id = c.old_node_id \
      left join nodes n on n.node_id = c.new_node_id \
     where c.conflict_id = $1"
);

/// Inserts a pending conflict unless its pair already has one or its old node is gone;
/// returns whether it was inserted.
pub async fn insert<B: Backend>(conn: &mut Conn<B>, c: &NewConflict) -> StoreResult<bool> {
    // Nodes before the event lock, as everywhere (see `store`).
    let sides: Vec<Uuid> = std::iter::once(c.old_node_id)
        .chain(c.new_node_id)
        .collect();
    locks::share_nodes::<B>(conn, sides).await?;
    B::serialize_events(conn).await?;
    let row = bind::<B::Db>(B::query(B::INSERT_CONFLICT), c)
        .optional(conn)
        .await?;
    match row {
        Some(row) => {
            let seq: i64 = Cols::<B::Db>::new(&row).get("seq")?;
            let entry = HistoryEntry::queued(c.created_at, c.note.clone(), c.key.clone());
            history::record::<B>(conn, c.id, &entry, None).await?;
            event::<B>(conn, "conflict.created", c.id, seq).await?;
            Ok(true)
        }
        None => Ok(false),
    }
}

/// Binds a new conflict's ten values in `INSERT_CONFLICT`'s order, after those already
/// bound.
pub(crate) fn bind<D: Sql>(q: Q<D>, c: &NewConflict) -> Q<D> {
    q.arg(Id(c.id))
        .arg(Id(c.old_node_id))
        .arg(c.new_node_id.map(Id))
        .arg(&c.new_content)
        .arg(c.new_key())
        .arg(&c.conflict_type)
        .arg(Json(&c.detection))
        .arg(Json(&c.recommendation))
        .arg(&c.note)
        .arg(Ts(c.created_at))
}

/// Records an event and announces the conflict's seq (delivered on commit).
pub async fn event<B: Backend>(
    conn: &mut Conn<B>,
    kind: &str,
    conflict_id: Uuid,
    seq: i64,
) -> StoreResult<()> {
    B::serialize_events(conn).await?;
    B::query("insert into events (kind, conflict_id, created_at) values ($1, $2, $3)")
        .arg(kind)
        .arg(Id(conflict_id))
        .arg(Ts(time::now()))
        .run(conn)
        .await?;
    B::notify(conn, seq).await
}

/// Writes a detected conflict and its `contradicts` edge, if the old node is still active.
pub async fn insert_detected<B: Backend>(
    conn: &mut Conn<B>,
    hit: &DetectedConflict,
) -> StoreResult<Option<Conflict>> {
    let active = B::query("select 1 from nodes where node_id = $1 and state = 'active'")
        .arg(Id(hit.conflict.old_node_id))
        .optional(conn)
        .await?;
    if active.is_none() || !insert::<B>(conn, &hit.conflict).await? {
        return Ok(None);
    }
    edges::insert::<B>(conn, &hit.edge).await?;
    get_in::<B>(conn, hit.conflict.id).await.map(Some)
}

pub async fn get_in<B: Backend>(conn: &mut Conn<B>, id: Uuid) -> StoreResult<Conflict> {
    let row = B::query(SELECT_ONE)
        .arg(Id(id))
        .optional(conn)
        .await?
        .ok_or(StoreError::NotFound("conflict"))?;
    rows::conflict::<B::Db>(&row)
}

pub async fn get<B: Backend>(store: &B, id: Uuid) -> StoreResult<Conflict> {
    let mut conn = store.pool().acquire().await?;
    get_in::<B>(&mut conn, id).await
}

/// Every conflict with `node` on either side, whatever its status, oldest first: the
/// verdicts a check reports, and what an as-of recall reads back in time.
pub async fn of_node<B: Backend>(store: &B, node: Uuid) -> StoreResult<Vec<Conflict>> {
    let mut conn = store.pool().acquire().await?;
    let rows = B::query(
        "select conflict_id from conflict_queue where old_node_id = $1 or new_node_id = $1 \
         order by created_at, conflict_id",
    )
    .arg(Id(node))
    .all(&mut conn)
    .await?;
    let mut out = Vec::with_capacity(rows.len());
    for row in &rows {
        let id = Cols::<B::Db>::new(row).id("conflict_id")?;
        out.push(get_in::<B>(&mut conn, id).await?);
    }
    Ok(out)
}

/// One page of conflict rows is chosen first (an index range scan when a status is given),
/// and only then joined with both nodes: joining first would read every conflict's node
/// bodies before sorting (80 ms for 10k pending conflicts with 4 KiB bodies).
macro_rules! list_sql {
    ($status:literal, $cmp:literal, $dir:literal, $scoped:ident) => {
        concat!(
            "with page as materialized (select * from conflict_queue c where ",
            $status,
            " and ($2 is null or c.conflict_type = $2) \
               and ($3 is null or exists (select 1 from node_labels l where l.label = $3 \
                    and (l.node_id = c.old_node_id or l.node_id = c.new_node_id))) \
               and ($4 is null or (c.created_at, c.conflict_id) ",
            $cmp,
            " ($4, $5)) \
               and ($7 is null or c.resolved_by = $7 \
                    or (substr($7, length($7), 1) = '*' \
                        and substr(c.resolved_by, 1, length($7) - 1) = substr($7, 1, length($7) - 1))) \
               and ($8 is null or coalesce(c.resolved_by like 'policy:%', false) = $8) and ",
            $scoped!("c", "$9"),
            " order by c.created_at ",
            $dir,
            ", c.conflict_id ",
            $dir,
            " limit $6) select ",
            conflict_columns!(),
            " from page c \
              left join nodes o on o.node_id = c.old_node_id \
              left join nodes n on n.node_id = c.new_node_id \
             order by c.created_at ",
            $dir,
            ", c.conflict_id ",
            $dir
        )
    };
}

/// The lists, by (status given, newest first, one exact scope); a caller of one scope reads
/// `conflicts_in_scope` (scopes, status, created_at, id) from its own scope's range.
pub(crate) const LISTS: [[[&str; 2]; 2]; 2] = [
    [
        [
            list_sql!(
                "($1 is null or c.status = $1)",
                ">",
                "asc",
                conflict_in_scopes
            ),
            list_sql!(
                "($1 is null or c.status = $1)",
                ">",
                "asc",
                conflict_in_scope
            ),
        ],
        [
            list_sql!(
                "($1 is null or c.status = $1)",
                "<",
                "desc",
                conflict_in_scopes
            ),
            list_sql!(
                "($1 is null or c.status = $1)",
                "<",
                "desc",
                conflict_in_scope
            ),
        ],
    ],
    [
        [
            list_sql!("c.status = $1", ">", "asc", conflict_in_scopes),
            list_sql!("c.status = $1", ">", "asc", conflict_in_scope),
        ],
        [
            list_sql!("c.status = $1", "<", "desc", conflict_in_scopes),
            list_sql!("c.status = $1", "<", "desc", conflict_in_scope),
        ],
    ],
];

macro_rules! pending_total {
    ($scoped:ident) => {
        concat!(
            "select count(*) as total from conflict_queue c \
             where c.status = 'pending' \
             and ($1 is null or c.conflict_type = $1) \
             and ($2 is null or exists (select 1 from node_labels l where l.label = $2 \
                  and (l.node_id = c.old_node_id or l.node_id = c.new_node_id))) and ",
            $scoped!("c", "$3")
        )
    };
}

/// The pending count beside a list, by (one exact scope).
pub(crate) const PENDING_TOTALS: [&str; 2] = [
    pending_total!(conflict_in_scopes),
    pending_total!(conflict_in_scope),
];

pub async fn list<B: Backend>(store: &B, f: ConflictFilter) -> StoreResult<(Page<Conflict>, i64)> {
    let mut conn = store.pool().acquire().await?;
    let one = usize::from(one_scope(f.scopes.as_deref()).is_some());
    let sql = LISTS[usize::from(f.status.is_some())][usize::from(f.newest_first)][one];
    let rows = B::query(sql)
        .arg(f.status.map(|s| s.as_str()))
        .arg(&f.conflict_type)
        .arg(&f.label)
        .arg(ts_key(f.after.as_ref())?)
        .arg(f.after.as_ref().map(|c| Id(c.id)))
        .arg((f.limit + 1) as i64)
        .arg(&f.resolved_by)
        .arg(f.auto)
        .arg(&f.scopes)
        .all(&mut conn)
        .await?;
    let conflicts = rows::conflicts::<B::Db>(&rows)?;
    let total = B::query(PENDING_TOTALS[one])
        .arg(&f.conflict_type)
        .arg(&f.label)
        .arg(&f.scopes)
        .optional(&mut conn)
        .await?
        .ok_or(StoreError::Failed(Failure::Corrupt(
            "count without a row".into(),
        )))?;
    let total: i64 = Cols::<B::Db>::new(&total).get("total")?;
    let page = Page::from_rows(conflicts, f.limit, |c| {
        Cursor::new(time::format(&c.created_at), c.id)
    });
    Ok((page, total))
}

macro_rules! stats_sql {
    ($scoped:ident) => {
        concat!(
            "select status, conflict_type, count(*) as n, min(created_at) as oldest \
             from conflict_queue c where ",
            $scoped!("c", "$1"),
            " group by status, conflict_type order by conflict_type"
        )
    };
}

/// The queue's stats, by (one exact scope).
pub(crate) const STATS: [&str; 2] = [
    stats_sql!(conflict_in_scopes),
    stats_sql!(conflict_in_scope),
];

pub async fn stats<B: Backend>(store: &B, scopes: Option<&str>) -> StoreResult<ConflictStats> {
    let mut conn = store.pool().acquire().await?;
    let sql = STATS[usize::from(one_scope(scopes).is_some())];
    let rows = B::query(sql).arg(scopes).all(&mut conn).await?;
    let mut stats = ConflictStats {
        pending: 0,
        resolved: 0,
        by_type: Vec::new(),
        oldest_pending_at: None,
    };
    for row in &rows {
        let c = Cols::<B::Db>::new(row);
        let status: String = c.get("status")?;
        let n: i64 = c.get("n")?;
        if status == "pending" {
            stats.pending += n;
            stats.by_type.push((c.get("conflict_type")?, n));
            let oldest = c.ts("oldest")?;
            stats.oldest_pending_at =
                Some(stats.oldest_pending_at.map_or(oldest, |o| o.min(oldest)));
        } else {
            stats.resolved += n;
        }
    }
    Ok(stats)
}

/// Every source named by a node the caller sees or with verdicts in its scopes, with its
/// counters summed over the caller's scopes and its node count there.
const SOURCES: &str = concat!(
    "with names as (select source from nodes n where source is not null and ",
    in_scopes!("n.scope", "$1"),
    " union select source from sources s where ",
    in_scopes!("s.scope", "$1"),
    "), verdicts as (select source, sum(upheld) as upheld, sum(contradicted) as contradicted \
                     from sources s where ",
    in_scopes!("s.scope", "$1"),
    " group by source) \
     select '' as scope, names.source, cast(coalesce(v.upheld, 0) as bigint) as upheld, \
            cast(coalesce(v.contradicted, 0) as bigint) as contradicted, \
            (select count(*) from nodes n where n.source = names.source and ",
    in_scopes!("n.scope", "$1"),
    ") as nodes \
     from names left join verdicts v on v.source = names.source order by names.source"
);

pub async fn sources<B: Backend>(store: &B, scopes: Option<&str>) -> StoreResult<Vec<SourceStats>> {
    let mut conn = store.pool().acquire().await?;
    let rows = B::query(SOURCES).arg(scopes).all(&mut conn).await?;
    rows.iter().map(rows::source_stats::<B::Db>).collect()
}

pub async fn source_verdicts<B: Backend>(store: &B) -> StoreResult<Vec<SourceStats>> {
    source_rows::<B>(
        store,
        "select scope, source, upheld, contradicted, cast(0 as bigint) as nodes from sources \
         where upheld + contradicted > 0",
    )
    .await
}

async fn source_rows<B: Backend>(store: &B, sql: &'static str) -> StoreResult<Vec<SourceStats>> {
    let mut conn = store.pool().acquire().await?;
    let rows = B::query(sql).all(&mut conn).await?;
    rows.iter().map(rows::source_stats::<B::Db>).collect()
}

/// Counts a verdict for a source in a scope, in the resolution's transaction.
pub async fn count_verdict<B: Backend>(
    conn: &mut Conn<B>,
    scope: &str,
    source: &str,
    upheld: bool,
) -> StoreResult<()> {
    B::query(
        "insert into sources (scope, source, upheld, contradicted, created_at, updated_at) \
         values ($5, $1, $2, $3, $4, $4) \
         on conflict (scope, source) do update set upheld = sources.upheld + excluded.upheld, \
           contradicted = sources.contradicted + excluded.contradicted, \
           updated_at = excluded.updated_at",
    )
    .arg(source)
    .arg(upheld as i64)
    .arg(!upheld as i64)
    .arg(Ts(time::now()))
    .arg(scope)
    .run(conn)
    .await?;
    Ok(())
}

pub async fn save_report<B: Backend>(store: &B, r: StoredReport) -> StoreResult<()> {
    let mut tx = store.write().await?;
    B::query(
        "insert into conflict_reports (report_id, topic, report, created_at, updated_at, scopes) \
         values ($1, $2, $3, $4, $4, $5)",
    )
    .arg(Id(r.id))
    .arg(&r.topic)
    .arg(Json(&r.report))
    .arg(Ts(r.created_at))
    .arg(&r.scopes)
    .run(&mut tx)
    .await?;
    B::commit(tx).await?;
    Ok(())
}

/// Reports newest first; a report is seen by callers that hold every scope it drew on (a
/// report from before scopes were recorded, by callers of every scope).
const LIST_REPORTS: &str = concat!(
    "select report_id, topic, report, created_at, scopes from conflict_reports \
     where ($1 is null or (created_at, report_id) < ($1, $2)) and ",
    in_scopes!("coalesce(scopes, '*')", "$4"),
    " order by created_at desc, report_id desc limit $3"
);

pub async fn list_reports<B: Backend>(
    store: &B,
    limit: usize,
    after: Option<Cursor>,
    scopes: Option<&str>,
) -> StoreResult<Page<StoredReport>> {
    let mut conn = store.pool().acquire().await?;
    let rows = B::query(LIST_REPORTS)
        .arg(ts_key(after.as_ref())?)
        .arg(after.as_ref().map(|c| Id(c.id)))
        .arg((limit + 1) as i64)
        .arg(scopes)
        .all(&mut conn)
        .await?;
    let reports = rows
        .iter()
        .map(rows::report::<B::Db>)
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(Page::from_rows(reports, limit, |r| {
        Cursor::new(time::format(&r.created_at), r.id)
    }))
}
