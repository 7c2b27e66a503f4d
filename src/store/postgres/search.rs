//! Full-text search on PostgreSQL (a generated `tsvector` over `search_tokens`, ranked by
//! `ts_rank`), token statistics from `pg_stats`, and the checks that read `jsonb`.

use std::collections::HashMap;

use sqlx::postgres::PgRow;
use sqlx::{PgConnection, PgPool, Postgres, Row};

use crate::domain::retrieval::query_tokens;
use crate::store::backend::{Id, QueryExt};
use crate::store::check::JsonSql;
use crate::store::sql::node_columns;
use crate::store::{CandidateQuery, StoreResult, Violation};

/// `ts_rank` is a float4; as float8 its text form parses back to the same value, so a cursor's
/// rank compares equal to the row it came from.
pub const LIST_RANKED: &str = concat!(
    "select * from (select ",
    node_columns!("n", ""),
    ", ts_rank(n.search_tsv, to_tsquery('simple', $7))::float8 as score from nodes n \
      where n.search_tsv @@ to_tsquery('simple', $7) and n.state = $1 \
      and ($2::text is null or n.memory_type = $2) \
      and ($3::text is null or exists (select 1 from node_labels l where l.label = $3 and l.node_id = n.node_id))) r \
     where ($4::float8 is null or r.score < $4 or (r.score = $4 and r.node_id > $5)) \
     order by r.score desc, r.node_id limit $6"
);

/// Whether a verdict between the candidate `n` and node `$4` already exists.
macro_rules! remembered {
    () => {
        concat!(
            "($4::uuid is not null and (exists (select 1 from conflict_queue q \
                where (q.old_node_id = n.node_id and q.new_key = $4::text) \
                   or (q.old_node_id = $4 and q.new_key = n.node_id::text)) or ",
            crate::store::sql::verdict_edge_exists!(),
            ")) as remembered"
        )
    };
}
pub(super) use remembered;

const CANDIDATES_BY_TOKENS: &str = concat!(
    "select ",
    node_columns!("n", ""),
    ", n.embedding, ",
    remembered!(),
    " from nodes n \
     where n.search_tsv @@ to_tsquery('simple', $1) and n.scope = $2 and n.memory_type = $3 \
       and n.state = 'active' and ($4::uuid is null or n.node_id <> $4) \
     order by ts_rank(n.search_tsv, to_tsquery('simple', $1)) desc, n.node_id limit $5"
);

/// The text of a `to_tsquery` (bound as a parameter, never spliced into SQL): every token
/// quoted, so none can be read as an operator, and joined by `&` (all) or `|` (any).
pub fn tsquery(tokens: &[String], op: &str) -> String {
    tokens
        .iter()
        .map(|t| format!("'{}'", t.replace('\\', "\\\\").replace('\'', "''")))
        .collect::<Vec<_>>()
        .join(op)
}

/// The new text's rarest tokens, by PostgreSQL's own statistics of the `tsvector` column
/// (`ANALYZE` keeps the frequencies of its most common elements; a token not listed is rarer
/// than the least common one listed). Without statistics every token is used.
async fn rarest(
    conn: &mut PgConnection,
    tokens: &[String],
    names: &[String],
) -> StoreResult<Vec<String>> {
    if tokens.is_empty() {
        return Ok(Vec::new());
    }
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
        return Ok(tokens.to_vec());
    };
    let elems: Option<Vec<String>> = row.try_get("elems")?;
    let freqs: Option<Vec<f64>> = row.try_get("freqs")?;
    let total: f64 = row.try_get("total")?;
    let (Some(elems), Some(freqs)) = (elems, freqs) else {
        return Ok(tokens.to_vec());
    };
    if elems.is_empty() || total <= 0.0 {
        return Ok(tokens.to_vec());
    }
    let listed: HashMap<&str, f64> = elems
        .iter()
        .map(String::as_str)
        .zip(freqs.iter().copied())
        .collect();
    let floor = freqs
        .iter()
        .take(elems.len())
        .copied()
        .fold(f64::INFINITY, f64::min);
    let stats: Vec<(String, i64)> = tokens
        .iter()
        .map(|t| {
            let freq = listed.get(t.as_str()).copied().unwrap_or(floor / 2.0);
            (t.clone(), ((freq * total).round() as i64).max(1))
        })
        .collect();
    Ok(query_tokens(&stats, names)
        .into_iter()
        .map(|(token, _)| token)
        .collect())
}

pub async fn candidates_by_tokens(
    conn: &mut PgConnection,
    q: &CandidateQuery,
) -> StoreResult<Vec<PgRow>> {
    let tokens = rarest(conn, &q.tokens, &q.names).await?;
    if tokens.is_empty() {
        return Ok(Vec::new());
    }
    sqlx::query::<Postgres>(CANDIDATES_BY_TOKENS)
        .arg(tsquery(&tokens, " | "))
        .arg(&q.scope)
        .arg(&q.memory_type)
        .arg(q.exclude.map(Id))
        .arg(q.limit as i64)
        .all(conn)
        .await
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
    Ok(empty
        .into_iter()
        .map(|detail| Violation {
            invariant: "fts_out_of_step",
            detail,
        })
        .collect())
}

/// How `concord check` reads the JSON columns (see `store::check`).
pub const JSON: JsonSql = JsonSql {
    each: " cross join lateral jsonb_array_elements(c.actions) a",
    actions: "jsonb_array_elements(c.actions) a",
    labels: "jsonb_array_elements_text(n.labels) j",
    label: "j",
    field: ("(a->>'", "')", "::uuid"),
};
