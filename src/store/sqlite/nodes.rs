//! Nodes on SQLite: writes (with the conflicts detection found), reads that carry pending
//! conflict ids, full-text listing, and the indexed candidate search of detection.

use std::collections::HashMap;

use sqlx::{Row, SqliteConnection, SqlitePool};
use uuid::Uuid;

use super::rows::{self, node_columns};
use super::{SqliteStore, conflicts};
use crate::domain::FieldError;
use crate::domain::conflict::Conflict;
use crate::domain::contradiction::index_tokens;
use crate::domain::cursor::{Cursor, Page};
use crate::domain::node::{self as dn, NewNode, Node, NodePatch};
use crate::domain::retrieval::rarest_tokens;
use crate::domain::time;
use crate::store::*;

const SELECT_ONE: &str = concat!(
    "select ",
    node_columns!("n", ""),
    " from nodes n where n.node_id = $1"
);

pub async fn create(
    store: &SqliteStore,
    node: NewNode,
    found: Vec<DetectedConflict>,
) -> StoreResult<(Node, Vec<Conflict>)> {
    // Tokenising and encoding happen before the write lock is taken.
    let tokens = index_tokens(&node.title, &node.body).join(" ");
    let embedding = node.embedding.as_deref().map(dn::embedding_to_bytes);
    let mut tx = store.write().await?;
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
    conn: &mut SqliteConnection,
    node: &NewNode,
    tokens: &str,
    embedding: Option<&[u8]>,
) -> StoreResult<()> {
    let created = time::format(&node.created_at);
    sqlx::query(
        "insert into nodes (node_id, title, body, memory_type, labels, scope, source, confidence, \
         state, observed_at, created_at, updated_at, embedding, embedding_dim, search_tokens) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $12, $13, $14)",
    )
    .bind(node.id.to_string())
    .bind(&node.title)
    .bind(&node.body)
    .bind(&node.memory_type)
    .bind(serde_json::to_string(&node.labels)?)
    .bind(&node.scope)
    .bind(&node.source)
    .bind(node.confidence)
    .bind(node.state.as_str())
    .bind(time::format(&node.observed_at))
    .bind(&created)
    .bind(embedding)
    .bind(node.embedding.as_ref().map(|e| e.len() as i64))
    .bind(tokens)
    .execute(&mut *conn)
    .await?;
    write_labels(conn, node.id, &node.labels).await
}

async fn write_labels(conn: &mut SqliteConnection, id: Uuid, labels: &[String]) -> StoreResult<()> {
    sqlx::query("delete from node_labels where node_id = $1")
        .bind(id.to_string())
        .execute(&mut *conn)
        .await?;
    for label in labels {
        sqlx::query("insert into node_labels (label, node_id) values ($1, $2)")
            .bind(label)
            .bind(id.to_string())
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

async fn check_dimension(conn: &mut SqliteConnection, dim: usize) -> StoreResult<()> {
    let stored: Option<i64> = sqlx::query_scalar(
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

pub async fn get(pool: &SqlitePool, id: Uuid) -> StoreResult<Node> {
    let mut conn = pool.acquire().await?;
    let node = fetch(&mut conn, id).await?;
    let mut nodes = vec![node];
    attach_conflict_ids(&mut conn, &mut nodes).await?;
    Ok(nodes.remove(0))
}

/// A node without its pending conflict ids (used inside transactions).
pub async fn fetch(conn: &mut SqliteConnection, id: Uuid) -> StoreResult<Node> {
    let row = sqlx::query(SELECT_ONE)
        .bind(id.to_string())
        .fetch_optional(&mut *conn)
        .await?
        .ok_or(StoreError::NotFound)?;
    rows::node(&row, "")?.ok_or(StoreError::NotFound)
}

pub async fn get_with_embedding(
    pool: &SqlitePool,
    id: Uuid,
) -> StoreResult<(Node, Option<Vec<f32>>)> {
    let node = get(pool, id).await?;
    let bytes: Option<Vec<u8>> =
        sqlx::query_scalar("select embedding from nodes where node_id = $1")
            .bind(id.to_string())
            .fetch_one(pool)
            .await?;
    Ok((node, bytes.as_deref().map(dn::embedding_from_bytes)))
}

/// Fills `conflict_ids` for a page of nodes with one query.
pub async fn attach_conflict_ids(
    conn: &mut SqliteConnection,
    nodes: &mut [Node],
) -> StoreResult<()> {
    if nodes.is_empty() {
        return Ok(());
    }
    let ids: Vec<String> = nodes.iter().map(|n| n.id.to_string()).collect();
    let rows = sqlx::query(
        "select conflict_id, old_node_id, new_node_id from conflict_queue \
         where status = 'pending' \
           and (old_node_id in (select value from json_each($1)) \
                or new_node_id in (select value from json_each($1))) \
         order by created_at, conflict_id",
    )
    .bind(serde_json::to_string(&ids)?)
    .fetch_all(&mut *conn)
    .await?;
    let mut by_node: HashMap<String, Vec<Uuid>> = HashMap::new();
    for row in rows {
        let cid = rows::uuid(&row.try_get::<String, _>("conflict_id")?)?;
        for col in ["old_node_id", "new_node_id"] {
            if let Some(n) = row.try_get::<Option<String>, _>(col)? {
                by_node.entry(n).or_default().push(cid);
            }
        }
    }
    for node in nodes {
        if let Some(ids) = by_node.remove(&node.id.to_string()) {
            node.conflict_ids = ids;
        }
    }
    Ok(())
}

pub async fn update(store: &SqliteStore, id: Uuid, patch: NodePatch) -> StoreResult<Node> {
    let mut tx = store.write().await?;
    let mut node = fetch(&mut tx, id).await?;
    patch.apply(&mut node, time::now());
    let tokens = index_tokens(&node.title, &node.body).join(" ");
    sqlx::query(
        "update nodes set title = $2, body = $3, labels = $4, confidence = $5, state = $6, \
         source = $7, scope = $8, observed_at = $9, updated_at = $10, search_tokens = $11 \
         where node_id = $1",
    )
    .bind(id.to_string())
    .bind(&node.title)
    .bind(&node.body)
    .bind(serde_json::to_string(&node.labels)?)
    .bind(node.confidence)
    .bind(node.state.as_str())
    .bind(&node.source)
    .bind(&node.scope)
    .bind(time::format(&node.observed_at))
    .bind(time::format(&node.updated_at))
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
/// old side go, conflicts where it is the new side keep its text as `new_content`.
pub async fn delete_in(conn: &mut SqliteConnection, id: Uuid) -> StoreResult<()> {
    let id = id.to_string();
    sqlx::query("delete from conflict_queue where old_node_id = $1 and status = 'pending'")
        .bind(&id)
        .execute(&mut *conn)
        .await?;
    sqlx::query(
        "update conflict_queue set new_content = coalesce(new_content, \
         (select body from nodes where node_id = $1)) where new_node_id = $1",
    )
    .bind(&id)
    .execute(&mut *conn)
    .await?;
    let deleted = sqlx::query("delete from nodes where node_id = $1")
        .bind(&id)
        .execute(&mut *conn)
        .await?;
    if deleted.rows_affected() == 0 {
        return Err(StoreError::NotFound);
    }
    Ok(())
}

const LIST_NEWEST: &str = concat!(
    "select ",
    node_columns!("n", ""),
    " from nodes n where n.state = $1 \
      and ($2 is null or n.memory_type = $2) \
      and ($3 is null or exists (select 1 from node_labels l where l.label = $3 and l.node_id = n.node_id)) \
      and ($4 is null or (n.created_at, n.node_id) < ($4, $5)) \
     order by n.created_at desc, n.node_id desc limit $6"
);

/// Full-text hits are materialised before the join for the same reason as candidates.
const LIST_RANKED: &str = concat!(
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

pub async fn list(pool: &SqlitePool, q: NodeQuery) -> StoreResult<Page<Node>> {
    let state = q.state.unwrap_or(dn::NodeState::Active);
    let mut conn = pool.acquire().await?;
    let (sql, key): (&'static str, Option<String>) = match &q.tokens {
        Some(_) => (LIST_RANKED, q.after.as_ref().map(|c| c.key.clone())),
        None => (LIST_NEWEST, q.after.as_ref().map(|c| c.key.clone())),
    };
    let mut query = sqlx::query(sql)
        .bind(state.as_str())
        .bind(&q.memory_type)
        .bind(&q.label);
    query = match (&q.tokens, key) {
        (Some(_), Some(k)) => query.bind(k.parse::<f64>().map_err(|_| {
            StoreError::Invalid(vec![FieldError::new(
                "/cursor",
                "is not a cursor of this list",
            )])
        })?),
        (_, k) => query.bind(k),
    };
    query = query
        .bind(q.after.as_ref().map(|c| c.id.to_string()))
        .bind((q.limit + 1) as i64);
    if let Some(tokens) = &q.tokens {
        query = query.bind(fts_all(tokens));
    }
    let rows = query.fetch_all(&mut *conn).await?;
    let mut items = Vec::with_capacity(rows.len());
    let mut keys = Vec::with_capacity(rows.len());
    for row in &rows {
        let node = rows::node(row, "")?.ok_or(StoreError::NotFound)?;
        let key = match q.tokens {
            Some(_) => row.try_get::<f64, _>("score")?.to_string(),
            None => time::format(&node.created_at),
        };
        keys.push(key);
        items.push(node);
    }
    let keyed: Vec<(String, Node)> = keys.into_iter().zip(items).collect();
    let page = Page::from_rows(keyed, q.limit, |(k, n)| Cursor::new(k.clone(), n.id));
    let mut nodes: Vec<Node> = page.items.into_iter().map(|(_, n)| n).collect();
    attach_conflict_ids(&mut conn, &mut nodes).await?;
    Ok(Page {
        items: nodes,
        next_cursor: page.next_cursor,
    })
}

/// An FTS5 query matching rows that contain every token, each quoted so that no token can be
/// read as an operator.
fn fts_all(tokens: &[String]) -> String {
    tokens
        .iter()
        .map(|t| quote(t))
        .collect::<Vec<_>>()
        .join(" AND ")
}

fn fts_any(tokens: &[String]) -> String {
    tokens
        .iter()
        .map(|t| quote(t))
        .collect::<Vec<_>>()
        .join(" OR ")
}

fn quote(token: &str) -> String {
    format!("\"{}\"", token.replace('"', "\"\""))
}

pub async fn embedding_dim(pool: &SqlitePool) -> StoreResult<Option<usize>> {
    let d: Option<i64> = sqlx::query_scalar(
        "select embedding_dim from nodes where embedding_dim is not null limit 1",
    )
    .fetch_optional(pool)
    .await?;
    Ok(d.map(|d| d as usize))
}

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

/// Vector-tier candidates: the newest nodes sharing a label (UUID v7 ids sort by time), found
/// through the label index first; the cosine is computed in Rust on what this returns.
const CANDIDATES_BY_LABELS: &str = concat!(
    "with tagged as materialized (select distinct node_id from node_labels \
     where label in (select value from json_each($1)) order by node_id desc limit $6) \
     select ",
    node_columns!("n", ""),
    ", n.embedding, ",
    remembered!(),
    " from tagged join nodes n on n.node_id = tagged.node_id \
     where n.embedding is not null \
       and n.scope = $2 and n.memory_type = $3 and n.state = 'active' \
       and ($4 is null or n.node_id <> $4) \
     order by n.node_id desc limit $5"
);

/// Index hits examined per candidate wanted: hits in other scopes, types or states are
/// filtered out after the index ranks them.
const INDEX_HITS_PER_CANDIDATE: usize = 4;

/// Documents the index may rank per candidate search, and how many tokens it may use.
const RANKING_BUDGET: i64 = 2_000;
const MIN_QUERY_TOKENS: usize = 2;
const MAX_QUERY_TOKENS: usize = 12;

/// The new text's rarest tokens, by the index's own document frequencies.
async fn rarest(
    conn: &mut SqliteConnection,
    tokens: &[String],
    names: &[String],
) -> StoreResult<Vec<String>> {
    if tokens.is_empty() {
        return Ok(Vec::new());
    }
    let rows = sqlx::query(
        "select term, doc from nodes_fts_vocab where term in (select value from json_each($1))",
    )
    .bind(serde_json::to_string(tokens)?)
    .fetch_all(&mut *conn)
    .await?;
    let stats = rows
        .iter()
        .map(|r| Ok((r.try_get::<String, _>("term")?, r.try_get::<i64, _>("doc")?)))
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(rarest_tokens(
        &stats,
        names,
        RANKING_BUDGET,
        MIN_QUERY_TOKENS,
        MAX_QUERY_TOKENS,
    ))
}

pub async fn candidates(pool: &SqlitePool, q: CandidateQuery) -> StoreResult<Vec<Candidate>> {
    let mut conn = pool.acquire().await?;
    let exclude = q.exclude.map(|id| id.to_string());
    let mut out: Vec<Candidate> = Vec::new();
    let tokens = rarest(&mut conn, &q.tokens, &q.names).await?;
    if !tokens.is_empty() {
        let rows = sqlx::query(CANDIDATES_BY_TOKENS)
            .bind(fts_any(&tokens))
            .bind(&q.scope)
            .bind(&q.memory_type)
            .bind(&exclude)
            .bind(q.limit as i64)
            .bind((q.limit * INDEX_HITS_PER_CANDIDATE) as i64)
            .fetch_all(&mut *conn)
            .await?;
        for row in &rows {
            out.push(candidate(row)?);
        }
    }
    if q.with_embedding && !q.labels.is_empty() {
        let rows = sqlx::query(CANDIDATES_BY_LABELS)
            .bind(serde_json::to_string(&q.labels)?)
            .bind(&q.scope)
            .bind(&q.memory_type)
            .bind(&exclude)
            .bind(q.limit as i64)
            .bind((q.limit * INDEX_HITS_PER_CANDIDATE) as i64)
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

fn candidate(row: &sqlx::sqlite::SqliteRow) -> StoreResult<Candidate> {
    let embedding: Option<Vec<u8>> = row.try_get("embedding")?;
    Ok(Candidate {
        node: rows::node(row, "")?.ok_or(StoreError::NotFound)?,
        embedding: embedding.as_deref().map(dn::embedding_from_bytes),
        remembered: row.try_get("remembered")?,
    })
}
