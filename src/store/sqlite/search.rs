//! Full-text search on SQLite (an FTS5 table over `search_tokens`, kept by triggers), its token
//! statistics (`token_docs`, kept by triggers too), and the checks that read JSON with `json_each`.

use sqlx::{AssertSqlSafe, Row, Sqlite, SqliteConnection, SqlitePool};

use crate::domain::retrieval::{RANKING_BUDGET, query_tokens, rarity};
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

/// The candidates of a write: each query token's newest postings are walked (FTS5 reads
/// them in rowid order, `$1` at most per token), each hit scores the weights of the tokens it
/// holds, and only the best `$6` hits are joined to `nodes` and filtered by scope, type and
/// state. The hits are materialised first: left to itself, SQLite's planner (3.51) scans
/// `nodes` by scope and runs the full-text query once per row, which took seconds at 10k
/// nodes. Summing weights costs a third of what `bm25` does per matching row (`bm25` reads
/// every query phrase's instances of every row), and the walks are bounded, so the search
/// costs the same at 10k nodes as at 100k. `$7`, `$8`, … are the tokens' FTS5 queries and
/// weights, in pairs.
fn candidates_by_tokens_sql(tokens: usize) -> String {
    let walks: Vec<String> = (0..tokens)
        .map(|i| {
            format!(
                "select rowid, ${w} as weight from (select rowid from nodes_fts \
                 where nodes_fts match ${t} order by rowid desc limit $1)",
                t = 7 + 2 * i,
                w = 8 + 2 * i
            )
        })
        .collect();
    format!(
        "with hits as materialized (select rowid, sum(weight) as score from ({}) \
            group by rowid order by score desc, rowid desc limit $6) \
         select {}, n.embedding, {} from hits join nodes n on n.rowid = hits.rowid \
         where n.scope = $2 and n.memory_type = $3 and n.state = 'active' \
           and ($4 is null or n.node_id <> $4) \
         order by hits.score desc, hits.rowid desc limit $5",
        walks.join(" union all "),
        node_columns!("n", ""),
        remembered!(),
    )
}

/// Postings walked per query token: the number the rarest-token policy aims for in all
/// (`domain::retrieval`), which one token exceeds only when even a write's rarest words are
/// common.
const POSTINGS_PER_TOKEN: i64 = RANKING_BUDGET;

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

/// The new text's rarest tokens with their document frequencies.
async fn rarest(
    conn: &mut SqliteConnection,
    tokens: &[String],
    names: &[String],
) -> StoreResult<Vec<(String, i64)>> {
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
    // Only the number of walks varies; every token and weight is bound.
    let sql = AssertSqlSafe(candidates_by_tokens_sql(tokens.len()));
    let mut query = sqlx::query::<Sqlite>(sql)
        .arg(POSTINGS_PER_TOKEN)
        .arg(&q.scope)
        .arg(&q.memory_type)
        .arg(q.exclude.map(Id))
        .arg(q.limit as i64)
        .arg((q.limit * INDEX_HITS_PER_CANDIDATE) as i64);
    for (token, docs) in &tokens {
        query = query
            .arg(fts_query(std::slice::from_ref(token), false))
            .arg(rarity(*docs));
    }
    query.all(conn).await
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
