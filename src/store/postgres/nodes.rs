//! Nodes on PostgreSQL: writes (with the conflicts detection found), reads that carry pending
//! conflict ids, tsvector listing ranked by `ts_rank`, and the indexed candidate search.

use std::collections::HashMap;

use sqlx::types::Json;
use sqlx::{PgConnection, PgPool, Row};
use uuid::Uuid;

use super::rows::{self, node_columns};
use super::{PgStore, conflicts};
use crate::domain::FieldError;
use crate::domain::conflict::Conflict;
use crate::domain::contradiction::index_tokens;
use crate::domain::cursor::{Cursor, Page};
use crate::domain::node::{self as dn, NewNode, Node, NodePatch};
use crate::domain::retrieval::rarest_tokens;
use crate::store::*;

const SELECT_ONE: &str = concat!(
    "select ",
    node_columns!("n", ""),
    " from nodes n where n.node_id = $1"
);

/// The same row, locked: an update reads and writes it without a concurrent writer between.
const SELECT_ONE_LOCKED: &str = concat!(
    "select ",
    node_columns!("n", ""),
    " from nodes n where n.node_id = $1 for update"
);

pub async fn create(
    store: &PgStore,
    node: NewNode,
    found: Vec<DetectedConflict>,
) -> StoreResult<(Node, Vec<Conflict>)> {
    let tokens = index_tokens(&node.title, &node.body).join(" ");
    let embedding = node.embedding.as_deref().map(dn::embedding_to_bytes);
    let mut tx = store.begin().await?;
    if let Some(e) = &node.embedding {
        check_dimension(&mut tx, e.len()).await?;
    }
    insert(&mut tx, &node, &tokens, embedding.as_deref()).await?;
    let mut queued = Vec::with_capacity(found.len());
    for hit in found {
        if let Some(c) = conflicts::insert_detected(&mut tx, &hit).await? {
            queued.push(c);
        }
    }
    tx.commit().await?;
    let mut created = node.to_node();
    created.conflict_ids = queued.iter().map(|c| c.id).collect();
    Ok((created, queued))
}

/// Inserts a node and its label rows; used by writes and by resolutions that create a node.
pub async fn insert(
    conn: &mut PgConnection,
    node: &NewNode,
    tokens: &str,
    embedding: Option<&[u8]>,
) -> StoreResult<()> {
    sqlx::query(
        "insert into nodes (node_id, title, body, memory_type, labels, scope, source, confidence, \
         state, observed_at, created_at, updated_at, embedding, embedding_dim, search_tokens) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $12, $13, $14)",
    )
    .bind(node.id)
    .bind(&node.title)
    .bind(&node.body)
    .bind(&node.memory_type)
    .bind(Json(&node.labels))
    .bind(&node.scope)
    .bind(&node.source)
    .bind(node.confidence)
    .bind(node.state.as_str())
    .bind(node.observed_at)
    .bind(node.created_at)
    .bind(embedding)
    .bind(node.embedding.as_ref().map(|e| e.len() as i32))
    .bind(tokens)
    .execute(&mut *conn)
    .await?;
    write_labels(conn, node.id, &node.labels).await
}

pub async fn write_labels(conn: &mut PgConnection, id: Uuid, labels: &[String]) -> StoreResult<()> {
    sqlx::query("delete from node_labels where node_id = $1")
        .bind(id)
        .execute(&mut *conn)
        .await?;
    sqlx::query("insert into node_labels (label, node_id) select unnest($1::text[]), $2")
        .bind(labels)
        .bind(id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Two first embeddings of different sizes must not both pass: the advisory lock makes the
/// check and the insert atomic among writers of embeddings, as SQLite's write lock does.
async fn check_dimension(conn: &mut PgConnection, dim: usize) -> StoreResult<()> {
    sqlx::query("select pg_advisory_xact_lock(hashtext('concord.embedding_dim'))")
        .execute(&mut *conn)
        .await?;
    let stored: Option<i32> = sqlx::query_scalar(
        "select embedding_dim from nodes where embedding_dim is not null limit 1",
    )
    .fetch_optional(&mut *conn)
    .await?;
    match stored {
        Some(d) if d as usize != dim => Err(StoreError::Invalid(vec![FieldError::new(
            "/embedding",
            format!("has {dim} dimensions; every embedding in this store has {d}"),
        )])),
        _ => Ok(()),
    }
}

pub async fn get(pool: &PgPool, id: Uuid) -> StoreResult<Node> {
    let mut conn = pool.acquire().await?;
    let node = fetch(&mut conn, id).await?;
    let mut nodes = vec![node];
    attach_conflict_ids(&mut conn, &mut nodes).await?;
    Ok(nodes.remove(0))
}

/// A node without its pending conflict ids (used inside transactions).
pub async fn fetch(conn: &mut PgConnection, id: Uuid) -> StoreResult<Node> {
    fetch_with(conn, SELECT_ONE, id).await
}

async fn fetch_with(conn: &mut PgConnection, sql: &'static str, id: Uuid) -> StoreResult<Node> {
    let row = sqlx::query(sql)
        .bind(id)
        .fetch_optional(&mut *conn)
        .await?
        .ok_or(StoreError::NotFound)?;
    rows::node(&row, "")?.ok_or(StoreError::NotFound)
}

pub async fn get_with_embedding(pool: &PgPool, id: Uuid) -> StoreResult<(Node, Option<Vec<f32>>)> {
    let node = get(pool, id).await?;
    let bytes: Option<Vec<u8>> =
        sqlx::query_scalar("select embedding from nodes where node_id = $1")
            .bind(id)
            .fetch_optional(pool)
            .await?
            .ok_or(StoreError::NotFound)?;
    Ok((node, bytes.as_deref().map(dn::embedding_from_bytes)))
}

/// Fills `conflict_ids` for a page of nodes with one query.
pub async fn attach_conflict_ids(conn: &mut PgConnection, nodes: &mut [Node]) -> StoreResult<()> {
    if nodes.is_empty() {
        return Ok(());
    }
    let ids: Vec<Uuid> = nodes.iter().map(|n| n.id).collect();
    let rows = sqlx::query(
        "select conflict_id, old_node_id, new_node_id from conflict_queue \
         where status = 'pending' and (old_node_id = any($1) or new_node_id = any($1)) \
         order by created_at, conflict_id",
    )
    .bind(&ids)
    .fetch_all(&mut *conn)
    .await?;
    let mut by_node: HashMap<Uuid, Vec<Uuid>> = HashMap::new();
    for row in rows {
        let cid: Uuid = row.try_get("conflict_id")?;
        for col in ["old_node_id", "new_node_id"] {
            if let Some(n) = row.try_get::<Option<Uuid>, _>(col)? {
                by_node.entry(n).or_default().push(cid);
            }
        }
    }
    for node in nodes {
        if let Some(ids) = by_node.remove(&node.id) {
            node.conflict_ids = ids;
        }
    }
    Ok(())
}

pub async fn update(store: &PgStore, id: Uuid, patch: NodePatch) -> StoreResult<Node> {
    let mut tx = store.begin().await?;
    let mut node = fetch_with(&mut tx, SELECT_ONE_LOCKED, id).await?;
    patch.apply(&mut node, crate::domain::time::now());
    let tokens = index_tokens(&node.title, &node.body).join(" ");
    sqlx::query(
        "update nodes set title = $2, body = $3, labels = $4, confidence = $5, state = $6, \
         source = $7, scope = $8, observed_at = $9, updated_at = $10, search_tokens = $11 \
         where node_id = $1",
    )
    .bind(id)
    .bind(&node.title)
    .bind(&node.body)
    .bind(Json(&node.labels))
    .bind(node.confidence)
    .bind(node.state.as_str())
    .bind(&node.source)
    .bind(&node.scope)
    .bind(node.observed_at)
    .bind(node.updated_at)
    .bind(tokens)
    .execute(&mut *tx)
    .await?;
    if patch.labels.is_some() {
        write_labels(&mut tx, id, &node.labels).await?;
    }
    let mut nodes = vec![node];
    attach_conflict_ids(&mut tx, &mut nodes).await?;
    tx.commit().await?;
    Ok(nodes.remove(0))
}

/// Deletes a node with the history rules of contract section 2: its pending conflicts as the
/// old side go, conflicts where it is the new side keep its text as `new_content`. The node row
/// is locked first, so no conflict can be queued against it between those steps.
pub async fn delete_in(conn: &mut PgConnection, id: Uuid) -> StoreResult<()> {
    let locked: Option<i32> =
        sqlx::query_scalar("select 1 from nodes where node_id = $1 for update")
            .bind(id)
            .fetch_optional(&mut *conn)
            .await?;
    if locked.is_none() {
        return Err(StoreError::NotFound);
    }
    sqlx::query("delete from conflict_queue where old_node_id = $1 and status = 'pending'")
        .bind(id)
        .execute(&mut *conn)
        .await?;
    sqlx::query(
        "update conflict_queue set new_content = coalesce(new_content, \
         (select body from nodes where node_id = $1)) where new_node_id = $1",
    )
    .bind(id)
    .execute(&mut *conn)
    .await?;
    sqlx::query("delete from nodes where node_id = $1")
        .bind(id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// `ts_rank` is a float4; as float8 its text form parses back to the same value, so a cursor's
/// rank compares equal to the row it came from.
const LIST_RANKED: &str = concat!(
    "select * from (select ",
    node_columns!("n", ""),
    ", ts_rank(n.search_tsv, to_tsquery('simple', $7))::float8 as score from nodes n \
      where n.search_tsv @@ to_tsquery('simple', $7) and n.state = $1 \
      and ($2::text is null or n.memory_type = $2) \
      and ($3::text is null or exists (select 1 from node_labels l where l.label = $3 and l.node_id = n.node_id))) r \
     where ($4::float8 is null or r.score < $4 or (r.score = $4 and r.node_id > $5)) \
     order by r.score desc, r.node_id limit $6"
);

const LIST_NEWEST: &str = concat!(
    "select ",
    node_columns!("n", ""),
    " from nodes n where n.state = $1 \
      and ($2::text is null or n.memory_type = $2) \
      and ($3::text is null or exists (select 1 from node_labels l where l.label = $3 and l.node_id = n.node_id)) \
      and ($4::timestamptz is null or (n.created_at, n.node_id) < ($4, $5)) \
     order by n.created_at desc, n.node_id desc limit $6"
);

pub async fn list(pool: &PgPool, q: NodeQuery) -> StoreResult<Page<Node>> {
    let state = q.state.unwrap_or(dn::NodeState::Active);
    let mut conn = pool.acquire().await?;
    let key = q.after.as_ref().map(|c| c.key.as_str());
    let query = match &q.tokens {
        Some(_) => sqlx::query(LIST_RANKED),
        None => sqlx::query(LIST_NEWEST),
    }
    .bind(state.as_str())
    .bind(&q.memory_type)
    .bind(&q.label);
    let query = match &q.tokens {
        Some(_) => query.bind(key.map(rows::rank_key).transpose()?),
        None => query.bind(key.map(rows::ts_key).transpose()?),
    }
    .bind(q.after.as_ref().map(|c| c.id))
    .bind((q.limit + 1) as i64);
    let query = match &q.tokens {
        Some(tokens) => query.bind(tsquery(tokens, " & ")),
        None => query,
    };
    let rows = query.fetch_all(&mut *conn).await?;
    let mut keyed = Vec::with_capacity(rows.len());
    for row in &rows {
        let node = rows::node(row, "")?.ok_or(StoreError::NotFound)?;
        let key = match q.tokens {
            Some(_) => row.try_get::<f64, _>("score")?.to_string(),
            None => crate::domain::time::format(&node.created_at),
        };
        keyed.push((key, node));
    }
    let page = Page::from_rows(keyed, q.limit, |(k, n)| Cursor::new(k.clone(), n.id));
    let mut nodes: Vec<Node> = page.items.into_iter().map(|(_, n)| n).collect();
    attach_conflict_ids(&mut conn, &mut nodes).await?;
    Ok(Page {
        items: nodes,
        next_cursor: page.next_cursor,
    })
}

/// The text of a `to_tsquery` (bound as a parameter, never spliced into SQL): every token
/// quoted, so none can be read as an operator, and joined by `&` (all) or `|` (any).
fn tsquery(tokens: &[String], op: &str) -> String {
    tokens
        .iter()
        .map(|t| format!("'{}'", t.replace('\\', "\\\\").replace('\'', "''")))
        .collect::<Vec<_>>()
        .join(op)
}

pub async fn embedding_dim(pool: &PgPool) -> StoreResult<Option<usize>> {
    let d: Option<i32> = sqlx::query_scalar(
        "select embedding_dim from nodes where embedding_dim is not null limit 1",
    )
    .fetch_optional(pool)
    .await?;
    Ok(d.map(|d| d as usize))
}

/// Whether a verdict between the candidate `n` and node `$4` already exists.
macro_rules! remembered {
    () => {
        "($4::uuid is not null and (exists (select 1 from conflict_queue q \
            where (q.old_node_id = n.node_id and q.new_key = $4::text) \
               or (q.old_node_id = $4 and q.new_key = n.node_id::text)) \
          or exists (select 1 from edges e where e.kind in ('supersedes', 'relates_to') \
            and ((e.source_id = n.node_id and e.target_id = $4) \
              or (e.source_id = $4 and e.target_id = n.node_id))))) as remembered"
    };
}

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

/// Vector-tier candidates: the newest nodes sharing a label (UUID v7 ids sort by time), found
/// through the label index first; the cosine is computed in Rust on what this returns.
const CANDIDATES_BY_LABELS: &str = concat!(
    "with tagged as materialized (select distinct node_id from node_labels \
     where label = any($1) order by node_id desc limit $6) \
     select ",
    node_columns!("n", ""),
    ", n.embedding, ",
    remembered!(),
    " from tagged join nodes n on n.node_id = tagged.node_id \
     where n.embedding is not null and n.scope = $2 and n.memory_type = $3 \
       and n.state = 'active' and ($4::uuid is null or n.node_id <> $4) \
     order by n.node_id desc limit $5"
);

/// Label-index hits examined per vector candidate wanted.
const LABEL_HITS_PER_CANDIDATE: usize = 4;

/// Postings the index may rank per candidate search, and how many tokens it may use.
const RANKING_BUDGET: i64 = 2_000;
const MIN_QUERY_TOKENS: usize = 2;
const MAX_QUERY_TOKENS: usize = 12;

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
    Ok(rarest_tokens(
        &stats,
        names,
        RANKING_BUDGET,
        MIN_QUERY_TOKENS,
        MAX_QUERY_TOKENS,
    ))
}

pub async fn candidates(pool: &PgPool, q: CandidateQuery) -> StoreResult<Vec<Candidate>> {
    let mut conn = pool.acquire().await?;
    let mut out: Vec<Candidate> = Vec::new();
    let tokens = rarest(&mut conn, &q.tokens, &q.names).await?;
    if !tokens.is_empty() {
        let rows = sqlx::query(CANDIDATES_BY_TOKENS)
            .bind(tsquery(&tokens, " | "))
            .bind(&q.scope)
            .bind(&q.memory_type)
            .bind(q.exclude)
            .bind(q.limit as i64)
            .fetch_all(&mut *conn)
            .await?;
        for row in &rows {
            out.push(candidate(row)?);
        }
    }
    if q.with_embedding && !q.labels.is_empty() {
        let rows = sqlx::query(CANDIDATES_BY_LABELS)
            .bind(&q.labels)
            .bind(&q.scope)
            .bind(&q.memory_type)
            .bind(q.exclude)
            .bind(q.limit as i64)
            .bind((q.limit * LABEL_HITS_PER_CANDIDATE) as i64)
            .fetch_all(&mut *conn)
            .await?;
        for row in &rows {
            let c = candidate(row)?;
            if !out.iter().any(|o| o.node.id == c.node.id) {
                out.push(c);
            }
        }
    }
    Ok(out)
}

fn candidate(row: &sqlx::postgres::PgRow) -> StoreResult<Candidate> {
    let embedding: Option<Vec<u8>> = row.try_get("embedding")?;
    Ok(Candidate {
        node: rows::node(row, "")?.ok_or(StoreError::NotFound)?,
        embedding: embedding.as_deref().map(dn::embedding_from_bytes),
        remembered: row.try_get("remembered")?,
    })
}
