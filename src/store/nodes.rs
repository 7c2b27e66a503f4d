//! Node rows, on either database: insert, delete, reads that carry pending conflict ids, listing (newest first, or ranked by the backend's full-text search),
//! and the candidate search of detection.

use std::collections::HashMap;

use sqlx::types::Json;
use uuid::Uuid;

use super::backend::{Backend, Cols, Conn, Id, Ids, Q, QueryExt, Row, Texts, Ts};
use super::rows;
use super::sql::{in_scopes, node_columns, one_scope};
use crate::domain::FieldError;
use crate::domain::cursor::{Cursor, Page};
use crate::domain::node::{self as dn, NewNode, Node};
use crate::domain::provenance::Provenance;
use crate::domain::time;
use crate::store::*;

pub const SELECT_ONE: &str = concat!(
    "select ",
    node_columns!("n", ""),
    " from nodes n where n.node_id = $1"
);

pub async fn fetch_optional<B: Backend>(conn: &mut Conn<B>, id: Uuid) -> StoreResult<Option<Node>> {
    match fetch::<B>(conn, SELECT_ONE, id).await {
        Ok(n) => Ok(Some(n)),
        Err(StoreError::NotFound(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Who made a change to a node and in which conflict: what its version records. Every
/// statement that writes a node row sets both (see the `node_versions` migration).
#[derive(Debug, Clone, Default)]
pub struct Change {
    pub by: Option<String>,
    /// The name of the key that makes the change (null without keys).
    pub key: Option<String>,
    pub conflict: Option<Uuid>,
}

impl Change {
    /// The write of a new node, by whoever it names.
    pub fn written(node: &NewNode) -> Self {
        Self {
            by: node.changed_by.clone(),
            key: node.changed_key.clone(),
            conflict: None,
        }
    }

    /// A change made within a conflict's resolution or revert.
    pub fn in_conflict(conflict: Uuid, by: Option<&str>, key: Option<&str>) -> Self {
        Self {
            by: by.map(str::to_owned),
            key: key.map(str::to_owned),
            conflict: Some(conflict),
        }
    }
}

/// Inserts a node and its label rows; used by writes and by resolutions that create a node.
pub async fn insert<B: Backend>(
    conn: &mut Conn<B>,
    node: &NewNode,
    tokens: &str,
    embedding: Option<&[u8]>,
    change: &Change,
) -> StoreResult<()> {
    bind_insert::<B>(B::query(INSERT_NODE), node, tokens, embedding, change)
        .run(conn)
        .await?;
    // The label index rows and the first version are written by the insert's triggers.
    Ok(())
}

/// The insert of a node, `$1..$17` bound by [`bind_insert`].
macro_rules! insert_node {
    () => {
        "insert into nodes (node_id, title, body, memory_type, labels, scope, source, \
         confidence, state, observed_at, created_at, updated_at, embedding, embedding_dim, \
         search_tokens, changed_by, changed_key, changed_in, provenance) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $12, $13, $14, $15, $16, \
         $17, $18)"
    };
}
pub(crate) use insert_node;

/// The parameters of [`insert_node!`], all bound by [`bind_insert`].
pub(crate) const INSERT_NODE_PARAMS: usize = 18;

const INSERT_NODE: &str = insert_node!();

pub(crate) fn bind_insert<B: Backend>(
    q: Q<B::Db>,
    node: &NewNode,
    tokens: &str,
    embedding: Option<&[u8]>,
    change: &Change,
) -> Q<B::Db> {
    q.arg(Id(node.id))
        .arg(&node.title)
        .arg(&node.body)
        .arg(&node.memory_type)
        .arg(Json(&node.labels))
        .arg(&node.scope)
        .arg(&node.source)
        .arg(node.confidence)
        .arg(node.state.as_str())
        .arg(Ts(node.observed_at))
        .arg(Ts(node.created_at))
        .arg(embedding)
        .arg(node.embedding.as_ref().map(|e| e.len() as i32))
        .arg(tokens)
        .arg(change.by.clone())
        .arg(change.key.clone())
        .arg(change.conflict.map(Id))
        .arg(node.provenance.as_ref().map(Provenance::to_json))
}

/// Two first embeddings of different sizes must not both pass: the backend makes the check and
/// the insert atomic among writers of embeddings.
pub async fn check_dimension<B: Backend>(conn: &mut Conn<B>, dim: usize) -> StoreResult<()> {
    B::lock_embedding_dim(conn).await?;
    match stored_dimension::<B>(conn).await? {
        Some(d) if d != dim => Err(StoreError::Refused(Refusal::Invalid(vec![
            FieldError::new(
                "/embedding",
                format!("has {dim} dimensions; every embedding in this store has {d}"),
            ),
        ]))),
        _ => Ok(()),
    }
}

pub async fn stored_dimension<B: Backend>(conn: &mut Conn<B>) -> StoreResult<Option<usize>> {
    let row = B::query("select embedding_dim from nodes where embedding_dim is not null limit 1")
        .optional(conn)
        .await?;
    row.map(|r| Ok(Cols::<B::Db>::new(&r).get::<i32>("embedding_dim")? as usize))
        .transpose()
}

pub async fn get<B: Backend>(store: &B, id: Uuid) -> StoreResult<Node> {
    let mut conn = store.pool().acquire().await?;
    let node = fetch::<B>(&mut conn, SELECT_ONE, id).await?;
    let mut nodes = vec![node];
    attach_conflict_ids::<B>(&mut conn, &mut nodes).await?;
    Ok(nodes.remove(0))
}

/// A node without its pending conflict ids (used inside transactions); `sql` is
/// [`SELECT_ONE`] or the backend's locking variant.
pub async fn fetch<B: Backend>(
    conn: &mut Conn<B>,
    sql: &'static str,
    id: Uuid,
) -> StoreResult<Node> {
    let row = B::query(sql)
        .arg(Id(id))
        .optional(conn)
        .await?
        .ok_or(StoreError::NotFound("node"))?;
    rows::some_node::<B::Db>(&row)
}

pub async fn get_with_embedding<B: Backend>(
    store: &B,
    id: Uuid,
) -> StoreResult<(Node, Option<Vec<f32>>)> {
    let node = get(store, id).await?;
    let mut conn = store.pool().acquire().await?;
    let row = B::query("select embedding from nodes where node_id = $1")
        .arg(Id(id))
        .optional(&mut conn)
        .await?
        .ok_or(StoreError::NotFound("node"))?;
    let bytes: Option<Vec<u8>> = Cols::<B::Db>::new(&row).get("embedding")?;
    Ok((node, bytes.as_deref().map(dn::embedding_from_bytes)))
}

/// Fills `conflict_ids` for a page of nodes with one query.
pub async fn attach_conflict_ids<B: Backend>(
    conn: &mut Conn<B>,
    nodes: &mut [Node],
) -> StoreResult<()> {
    if nodes.is_empty() {
        return Ok(());
    }
    let ids: Vec<Uuid> = nodes.iter().map(|n| n.id).collect();
    let rows = B::query(B::PENDING_OF_NODES)
        .arg(Ids(&ids))
        .all(conn)
        .await?;
    let mut by_node: HashMap<Uuid, Vec<Uuid>> = HashMap::new();
    for row in &rows {
        let c = Cols::<B::Db>::new(row);
        let cid = c.id("conflict_id")?;
        for col in ["old_node_id", "new_node_id"] {
            if let Some(n) = c.opt_id(col)? {
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

/// Deletes a node with the history rules of contract section 2: its pending conflicts as the
/// old side go, conflicts where it is the new side keep its text as `new_content`. The node row
/// is locked first (where rows lock), so no conflict can be queued against it between those
/// steps.
pub async fn delete_in<B: Backend>(
    conn: &mut Conn<B>,
    id: Uuid,
    change: &Change,
) -> StoreResult<()> {
    if B::query(B::LOCK_NODE)
        .arg(Id(id))
        .optional(conn)
        .await?
        .is_none()
    {
        return Err(StoreError::NotFound("node"));
    }
    B::query("delete from conflict_queue where old_node_id = $1 and status = 'pending'")
        .arg(Id(id))
        .run(conn)
        .await?;
    // `new_node_id` is cleared here rather than by the foreign key's `on delete set null`: a
    // row this transaction has already updated gets its other foreign key re-checked by that
    // cascade, which on PostgreSQL locks the conflict's old node out of id order, and a
    // resolution holding that node deadlocks with this delete.
    B::query(
        "update conflict_queue set new_content = coalesce(new_content, \
         (select body from nodes where node_id = $1)), new_node_id = null \
         where new_node_id = $1",
    )
    .arg(Id(id))
    .run(conn)
    .await?;
    delete_row::<B>(conn, id, change).await
}

/// Deletes a node row; its tombstone version records `change` (set on the row first: that
/// alone makes no version).
pub async fn delete_row<B: Backend>(
    conn: &mut Conn<B>,
    id: Uuid,
    change: &Change,
) -> StoreResult<()> {
    B::query(
        "update nodes set changed_by = $2, changed_key = $3, changed_in = $4 where node_id = $1",
    )
    .arg(Id(id))
    .arg(change.by.clone())
    .arg(change.key.clone())
    .arg(change.conflict.map(Id))
    .run(conn)
    .await?;
    B::query("delete from nodes where node_id = $1")
        .arg(Id(id))
        .run(conn)
        .await?;
    Ok(())
}

/// `GET /nodes` newest first, for a caller of several scopes (`$7` its patterns) or of all.
const LIST_NEWEST: &str = concat!(
    "select ",
    node_columns!("n", ""),
    " from nodes n where n.state = $1 \
      and ($2 is null or n.memory_type = $2) \
      and ($3 is null or exists (select 1 from node_labels l where l.label = $3 and l.node_id = n.node_id)) \
      and ($4 is null or (n.created_at, n.node_id) < ($4, $5)) and ",
    in_scopes!("n.scope", "$7"),
    " order by n.created_at desc, n.node_id desc limit $6"
);

/// [`LIST_NEWEST`] for a caller of one scope (`$7`): read in order from
/// `nodes_in_scope_newest`, so a page touches that scope's rows only.
pub(crate) const LIST_NEWEST_IN_SCOPE: &str = concat!(
    "select ",
    node_columns!("n", ""),
    " from nodes n where n.scope = $7 and n.state = $1 \
      and ($2 is null or n.memory_type = $2) \
      and ($3 is null or exists (select 1 from node_labels l where l.label = $3 and l.node_id = n.node_id)) \
      and ($4 is null or (n.created_at, n.node_id) < ($4, $5)) \
     order by n.created_at desc, n.node_id desc limit $6"
);

/// A cursor's key that is not of this list is the client's error, not a fault.
fn bad_cursor() -> StoreError {
    StoreError::Refused(Refusal::Invalid(vec![FieldError::new(
        "/cursor",
        "is not a cursor of this list",
    )]))
}

pub async fn list<B: Backend>(store: &B, q: NodeQuery) -> StoreResult<Page<Node>> {
    let state = q.state.unwrap_or(dn::NodeState::Active);
    let mut conn = store.pool().acquire().await?;
    let key = q.after.as_ref().map(|c| c.key.as_str());
    let query = match (&q.tokens, one_scope(q.scopes.as_deref())) {
        (Some(_), _) => B::query(B::LIST_RANKED),
        (None, Some(_)) => B::query(LIST_NEWEST_IN_SCOPE),
        (None, None) => B::query(LIST_NEWEST),
    }
    .arg(state.as_str())
    .arg(&q.memory_type)
    .arg(&q.label);
    let query = match &q.tokens {
        Some(_) => query.arg(
            key.map(|k| B::rank_key(k).ok_or_else(bad_cursor))
                .transpose()?,
        ),
        None => query.arg(
            key.map(|k| time::parse(k).map(Ts).ok_or_else(bad_cursor))
                .transpose()?,
        ),
    }
    .arg(q.after.as_ref().map(|c| Id(c.id)))
    .arg((q.limit + 1) as i64);
    let query = match &q.tokens {
        Some(tokens) => query.arg(B::text_query(tokens, true)),
        None => query,
    }
    .arg(&q.scopes);
    let rows = query.all(&mut conn).await?;
    let mut keyed = Vec::with_capacity(rows.len());
    for row in &rows {
        let node = rows::some_node::<B::Db>(row)?;
        let key = match q.tokens {
            Some(_) => Cols::<B::Db>::new(row).get::<f64>("score")?.to_string(),
            None => time::format(&node.created_at),
        };
        keyed.push((key, node));
    }
    let page = Page::from_rows(keyed, q.limit, |(k, n)| Cursor::new(k.clone(), n.id));
    let mut nodes: Vec<Node> = page.items.into_iter().map(|(_, n)| n).collect();
    attach_conflict_ids::<B>(&mut conn, &mut nodes).await?;
    Ok(Page {
        items: nodes,
        next_cursor: page.next_cursor,
    })
}

pub async fn embedding_dim<B: Backend>(store: &B) -> StoreResult<Option<usize>> {
    let mut conn = store.pool().acquire().await?;
    stored_dimension::<B>(&mut conn).await
}

/// Label-index hits examined per vector candidate wanted.
pub const LABEL_HITS_PER_CANDIDATE: usize = 4;

pub async fn candidates<B: Backend>(store: &B, q: CandidateQuery) -> StoreResult<Vec<Candidate>> {
    let mut conn = store.reader().await?;
    candidates_in(store, &mut conn, &q).await
}

/// [`candidates`] on `conn`: a batch searches in its own transaction, where its earlier nodes
/// are found as a write after them would find them.
pub async fn candidates_in<B: Backend>(
    store: &B,
    conn: &mut Conn<B>,
    q: &CandidateQuery,
) -> StoreResult<Vec<Candidate>> {
    let mut out: Vec<Candidate> = store.candidates_by_tokens(conn, q).await?;
    if q.with_embedding && !q.labels.is_empty() {
        let sql = match q.before {
            Some(_) => B::CANDIDATES_BY_LABELS_BEFORE,
            None => B::CANDIDATES_BY_LABELS,
        };
        let query = B::query(sql)
            .arg(Texts(&q.labels))
            .arg(&q.scope)
            .arg(&q.memory_type)
            .arg(q.exclude.map(Id))
            .arg(q.limit as i64)
            .arg((q.limit * LABEL_HITS_PER_CANDIDATE) as i64);
        let query = match q.before {
            Some(b) => query.arg(Id(b)),
            None => query,
        };
        let rows = query.all(conn).await?;
        add_unseen::<B>(&mut out, &rows)?;
    }
    if q.newest > 0 {
        let query = match q.before {
            Some(_) => B::query(B::CANDIDATES_NEWEST_BEFORE),
            None => B::query(B::CANDIDATES_NEWEST),
        }
        .arg(q.newest as i64)
        .arg(&q.scope)
        .arg(&q.memory_type)
        .arg(q.exclude.map(Id));
        let query = match q.before {
            Some(b) => query.arg(Id(b)),
            None => query,
        };
        let rows = query.all(conn).await?;
        add_unseen::<B>(&mut out, &rows)?;
    }
    Ok(out)
}

/// Those of `others` that have a verdict with `node` already ([`Backend::REMEMBERED_AMONG`]).
pub async fn remembered_among<B: Backend>(
    store: &B,
    node: Uuid,
    others: &[Uuid],
) -> StoreResult<Vec<Uuid>> {
    if others.is_empty() {
        return Ok(Vec::new());
    }
    let mut conn = store.reader().await?;
    let rows = B::query(B::REMEMBERED_AMONG)
        .arg(Ids(others))
        .arg(Id(node))
        .all(&mut conn)
        .await?;
    rows.iter()
        .map(|r| Cols::<B::Db>::new(r).id("node_id"))
        .collect()
}

/// Appends the candidates of `rows` not already in `out`.
fn add_unseen<B: Backend>(out: &mut Vec<Candidate>, rows: &[Row<B>]) -> StoreResult<()> {
    for row in rows {
        let c = rows::candidate::<B::Db>(row)?;
        if !out.iter().any(|o| o.node.id == c.node.id) {
            out.push(c);
        }
    }
    Ok(())
}
