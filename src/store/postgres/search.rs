//! Full-text search on PostgreSQL (a generated `tsvector` over `search_tokens`, ranked by
//! `ts_rank`), detection's candidate search over `node_tokens` weighted by token statistics
//! from `pg_stats`, and the checks that read `jsonb`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sqlx::postgres::PgRow;
use sqlx::{PgConnection, PgPool, Postgres, Row};
use uuid::Uuid;

use crate::domain::retrieval::{
    INDEX_HITS_PER_CANDIDATE, RANKING_BUDGET, best_hits, query_tokens, rarity,
};
use crate::store::backend::{Id, QueryExt};
use crate::store::check::{postings_not_recounted, postings_out_of_step};
use crate::store::sql::JsonSql;
use crate::store::sql::node_columns;
use crate::store::{CandidateQuery, Hits, StoreResult, Violation};

/// `ts_rank` is a float4; as float8 its text form parses back to the same value, so a cursor's
/// rank compares equal to the row it came from.
pub const LIST_RANKED: &str = concat!(
    "select * from (select ",
    node_columns!("n", ""),
    ", ts_rank(n.search_tsv, to_tsquery('simple', $7))::float8 as score from nodes n \
      where n.search_tsv @@ to_tsquery('simple', $7) and n.state = $1 \
      and ($2::text is null or n.memory_type = $2) \
      and ($3::text is null or exists (select 1 from node_labels l where l.label = $3 and l.node_id = n.node_id)) \
      and ",
    crate::store::sql::in_scopes!("n.scope", "$8"),
    ") r \
     where ($4::float8 is null or r.score < $4 or (r.score = $4 and r.node_id > $5)) \
     order by r.score desc, r.node_id limit $6"
);

/// The `remembered` column of a candidate of the write of node `$4`.
macro_rules! remembered {
    () => {
        concat!(
            "($4::uuid is not null and ",
            crate::store::sql::verdict_exists!("$4", "::text"),
            ") as remembered"
        )
    };
}
pub(super) use remembered;

/// Which of the nodes of list `$1` have a verdict with node `$2` already (`sql::verdict_exists`).
pub const REMEMBERED_AMONG: &str = concat!(
    "select n.node_id from unnest($1::uuid[]) as n(node_id) where ",
    crate::store::sql::verdict_exists!("$2::uuid", "::text")
);

// The two statements that walk `node_tokens` ([`POSTINGS`], [`COUNTED_DOCS`]) are planned at
// every call (`persistent(false)`) while the store has no statistics, rather than prepared
// once per connection: PostgreSQL does not redo a prepared statement's cached plan as a table
// grows, and one planned while the store was nearly empty (a fresh deployment, the start of
// an import) scans the whole of `node_tokens` for every token for as long as the connection
// lives (3,000 memories imported into an empty store read a billion postings that way, eight
// times slower). Once `ANALYZE` has run, the statistics say how big the tables are and every
// later `ANALYZE` (autovacuum's, or concord's own as tables grow: `statistics.rs`) invalidates
// the cached plans, so the walk is prepared once again, which saves its planning on every
// write. A sweep passing its own counts plans the walk at every call too.

/// The postings of a write's query tokens (`$2`) in its scope (`$4`), newest first (node ids
/// are UUIDv7, so id order is creation order) and at most `$1` per token: a backward index
/// range read of `node_tokens` each, one row per token with its position in `$2` and its
/// nodes. The hits are scored in Rust (`retrieval::best_hits`), which costs less than
/// grouping and sorting the same postings in SQL.
const POSTINGS: &str = "select t.token, \
        array(select k.node_id from node_tokens k where k.scope = $4 and k.term = t.term \
                and k.node_id < coalesce($3::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff') \
              order by k.scope desc, k.term desc, k.node_id desc limit $1) as nodes \
     from unnest($2::text[]) with ordinality as t(term, token)";

/// The best hits (`$1`, best first) that are active nodes of the write's scope and type, in
/// that order, with the `remembered` column given. The lookup is a lateral subquery with
/// `offset 0` so that the planner reads each hit by primary key rather than hash-joining every
/// node of the scope.
macro_rules! candidates_of_hits {
    ($($remembered:tt)+) => {
        concat!(
            "select ",
            node_columns!("n", ""),
            ", n.embedding, ",
            $($remembered)+,
            " from unnest($1::uuid[]) with ordinality as h(node_id, rank) \
             cross join lateral (select * from nodes n where n.node_id = h.node_id offset 0) n \
             where n.scope = $2 and n.memory_type = $3 and n.state = 'active' \
               and ($4::uuid is null or n.node_id <> $4) \
             order by h.rank limit $5"
        )
    };
}
const CANDIDATES_OF_HITS: &str = candidates_of_hits!(remembered!());
/// The candidates among hits the caller ranked itself (`CandidateQuery::hits`), without the
/// `remembered` probes (the caller asks about the pairs that matter).
const CANDIDATES_OF_GIVEN_HITS: &str = candidates_of_hits!("false as remembered");

/// The text of a `to_tsquery` (bound as a parameter, never spliced into SQL): every token
/// quoted, so none can be read as an operator, and joined by `&` (all) or `|` (any).
pub fn tsquery(tokens: &[String], op: &str) -> String {
    tokens
        .iter()
        .map(|t| format!("'{}'", t.replace('\\', "\\\\").replace('\'', "''")))
        .collect::<Vec<_>>()
        .join(op)
}

/// How long PostgreSQL's token statistics are reused: they change only when `ANALYZE` runs,
/// and reading them took about 1 ms of every write.
const STATS_FOR: Duration = Duration::from_secs(60);

/// PostgreSQL's estimate of how many nodes hold each index token (`ANALYZE` keeps the
/// frequencies of the `tsvector` column's most common elements; a token not listed is rarer
/// than the least common one listed), read at most once per [`STATS_FOR`].
#[derive(Default)]
pub struct TokenStats {
    read: Mutex<Option<(Instant, Arc<Frequencies>)>>,
}

/// Documents per listed token; none at all before the first `ANALYZE`.
#[derive(Default)]
struct Frequencies {
    listed: HashMap<String, f64>,
    floor: f64,
    total: f64,
}

impl Frequencies {
    /// Estimated documents holding `token`; 1 for every token without statistics, so that
    /// all weigh the same.
    fn docs(&self, token: &str) -> i64 {
        if self.listed.is_empty() {
            return 1;
        }
        let freq = self.listed.get(token).copied().unwrap_or(self.floor / 2.0);
        ((freq * self.total).round() as i64).max(1)
    }
}

impl TokenStats {
    /// Drops the frequencies read, so the next search reads them again (after an `ANALYZE`).
    pub fn forget(&self) {
        *self.read.lock().expect("stats lock") = None;
    }

    async fn current(&self, conn: &mut PgConnection) -> StoreResult<Arc<Frequencies>> {
        let kept = self.read.lock().expect("stats lock").clone();
        if let Some((at, f)) = kept
            && at.elapsed() < STATS_FOR
        {
            return Ok(f);
        }
        let f = Arc::new(read_frequencies(conn).await?);
        *self.read.lock().expect("stats lock") = Some((Instant::now(), Arc::clone(&f)));
        Ok(f)
    }
}

async fn read_frequencies(conn: &mut PgConnection) -> StoreResult<Frequencies> {
    let row = sqlx::query(
        "select s.most_common_elems::text::text[] as elems, \
                s.most_common_elem_freqs::float8[] as freqs, c.reltuples::float8 as total \
         from pg_stats s join pg_class c on c.oid = 'nodes'::regclass \
         where s.schemaname = current_schema() and s.tablename = 'nodes' \
           and s.attname = 'search_tsv'",
    )
    .fetch_optional(&mut *conn)
    .await?;
    let Some(row) = row else {
        return Ok(Frequencies::default());
    };
    let elems: Option<Vec<String>> = row.try_get("elems")?;
    let freqs: Option<Vec<f64>> = row.try_get("freqs")?;
    let total: f64 = row.try_get("total")?;
    let (Some(elems), Some(freqs)) = (elems, freqs) else {
        return Ok(Frequencies::default());
    };
    if elems.is_empty() || total <= 0.0 {
        return Ok(Frequencies::default());
    }
    // The element frequencies are followed by their minimum, maximum and null fraction.
    let floor = freqs
        .iter()
        .take(elems.len())
        .copied()
        .fold(f64::INFINITY, f64::min);
    Ok(Frequencies {
        listed: elems.into_iter().zip(freqs).collect(),
        floor,
        total,
    })
}

pub async fn candidates_by_tokens(
    stats: &TokenStats,
    conn: &mut PgConnection,
    q: &CandidateQuery,
) -> StoreResult<Vec<PgRow>> {
    match &q.hits {
        Some(Hits::Ids(hits)) => {
            return candidates_of_hits(conn, CANDIDATES_OF_GIVEN_HITS, q, hits).await;
        }
        // Keys are rows' own keys, and PostgreSQL has none (`Backend::batch_ranking`,
        // `Backend::TOKENS_BETWEEN`): should any arrive, its index finds the same hits.
        Some(Hits::Keys(_)) => debug_assert!(false, "PostgreSQL was given rowids as hits"),
        None => {}
    }
    if q.tokens.is_empty() {
        return Ok(Vec::new());
    }
    let (counted, analysed): (Vec<(String, i64)>, bool) = match &q.docs {
        // A sweep's counts: the statistics as they stood when the memory was written.
        Some(docs) => (docs.clone(), false),
        None => {
            let frequencies = stats.current(conn).await?;
            let analysed = !frequencies.listed.is_empty();
            let counted = if !analysed {
                // No statistics yet (a store loaded since the last `ANALYZE`): count each
                // token's postings, up to the walk budget, so that the rare "0" of "service 0"
                // outweighs the words every fact shares, as it does once statistics exist.
                // Which facts a write is judged against must not depend on when autovacuum
                // last ran.
                counted_docs(conn, &q.scope, &q.tokens).await?
            } else {
                q.tokens
                    .iter()
                    .map(|t| (t.clone(), frequencies.docs(t)))
                    .collect()
            };
            (counted, analysed)
        }
    };
    let tokens = query_tokens(&counted, &q.names);
    if tokens.is_empty() {
        return Ok(Vec::new());
    }
    let terms: Vec<&str> = tokens.iter().map(|(t, _)| t.as_str()).collect();
    let rows = sqlx::query::<Postgres>(POSTINGS)
        .persistent(analysed)
        .arg(RANKING_BUDGET)
        .bind(&terms)
        .arg(q.before.map(Id))
        .arg(&q.scope)
        .all(&mut *conn)
        .await?;
    let mut walks = Vec::with_capacity(rows.len());
    for row in &rows {
        // `with ordinality` counts from 1.
        let token: i64 = row.try_get("token")?;
        let nodes: Vec<Uuid> = row.try_get("nodes")?;
        walks.push((token as usize - 1, nodes));
    }
    let weights: Vec<f64> = tokens.iter().map(|(_, docs)| rarity(*docs)).collect();
    let hits: Vec<Uuid> = best_hits(&weights, walks, q.limit * INDEX_HITS_PER_CANDIDATE);
    candidates_of_hits(conn, CANDIDATES_OF_HITS, q, &hits).await
}

/// The candidates among `hits` (best first), in that order.
async fn candidates_of_hits(
    conn: &mut PgConnection,
    sql: &'static str,
    q: &CandidateQuery,
    hits: &[Uuid],
) -> StoreResult<Vec<PgRow>> {
    if hits.is_empty() {
        return Ok(Vec::new());
    }
    sqlx::query::<Postgres>(sql)
        .bind(hits)
        .arg(&q.scope)
        .arg(&q.memory_type)
        .arg(q.exclude.map(Id))
        .arg(q.limit as i64)
        .all(conn)
        .await
}

/// Each token's postings in the write's scope (`$3`), counted up to one past the walk budget
/// (a token that common is skipped by the rarest-first choice either way): one bounded index
/// range read per token.
const COUNTED_DOCS: &str = "select t.term, \
        (select count(*) from (select 1 from node_tokens k \
                               where k.scope = $3 and k.term = t.term limit $1) c) as docs \
     from unnest($2::text[]) as t(term)";

async fn counted_docs(
    conn: &mut PgConnection,
    scope: &str,
    tokens: &[String],
) -> StoreResult<Vec<(String, i64)>> {
    let rows = sqlx::query::<Postgres>(COUNTED_DOCS)
        .persistent(false)
        .arg(RANKING_BUDGET + 1)
        .bind(tokens)
        .arg(scope)
        .all(&mut *conn)
        .await?;
    rows.iter()
        .map(|r| {
            Ok((
                r.try_get::<String, _>("term")?,
                r.try_get::<i64, _>("docs")?.max(1),
            ))
        })
        .collect()
}

/// `search_tsv` is generated from `search_tokens`; it must be null-free and non-empty
/// wherever there are tokens to index.
pub async fn check_index(pool: &PgPool) -> StoreResult<Vec<Violation>> {
    let empty: Vec<String> = sqlx::query_scalar(
        "select 'node ' || node_id || ' has search tokens but an empty search vector' \
         from nodes where search_tokens <> '' \
           and (search_tsv is null or length(search_tsv) = 0) limit 100",
    )
    .fetch_all(pool)
    .await?;
    let mut out: Vec<Violation> = empty
        .into_iter()
        .map(|detail| Violation {
            invariant: "fts_out_of_step",
            detail,
        })
        .collect();
    match sqlx::query_scalar::<_, String>(NODE_TOKENS_DRIFT)
        .fetch_all(pool)
        .await
    {
        Ok(terms) => out.extend(terms.into_iter().map(postings_out_of_step)),
        Err(e) => out.push(postings_not_recounted(e)),
    }
    Ok(out)
}

/// Terms whose postings differ from a recount over `nodes`, either way (at most 100).
const NODE_TOKENS_DRIFT: &str = "\
    with recount as (select distinct n.scope, t as term, n.node_id from nodes n, \
        unnest(string_to_array(n.search_tokens, ' ')) as t where t <> '') \
    select distinct term from (\
        (select scope, term, node_id from recount \
         except select scope, term, node_id from node_tokens) \
        union all \
        (select scope, term, node_id from node_tokens \
         except select scope, term, node_id from recount)) d \
    limit 100";

/// How `concord check` reads the JSON columns (see `store::check`).
pub const JSON: JsonSql = JsonSql {
    each: " cross join lateral jsonb_array_elements(c.actions) a",
    actions: "jsonb_array_elements(c.actions) a",
    labels: "jsonb_array_elements_text(n.labels) j",
    label: "j",
    field: ("(a->>'", "')", "::uuid"),
};
