//! Full-text search on SQLite (an FTS5 table over `search_tokens`, kept by triggers), its token
//! statistics (`nodes_fts_vocab`), and the checks that read JSON with `json_each`.

use sqlx::{Row, Sqlite, SqliteConnection, SqlitePool};

use crate::domain::retrieval::rarest_tokens;
use crate::store::backend::{Id, QueryExt, Texts};
use crate::store::sql::node_columns;
use crate::store::{CandidateQuery, StoreResult, Violation};

/// Full-text hits are materialised before the join for the same reason as candidates.
pub const LIST_RANKED: &str = concat!(
    "with hits as materialized (select rowid, bm25(nodes_fts) as score from nodes_fts \
     where nodes_fts match $7) \
     select * from (select ",
    node_columns!("n", ""),
    ", hits.score as score from hits join nodes n on n.rowid = hits.rowid \
      where n.state = $1 \
      and ($2 is null or n.memory_type = $2) \
      and ($3 is null or exists (select 1 from node_labels l where l.label = $3 and l.node_id = n.node_id))) \
     where ($4 is null or (score, node_id) > ($4, $5)) \
     order by score, node_id limit $6"
);

/// Whether a verdict between the candidate `n` and node `$4` already exists.
macro_rules! remembered {
    () => {
        "($4 is not null and (exists (select 1 from conflict_queue q \
            where (q.old_node_id = n.node_id and q.new_key = $4) \
               or (q.old_node_id = $4 and q.new_key = n.node_id)) \
          or exists (select 1 from edges e where e.kind in ('supersedes', 'relates_to') \
            and ((e.source_id = n.node_id and e.target_id = $4) \
              or (e.source_id = $4 and e.target_id = n.node_id))))) as remembered"
    };
}
pub(super) use remembered;

/// The index is searched first and materialised: left to itself, SQLite's planner (3.51)
/// scans `nodes` by scope and runs the full-text query once per row, which took seconds at
/// 10k nodes. Only the best-ranked hits are then filtered by scope, type and state.
const CANDIDATES_BY_TOKENS: &str = concat!(
    "with hits as materialized (select rowid, rank from nodes_fts where nodes_fts match $1 \
     order by rank limit $6) \
     select ",
    node_columns!("n", ""),
    ", n.embedding, ",
    remembered!(),
    " from hits join nodes n on n.rowid = hits.rowid \
     where n.scope = $2 and n.memory_type = $3 and n.state = 'active' \
       and ($4 is null or n.node_id <> $4) \
     order by hits.rank limit $5"
);

/// Index hits examined per candidate wanted: hits in other scopes, types or states are
/// filtered out after the index ranks them.
const INDEX_HITS_PER_CANDIDATE: usize = 4;

/// Documents the index may rank per candidate search, and how many tokens it may use.
const RANKING_BUDGET: i64 = 2_000;
const MIN_QUERY_TOKENS: usize = 2;
const MAX_QUERY_TOKENS: usize = 12;

/// An FTS5 query matching rows that contain every token (`all`) or any, each quoted so that
/// no token can be read as an operator.
pub fn fts_query(tokens: &[String], all: bool) -> String {
    tokens
        .iter()
        .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(if all { " AND " } else { " OR " })
}

/// The new text's rarest tokens, by the index's own document frequencies.
pub async fn rarest(conn: &mut SqliteConnection, tokens: &[String]) -> StoreResult<Vec<String>> {
    if tokens.is_empty() {
        return Ok(Vec::new());
    }
    let rows = sqlx::query::<Sqlite>(
        "select term, doc from nodes_fts_vocab where term in (select value from json_each($1))",
    )
    .arg(Texts(tokens))
    .all(conn)
    .await?;
    let stats = rows
        .iter()
        .map(|r| Ok((r.try_get::<String, _>("term")?, r.try_get::<i64, _>("doc")?)))
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(rarest_tokens(
        &stats,
        RANKING_BUDGET,
        MIN_QUERY_TOKENS,
        MAX_QUERY_TOKENS,
    ))
}

pub async fn candidates_by_tokens(
    conn: &mut SqliteConnection,
    tokens: &[String],
    q: &CandidateQuery,
) -> StoreResult<Vec<sqlx::sqlite::SqliteRow>> {
    sqlx::query::<Sqlite>(CANDIDATES_BY_TOKENS)
        .arg(fts_query(tokens, false))
        .arg(&q.scope)
        .arg(&q.memory_type)
        .arg(q.exclude.map(Id))
        .arg(q.limit as i64)
        .arg((q.limit * INDEX_HITS_PER_CANDIDATE) as i64)
        .all(conn)
        .await
}

/// FTS5's integrity check with rank 1 also compares the index with the external content table
/// (`nodes`) and fails on any difference: a row missing, an extra one, stale tokens.
pub async fn check_index(pool: &SqlitePool) -> StoreResult<Vec<Violation>> {
    let checked =
        sqlx::query("insert into nodes_fts (nodes_fts, rank) values ('integrity-check', 1)")
            .execute(pool)
            .await;
    Ok(match checked {
        Ok(_) => Vec::new(),
        Err(e) => vec![Violation {
            invariant: "fts_out_of_step",
            detail: format!("the full-text index does not match the nodes table: {e}"),
        }],
    })
}

/// The invariants of `concord check` that read JSON columns (see `store::check`).
pub const JSON_CHECKS: &[(&str, &str)] = &[
    (
        "label_index_out_of_step",
        "select 'node ' || n.node_id || ' has label ' || j.value || ' missing from the index' \
         from nodes n, json_each(n.labels) j \
         where not exists (select 1 from node_labels l \
                           where l.node_id = n.node_id and l.label = j.value) \
         union all \
         select 'index has label ' || l.label || ' for node ' || l.node_id || \
           ', which does not carry it' \
         from node_labels l join nodes n on n.node_id = l.node_id \
         where not exists (select 1 from json_each(n.labels) j where j.value = l.label) \
         limit 100",
    ),
    (
        "resolution_without_conflict_resolved_action",
        "select 'resolved conflict ' || c.conflict_id || ' records no conflict_resolved action' \
         from conflict_queue c where c.status = 'resolved' and c.actions is not null \
           and not exists (select 1 from json_each(c.actions) a \
                           where json_extract(a.value, '$.action') = 'conflict_resolved') \
         limit 100",
    ),
    (
        "created_edge_missing",
        "select 'conflict ' || c.conflict_id || ' created edge ' || \
           json_extract(a.value, '$.edge_id') || ', which is gone while both endpoints exist' \
         from conflict_queue c, json_each(c.actions) a \
         where c.status = 'resolved' and json_extract(a.value, '$.action') = 'edge_created' \
           and not exists (select 1 from edges e \
                           where e.edge_id = json_extract(a.value, '$.edge_id')) \
           and exists (select 1 from nodes n \
                       where n.node_id = json_extract(a.value, '$.source_id')) \
           and exists (select 1 from nodes n \
                       where n.node_id = json_extract(a.value, '$.target_id')) \
         limit 100",
    ),
    (
        "created_edge_kind_changed",
        "select 'conflict ' || c.conflict_id || ' created a ' || json_extract(a.value, '$.kind') \
           || ' edge ' || e.edge_id || ', which is now ' || e.kind \
         from conflict_queue c, json_each(c.actions) a \
           join edges e on e.edge_id = json_extract(a.value, '$.edge_id') \
         where c.status = 'resolved' and json_extract(a.value, '$.action') = 'edge_created' \
           and e.kind <> json_extract(a.value, '$.kind') \
         limit 100",
    ),
    (
        "state_change_missing",
        "select 'conflict ' || c.conflict_id || ' made node ' || n.node_id || ' ' || \
           json_extract(a.value, '$.to') || ', but it is ' || n.state || \
           ' with no later update' \
         from conflict_queue c, json_each(c.actions) a \
           join nodes n on n.node_id = json_extract(a.value, '$.node_id') \
         where c.status = 'resolved' \
           and json_extract(a.value, '$.action') = 'node_state_changed' \
           and n.state <> json_extract(a.value, '$.to') and n.updated_at <= c.resolved_at \
         limit 100",
    ),
    (
        "merged_node_not_updated",
        "select 'conflict ' || c.conflict_id || ' merged into node ' || n.node_id || \
           ', which was last updated before the merge' \
         from conflict_queue c, json_each(c.actions) a \
           join nodes n on n.node_id = json_extract(a.value, '$.node_id') \
         where c.status = 'resolved' and json_extract(a.value, '$.action') = 'node_body_merged' \
           and n.updated_at < c.resolved_at \
         limit 100",
    ),
    (
        "deleted_node_present",
        "select 'conflict ' || c.conflict_id || ' deleted node ' || n.node_id || \
           ', which still exists' \
         from conflict_queue c, json_each(c.actions) a \
           join nodes n on n.node_id = json_extract(a.value, '$.node_id') \
         where c.status = 'resolved' and json_extract(a.value, '$.action') = 'node_deleted' \
         limit 100",
    ),
    (
        "created_node_not_linked",
        "select 'conflict ' || c.conflict_id || ' created node ' || n.node_id || \
           ' but does not name it as its new node' \
         from conflict_queue c, json_each(c.actions) a \
           join nodes n on n.node_id = json_extract(a.value, '$.node_id') \
         where c.status = 'resolved' and json_extract(a.value, '$.action') = 'node_created' \
           and (c.new_node_id is null or c.new_node_id <> n.node_id) \
         limit 100",
    ),
    (
        "edge_recorded_twice",
        "select 'edge ' || json_extract(a.value, '$.edge_id') || ' is recorded ' || count(*) || \
           ' times by resolutions' \
         from conflict_queue c, json_each(c.actions) a \
         where c.status = 'resolved' and json_extract(a.value, '$.action') = 'edge_created' \
         group by json_extract(a.value, '$.edge_id') having count(*) > 1 \
         limit 100",
    ),
    (
        "duplicate_resolution_edge",
        "select 'conflict ' || c.conflict_id || ' records ' || count(*) || ' resolution edges' \
         from conflict_queue c, json_each(c.actions) a \
         where c.status = 'resolved' and json_extract(a.value, '$.action') = 'edge_created' \
           and json_extract(a.value, '$.kind') in ('supersedes', 'relates_to') \
         group by c.conflict_id having count(*) > 1 \
         union all \
         select 'edge ' || e.edge_id || ' duplicates the resolution edge of conflict ' || \
           c.conflict_id \
         from conflict_queue c join edges e \
           on ((e.source_id = c.old_node_id and e.target_id = c.new_node_id) \
               or (e.source_id = c.new_node_id and e.target_id = c.old_node_id)) \
         where c.status = 'resolved' and e.kind in ('supersedes', 'relates_to') \
           and e.created_at = c.resolved_at \
           and not exists (select 1 from json_each(c.actions) a \
                           where json_extract(a.value, '$.edge_id') = e.edge_id) \
         limit 100",
    ),
];
