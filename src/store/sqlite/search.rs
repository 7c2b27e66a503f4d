//! Full-text search on SQLite (an FTS5 table over `search_tokens`, kept by triggers), the
//! postings and token statistics of detection's candidate search (`node_tokens`, `token_docs`,
//! kept by triggers too), and the checks that read JSON with `json_each`.

use sqlx::sqlite::SqliteRow;
use sqlx::{Row, Sqlite, SqliteConnection, SqlitePool};

use super::functions::{self, Packed};
use crate::domain::node::{Node, embedding_from_bytes};
use crate::domain::provenance::Provenance;
use crate::domain::retrieval::{INDEX_HITS_PER_CANDIDATE, RANKING_BUDGET};
use crate::domain::time;
use crate::store::Failure;
use crate::store::backend::{Id, Q, QueryExt, Texts};
use crate::store::check::{postings_not_recounted, postings_out_of_step};
use crate::store::sql::JsonSql;
use crate::store::sql::node_columns;
use crate::store::{Candidate, CandidateQuery, Hits, StoreError, StoreResult, Violation};
use uuid::Uuid;

/// Full-text hits are materialised before the join for the same reason as candidates.
pub const LIST_RANKED: &str = concat!(
    "with hits as materialized (select rowid, bm25(nodes_fts) as score from nodes_fts \
     where nodes_fts match $7) \
     select * from (select ",
    node_columns!("n", ""),
    ", hits.score as score from hits join nodes n on n.rowid = hits.rowid \
      where n.state = $1 \
      and ($2 is null or n.memory_type = $2) \
      and ($3 is null or exists (select 1 from node_labels l where l.label = $3 and l.node_id = n.node_id)) \
      and ",
    crate::store::sql::in_scopes!("n.scope", "$8"),
    ") where ($4 is null or (score, node_id) > ($4, $5)) \
     order by score, node_id limit $6"
);

/// The `remembered` column of a candidate of the write of node `$4`.
macro_rules! remembered {
    () => {
        concat!(
            "($4 is not null and ",
            crate::store::sql::verdict_exists!("$4", ""),
            ") as remembered"
        )
    };
}
pub(super) use remembered;

/// Which of the nodes of list `$1` have a verdict with node `$2` already (`sql::verdict_exists`).
pub const REMEMBERED_AMONG: &str = concat!(
    "select n.node_id from (select value as node_id from json_each($1)) n where ",
    crate::store::sql::verdict_exists!("$2", "")
);

/// The first `$5` of the best hits (`$1`, a JSON array of rowids, best first) that are active
/// nodes of the write's scope and type, with their place among the hits (`hit`). `cross join`
/// keeps the hits as the outer loop, read in order, so each hit is one rowid lookup and the
/// scan stops at the `$5`th candidate: usually after about `$5` lookups. With an `order by`
/// SQLite would look up and sort every hit first (four per candidate wanted). SQL promises no
/// order without one; what makes the first rows the best is SQLite's nested loop with the
/// `cross join`'s left table outside, reading the hits in array order. Should a plan ever
/// read them otherwise, its rows come out of hit order (once there are a few), so they are
/// checked ([`in_hit_order`]) and [`CANDIDATES_OF_HITS_SORTED`] answers instead.
///
/// The candidates come back as one value, packed by [`functions::ROWS`]: as fifty rows, each
/// row was a message to the async side and a copy of each of its values, about a tenth of the
/// server's CPU per write; as JSON, the bodies were quoted and parsed again.
macro_rules! candidates_of_hits {
    ($hits:literal, $order:literal) => {
        candidates_of_hits!($hits, "rowid", [remembered!()], [""], $order)
    };
    ($hits:literal, $key:literal, [$($remembered:tt)+], [$($bound:tt)+], $order:literal) => {
        concat!(
            "select concord_rows(node_id, title, body, memory_type, labels, scope, source, \
             confidence, state, observed_at, created_at, updated_at, has_embedding, embedding, \
             hit, remembered, provenance) from (select ",
            node_columns!("n", ""),
            ", n.embedding, h.key as hit, ",
            $($remembered)+,
            " from json_each(",
            $hits,
            ") h cross join nodes n on n.",
            $key,
            " = h.value \
             where n.scope = $2 and n.memory_type = $3 and n.state = 'active' \
               and ($4 is null or n.node_id <> $4) ",
            $($bound)+,
            $order,
            " limit $5)"
        )
    };
}
/// [`SEARCH`]'s candidates of given hits (`$1`), to test its plan.
#[cfg(test)]
const CANDIDATES_OF_HITS: &str = candidates_of_hits!("$1", "");
const CANDIDATES_OF_HITS_SORTED: &str = candidates_of_hits!("$1", "order by h.key");
/// Only nodes with ids before `$6`, when it is given.
macro_rules! stored_before {
    () => {
        "and ($6 is null or n.node_id < $6) "
    };
}

/// The candidates among hits named by node id (`$1`, a JSON array, best first), when the
/// caller ranked them itself (`CandidateQuery::hits`); read as [`candidates_of_hits`] reads,
/// without the `remembered` probes (the caller asks about the pairs that matter); and the
/// same sorted. A sweep's hits are all stored before its memory (`$6`,
/// `CandidateQuery::before`), and so is every row read for them: a rowid a sweep read may
/// since have been deleted and taken by a new node.
const CANDIDATES_OF_NODES: [&str; 2] = [
    candidates_of_hits!("$1", "node_id", ["0 as remembered"], [stored_before!()], ""),
    candidates_of_hits!(
        "$1",
        "node_id",
        ["0 as remembered"],
        [stored_before!()],
        "order by h.key"
    ),
];
/// [`CANDIDATES_OF_NODES`] with the hits named by rowid (`Hits::Keys`): each is one lookup in
/// the table instead of one in the index of node ids and then one in the table.
const CANDIDATES_OF_KEYS: [&str; 2] = [
    candidates_of_hits!("$1", "rowid", ["0 as remembered"], [stored_before!()], ""),
    candidates_of_hits!(
        "$1",
        "rowid",
        ["0 as remembered"],
        [stored_before!()],
        "order by h.key"
    ),
];

/// A whole candidate search as one statement, its steps in Rust registered as SQL functions
/// (`functions.rs`). One statement, because each statement is a hand-off to the connection's
/// thread and back, and because each row is a message to the async side: the search took
/// three of each when the steps in Rust ran between statements.
///
/// 0. `bound`: the rowid of node `$9` when only nodes stored before it are wanted (a
///    sweep's search), else the largest rowid.
/// 1. `chosen`: the write's rarest tokens ([`functions::RAREST`]), from the statistics of its
///    distinct tokens (`$1`; or the counts `$10`, `[[term, docs], …]`, when given) and its
///    subject names (`$6`).
/// 2. `found`: their postings below the bound, newest first and at most `$7` per token (a primary-key range
///    read of `node_tokens` each, gathered by [`functions::WALK`]), and every node of the
///    unmerged buffer `recent_tokens` with its tokens (`rowid token token…`, comma-separated;
///    at most 127 nodes), scored into the best `$8` hits ([`functions::HITS`], over the
///    tokens: no token, no hits). The buffer is read once and matched in
///    Rust: a scan per token cost more than the buffer saves. The scoring is in Rust too:
///    SQLite's `group by` and `order by` over the same postings cost twice what walking them
///    did.
/// 3. The candidates among the hits ([`candidates_of_hits`], `$2` to `$5`).
///
/// One row: the hits (a JSON array of rowids, best first), and the candidates. Each step's
/// result is one value, which a `materialized` CTE computes once.
const SEARCH: &str = concat!(
    "with bound(rowid) as materialized (\
       select coalesce((select rowid from nodes where node_id = $9), 9223372036854775807)), \
     chosen(tokens) as materialized (\
       select concord_rarest(coalesce($10, \
         (select json_group_array(json_array(t.term, t.docs)) \
          from json_each($1) j cross join token_docs t on t.scope = $2 and t.term = j.value)), \
         $6)), \
     found(hits) as materialized (\
       select concord_hits(k.key, \
         (select concord_walk(node) from (select node from node_tokens \
            where scope = $2 and term = k.value ->> 0 and node < (select rowid from bound) \
            order by node desc limit $7)), \
         c.tokens, (select group_concat(node || ' ' || terms, ',') from recent_tokens \
                    where scope = $2 and node < (select rowid from bound)), $7, $8) \
       from chosen c cross join json_each(c.tokens) k) \
     select f.hits, (",
    candidates_of_hits!("f.hits", ""),
    ") from found f"
);

/// The candidates a [`candidates_of_hits`] query packed, each with its place among the hits.
fn unpack_candidates(packed: &[u8]) -> StoreResult<Vec<(i64, Candidate)>> {
    let values = functions::unpack(packed)
        .map_err(|e| StoreError::Failed(Failure::Corrupt(e.to_string())))?;
    if values.len() % CANDIDATE_COLUMNS != 0 {
        return Err(StoreError::Failed(Failure::Corrupt(
            "candidates: a row is cut short".into(),
        )));
    }
    values
        .chunks_exact(CANDIDATE_COLUMNS)
        .map(candidate)
        .collect()
}

/// The columns of one candidate, as [`candidates_of_hits`] packs them.
const CANDIDATE_COLUMNS: usize = 17;

/// One candidate from its packed columns, and its place among the hits.
fn candidate(v: &[Packed]) -> StoreResult<(i64, Candidate)> {
    let id = match v[0] {
        Packed::Text(id) => id,
        _ => {
            return Err(StoreError::Failed(Failure::Corrupt(
                "candidate: no node_id".into(),
            )));
        }
    };
    let corrupt =
        |what: &str| StoreError::Failed(Failure::Corrupt(format!("candidate {id}: bad {what}")));
    let text = |i: usize, what: &str| match v[i] {
        Packed::Text(t) => Ok(t),
        _ => Err(corrupt(what)),
    };
    let int = |i: usize, what: &str| match v[i] {
        Packed::Int(n) => Ok(n),
        _ => Err(corrupt(what)),
    };
    let ts = |i: usize, what: &str| time::parse(text(i, what)?).ok_or_else(|| corrupt(what));
    let node = Node {
        id: Uuid::parse_str(id).map_err(|_| corrupt("node_id"))?,
        title: text(1, "title")?.to_owned(),
        body: text(2, "body")?.to_owned(),
        memory_type: text(3, "memory_type")?.to_owned(),
        labels: serde_json::from_str(text(4, "labels")?).map_err(|_| corrupt("labels"))?,
        scope: text(5, "scope")?.to_owned(),
        source: match v[6] {
            Packed::Null => None,
            _ => Some(text(6, "source")?.to_owned()),
        },
        confidence: match v[7] {
            Packed::Real(c) => c,
            Packed::Int(c) => c as f64,
            _ => return Err(corrupt("confidence")),
        },
        state: text(8, "state")?.parse().map_err(|_| corrupt("state"))?,
        observed_at: ts(9, "observed_at")?,
        created_at: ts(10, "created_at")?,
        updated_at: ts(11, "updated_at")?,
        has_embedding: int(12, "has_embedding")? != 0,
        // Candidates are active memories, which valid time has not ended.
        validity: Default::default(),
        conflict_ids: Vec::new(),
        provenance: match v[16] {
            Packed::Text(p) => Provenance::from_json(p),
            _ => None,
        },
    };
    let embedding = match v[13] {
        Packed::Null => None,
        Packed::Blob(bytes) => Some(embedding_from_bytes(bytes)),
        _ => return Err(corrupt("embedding")),
    };
    let candidate = Candidate {
        node,
        embedding,
        remembered: int(15, "remembered")? != 0,
    };
    Ok((int(14, "hit")?, candidate))
}

/// Whether rows came out in the order of their hits: then they are the first candidates among
/// the hits, exactly what the sorted query returns.
fn in_hit_order(hits: &[i64]) -> bool {
    hits.windows(2).all(|w| w[0] < w[1])
}

/// The candidates of `hits` (best first), each with its place among the hits.
async fn rows_of_hits<H: serde::Serialize>(
    conn: &mut SqliteConnection,
    sql: &'static str,
    hits: &[H],
    q: &CandidateQuery,
) -> StoreResult<Vec<(i64, Candidate)>> {
    let query = sqlx::query::<Sqlite>(sql)
        .arg(serde_json::to_string(hits).expect("hits serialise"))
        .arg(&q.scope)
        .arg(&q.memory_type)
        .arg(q.exclude.map(Id))
        .arg(q.limit as i64)
        // `$6` of the statements that bound their reads to a sweep's memory; the others have
        // no `$6`, and SQLite binds only the parameters a statement has.
        .arg(q.before.map(Id));
    let row = only_row(query, conn, "candidates").await?;
    unpack_candidates(row.try_get(0)?)
}

/// The one row of a statement that returns exactly one (an aggregate without `group by`).
async fn only_row(
    query: Q<Sqlite>,
    conn: &mut SqliteConnection,
    what: &str,
) -> StoreResult<SqliteRow> {
    query
        .optional(conn)
        .await?
        .ok_or_else(|| StoreError::Failed(Failure::Corrupt(format!("no row of {what}"))))
}

/// The JSON value in column `i` of `row`.
fn json_column<'r, T: serde::Deserialize<'r>>(
    row: &'r SqliteRow,
    i: usize,
    what: &str,
) -> StoreResult<T> {
    serde_json::from_str(row.try_get(i)?)
        .map_err(|e| StoreError::Failed(Failure::Corrupt(format!("{what}: {e}"))))
}

/// Postings walked per query token: the number the rarest-token policy aims for in all
/// (`domain::retrieval`), which one token exceeds only when even a write's rarest words are
/// common.
const POSTINGS_PER_TOKEN: i64 = RANKING_BUDGET;

/// An FTS5 query matching rows that contain every token (`all`) or any, each quoted so that
/// no token can be read as an operator.
pub fn fts_query(tokens: &[String], all: bool) -> String {
    tokens
        .iter()
        .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(if all { " AND " } else { " OR " })
}

pub async fn candidates_by_tokens(
    conn: &mut SqliteConnection,
    q: &CandidateQuery,
) -> StoreResult<Vec<Candidate>> {
    match &q.hits {
        Some(Hits::Ids(ids)) => {
            let ids: Vec<String> = ids.iter().map(Uuid::to_string).collect();
            return candidates_among(conn, q, &ids, CANDIDATES_OF_NODES).await;
        }
        Some(Hits::Keys(keys)) => return candidates_among(conn, q, keys, CANDIDATES_OF_KEYS).await,
        None => {}
    }
    if q.tokens.is_empty() {
        return Ok(Vec::new());
    }
    let (hits, rows) = match search(conn, q, POSTINGS_PER_TOKEN).await {
        Err(e) if functions_missing(&e) => {
            super::register_functions(conn).await?;
            search(conn, q, POSTINGS_PER_TOKEN).await?
        }
        searched => searched?,
    };
    let rows = in_hit_order_or_sorted(conn, rows, &hits, q, CANDIDATES_OF_HITS_SORTED).await?;
    Ok(rows.into_iter().map(|(_, c)| c).collect())
}

/// The candidates among `hits` (best first, node ids or rowids as `reads` reads them: one of
/// the pairs in [`CANDIDATES_OF_NODES`] and [`CANDIDATES_OF_KEYS`]), in that order.
async fn candidates_among<H: serde::Serialize>(
    conn: &mut SqliteConnection,
    q: &CandidateQuery,
    hits: &[H],
    [reads, sorted]: [&'static str; 2],
) -> StoreResult<Vec<Candidate>> {
    if hits.is_empty() {
        return Ok(Vec::new());
    }
    let rows = match rows_of_hits(conn, reads, hits, q).await {
        Err(e) if functions_missing(&e) => {
            super::register_functions(conn).await?;
            rows_of_hits(conn, reads, hits, q).await?
        }
        read => read?,
    };
    let rows = in_hit_order_or_sorted(conn, rows, hits, q, sorted).await?;
    Ok(rows.into_iter().map(|(_, c)| c).collect())
}

/// The hits of a candidate search ([`SEARCH`], at most `per_token` postings per token), and
/// the candidates among them with their places among the hits.
async fn search(
    conn: &mut SqliteConnection,
    q: &CandidateQuery,
    per_token: i64,
) -> StoreResult<(Vec<i64>, Vec<(i64, Candidate)>)> {
    // Distinct, so that the join names each token once; a join, because `term in (select …)`
    // builds a temporary index on every call.
    let mut distinct = q.tokens.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let query = sqlx::query::<Sqlite>(SEARCH)
        .arg(Texts(&distinct))
        .arg(&q.scope)
        .arg(&q.memory_type)
        .arg(q.exclude.map(Id))
        .arg(q.limit as i64)
        .arg(Texts(&q.names))
        .arg(per_token)
        .arg((q.limit * INDEX_HITS_PER_CANDIDATE) as i64)
        .arg(q.before.map(Id))
        .arg(
            q.docs
                .as_ref()
                .map(|d| serde_json::to_string(d).expect("pairs serialise")),
        );
    let row = only_row(query, conn, "candidate search").await?;
    let hits: Vec<i64> = json_column(&row, 0, "hits")?;
    Ok((hits, unpack_candidates(row.try_get(1)?)?))
}

/// Whether `e` says that a connection lacks the search's functions: one that a pool this
/// store did not configure opened (a test's). They are registered on first use.
fn functions_missing(e: &StoreError) -> bool {
    matches!(e, StoreError::Failed(Failure::Backend(sqlx::Error::Database(d)))
        if d.message().starts_with("no such function: concord_"))
}

/// Candidate `rows` when they came out in the order of their `hits`, else those of the
/// sorting query.
async fn in_hit_order_or_sorted<H: serde::Serialize>(
    conn: &mut SqliteConnection,
    rows: Vec<(i64, Candidate)>,
    hits: &[H],
    q: &CandidateQuery,
    sorted: &'static str,
) -> StoreResult<Vec<(i64, Candidate)>> {
    let order: Vec<i64> = rows.iter().map(|(hit, _)| *hit).collect();
    if in_hit_order(&order) {
        return Ok(rows);
    }
    tracing::warn!("candidate rows came out of hit order; sorting them instead");
    rows_of_hits(conn, sorted, hits, q).await
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
    match sqlx::query_scalar::<_, String>(NODE_TOKENS_DRIFT)
        .fetch_all(pool)
        .await
    {
        Ok(terms) => out.extend(terms.into_iter().map(postings_out_of_step)),
        Err(e) => out.push(postings_not_recounted(e)),
    }
    out
}

/// Terms whose postings (merged or buffered) differ from a recount over `nodes`, either way
/// (at most 100). A node whose postings are in both tables counts as out of step too.
const NODE_TOKENS_DRIFT: &str = "\
    with recount as (select distinct nodes.scope, value as term, nodes.rowid as node from nodes, \
        json_each('[\"' || replace(nodes.search_tokens, ' ', '\",\"') || '\"]') where value <> ''), \
    buffered as (select r.scope, value as term, r.node from recent_tokens r, \
        json_each('[\"' || replace(r.terms, ' ', '\",\"') || '\"]') where value <> ''), \
    postings as (select scope, term, node from node_tokens \
                 union all select scope, term, node from buffered) \
    select distinct term from (\
        select term from (select scope, term, node from recount \
                          except select scope, term, node from postings) \
        union all \
        select term from (select scope, term, node from postings \
                          except select scope, term, node from recount) \
        union all \
        select b.term from buffered b \
        join node_tokens t on t.scope = b.scope and t.term = b.term and t.node = b.node) \
    limit 100";

/// Terms whose kept document frequency differs from a recount over `nodes` (at most 100).
const TOKEN_DOCS_DRIFT: &str = "\
    with recount as (select nodes.scope, value as term, count(*) as docs from nodes, \
        json_each('[\"' || replace(nodes.search_tokens, ' ', '\",\"') || '\"]') \
        where value <> '' group by nodes.scope, value) \
    select coalesce(r.term, t.term) from recount r \
    full join token_docs t on t.scope = r.scope and t.term = r.term \
    where r.docs is not t.docs limit 100";

/// How `concord check` reads the JSON columns (see `store::check`).
pub const JSON: JsonSql = JsonSql {
    each: ", json_each(c.actions) a",
    actions: "json_each(c.actions) a",
    labels: "json_each(n.labels) j",
    label: "j.value",
    field: ("json_extract(a.value, '$.", "')", ""),
};

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    #[test]
    fn hits_in_order_are_strictly_increasing() {
        assert!(in_hit_order(&[]));
        assert!(in_hit_order(&[4]));
        assert!(in_hit_order(&[0, 2, 7]));
        assert!(!in_hit_order(&[0, 7, 2]));
        assert!(!in_hit_order(&[3, 3]));
    }

    /// Inserts a node whose index tokens are `tokens`, returning its rowid.
    pub(in crate::store::sqlite) async fn node_with_tokens(pool: &SqlitePool, tokens: &str) -> i64 {
        sqlx::query_scalar(
            "insert into nodes (node_id, title, search_tokens, observed_at, created_at, \
             updated_at) values ($1, $2, $2, $3, $3, $3) returning rowid",
        )
        .bind(uuid::Uuid::now_v7().to_string())
        .bind(tokens)
        .bind("2026-03-01T12:00:00.000Z")
        .fetch_one(pool)
        .await
        .unwrap()
    }

    /// A search by one token whose postings are walked at most 20 deep.
    pub(in crate::store::sqlite) fn by_token(term: &str) -> CandidateQuery {
        CandidateQuery {
            exclude: None,
            scope: "default".into(),
            memory_type: "fact".into(),
            tokens: vec![term.to_owned()],
            names: Vec::new(),
            labels: Vec::new(),
            with_embedding: false,
            limit: 20,
            newest: 0,
            before: None,
            docs: None,
            hits: None,
        }
    }

    /// What walking one table of every node's postings would read, for each of a few terms,
    /// must be what the search reads from the merged and the buffered postings (the hits of
    /// a search by that token alone, all equally rare, are its postings newest first); and
    /// the check must find them in step.
    async fn assert_walks_match(pool: &SqlitePool, label: &str) {
        let mut conn = pool.acquire().await.unwrap();
        super::super::register_functions(&mut conn).await.unwrap();
        for term in ["common", "third", "t7", "t70", "t149", "absent"] {
            let (hits, rows) = search(&mut conn, &by_token(term), 20).await.unwrap();
            let newest: Vec<i64> = sqlx::query_scalar(
                "select rowid from nodes where instr(' ' || search_tokens || ' ', \
                 ' ' || $1 || ' ') > 0 order by rowid desc limit 20",
            )
            .bind(term)
            .fetch_all(pool)
            .await
            .unwrap();
            assert_eq!(hits, newest, "{label}: {term}");
            let places: Vec<i64> = rows.iter().map(|(hit, _)| *hit).collect();
            assert_eq!(
                places,
                (0..hits.len() as i64).collect::<Vec<_>>(),
                "{label}: {term}"
            );
        }
        let drift: Vec<String> = sqlx::query_scalar(NODE_TOKENS_DRIFT)
            .fetch_all(pool)
            .await
            .unwrap();
        assert!(drift.is_empty(), "{label}: {drift:?}");
    }

    async fn buffered(pool: &SqlitePool) -> i64 {
        sqlx::query_scalar("select count(*) from recent_tokens")
            .fetch_one(pool)
            .await
            .unwrap()
    }

    #[sqlx::test(migrations = "migrations/sqlite")]
    async fn walks_read_merged_and_buffered_postings_alike(pool: SqlitePool) {
        let mut rowids = Vec::new();
        for i in 0..150 {
            let mut tokens = format!("common t{i}");
            if i % 3 == 0 {
                tokens.push_str(" third");
            }
            rowids.push(node_with_tokens(&pool, &tokens).await);
            if [0, 10, 126, 127, 128, 149].contains(&i) {
                assert_walks_match(&pool, &format!("{} nodes", i + 1)).await;
            }
        }
        // Merged 128 at a time (migration 0008): one merge so far.
        assert_eq!(buffered(&pool).await, 150 - 128);
        let (merged, unmerged) = (rowids[70], rowids[140]);
        for (rowid, tokens) in [(merged, "t7 third"), (unmerged, "t7 t70")] {
            sqlx::query("update nodes set search_tokens = $1 where rowid = $2")
                .bind(tokens)
                .bind(rowid)
                .execute(&pool)
                .await
                .unwrap();
        }
        assert_eq!(buffered(&pool).await, 150 - 128 - 1);
        assert_walks_match(&pool, "after updates").await;
        for rowid in [rowids[7], rowids[149]] {
            sqlx::query("delete from nodes where rowid = $1")
                .bind(rowid)
                .execute(&pool)
                .await
                .unwrap();
        }
        assert_eq!(buffered(&pool).await, 150 - 128 - 2);
        assert_walks_match(&pool, "after deletes").await;
        // A buffered node's postings dropped behind the triggers' back are seen as drift.
        sqlx::query("delete from recent_tokens where node = $1")
            .bind(rowids[148])
            .execute(&pool)
            .await
            .unwrap();
        let drift: Vec<String> = sqlx::query_scalar(NODE_TOKENS_DRIFT)
            .fetch_all(&pool)
            .await
            .unwrap();
        assert_eq!(drift.len(), 2, "{drift:?}");
    }

    /// A candidate read from the packed rows is the node as its own row reads it: awkward
    /// confidences (17 significant digits), labels, no source and a source, an embedding or
    /// none, a verdict remembered or not.
    #[sqlx::test(migrations = "migrations/sqlite")]
    async fn candidates_read_from_packed_rows_are_the_nodes_as_stored(pool: SqlitePool) {
        let confidences: [f64; 7] = [
            0.1 + 0.2,
            1.0 / 3.0,
            0.8,
            1e-300,
            0.123_456_789_012_345_67,
            1.0,
            0.0,
        ];
        let mut rowids = Vec::new();
        let mut ids = Vec::new();
        for (i, confidence) in confidences.iter().enumerate() {
            let id = uuid::Uuid::now_v7();
            let embedding: Option<Vec<u8>> = (i % 2 == 0).then(|| {
                [0.5f32, -1.25, f32::MIN_POSITIVE, i as f32]
                    .iter()
                    .flat_map(|f| f.to_le_bytes())
                    .collect()
            });
            let rowid: i64 = sqlx::query_scalar(
                "insert into nodes (node_id, title, body, labels, source, confidence, \
                 observed_at, created_at, updated_at, embedding, embedding_dim) \
                 values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) returning rowid",
            )
            .bind(id.to_string())
            .bind(format!("title \"{i}\" \u{e9}"))
            .bind(format!("body {i}\nline two\t\\ {{}} []"))
            .bind(format!(r#"["a{i}", "b \"quoted\""]"#))
            .bind((i % 3 != 0).then(|| format!("source {i}")))
            .bind(confidence)
            .bind("2025-12-31T23:59:59.123Z")
            .bind("2026-01-02T03:04:05.678Z")
            .bind("2026-01-02T03:04:05.679Z")
            .bind(embedding.as_deref())
            .bind(embedding.as_ref().map(|_| 4i64))
            .fetch_one(&pool)
            .await
            .unwrap();
            rowids.push(rowid);
            ids.push(id);
        }
        // A verdict links the first node and the probe ($4), a node among no hits.
        let probe = uuid::Uuid::now_v7();
        sqlx::query(
            "insert into nodes (node_id, title, observed_at, created_at, updated_at) \
             values ($1, 'probe', 't', 't', 't')",
        )
        .bind(probe.to_string())
        .execute(&pool)
        .await
        .unwrap();
        sqlx::query(
            "insert into edges (edge_id, source_id, target_id, kind, neural_weight, strength, \
             confidence, valid_from, created_at, updated_at) \
             values ($1, $2, $3, 'supersedes', 1, 1, 1, 't', 't', 't')",
        )
        .bind(uuid::Uuid::now_v7().to_string())
        .bind(ids[0].to_string())
        .bind(probe.to_string())
        .execute(&pool)
        .await
        .unwrap();
        let q = CandidateQuery {
            exclude: Some(probe),
            scope: "default".into(),
            memory_type: "fact".into(),
            tokens: Vec::new(),
            names: Vec::new(),
            labels: Vec::new(),
            with_embedding: true,
            limit: 50,
            newest: 0,
            before: None,
            docs: None,
            hits: None,
        };
        let mut conn = pool.acquire().await.unwrap();
        super::super::register_functions(&mut conn).await.unwrap();
        let read = rows_of_hits(&mut conn, CANDIDATES_OF_HITS, &rowids, &q)
            .await
            .unwrap();
        assert_eq!(read.len(), confidences.len());
        for (i, (hit, c)) in read.iter().enumerate() {
            assert_eq!(*hit, i as i64);
            let row = sqlx::query(concat!(
                "select ",
                node_columns!("n", ""),
                ", n.embedding, ",
                remembered!(),
                " from nodes n where n.rowid = $1 and $2 is null and $3 is null",
            ))
            .bind(rowids[i])
            .bind(None::<String>)
            .bind(None::<String>)
            .bind(probe.to_string())
            .fetch_one(&pool)
            .await
            .unwrap();
            let stored = crate::store::rows::candidate::<Sqlite>(&row).unwrap();
            assert_eq!(c.node, stored.node, "node {i}");
            assert_eq!(
                c.node.confidence.to_bits(),
                confidences[i].to_bits(),
                "confidence {i}"
            );
            assert_eq!(c.embedding, stored.embedding, "embedding {i}");
            assert_eq!(c.embedding.is_some(), i % 2 == 0);
            assert_eq!(c.remembered, stored.remembered, "remembered {i}");
        }
        let remembered: Vec<bool> = read.iter().map(|(_, c)| c.remembered).collect();
        assert_eq!(remembered, [true, false, false, false, false, false, false]);
    }

    /// Nodes `0..20` in two scopes and three states, each with its rowid.
    async fn mixed_nodes(pool: &SqlitePool) -> Vec<i64> {
        let mut rowids = Vec::new();
        for i in 0..20 {
            let scope = if i % 3 == 0 { "other" } else { "default" };
            let state = if i % 5 == 0 { "archived" } else { "active" };
            let id = sqlx::query(
                "insert into nodes (node_id, title, scope, state, observed_at, created_at, \
                 updated_at) values ($1, $2, $3, $4, $5, $5, $5) returning rowid",
            )
            .bind(uuid::Uuid::now_v7().to_string())
            .bind(format!("node {i}"))
            .bind(scope)
            .bind(state)
            .bind("2026-03-01T12:00:00.000Z")
            .fetch_one(pool)
            .await
            .unwrap();
            rowids.push(id.get::<i64, _>(0));
        }
        rowids
    }

    /// A search of the default scope's facts among `hits` (or among the hits a statement is
    /// given), for the first `limit`, bounded to nodes stored `before` one.
    fn among_hits(limit: usize, before: Option<uuid::Uuid>, hits: Option<Hits>) -> CandidateQuery {
        CandidateQuery {
            exclude: None,
            scope: "default".into(),
            memory_type: "fact".into(),
            tokens: Vec::new(),
            names: Vec::new(),
            labels: Vec::new(),
            with_embedding: false,
            limit,
            newest: 0,
            before,
            docs: None,
            hits,
        }
    }

    #[sqlx::test(migrations = "migrations/sqlite")]
    async fn the_first_candidates_among_the_hits_are_those_the_sorting_query_returns(
        pool: SqlitePool,
    ) {
        let rowids = mixed_nodes(&pool).await;
        let mut conn = pool.acquire().await.unwrap();
        super::super::register_functions(&mut conn).await.unwrap();
        // Best first in an order unlike the rowids', with a hit that names no node.
        let mut hits: Vec<i64> = rowids.iter().rev().step_by(2).copied().collect();
        hits.extend(rowids.iter().step_by(2));
        hits.insert(3, 10_000);
        for limit in [1, 3, 5, 8, 50] {
            let q = among_hits(limit, None, None);
            let titles = |rows: Vec<(i64, Candidate)>| -> Vec<(String, i64)> {
                rows.into_iter()
                    .map(|(hit, c)| (c.node.title, hit))
                    .collect()
            };
            let fast = rows_of_hits(&mut conn, CANDIDATES_OF_HITS, &hits, &q)
                .await
                .unwrap();
            let sorted = rows_of_hits(&mut conn, CANDIDATES_OF_HITS_SORTED, &hits, &q)
                .await
                .unwrap();
            let (fast, sorted) = (titles(fast), titles(sorted));
            assert_eq!(fast, sorted, "limit {limit}");
            assert_eq!(fast.len(), limit.min(11), "limit {limit}");
            let order: Vec<i64> = fast.iter().map(|(_, h)| *h).collect();
            assert!(in_hit_order(&order));
            // A plan that does not read the hits in order returns rows out of hit order once
            // it returns a few (in rowid order, here from the fourth): those are not trusted,
            // and the sorting query answers instead.
            if limit >= 4 {
                let other_plan = candidates_of_hits!("$1", "order by n.rowid");
                let rows = rows_of_hits(&mut conn, other_plan, &hits, &q)
                    .await
                    .unwrap();
                let chosen =
                    in_hit_order_or_sorted(&mut conn, rows, &hits, &q, CANDIDATES_OF_HITS_SORTED)
                        .await
                        .unwrap();
                let chosen: Vec<String> = chosen.into_iter().map(|(_, c)| c.node.title).collect();
                let sorted: Vec<String> = sorted.iter().map(|(t, _)| t.clone()).collect();
                assert_eq!(chosen, sorted, "limit {limit}");
            }
            // The same hits named by node id (as a sweep ranks them) or by rowid (as a batch's
            // kept postings rank them) give the same candidates, sorted or not.
            let mut ids = Vec::new();
            for hit in &hits {
                let id: Option<String> =
                    sqlx::query_scalar("select node_id from nodes where rowid = $1")
                        .bind(hit)
                        .fetch_optional(&mut *conn)
                        .await
                        .unwrap();
                ids.push(id.map_or_else(uuid::Uuid::now_v7, |id| id.parse().unwrap()));
            }
            let sorted_titles: Vec<String> = sorted.iter().map(|(t, _)| t.clone()).collect();
            for named in [Hits::Ids(ids.clone()), Hits::Keys(hits.clone())] {
                let q = CandidateQuery {
                    hits: Some(named.clone()),
                    ..q.clone()
                };
                let found = candidates_by_tokens(&mut conn, &q).await.unwrap();
                let found: Vec<String> = found.into_iter().map(|c| c.node.title).collect();
                assert_eq!(found, sorted_titles, "limit {limit}, {named:?}");
            }
            let ids: Vec<String> = ids.iter().map(uuid::Uuid::to_string).collect();
            let [_, ids_sorted] = CANDIDATES_OF_NODES;
            let [_, keys_sorted] = CANDIDATES_OF_KEYS;
            let by_ids = rows_of_hits(&mut conn, ids_sorted, &ids, &q).await.unwrap();
            let by_keys = rows_of_hits(&mut conn, keys_sorted, &hits, &q)
                .await
                .unwrap();
            assert_eq!(titles(by_ids), fast, "limit {limit}, sorted, by id");
            assert_eq!(titles(by_keys), fast, "limit {limit}, sorted, by rowid");
        }
    }

    #[sqlx::test(migrations = "migrations/sqlite")]
    async fn a_sweeps_hits_read_only_nodes_stored_before_its_memory(pool: SqlitePool) {
        let rowids = mixed_nodes(&pool).await;
        let mut conn = pool.acquire().await.unwrap();
        super::super::register_functions(&mut conn).await.unwrap();
        let id_of = |rowid: i64| {
            sqlx::query_scalar::<_, String>("select node_id from nodes where rowid = $1")
                .bind(rowid)
                .fetch_one(&pool)
        };
        // The newest node's row is deleted and its rowid taken by a node written after the
        // memory a sweep compares (the one with the fourth rowid): the sweep ranked the old row.
        let newest = *rowids.last().unwrap();
        let memory: uuid::Uuid = id_of(rowids[3]).await.unwrap().parse().unwrap();
        sqlx::query("delete from nodes where rowid = $1")
            .bind(newest)
            .execute(&pool)
            .await
            .unwrap();
        let taken: i64 = sqlx::query_scalar(
            "insert into nodes (node_id, title, observed_at, created_at, updated_at) \
             values ($1, 'written since', $2, $2, $2) returning rowid",
        )
        .bind(uuid::Uuid::now_v7().to_string())
        .bind("2026-03-02T12:00:00.000Z")
        .fetch_one(&pool)
        .await
        .unwrap();
        assert_eq!(taken, newest, "SQLite gives the largest rowid again");
        let earlier = rowids[1];
        let q = |before| among_hits(10, before, Some(Hits::Keys(vec![taken, earlier])));
        let titles = |found: Vec<Candidate>| -> Vec<String> {
            found.into_iter().map(|c| c.node.title).collect()
        };
        let swept = candidates_by_tokens(&mut conn, &q(Some(memory)))
            .await
            .unwrap();
        assert_eq!(titles(swept), ["node 1"]);
        // A batch's keys name nodes of its own transaction, with no bound.
        let written = candidates_by_tokens(&mut conn, &q(None)).await.unwrap();
        assert_eq!(titles(written), ["written since", "node 1"]);
    }
}
