//! Conflicts on SQLite: queueing (one pending conflict per pair), the full-content listing in
//! one query, stats, sources and reports.

use sqlx::{Row, SqliteConnection, SqlitePool};
use uuid::Uuid;

use super::SqliteStore;
use super::rows::{self, conflict_columns};
use crate::domain::conflict::{Conflict, ConflictFilter, ConflictStats, NewConflict};
use crate::domain::cursor::{Cursor, Page};
use crate::domain::time;
use crate::store::*;

const SELECT_ONE: &str = concat!(
    "select ",
    conflict_columns!(),
    " from conflict_queue c \
      left join nodes o on o.node_id = c.old_node_id \
      left join nodes n on n.node_id = c.new_node_id \
     where c.conflict_id = $1"
);

/// Inserts a pending conflict unless its pair already has one or its old node is no longer
/// active; returns whether it was inserted.
async fn insert(conn: &mut SqliteConnection, c: &NewConflict) -> StoreResult<bool> {
    let created = time::format(&c.created_at);
    // The write lock is held, so max(seq) + 1 cannot race.
    let done = sqlx::query(
        "insert into conflict_queue (conflict_id, seq, old_node_id, new_node_id, new_content, \
         new_key, conflict_type, detection, recommendation, status, note, created_at, updated_at) \
         select $1, (select coalesce(max(seq), 0) + 1 from conflict_queue), $2, $3, $4, $5, $6, \
                $7, $8, 'pending', $9, $10, $10 \
         where exists (select 1 from nodes where node_id = $2) \
         on conflict do nothing",
    )
    .bind(c.id.to_string())
    .bind(c.old_node_id.to_string())
    .bind(c.new_node_id.map(|id| id.to_string()))
    .bind(&c.new_content)
    .bind(c.new_key())
    .bind(&c.conflict_type)
    .bind(serde_json::to_string(&c.detection)?)
    .bind(serde_json::to_string(&c.recommendation)?)
    .bind(&c.note)
    .bind(&created)
    .execute(&mut *conn)
    .await?;
    if done.rows_affected() == 0 {
        return Ok(false);
    }
    event(conn, "conflict.created", c.id).await?;
    Ok(true)
}

pub async fn event(conn: &mut SqliteConnection, kind: &str, conflict_id: Uuid) -> StoreResult<()> {
    sqlx::query("insert into events (kind, conflict_id, created_at) values ($1, $2, $3)")
        .bind(kind)
        .bind(conflict_id.to_string())
        .bind(time::format(&time::now()))
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Writes a detected conflict and its `contradicts` edge, if the old node is still active.
pub async fn insert_detected(
    conn: &mut SqliteConnection,
    hit: &DetectedConflict,
) -> StoreResult<Option<Conflict>> {
    let active: Option<i64> =
        sqlx::query_scalar("select 1 from nodes where node_id = $1 and state = 'active'")
            .bind(hit.conflict.old_node_id.to_string())
            .fetch_optional(&mut *conn)
            .await?;
    if active.is_none() || !insert(conn, &hit.conflict).await? {
        return Ok(None);
    }
    super::edges::insert(conn, &hit.edge).await?;
    get_in(conn, hit.conflict.id).await.map(Some)
}

pub async fn queue(store: &SqliteStore, c: NewConflict) -> StoreResult<(Conflict, bool)> {
    let mut tx = store.write().await?;
    let inserted = insert(&mut tx, &c).await?;
    let conflict = if inserted {
        get_in(&mut tx, c.id).await?
    } else {
        let id: Option<String> = sqlx::query_scalar(
            "select conflict_id from conflict_queue \
             where old_node_id = $1 and new_key = $2 and status = 'pending'",
        )
        .bind(c.old_node_id.to_string())
        .bind(c.new_key())
        .fetch_optional(&mut *tx)
        .await?;
        // No pending conflict and nothing inserted: the old node does not exist.
        get_in(
            &mut tx,
            rows::uuid(&id.ok_or(StoreError::NotFound("node"))?)?,
        )
        .await?
    };
    tx.commit().await?;
    Ok((conflict, inserted))
}

pub async fn get_in(conn: &mut SqliteConnection, id: Uuid) -> StoreResult<Conflict> {
    let row = sqlx::query(SELECT_ONE)
        .bind(id.to_string())
        .fetch_optional(&mut *conn)
        .await?
        .ok_or(StoreError::NotFound("conflict"))?;
    rows::conflict(&row)
}

pub async fn get(pool: &SqlitePool, id: Uuid) -> StoreResult<Conflict> {
    let mut conn = pool.acquire().await?;
    get_in(&mut conn, id).await
}

/// One page of conflict rows is chosen first (an index range scan when a status is given),
/// and only then joined with both nodes: joining first would read every conflict's node
/// bodies before sorting (80 ms for 10k pending conflicts with 4 KiB bodies).
macro_rules! list_sql {
    ($status:literal, $cmp:literal, $dir:literal) => {
        concat!(
            "with page as materialized (select * from conflict_queue c where ",
            $status,
            " and ($2 is null or c.conflict_type = $2) \
               and ($3 is null or exists (select 1 from node_labels l where l.label = $3 \
                    and (l.node_id = c.old_node_id or l.node_id = c.new_node_id))) \
               and ($4 is null or (c.created_at, c.conflict_id) ",
            $cmp,
            " ($4, $5)) order by c.created_at ",
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

const LIST_OLDEST: &str = list_sql!("c.status = $1", ">", "asc");
const LIST_NEWEST: &str = list_sql!("c.status = $1", "<", "desc");
const LIST_ALL_OLDEST: &str = list_sql!("($1 is null or c.status = $1)", ">", "asc");
const LIST_ALL_NEWEST: &str = list_sql!("($1 is null or c.status = $1)", "<", "desc");

const PENDING_TOTAL: &str = "select count(*) from conflict_queue c where c.status = 'pending' \
    and ($1 is null or c.conflict_type = $1) \
    and ($2 is null or exists (select 1 from node_labels l where l.label = $2 \
         and (l.node_id = c.old_node_id or l.node_id = c.new_node_id)))";

pub async fn list(pool: &SqlitePool, f: ConflictFilter) -> StoreResult<(Page<Conflict>, i64)> {
    let mut conn = pool.acquire().await?;
    let sql = match (f.status.is_some(), f.newest_first) {
        (true, false) => LIST_OLDEST,
        (true, true) => LIST_NEWEST,
        (false, false) => LIST_ALL_OLDEST,
        (false, true) => LIST_ALL_NEWEST,
    };
    let rows = sqlx::query(sql)
        .bind(f.status.map(|s| s.as_str()))
        .bind(&f.conflict_type)
        .bind(&f.label)
        .bind(f.after.as_ref().map(|c| c.key.clone()))
        .bind(f.after.as_ref().map(|c| c.id.to_string()))
        .bind((f.limit + 1) as i64)
        .fetch_all(&mut *conn)
        .await?;
    let conflicts = rows
        .iter()
        .map(rows::conflict)
        .collect::<StoreResult<Vec<_>>>()?;
    let total: i64 = sqlx::query_scalar(PENDING_TOTAL)
        .bind(&f.conflict_type)
        .bind(&f.label)
        .fetch_one(&mut *conn)
        .await?;
    let page = Page::from_rows(conflicts, f.limit, |c| {
        Cursor::new(time::format(&c.created_at), c.id)
    });
    Ok((page, total))
}

pub async fn stats(pool: &SqlitePool) -> StoreResult<ConflictStats> {
    let rows = sqlx::query(
        "select status, conflict_type, count(*) as n, min(created_at) as oldest \
         from conflict_queue group by status, conflict_type order by conflict_type",
    )
    .fetch_all(pool)
    .await?;
    let mut stats = ConflictStats {
        pending: 0,
        resolved: 0,
        by_type: Vec::new(),
        oldest_pending_at: None,
    };
    for row in rows {
        let status: String = row.try_get("status")?;
        let n: i64 = row.try_get("n")?;
        if status == "pending" {
            stats.pending += n;
            stats.by_type.push((row.try_get("conflict_type")?, n));
            let oldest = rows::ts(&row.try_get::<String, _>("oldest")?)?;
            stats.oldest_pending_at =
                Some(stats.oldest_pending_at.map_or(oldest, |o| o.min(oldest)));
        } else {
            stats.resolved += n;
        }
    }
    Ok(stats)
}

pub async fn sources(pool: &SqlitePool) -> StoreResult<Vec<SourceStats>> {
    let rows = sqlx::query(
        "with names as (select source from nodes where source is not null \
                        union select source from sources) \
         select names.source, coalesce(s.upheld, 0) as upheld, \
                coalesce(s.contradicted, 0) as contradicted, \
                (select count(*) from nodes n where n.source = names.source) as nodes \
         from names left join sources s on s.source = names.source order by names.source",
    )
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(SourceStats {
                source: r.try_get("source")?,
                upheld: r.try_get("upheld")?,
                contradicted: r.try_get("contradicted")?,
                nodes: r.try_get("nodes")?,
            })
        })
        .collect()
}

pub async fn source_verdicts(pool: &SqlitePool) -> StoreResult<Vec<SourceStats>> {
    let rows = sqlx::query(
        "select source, upheld, contradicted from sources where upheld + contradicted > 0",
    )
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(SourceStats {
                source: r.try_get("source")?,
                upheld: r.try_get("upheld")?,
                contradicted: r.try_get("contradicted")?,
                nodes: 0,
            })
        })
        .collect()
}

/// Counts a verdict for a source, in the resolution's transaction.
pub async fn count_verdict(
    conn: &mut SqliteConnection,
    source: &str,
    upheld: bool,
) -> StoreResult<()> {
    let now = time::format(&time::now());
    sqlx::query(
        "insert into sources (source, upheld, contradicted, created_at, updated_at) \
         values ($1, $2, $3, $4, $4) \
         on conflict (source) do update set upheld = upheld + excluded.upheld, \
           contradicted = contradicted + excluded.contradicted, updated_at = excluded.updated_at",
    )
    .bind(source)
    .bind(upheld as i64)
    .bind(!upheld as i64)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

pub async fn save_report(store: &SqliteStore, r: StoredReport) -> StoreResult<()> {
    let mut tx = store.write().await?;
    sqlx::query(
        "insert into conflict_reports (report_id, topic, report, created_at, updated_at) \
         values ($1, $2, $3, $4, $4)",
    )
    .bind(r.id.to_string())
    .bind(&r.topic)
    .bind(serde_json::to_string(&r.report)?)
    .bind(time::format(&r.created_at))
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

pub async fn list_reports(
    pool: &SqlitePool,
    limit: usize,
    after: Option<Cursor>,
) -> StoreResult<Page<StoredReport>> {
    let rows = sqlx::query(
        "select report_id, topic, report, created_at from conflict_reports \
         where ($1 is null or (created_at, report_id) < ($1, $2)) \
         order by created_at desc, report_id desc limit $3",
    )
    .bind(after.as_ref().map(|c| c.key.clone()))
    .bind(after.as_ref().map(|c| c.id.to_string()))
    .bind((limit + 1) as i64)
    .fetch_all(pool)
    .await?;
    let reports = rows
        .iter()
        .map(|r| {
            Ok(StoredReport {
                id: rows::uuid(&r.try_get::<String, _>("report_id")?)?,
                topic: r.try_get("topic")?,
                report: serde_json::from_str(&r.try_get::<String, _>("report")?)?,
                created_at: rows::ts(&r.try_get::<String, _>("created_at")?)?,
            })
        })
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(Page::from_rows(reports, limit, |r| {
        Cursor::new(time::format(&r.created_at), r.id)
    }))
}
