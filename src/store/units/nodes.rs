//! Node writes, each one transaction: a new node with the conflicts detection found (and the
//! resolutions policies decided on), a batch of them, a change, a delete.

use sqlx::types::Json;
use uuid::Uuid;

use crate::domain::batch::{BatchNode, BatchWritten, NewBatch, WrittenNode};
use crate::domain::conflict::{Conflict, Status};
use crate::domain::contradiction::index_tokens;
use crate::domain::node::{self as dn, NewNode, Node, NodePatch};
use crate::domain::time;
use crate::store::backend::{Backend, Id, QueryExt, Ts};
use crate::store::batch_ranking::MemoryPostings;
use crate::store::nodes::candidates_in;
use crate::store::nodes::{
    Change, attach_conflict_ids, check_dimension, delete_in, fetch, fetch_optional, insert,
};
use crate::store::units::{Open, Uncommitted, policy};
use crate::store::{
    BatchJudge, Candidate, DetectedConflict, StoreResult, conflicts, edges, locks, rows,
    written_state,
};

/// Inserts `nodes` in one transaction, with no conflicts: [`crate::store::Store::create_nodes`].
pub async fn create_many<B: Backend>(store: &B, nodes: &[NewNode]) -> StoreResult<()> {
    // Tokenising and encoding happen before the write transaction starts, as in `create`.
    let rows: Vec<_> = nodes
        .iter()
        .map(|n| {
            let tokens = index_tokens(&n.title, &n.body).join(" ");
            let embedding = n.embedding.as_deref().map(dn::embedding_to_bytes);
            (n, tokens, embedding)
        })
        .collect();
    let mut tx = store.write().await?;
    for (node, tokens, embedding) in &rows {
        if let Some(e) = &node.embedding {
            check_dimension::<B>(&mut tx, e.len()).await?;
        }
        insert::<B>(
            &mut tx,
            node,
            tokens,
            embedding.as_deref(),
            &Change::written(node),
        )
        .await?;
    }
    B::commit(tx).await?;
    Ok(())
}

/// A new node with the conflicts detection found, committed: in one call where the backend
/// groups the whole write ([`Backend::grouped_node_write`]), else as [`write`] does.
pub async fn create<B: Backend>(
    store: &B,
    node: NewNode,
    found: Vec<DetectedConflict>,
) -> StoreResult<(Node, Vec<Conflict>)> {
    // Tokenising happens before the write starts.
    let tokens = index_tokens(&node.title, &node.body).join(" ");
    let node = NewNode {
        state: written_state(&node, &found),
        ..node
    };
    let unresolved = found.iter().all(|h| h.resolve.is_none());
    if unresolved
        && node.embedding.is_none()
        && let Some(write) = B::grouped_node_write(&node, &tokens, &found)
    {
        // The insert, each conflict's rows and their reading back, in one call.
        let rows = store.write_grouped(write).await?;
        let queued = rows::conflicts::<B::Db>(&rows)?;
        let mut created = node.to_node();
        created.conflict_ids = queued.iter().map(|c| c.id).collect();
        return Ok((created, queued));
    }
    write_tokenised(store, node, tokens, found)
        .await?
        .commit()
        .await
}

/// A new node with the conflicts detection found (and the resolutions policies decided on),
/// in a transaction left open for its commit.
pub async fn write<B: Backend>(
    store: &B,
    node: NewNode,
    found: Vec<DetectedConflict>,
) -> StoreResult<Open<B, (Node, Vec<Conflict>)>> {
    let tokens = index_tokens(&node.title, &node.body).join(" ");
    let node = NewNode {
        state: written_state(&node, &found),
        ..node
    };
    write_tokenised(store, node, tokens, found).await
}

async fn write_tokenised<B: Backend>(
    store: &B,
    node: NewNode,
    tokens: String,
    found: Vec<DetectedConflict>,
) -> StoreResult<Open<B, (Node, Vec<Conflict>)>> {
    // Encoding happens before the write transaction starts, as tokenising does.
    let embedding = node.embedding.as_deref().map(dn::embedding_to_bytes);
    let mut tx = store.write().await?;
    if let Some(e) = &node.embedding {
        check_dimension::<B>(&mut tx, e.len()).await?;
    }
    insert::<B>(
        &mut tx,
        &node,
        &tokens,
        embedding.as_deref(),
        &Change::written(&node),
    )
    .await?;
    // Every old node at once, in id order, not one by one as the conflicts are written; for
    // update when a policy will resolve (and so change) them in this transaction.
    let olds = found.iter().map(|h| h.conflict.old_node_id).collect();
    lock_olds::<B>(&mut tx, olds, found.iter().any(|h| h.resolve.is_some())).await?;
    let outcome = queue_found::<B>(&mut tx, &node, found).await?;
    Ok(Open {
        outcome,
        tx: Uncommitted::write(tx),
    })
}

/// Locks the old nodes of the conflicts about to be written: `for update` when a policy will
/// resolve (and so change) some of them in this transaction, else shared.
async fn lock_olds<B: Backend>(
    tx: &mut B::Tx,
    olds: Vec<Uuid>,
    resolving: bool,
) -> StoreResult<()> {
    if resolving {
        locks::lock_nodes::<B>(tx, olds).await
    } else {
        locks::share_nodes::<B>(tx, olds).await
    }
}

/// Queues what detection found for the just-inserted `node` (running the resolutions
/// policies decided on), and the node as it reads now, with its pending conflicts.
async fn queue_found<B: Backend>(
    tx: &mut B::Tx,
    node: &NewNode,
    found: Vec<DetectedConflict>,
) -> StoreResult<(Node, Vec<Conflict>)> {
    let mut queued = Vec::with_capacity(found.len());
    for hit in found {
        if let Some(c) = conflicts::insert_detected::<B>(tx, &hit).await? {
            let c = match &hit.resolve {
                Some(req) => policy::apply::<B>(tx, c, req).await?,
                None => c,
            };
            queued.push(c);
        }
    }
    // A policy may have changed the new node (`old_is_current` makes it dormant) or merged
    // it away; the reply shows it as it is now.
    let current = if queued.iter().any(|c| c.status == Status::Resolved) {
        fetch_optional::<B>(tx, node.id).await?
    } else {
        None
    };
    let mut created = current.unwrap_or_else(|| node.to_node());
    created.conflict_ids = queued
        .iter()
        .filter(|c| c.status == Status::Pending)
        .map(|c| c.id)
        .collect();
    Ok((created, queued))
}

/// A batch's node with what detection found for it, in the batch's transaction: in one call
/// where the backend groups a node's write ([`Backend::grouped_node_write`]: one hand-off to
/// SQLite's thread instead of one per statement), else statement by statement.
async fn write_found<B: Backend>(
    tx: &mut B::Tx,
    node: &NewNode,
    tokens: &str,
    embedding: &Option<Vec<u8>>,
    found: Vec<DetectedConflict>,
) -> StoreResult<(Node, Vec<Conflict>)> {
    let held;
    let node = match written_state(node, &found) {
        s if s == node.state => node,
        state => {
            held = NewNode {
                state,
                ..node.clone()
            };
            &held
        }
    };
    let unresolved = found.iter().all(|h| h.resolve.is_none());
    if unresolved
        && embedding.is_none()
        && let Some(write) = B::grouped_node_write(node, tokens, &found)
    {
        let query = sqlx::query(sqlx::AssertSqlSafe(write.sql.into_owned()));
        let rows = (write.bind)(query).all(tx).await?;
        let queued = rows::conflicts::<B::Db>(&rows)?;
        let mut created = node.to_node();
        created.conflict_ids = queued.iter().map(|c| c.id).collect();
        return Ok((created, queued));
    }
    let change = Change::written(node);
    insert::<B>(tx, node, tokens, embedding.as_deref(), &change).await?;
    let olds = found.iter().map(|h| h.conflict.old_node_id).collect();
    lock_olds::<B>(tx, olds, !unresolved).await?;
    queue_found::<B>(tx, node, found).await
}

/// A batch (`POST /nodes/batch`) in one transaction left open for its commit: node by node in
/// input order, its candidates searched in the transaction (so the batch's earlier nodes are
/// among them), judged, and the node written with the conflicts found; then the edges.
pub async fn write_batch<B: Backend>(
    store: &B,
    batch: NewBatch,
    judge: &dyn BatchJudge,
) -> StoreResult<Open<B, BatchWritten>> {
    // Tokenising and encoding happen before the write transaction starts.
    let rows: Vec<_> = batch
        .nodes
        .iter()
        .map(|b| {
            let tokens = index_tokens(&b.node.title, &b.node.body).join(" ");
            let embedding = b.node.embedding.as_deref().map(dn::embedding_to_bytes);
            (tokens, embedding)
        })
        .collect();
    let mut tx = store.write().await?;
    if let Some((i, b)) = (batch.nodes.iter().enumerate()).find(|(_, b)| b.node.embedding.is_some())
    {
        let dim = b.node.embedding.as_ref().map_or(0, Vec::len);
        check_dimension::<B>(&mut tx, dim)
            .await
            .map_err(|e| e.under(&format!("/nodes/{i}")))?;
    }
    let nodes = if judge.overlaps() {
        let mut ranking = store.batch_ranking(&mut tx).await?;
        overlapped(
            store,
            &mut tx,
            batch.nodes,
            &rows,
            judge,
            ranking.as_deref_mut(),
        )
        .await?
    } else {
        let mut nodes = Vec::with_capacity(batch.nodes.len());
        for (b, (tokens, embedding)) in batch.nodes.into_iter().zip(&rows) {
            let candidates = search(store, &mut tx, judge, &b.node, tokens, None).await?;
            // No search: what the judge knows without one (a declared replacement).
            let found = judge.judge(&b.node, candidates.unwrap_or_default()).await?;
            let (node, conflicts) =
                write_found::<B>(&mut tx, &b.node, tokens, embedding, found).await?;
            nodes.push(WrittenNode {
                reference: b.reference,
                node,
                conflicts,
            });
        }
        nodes
    };
    for (j, edge) in batch.edges.iter().enumerate() {
        edges::insert::<B>(&mut tx, edge).await.map_err(|e| {
            e.under(&format!("/edges/{j}"))
                .renamed("/source_id", "/source")
                .renamed("/target_id", "/target")
        })?;
    }
    Ok(Open {
        outcome: BatchWritten {
            nodes,
            edges: batch.edges,
        },
        tx: Uncommitted::write(tx),
    })
}

/// How many nodes a batch's search may run ahead of its judging.
const SEARCH_AHEAD: usize = 64;

/// A batch's nodes written as [`write_batch`] writes them, with the database and the judging
/// at work at the same time: the database searches each node's candidates and writes the node
/// (a search needs the nodes before it written, not their conflicts), up to
/// [`SEARCH_AHEAD`] nodes ahead, while the nodes already searched are judged in order; their
/// conflicts are queued, in node order, once every node is written. Only for a judge whose
/// findings change no node's state ([`BatchJudge::overlaps`]): every search then finds what it
/// would have found after the conflicts before it. With `ranking`, its searches are ranked
/// there, and each node is added to it as it is written.
async fn overlapped<B: Backend>(
    store: &B,
    tx: &mut B::Tx,
    batch: Vec<BatchNode>,
    rows: &[(String, Option<Vec<u8>>)],
    judge: &dyn BatchJudge,
    mut ranking: Option<&mut MemoryPostings>,
) -> StoreResult<Vec<WrittenNode>> {
    let (searched, mut to_judge) = tokio::sync::mpsc::channel(SEARCH_AHEAD);
    let database = async {
        for (b, (tokens, embedding)) in batch.iter().zip(rows) {
            let ranking = ranking.as_deref_mut();
            let candidates = search(store, tx, judge, &b.node, tokens, ranking).await?;
            // Its conflicts come later: written now with none.
            write_found::<B>(tx, &b.node, tokens, embedding, Vec::new()).await?;
            if searched.send(candidates.unwrap_or_default()).await.is_err() {
                break; // judging failed, and says why
            }
        }
        drop(searched);
        StoreResult::Ok(())
    };
    let judging = async {
        let mut found = Vec::with_capacity(batch.len());
        for b in &batch {
            let Some(candidates) = to_judge.recv().await else {
                break; // the database failed, and says why
            };
            found.push(judge.judge(&b.node, candidates).await?);
        }
        StoreResult::Ok(found)
    };
    let ((), found) = tokio::try_join!(database, judging)?;
    let mut nodes = Vec::with_capacity(batch.len());
    for (b, found) in batch.into_iter().zip(found) {
        debug_assert!(
            found.iter().all(|h| h.resolve.is_none() && !h.quarantine),
            "an overlapping judge changes no node's state"
        );
        let olds = found.iter().map(|h| h.conflict.old_node_id).collect();
        lock_olds::<B>(tx, olds, false).await?;
        let (node, conflicts) = queue_found::<B>(tx, &b.node, found).await?;
        nodes.push(WrittenNode {
            reference: b.reference,
            node,
            conflicts,
        });
    }
    Ok(nodes)
}

/// The candidates of `node`'s search in the batch's transaction, when the judge makes one:
/// ranked from the batch's `ranking` when it has one, which then takes the node (whose index
/// tokens are `tokens`), written next.
async fn search<B: Backend>(
    store: &B,
    tx: &mut B::Tx,
    judge: &dyn BatchJudge,
    node: &NewNode,
    tokens: &str,
    ranking: Option<&mut MemoryPostings>,
) -> StoreResult<Option<Vec<Candidate>>> {
    let mut query = judge.query(node);
    if let Some(postings) = ranking {
        if let Some(q) = &mut query {
            postings.rank(q);
        }
        postings.add_new(node.id, &node.scope, tokens);
    }
    match query {
        Some(q) => candidates_in(store, tx, &q).await.map(Some),
        None => Ok(None),
    }
}

pub async fn update<B: Backend>(store: &B, id: Uuid, patch: NodePatch) -> StoreResult<Node> {
    let mut tx = store.write().await?;
    let mut node = fetch::<B>(&mut tx, B::SELECT_NODE_LOCKED, id).await?;
    if !patch.apply(&mut node, time::now()) {
        let mut nodes = vec![node];
        attach_conflict_ids::<B>(&mut tx, &mut nodes).await?;
        B::commit(tx).await?;
        return Ok(nodes.remove(0));
    }
    let tokens = index_tokens(&node.title, &node.body).join(" ");
    B::query(
        "update nodes set title = $2, body = $3, labels = $4, confidence = $5, state = $6, \
         source = $7, scope = $8, observed_at = $9, updated_at = $10, search_tokens = $11, \
         changed_by = $12, changed_key = $13, changed_in = null where node_id = $1",
    )
    .arg(Id(id))
    .arg(&node.title)
    .arg(&node.body)
    .arg(Json(&node.labels))
    .arg(node.confidence)
    .arg(node.state.as_str())
    .arg(&node.source)
    .arg(&node.scope)
    .arg(Ts(node.observed_at))
    .arg(Ts(node.updated_at))
    .arg(tokens)
    .arg(&patch.changed_by)
    .arg(&patch.changed_key)
    .run(&mut tx)
    .await?;
    let mut nodes = vec![node];
    attach_conflict_ids::<B>(&mut tx, &mut nodes).await?;
    B::commit(tx).await?;
    Ok(nodes.remove(0))
}

pub async fn delete<B: Backend>(
    store: &B,
    id: Uuid,
    by: Option<&str>,
    key: Option<&str>,
) -> StoreResult<()> {
    let mut tx = store.write().await?;
    let change = Change {
        by: by.map(str::to_owned),
        key: key.map(str::to_owned),
        conflict: None,
    };
    delete_in::<B>(&mut tx, id, &change).await?;
    B::commit(tx).await?;
    Ok(())
}
