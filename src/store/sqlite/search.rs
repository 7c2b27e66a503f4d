//! Full-text search on SQLite (an FTS5 table over `search_tokens`, kept by triggers), its token
//! statistics (`token_docs`, kept by triggers too), and the checks that read JSON with `json_each`.

use sqlx::{Row, Sqlite, SqliteConnection, SqlitePool};

use crate::domain::retrieval::{RANKING_BUDGET, query_tokens};
use crate::store::backend::{Id, QueryExt, Texts};
use crate::store::check::JsonSql;
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
        concat!(
            "($4 is not null and (exists (select 1 from conflict_queue q \
                where (q.old_node_id = n.node_id and q.new_key = $4) \
                   or (q.old_node_id = $4 and q.new_key = n.node_id)) or ",
            crate::store::sql::verdict_edge_exists!(),
            ")) as remembered"
        )
    };
}
pub(super) use remembered;

/// The index is searched first and materialised: left to itself, SQLite's planner (3.51)
/// scans `nodes` by scope and runs the full-text query once per row, which took seconds at
/// 10k nodes. Only the best-ranked hits are then filtered by scope, type and state.
///
/// `bm25` costs about a microsecond per matching row, and even a write's rarest words can
/// match thousands of rows in a large store, so only the newest `$7` matches (FTS5 walks its
/// postings in rowid order without ranking them) are ranked: the search costs the same at
/// 10k nodes as at 100k, and below `$7` matches it is the plain best-ranked search.
const CANDIDATES_BY_TOKENS: &str = concat!(
    "with hits as materialized (select rowid, rank from \
        (select rowid, rank from nodes_fts where nodes_fts match $1 order by rowid desc limit $7) \
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

/// Most index matches ranked per search: the same number of postings the rarest-token
/// policy aims for (`domain::retrieval`), which a write exceeds only when even its two
/// rarest words are common.
const RANKED_MATCHES: i64 = RANKING_BUDGET;

/// Index hits examined per candidate wanted: hits in other scopes, types or states are
/// filtered out after the index ranks them.
const INDEX_HITS_PER_CANDIDATE: usize = 4;

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
async fn rarest(
    conn: &mut SqliteConnection,
    tokens: &[String],
    names: &[String],
) -> StoreResult<Vec<String>> {
    if tokens.is_empty() {
        return Ok(Vec::new());
    }
    let rows = sqlx::query::<Sqlite>(
        "select term, docs as doc from token_docs where term in (select value from json_each($1))",
    )
    .arg(Texts(tokens))
    .all(conn)
    .await?;
    let stats = rows
        .iter()
        .map(|r| Ok((r.try_get::<String, _>("term")?, r.try_get::<i64, _>("doc")?)))
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(query_tokens(&stats, names))
}

pub async fn candidates_by_tokens(
    conn: &mut SqliteConnection,
    q: &CandidateQuery,
) -> StoreResult<Vec<sqlx::sqlite::SqliteRow>> {
    let tokens = rarest(conn, &q.tokens, &q.names).await?;
    if tokens.is_empty() {
        return Ok(Vec::new());
    }
    sqlx::query::<Sqlite>(CANDIDATES_BY_TOKENS)
        .arg(fts_query(&tokens, false))
        .arg(&q.scope)
        .arg(&q.memory_type)
        .arg(q.exclude.map(Id))
        .arg(q.limit as i64)
        .arg((q.limit * INDEX_HITS_PER_CANDIDATE) as i64)
        .arg(RANKED_MATCHES)
        .all(conn)
        .await
}

/// FTS5's integrity check with rank 1 also compares the index with the external content table
/// (`nodes`) and fails on any difference: a row missing, an extra one, stale tokens.
pub async fn check_index(pool: &SqlitePool) -> Vec<Violation> {
    let checked =
        sqlx::query("insert into nodes_fts (nodes_fts, rank) values ('integrity-check', 1)")
            .execute(pool)
            .await;
    let mut out: Vec<Violation> = checked
        .err()
        .map(|e| Violation {
            invariant: "fts_out_of_step",
            detail: format!("the full-text index does not match the nodes table: {e}"),
        })
        .into_iter()
        .collect();
    match sqlx::query_scalar::<_, String>(TOKEN_DOCS_DRIFT)
        .fetch_all(pool)
        .await
    {
        Ok(terms) => out.extend(terms.into_iter().map(|term| Violation {
            invariant: "token_docs_out_of_step",
            detail: format!("the document frequency of {term:?} does not match the nodes table"),
        })),
        Err(e) => out.push(Violation {
            invariant: "token_docs_out_of_step",
            detail: format!("the token statistics could not be recounted: {e}"),
        }),
    }
    out
}

/// Terms whose kept document frequency differs from a recount over `nodes` (at most 100).
const TOKEN_DOCS_DRIFT: &str = "\
    with recount as (select value as term, count(*) as docs from nodes, \
        json_each('[\"' || replace(nodes.search_tokens, ' ', '\",\"') || '\"]') \
        where value <> '' group by value) \
    select coalesce(r.term, t.term) from recount r full join token_docs t on t.term = r.term \
    where r.docs is not t.docs limit 100";

/// How `concord check` reads the JSON columns (see `store::check`).
pub const JSON: JsonSql = JsonSql {
    each: ", json_each(c.actions) a",
    actions: "json_each(c.actions) a",
    labels: "json_each(n.labels) j",
    label: "j.value",
    field: ("json_extract(a.value, '$.", "')", ""),
};
