//! Persistence port: one `Store` trait, implemented once for both databases. One method is
//! one unit of work and at most one transaction. Inputs and outputs are domain types; no sqlx
//! type crosses the trait, so the API layer never knows which database it talks to.
//!
//! # One store, two dialects
//!
//! The store is written once, as plain generic functions (`units::nodes::create`,
//! `units::resolution::resolve`, `check::check`, …) over a small trait, [`backend::Backend`],
//! which `SqliteStore` and `PgStore` implement (why this shape: `docs/store-history.md`). How
//! it works:
//!
//! - **Same encoding on both backends.** Ids, timestamps and lists are bound and read through
//!   the wrappers of [`backend`] (`Id`, `Ts`, `Ids`, `Texts`) and JSON through sqlx's `Json`,
//!   so a bind chain or a row mapping is the same code for SQLite (text columns) and
//!   PostgreSQL (`uuid`, `timestamptz`, `jsonb`, arrays). Queries read
//!   `B::query(SQL).arg(Id(id)).run(conn)` and rows `Cols::new(&row).id("node_id")`.
//! - **SQL written once** wherever both dialects accept it, which is nearly everywhere.
//! - **Only real differences per backend**, in `sqlite/` and `postgres/`: how a write
//!   transaction starts and what it locks (`BEGIN IMMEDIATE` behind a writer queue vs row
//!   locks, advisory locks and deadlock retries), full-text search and its token statistics,
//!   LISTEN/NOTIFY, and statements whose syntax differs (`returning`, arrays vs `json_each`,
//!   `for update`), as the constants and step functions of `Backend`. Each backend folder reads
//!   as "how this database differs".
//!
//! # Lock order
//!
//! Every unit of work that writes takes its locks in one order, so that two of them can wait
//! for each other but never in a cycle (a deadlock, which PostgreSQL breaks by aborting one).
//! SQLite has one writer at a time and needs none of this; on PostgreSQL:
//!
//! 1. the advisory lock `concord.embedding_dim` (a node written with an embedding);
//! 2. nodes, in node id order, all of them before anything below: `for update` to change or
//!    delete a node (`lock_for_resolution` locks both sides of the conflict, a PATCH or a
//!    delete its node), `for key share` to add a row referring to one (`share_nodes`: an edge's
//!    two endpoints, a conflict's sides, every old node a write's detected conflicts name;
//!    `for update` instead when a resolution policy will resolve them in that same write);
//! 3. conflict rows (a resolution's own row, after its nodes; those a delete removes or
//!    rewrites, after the node);
//! 4. the rows those changes touch: edges, `node_labels`, `sources`;
//! 5. the advisory lock `concord.conflict_seq`, taken last, right before a conflict or an
//!    event is inserted;
//! 6. the request's idempotency key row, updated with its response just before commit.
//!
//! A resolution reads its conflict's node ids unlocked, locks those nodes, and only then the
//! conflict row: a conflict never gains a node id later, so the locks cover it.
//! `tests/api/races.rs` races the pairs that deadlocked before this order (listed in
//! `docs/store-history.md`) with the deadlock retries off.
//!
//! # Two floors
//!
//! - **Table helpers** (below): `nodes`, `edges`, `conflicts`, `history`, `pre_image` insert,
//!   fetch and delete rows of their table inside a caller's transaction; `locks` takes node
//!   locks in the order above; `rows` maps each row type to its domain type, once; `sql` holds
//!   the column lists and the JSON dialect; `backend` the trait both databases implement;
//!   `keys` holds the API keys, one statement per call, outside any unit of work.
//! - **Units of work** (above, `units/`): node, edge and conflict writes, a resolution
//!   (executing `domain::plan` step by step), a policy's resolution inside a write, and a
//!   revert (`domain::revert`). Each is one transaction; they call the floor below and each
//!   other, never the reverse. Reads (`get`, `list`, `wake`, `check`) are single statements
//!   or read-only and sit with their table.
//!
//! The `Store` impl below is the door: it wraps each write in [`unit_of_work`] (deadlock
//! retries, write health). `scripts/check-layers` fails on a cycle between files here.

mod audit;
pub mod backend;
pub mod batch_ranking;
pub mod check;
mod conflicts;
mod edges;
mod error;
pub mod failpoints;
mod health;
mod history;
mod idempotency;
mod keys;
pub mod location;
mod locks;
mod nodes;
pub mod notify;
pub mod postgres;
mod pre_image;
pub(crate) mod restatements;
mod rows;
pub(crate) mod sql;
pub mod sqlite;
mod sweeps;
mod units;
mod versions;
mod wake;

use std::sync::Arc;

use async_trait::async_trait;
use backend::{Backend, QueryExt};
use uuid::Uuid;

use crate::domain::api_key::{ApiKey, KeyDigest, NewApiKey};
use crate::domain::audit::{AuditEntry, AuditQuery};
use crate::domain::batch::{BatchWritten, NewBatch};
use crate::domain::conflict::{Conflict, ConflictFilter, ConflictStats, NewConflict};
use crate::domain::cursor::{Cursor, Page};
use crate::domain::edge::{Direction, Edge};
use crate::domain::history::HistoryEntry;
use crate::domain::node::{NewNode, Node, NodePatch, NodeState};
use crate::domain::plan::Resolve;
use crate::domain::resolution::Resolution;
use crate::domain::revert::{Revert, Reverted};
use crate::domain::sweep::{NewSweep, Sweep, SweepFilter, SweepStatus};
use crate::domain::time::Timestamp;
use crate::domain::valid_time::PointInTime;
use crate::domain::version::NodeVersion;

pub use error::{Failure, Refusal, StoreError};
pub use health::WriteHealth;

pub type StoreResult<T> = Result<T, StoreError>;

/// `GET /nodes` filters.
#[derive(Debug, Clone, Default)]
pub struct NodeQuery {
    /// Full-text query, already tokenised by concord's tokenizer (AND of all tokens).
    pub tokens: Option<Vec<String>>,
    pub label: Option<String>,
    pub memory_type: Option<String>,
    pub state: Option<NodeState>,
    pub limit: usize,
    pub after: Option<Cursor>,
    /// The caller's scope patterns (`Caller::visible`); every scope when `None`.
    pub scopes: Option<String>,
}

/// `GET /nodes` at a point in time: the memories that held then, as concord knew them.
#[derive(Debug, Clone)]
pub struct KnownQuery {
    pub at: PointInTime,
    pub label: Option<String>,
    pub memory_type: Option<String>,
    /// The state the known version must have; any when absent.
    pub state: Option<NodeState>,
    pub limit: usize,
    /// The last memory of the previous page.
    pub after: Option<Uuid>,
    /// The caller's scope patterns (`Caller::visible`); every scope when `None`.
    pub scopes: Option<String>,
}

/// `GET /nodes/{id}/edges` filters.
#[derive(Debug, Clone, Default)]
pub struct EdgeQuery {
    pub direction: Direction,
    pub kind: Option<String>,
    pub limit: usize,
    pub after: Option<Cursor>,
    /// The caller's scope patterns (`Caller::visible`): only edges whose other end is in its
    /// scopes; every edge when `None`.
    pub scopes: Option<String>,
}

/// Where an `Idempotency-Key` stands when a request arrives.
#[derive(Debug, Clone, PartialEq)]
pub enum IdempotencyBegin {
    /// First use: the caller runs the request and then finishes or abandons the key.
    Started,
    /// Same key, same request, already answered.
    Replay(StoredResponse),
    /// Same key, another request.
    Mismatch,
    /// Same key while the first request is still running.
    InFlight,
}

/// A response kept for replay.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredResponse {
    pub status: u16,
    pub body: Vec<u8>,
    pub content_type: Option<String>,
    pub location: Option<String>,
}

/// A keyed request's reply, to store for its key in the transaction of its effect.
#[derive(Debug, Clone)]
pub struct KeyedReply<'a> {
    pub scope: &'a str,
    pub key: &'a str,
    pub response: StoredResponse,
}

/// A keyed write done in its transaction and not yet committed (the `*_keyed` methods of
/// [`Store`]): the caller makes the reply from [`Pending::outcome`] and commits both at once
/// with [`Pending::commit`], so no moment exists where the effect is committed and its key
/// still looks unanswered. Dropped, it rolls back.
pub struct Pending<'a, T> {
    outcome: T,
    tx: Box<dyn Finish + 'a>,
}

impl<T> Pending<'_, T> {
    pub fn outcome(&self) -> &T {
        &self.outcome
    }

    /// Stores `reply` for its key and commits it with the effect. The flag is false when the
    /// write only read (a replayed resolution or revert): nothing was committed, and the reply
    /// is for the caller to keep ([`Store::idempotency_finish`]).
    pub async fn commit(self, reply: KeyedReply<'_>) -> StoreResult<(T, bool)> {
        let kept = self.tx.finish(reply).await?;
        Ok((self.outcome, kept))
    }
}

/// The commit a [`Pending`] write is waiting for.
#[async_trait]
trait Finish: Send {
    async fn finish(self: Box<Self>, reply: KeyedReply<'_>) -> StoreResult<bool>;
}

/// What detection needs to know of a stored node.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub node: Node,
    pub embedding: Option<Vec<f32>>,
    /// Whether a verdict exists already (a conflict, `supersedes` or `relates_to` edge).
    pub remembered: bool,
}

/// The candidate search of detection: active nodes of one scope and memory type.
#[derive(Debug, Clone)]
pub struct CandidateQuery {
    pub exclude: Option<Uuid>,
    pub scope: String,
    pub memory_type: String,
    /// Index tokens of the new text: any of them matching makes a candidate.
    pub tokens: Vec<String>,
    /// Numbers among the index tokens that name the subject ("3" in "service 3"): looked up
    /// like words.
    pub names: Vec<String>,
    /// Labels of the new node: with an embedding, sharing one makes a candidate too.
    pub labels: Vec<String>,
    pub with_embedding: bool,
    pub limit: usize,
    /// How many of the scope's newest active nodes of the type are candidates as well, found
    /// or not by the tokens (0: none).
    pub newest: usize,
    /// Only nodes stored before this one (node id order; postings order on SQLite): a sweep
    /// compares a stored memory with what a write of it would have found. `None` for writes.
    /// A sweep's search need not say which candidates are remembered: with `hits` given, and
    /// in the label and newest searches, [`Candidate::remembered`] is false, and the sweep
    /// asks [`Store::remembered_among`] about the few pairs it finds contradicting (probing
    /// every candidate cost more).
    pub before: Option<Uuid>,
    /// How many stored memories hold each token, when the caller knows better than the
    /// index's statistics: a sweep counts those stored before the memory it compares, as the
    /// statistics stood when that memory was written. `None`: the index's statistics.
    pub docs: Option<Vec<(String, i64)>>,
    /// The index's hits, best first, when the caller ranked them itself (a sweep keeps the
    /// postings of the memories it has passed, `retrieval::Postings`): the store then reads
    /// the candidates among these nodes instead of searching its index (`remembered` false,
    /// as `before` says). A batch's searches are ranked so too where the store keeps their
    /// postings in memory (`Backend::batch_ranking`): a batch's node is new, so no verdict
    /// names it yet, and `remembered` is false there anyway. `None`: the store searches.
    pub hits: Option<Hits>,
}

/// Hits a caller ranked itself ([`CandidateQuery::hits`]), best first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hits {
    /// Node ids: a sweep's hits where the backend has no keys of its own (PostgreSQL).
    Ids(Vec<Uuid>),
    /// The backend's own keys of the nodes (SQLite's rowids), from postings it keeps itself
    /// (`Backend::batch_ranking`) or a sweep's, which read them with the nodes' tokens
    /// ([`PassedNode::key`]): each is read straight from the table, not looked up through the
    /// index of node ids first.
    Keys(Vec<i64>),
}

/// Detection as a batch's transaction asks for it, node by node: the store searches the
/// candidates in the transaction, the judge (detection, outside the store) says what they
/// contradict. Its conflicts are written before the next node is searched for.
#[async_trait]
pub trait BatchJudge: Send + Sync {
    /// The candidate search for `node`; `None` when none is to be made (the judge is then
    /// asked with no candidates).
    fn query(&self, node: &NewNode) -> Option<CandidateQuery>;
    /// Whether a node may be judged while the next node's candidates are searched: only where
    /// nothing judging finds changes a node's state (no policy resolves or quarantines), so
    /// the next search finds the same whenever the conflicts are written.
    fn overlaps(&self) -> bool {
        false
    }
    /// The conflicts `node` makes with `candidates`, to be written with it.
    async fn judge(
        &self,
        node: &NewNode,
        candidates: Vec<Candidate>,
    ) -> StoreResult<Vec<DetectedConflict>>;
}

/// A detected contradiction to be written with the new node.
#[derive(Debug, Clone)]
pub struct DetectedConflict {
    pub conflict: NewConflict,
    pub edge: Edge,
    /// The resolution a policy decided on, run right after the conflict is queued, in the
    /// same transaction.
    pub resolve: Option<crate::domain::plan::Resolve>,
    /// A policy holds the new memory back: it is written (or, in a sweep, set) `quarantined`
    /// and this conflict waits for a reviewer.
    pub quarantine: bool,
}

/// The state a new node is written in: `quarantined` when a policy held it back on any of the
/// conflicts found for it, else the one it asked for.
pub fn written_state(node: &NewNode, found: &[DetectedConflict]) -> NodeState {
    if found.iter().any(|h| h.quarantine) {
        NodeState::Quarantined
    } else {
        node.state
    }
}

impl DetectedConflict {
    /// Names the key of the write that found it, as the conflict's first history entry and a
    /// policy's resolution of it record.
    pub fn queued_by(&mut self, key: Option<&str>) {
        self.conflict.key = key.map(str::to_owned);
        if let Some(r) = &mut self.resolve {
            r.key = key.map(str::to_owned);
        }
    }
}

/// A node a sweep passes ([`Store::tokens_between`]).
#[derive(Debug, Clone)]
pub struct PassedNode {
    pub id: Uuid,
    /// The backend's own key of the node's row, when it has one (SQLite's rowid): the
    /// candidates among a sweep's hits are read by it ([`Hits::Keys`]).
    pub key: Option<i64>,
    pub scope: String,
    /// Its `search_tokens`: distinct index tokens separated by spaces.
    pub tokens: String,
}

/// One stretch of a sweep: the memories it compared up to `checkpoint` (`compared` of
/// them) and the conflicts found for each, recorded together by [`Store::record_sweep`].
#[derive(Debug, Clone)]
pub struct SweepChunk {
    pub sweep: Uuid,
    /// Who runs it: the record is refused unless its lease is still theirs.
    pub owner: String,
    pub checkpoint: Uuid,
    pub compared: i64,
    /// Each compared memory's id with what detection found for it (none for most).
    pub found: Vec<(Uuid, Vec<DetectedConflict>)>,
    /// The lease renewed to this time.
    pub lease_until: Timestamp,
    pub at: Timestamp,
    /// Whether to put a `sweep.progress` event on the stream.
    pub progress_event: bool,
}

/// Per-source verdict counters.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceStats {
    /// The scope the counters were learned in; `GET /sources` sums the caller's scopes and
    /// leaves it empty.
    pub scope: String,
    pub source: String,
    pub upheld: i64,
    pub contradicted: i64,
    pub nodes: i64,
}

/// Pending conflicts after a wake cursor.
#[derive(Debug, Clone)]
pub struct WakeBatch {
    /// Oldest first (by `seq`), both nodes in full.
    pub conflicts: Vec<Conflict>,
    /// Pending conflicts after the cursor beyond those returned.
    pub more: i64,
    /// All pending conflicts.
    pub pending_total: i64,
}

impl WakeBatch {
    /// `pending_after` counts every pending conflict after the cursor, returned ones included.
    pub fn new(conflicts: Vec<Conflict>, pending_after: i64, pending_total: i64) -> Self {
        Self {
            more: (pending_after - conflicts.len() as i64).max(0),
            pending_total,
            conflicts,
        }
    }
}

/// A change to the conflict queue, as the SSE stream reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub id: i64,
    /// `conflict.created`, `conflict.resolved` or `conflict.reverted`; `sweep.started`,
    /// `sweep.progress`, `sweep.done`, `sweep.cancelled` or `sweep.failed`.
    pub kind: String,
    /// The event's subject: the conflict, or the sweep for `sweep.*` events.
    pub conflict_id: Uuid,
    pub created_at: Timestamp,
}

/// A stored conflict report.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredReport {
    pub id: Uuid,
    pub topic: String,
    pub report: serde_json::Value,
    pub created_at: Timestamp,
    /// The scopes of the memories it drew on, one per line; with none, the scope patterns of
    /// the key that asked for it. Who holds them all sees the report.
    pub scopes: Option<String>,
}

/// One broken invariant found by [`Store::check`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Stable name of the invariant, e.g. `edge_endpoint_missing`.
    pub invariant: &'static str,
    /// The offending row, in words.
    pub detail: String,
}

#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// `sqlite` or `postgres`.
    fn backend(&self) -> &'static str;
    async fn ping(&self) -> StoreResult<()>;
    /// Reachable, and able to write: while the last write failed for a full disk, a probe
    /// write must succeed (`/readyz`).
    async fn ready(&self) -> StoreResult<()>;

    async fn create_node(
        &self,
        node: NewNode,
        found: Vec<DetectedConflict>,
    ) -> StoreResult<(Node, Vec<Conflict>)>;
    /// [`Store::create_node`] for a keyed request: its reply commits with it ([`Pending`]).
    async fn create_node_keyed<'a>(
        &'a self,
        node: NewNode,
        found: Vec<DetectedConflict>,
    ) -> StoreResult<Pending<'a, (Node, Vec<Conflict>)>>;
    /// Writes many nodes in one transaction, without detection (as `POST /nodes?detect=false`
    /// writes each): every node's search tokens, and so its postings, labels and full-text
    /// rows, exactly as [`Store::create_node`] keeps them. For imports and preloads, where a
    /// transaction per node would cost most of the time; all are written or none.
    async fn create_nodes(&self, nodes: Vec<NewNode>) -> StoreResult<()>;
    /// A batch (`POST /nodes/batch`) in one transaction, all of it or none: each node in
    /// input order with what `judge` finds among the candidates searched in that transaction
    /// (so the batch's earlier nodes are found as they would be by a later write), then the
    /// edges.
    async fn create_batch(
        &self,
        batch: NewBatch,
        judge: &dyn BatchJudge,
    ) -> StoreResult<BatchWritten>;
    /// [`Store::create_batch`] for a keyed request: its reply commits with it ([`Pending`]).
    async fn create_batch_keyed<'a>(
        &'a self,
        batch: NewBatch,
        judge: &'a dyn BatchJudge,
    ) -> StoreResult<Pending<'a, BatchWritten>>;
    async fn get_node(&self, id: Uuid) -> StoreResult<Node>;
    async fn get_node_with_embedding(&self, id: Uuid) -> StoreResult<(Node, Option<Vec<f32>>)>;
    async fn update_node(&self, id: Uuid, patch: NodePatch) -> StoreResult<Node>;
    /// Deletes a node; `by` is who did and `key` their key (what its tombstone version records).
    async fn delete_node(&self, id: Uuid, by: Option<&str>, key: Option<&str>) -> StoreResult<()>;
    async fn list_nodes(&self, query: NodeQuery) -> StoreResult<Page<Node>>;
    /// Dimension every embedding in the store has, if any is stored.
    /// The active memories of `scope` whose title is `title` but for case (at most 100):
    /// where a restatement of a stored memory is looked for.
    async fn same_title(&self, scope: &str, title: &str) -> StoreResult<Vec<Node>>;
    /// Records `source` (when given) as corroborating `node`, once per source; every source
    /// that did, oldest first.
    async fn corroborate(
        &self,
        node: Uuid,
        source: Option<&str>,
        key: Option<&str>,
        at: Timestamp,
    ) -> StoreResult<Vec<String>>;
    async fn embedding_dim(&self) -> StoreResult<Option<usize>>;

    async fn create_edge(&self, edge: Edge) -> StoreResult<Edge>;
    /// [`Store::create_edge`] for a keyed request: its reply commits with it ([`Pending`]).
    async fn create_edge_keyed<'a>(&'a self, edge: Edge) -> StoreResult<Pending<'a, Edge>>;
    async fn list_edges(&self, node_id: Uuid, query: EdgeQuery) -> StoreResult<Page<Edge>>;

    async fn candidates(&self, query: CandidateQuery) -> StoreResult<Vec<Candidate>>;
    /// Those of `others` that have a verdict with `node` already (a conflict of the pair,
    /// whatever its status, or a `supersedes` or `relates_to` edge): what
    /// [`Candidate::remembered`] says of a candidate, asked after the search.
    async fn remembered_among(&self, node: Uuid, others: &[Uuid]) -> StoreResult<Vec<Uuid>>;

    /// Queues a conflict; returns the existing pending one (and `false`) for a known pair.
    async fn queue_conflict(&self, conflict: NewConflict) -> StoreResult<(Conflict, bool)>;
    /// [`Store::queue_conflict`] for a keyed request: its reply commits with it ([`Pending`]).
    async fn queue_conflict_keyed<'a>(
        &'a self,
        conflict: NewConflict,
    ) -> StoreResult<Pending<'a, (Conflict, bool)>>;
    async fn get_conflict(&self, id: Uuid) -> StoreResult<Conflict>;
    /// Every version of a node, oldest first (a deleted node's too); `NotFound` when it
    /// never existed.
    async fn node_versions(&self, id: Uuid) -> StoreResult<Vec<NodeVersion>>;
    /// The memories that held at `q.at.valid` as known at `q.at.known` (each as its version
    /// then, `updated_at` being when it was recorded), newest memory first.
    async fn list_known(&self, q: KnownQuery) -> StoreResult<Page<Node>>;
    /// Every conflict with `node` on either side, whatever its status, oldest first.
    async fn conflicts_of_node(&self, node: Uuid) -> StoreResult<Vec<Conflict>>;
    async fn list_conflicts(&self, filter: ConflictFilter) -> StoreResult<(Page<Conflict>, i64)>;
    /// The queue's counters over the conflicts of `scopes` (`Caller::visible`).
    async fn conflict_stats(&self, scopes: Option<&str>) -> StoreResult<ConflictStats>;
    async fn resolve_conflict(&self, request: Resolve) -> StoreResult<Resolution>;
    /// [`Store::resolve_conflict`] for a keyed request: its reply commits with it ([`Pending`]).
    async fn resolve_conflict_keyed<'a>(
        &'a self,
        request: Resolve,
    ) -> StoreResult<Pending<'a, Resolution>>;
    /// Undoes a conflict's resolution; a retry replays the stored reply.
    async fn revert_conflict(&self, request: Revert) -> StoreResult<Reverted>;
    /// [`Store::revert_conflict`] for a keyed request: its reply commits with it ([`Pending`]).
    async fn revert_conflict_keyed<'a>(
        &'a self,
        request: Revert,
    ) -> StoreResult<Pending<'a, Reverted>>;
    /// Every change of a conflict, oldest first.
    async fn conflict_history(&self, id: Uuid) -> StoreResult<Vec<HistoryEntry>>;

    async fn list_sources(&self, scopes: Option<&str>) -> StoreResult<Vec<SourceStats>>;
    /// Sources with at least one verdict, without node counts: cheap enough for every write.
    async fn source_verdicts(&self) -> StoreResult<Vec<SourceStats>>;
    async fn save_report(&self, report: StoredReport) -> StoreResult<()>;
    async fn list_reports(
        &self,
        limit: usize,
        after: Option<Cursor>,
        scopes: Option<&str>,
    ) -> StoreResult<Page<StoredReport>>;

    /// Pending conflicts with `seq > after`, oldest first, at most `max`.
    async fn wake_batch(
        &self,
        after: i64,
        max: usize,
        scopes: Option<&str>,
    ) -> StoreResult<WakeBatch>;
    /// Events with an id above `after`, oldest first, at most `limit`.
    async fn events_after(
        &self,
        after: i64,
        limit: usize,
        scopes: Option<&str>,
    ) -> StoreResult<Vec<Event>>;
    /// Delivers commits made by other processes to `notifier` from now on (PostgreSQL
    /// LISTEN/NOTIFY). SQLite has no such channel: one process serves one database file.
    async fn listen(&self, notifier: std::sync::Arc<notify::Notifier>) -> StoreResult<()>;

    async fn idempotency_begin(
        &self,
        scope: &str,
        key: &str,
        fingerprint: &str,
    ) -> StoreResult<IdempotencyBegin>;
    async fn idempotency_finish(
        &self,
        scope: &str,
        key: &str,
        response: StoredResponse,
    ) -> StoreResult<()>;
    async fn idempotency_abandon(&self, scope: &str, key: &str) -> StoreResult<()>;

    /// Stores a new API key; false when its name is taken (a revoked key's too).
    async fn create_key(&self, key: NewApiKey) -> StoreResult<bool>;
    /// Every API key, revoked ones included, by name.
    async fn list_keys(&self) -> StoreResult<Vec<ApiKey>>;
    /// Who did what, newest first: `limit + 1` entries of the audit after `q.after`.
    async fn audit(&self, q: &AuditQuery) -> StoreResult<Vec<AuditEntry>>;
    /// The API key with this digest, revoked or not.
    async fn key_by_digest(&self, digest: KeyDigest) -> StoreResult<Option<ApiKey>>;
    /// Revokes the named key (`NotFound("key")` when there is none), recording the admin key
    /// that does; revoking twice keeps the first time.
    async fn revoke_key(&self, name: &str, by_key: Option<&str>) -> StoreResult<ApiKey>;
    /// Whether any API key was ever stored: then every request needs a key.
    async fn keys_exist(&self) -> StoreResult<bool>;
    /// Records a use of the named key at `at` (never moving it back).
    async fn touch_key(&self, name: &str, at: Timestamp) -> StoreResult<()>;

    /// Verifies the database's invariants (`concord check`); an empty list means clean.
    async fn check(&self) -> StoreResult<Vec<Violation>>;

    /// The newest node id and how many active memories up to it `filter` names.
    async fn sweep_extent(&self, filter: &SweepFilter) -> StoreResult<(Option<Uuid>, i64)>;
    /// Stores a running sweep; false when one runs already.
    async fn start_sweep(&self, sweep: &NewSweep) -> StoreResult<bool>;
    async fn get_sweep(&self, id: Uuid) -> StoreResult<Sweep>;
    /// The running sweep, if any.
    async fn running_sweep(&self) -> StoreResult<Option<Sweep>>;
    /// The newest sweeps, at most `limit`.
    async fn list_sweeps(&self, limit: usize, scopes: Option<&str>) -> StoreResult<Vec<Sweep>>;
    /// Takes the running sweep for `owner` until `until`, when its lease is free, expired or
    /// `owner`'s already, or whatever its lease when `take_over` says its holder is gone.
    async fn claim_sweep(
        &self,
        owner: &str,
        now: Timestamp,
        until: Timestamp,
        take_over: bool,
    ) -> StoreResult<Option<Sweep>>;
    /// The row key, scope and index tokens (`search_tokens`) of every node with an id after
    /// `after` up to `to` (any scope or state), in id order: a sweep counts them as it passes
    /// them, to search with the detection statistics of each scope as they stood when each
    /// memory was written.
    async fn tokens_between(&self, after: Uuid, to: Uuid) -> StoreResult<Vec<PassedNode>>;
    /// The next `limit` memories sweep `s` compares after `after`, with their embeddings.
    async fn sweep_page(
        &self,
        s: &Sweep,
        after: Option<Uuid>,
        limit: usize,
    ) -> StoreResult<Vec<(Node, Option<Vec<f32>>)>>;
    /// Queues a stretch's conflicts with its checkpoint; `None` when the sweep is no longer
    /// the chunk owner's (cancelled or taken over), and then nothing is written.
    async fn record_sweep(&self, chunk: &SweepChunk) -> StoreResult<Option<Sweep>>;
    /// Ends a running sweep as `status` (a runner's `done`/`failed` only while it holds the
    /// lease); the sweep as it stands, unchanged when it had ended.
    async fn finish_sweep(
        &self,
        id: Uuid,
        status: SweepStatus,
        owner: Option<&str>,
        error: Option<&str>,
    ) -> StoreResult<Sweep>;
}

/// Whether the database aborted the transaction to break a deadlock (40P01) or a serialization
/// conflict (40001): the whole unit of work rolled back and can simply run again.
fn is_retryable(e: &StoreError) -> bool {
    match e {
        StoreError::Busy(sqlx::Error::Database(d))
        | StoreError::Failed(Failure::Backend(sqlx::Error::Database(d))) => {
            matches!(d.code().as_deref(), Some("40P01" | "40001"))
        }
        StoreError::Failed(Failure::Resolution { cause, .. })
        | StoreError::Failed(Failure::Revert { cause, .. }) => is_retryable(cause),
        _ => false,
    }
}

/// Runs a unit of work again, up to [`Backend::deadlock_retries`] times, when PostgreSQL
/// aborted it to break a deadlock or a serialization conflict; after that the request is 503
/// `busy`. With the lock order of this module no two units of work wait for each other in a
/// cycle, so this is a second line of defence (for lock waits the order cannot see, such as a
/// foreign-key check or an index page), not the way races are settled. Every retried method is
/// one transaction, and its retry sees the other's committed result.
async fn retry_deadlocks<T, F, Fut>(retries: usize, mut work: F) -> StoreResult<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = StoreResult<T>>,
{
    let mut attempt = 0;
    loop {
        match work().await {
            Err(e) if attempt < retries && is_retryable(&e) => attempt += 1,
            other => return other,
        }
    }
}

/// A write: retried when it lost a deadlock, and its outcome recorded as the write path's
/// health (a full disk makes `/readyz` probe until a write succeeds).
async fn unit_of_work<B: Backend, T, F, Fut>(store: &B, work: F) -> StoreResult<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = StoreResult<T>>,
{
    let result = retry_deadlocks(store.deadlock_retries(), work).await;
    store.health().record(&result);
    result
}

/// A unit of work committed on its own.
async fn committed<B: Backend, T>(
    open: impl std::future::Future<Output = StoreResult<units::Open<B, T>>>,
) -> StoreResult<T> {
    open.await?.commit().await
}

/// A keyed write: retried as [`unit_of_work`] retries, up to its commit, which waits for the
/// reply ([`Pending`]); the write path's health is recorded when it fails or commits.
async fn keyed_unit<'a, B: Backend, T, F, Fut>(store: &'a B, work: F) -> StoreResult<Pending<'a, T>>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = StoreResult<units::Open<B, T>>>,
{
    let open = retry_deadlocks(store.deadlock_retries(), work).await;
    if open.is_err() {
        store.health().record(&open);
    }
    let units::Open { outcome, tx } = open?;
    Ok(Pending {
        outcome,
        tx: Box::new(Keyed { store, tx }),
    })
}

/// A keyed write's open transaction, with the store whose write health its commit records.
struct Keyed<'a, B: Backend> {
    store: &'a B,
    tx: units::Uncommitted<B>,
}

#[async_trait]
impl<B: Backend> Finish for Keyed<'_, B> {
    async fn finish(self: Box<Self>, reply: KeyedReply<'_>) -> StoreResult<bool> {
        let result = self.tx.commit(Some(reply)).await;
        self.store.health().record(&result);
        result
    }
}

#[async_trait]
impl<B: Backend> Store for B {
    fn backend(&self) -> &'static str {
        B::NAME
    }

    async fn ping(&self) -> StoreResult<()> {
        let mut conn = self.pool().acquire().await?;
        B::query("select 1").run(&mut conn).await?;
        Ok(())
    }

    async fn ready(&self) -> StoreResult<()> {
        self.ping().await?;
        health::probe_if_failing(self).await
    }

    async fn create_node(
        &self,
        node: NewNode,
        found: Vec<DetectedConflict>,
    ) -> StoreResult<(Node, Vec<Conflict>)> {
        unit_of_work(self, || {
            units::nodes::create(self, node.clone(), found.clone())
        })
        .await
    }

    async fn create_node_keyed<'a>(
        &'a self,
        node: NewNode,
        found: Vec<DetectedConflict>,
    ) -> StoreResult<Pending<'a, (Node, Vec<Conflict>)>> {
        keyed_unit(self, || {
            units::nodes::write(self, node.clone(), found.clone())
        })
        .await
    }

    async fn create_nodes(&self, nodes: Vec<NewNode>) -> StoreResult<()> {
        unit_of_work(self, || units::nodes::create_many(self, &nodes)).await
    }

    async fn create_batch(
        &self,
        batch: NewBatch,
        judge: &dyn BatchJudge,
    ) -> StoreResult<BatchWritten> {
        unit_of_work(self, || {
            committed(units::nodes::write_batch(self, batch.clone(), judge))
        })
        .await
    }

    async fn create_batch_keyed<'a>(
        &'a self,
        batch: NewBatch,
        judge: &'a dyn BatchJudge,
    ) -> StoreResult<Pending<'a, BatchWritten>> {
        keyed_unit(self, || {
            units::nodes::write_batch(self, batch.clone(), judge)
        })
        .await
    }

    async fn get_node(&self, id: Uuid) -> StoreResult<Node> {
        nodes::get(self, id).await
    }

    async fn get_node_with_embedding(&self, id: Uuid) -> StoreResult<(Node, Option<Vec<f32>>)> {
        nodes::get_with_embedding(self, id).await
    }

    async fn update_node(&self, id: Uuid, patch: NodePatch) -> StoreResult<Node> {
        unit_of_work(self, || units::nodes::update(self, id, patch.clone())).await
    }

    async fn delete_node(&self, id: Uuid, by: Option<&str>, key: Option<&str>) -> StoreResult<()> {
        unit_of_work(self, || units::nodes::delete(self, id, by, key)).await
    }

    async fn list_nodes(&self, query: NodeQuery) -> StoreResult<Page<Node>> {
        nodes::list(self, query).await
    }

    async fn same_title(&self, scope: &str, title: &str) -> StoreResult<Vec<Node>> {
        restatements::same_title(self, scope, title).await
    }

    async fn corroborate(
        &self,
        node: Uuid,
        source: Option<&str>,
        key: Option<&str>,
        at: Timestamp,
    ) -> StoreResult<Vec<String>> {
        restatements::corroborate(self, node, source, key, at).await
    }

    async fn embedding_dim(&self) -> StoreResult<Option<usize>> {
        nodes::embedding_dim(self).await
    }

    async fn create_edge(&self, edge: Edge) -> StoreResult<Edge> {
        unit_of_work(self, || committed(units::edges::create(self, edge.clone()))).await
    }

    async fn create_edge_keyed<'a>(&'a self, edge: Edge) -> StoreResult<Pending<'a, Edge>> {
        keyed_unit(self, || units::edges::create(self, edge.clone())).await
    }

    async fn list_edges(&self, node_id: Uuid, query: EdgeQuery) -> StoreResult<Page<Edge>> {
        edges::list(self, node_id, query).await
    }

    async fn candidates(&self, query: CandidateQuery) -> StoreResult<Vec<Candidate>> {
        nodes::candidates(self, query).await
    }

    async fn remembered_among(&self, node: Uuid, others: &[Uuid]) -> StoreResult<Vec<Uuid>> {
        nodes::remembered_among(self, node, others).await
    }

    async fn queue_conflict(&self, conflict: NewConflict) -> StoreResult<(Conflict, bool)> {
        unit_of_work(self, || {
            committed(units::conflicts::queue(self, conflict.clone()))
        })
        .await
    }

    async fn queue_conflict_keyed<'a>(
        &'a self,
        conflict: NewConflict,
    ) -> StoreResult<Pending<'a, (Conflict, bool)>> {
        keyed_unit(self, || units::conflicts::queue(self, conflict.clone())).await
    }

    async fn get_conflict(&self, id: Uuid) -> StoreResult<Conflict> {
        conflicts::get(self, id).await
    }

    async fn node_versions(&self, id: Uuid) -> StoreResult<Vec<NodeVersion>> {
        versions::list(self, id).await
    }

    async fn list_known(&self, q: KnownQuery) -> StoreResult<Page<Node>> {
        versions::list_known(self, q).await
    }

    async fn conflicts_of_node(&self, node: Uuid) -> StoreResult<Vec<Conflict>> {
        conflicts::of_node(self, node).await
    }

    async fn list_conflicts(&self, filter: ConflictFilter) -> StoreResult<(Page<Conflict>, i64)> {
        conflicts::list(self, filter).await
    }

    async fn conflict_stats(&self, scopes: Option<&str>) -> StoreResult<ConflictStats> {
        conflicts::stats(self, scopes).await
    }

    async fn resolve_conflict(&self, request: Resolve) -> StoreResult<Resolution> {
        unit_of_work(self, || {
            committed(units::resolution::resolve(self, request.clone()))
        })
        .await
    }

    async fn resolve_conflict_keyed<'a>(
        &'a self,
        request: Resolve,
    ) -> StoreResult<Pending<'a, Resolution>> {
        keyed_unit(self, || units::resolution::resolve(self, request.clone())).await
    }

    async fn revert_conflict(&self, request: Revert) -> StoreResult<Reverted> {
        unit_of_work(self, || {
            committed(units::revert::revert(self, request.clone()))
        })
        .await
    }

    async fn revert_conflict_keyed<'a>(
        &'a self,
        request: Revert,
    ) -> StoreResult<Pending<'a, Reverted>> {
        keyed_unit(self, || units::revert::revert(self, request.clone())).await
    }

    async fn conflict_history(&self, id: Uuid) -> StoreResult<Vec<HistoryEntry>> {
        history::list(self, id).await
    }

    async fn list_sources(&self, scopes: Option<&str>) -> StoreResult<Vec<SourceStats>> {
        conflicts::sources(self, scopes).await
    }

    async fn source_verdicts(&self) -> StoreResult<Vec<SourceStats>> {
        conflicts::source_verdicts(self).await
    }

    async fn save_report(&self, report: StoredReport) -> StoreResult<()> {
        conflicts::save_report(self, report).await
    }

    async fn list_reports(
        &self,
        limit: usize,
        after: Option<Cursor>,
        scopes: Option<&str>,
    ) -> StoreResult<Page<StoredReport>> {
        conflicts::list_reports(self, limit, after, scopes).await
    }

    async fn wake_batch(
        &self,
        after: i64,
        max: usize,
        scopes: Option<&str>,
    ) -> StoreResult<WakeBatch> {
        wake::batch(self, after, max, scopes).await
    }

    async fn events_after(
        &self,
        after: i64,
        limit: usize,
        scopes: Option<&str>,
    ) -> StoreResult<Vec<Event>> {
        wake::events_after(self, after, limit, scopes).await
    }

    async fn sweep_extent(&self, filter: &SweepFilter) -> StoreResult<(Option<Uuid>, i64)> {
        sweeps::extent(self, filter).await
    }

    async fn start_sweep(&self, sweep: &NewSweep) -> StoreResult<bool> {
        unit_of_work(self, || sweeps::insert(self, sweep)).await
    }

    async fn get_sweep(&self, id: Uuid) -> StoreResult<Sweep> {
        sweeps::get(self, id).await
    }

    async fn running_sweep(&self) -> StoreResult<Option<Sweep>> {
        sweeps::running(self).await
    }

    async fn list_sweeps(&self, limit: usize, scopes: Option<&str>) -> StoreResult<Vec<Sweep>> {
        sweeps::list(self, limit, scopes).await
    }

    async fn claim_sweep(
        &self,
        owner: &str,
        now: Timestamp,
        until: Timestamp,
        take_over: bool,
    ) -> StoreResult<Option<Sweep>> {
        sweeps::claim(self, owner, now, until, take_over).await
    }

    async fn sweep_page(
        &self,
        s: &Sweep,
        after: Option<Uuid>,
        limit: usize,
    ) -> StoreResult<Vec<(Node, Option<Vec<f32>>)>> {
        sweeps::page(self, s, after, limit).await
    }

    async fn tokens_between(&self, after: Uuid, to: Uuid) -> StoreResult<Vec<PassedNode>> {
        sweeps::tokens_between(self, after, to).await
    }

    async fn record_sweep(&self, chunk: &SweepChunk) -> StoreResult<Option<Sweep>> {
        unit_of_work(self, || units::sweeps::record(self, chunk)).await
    }

    async fn finish_sweep(
        &self,
        id: Uuid,
        status: SweepStatus,
        owner: Option<&str>,
        error: Option<&str>,
    ) -> StoreResult<Sweep> {
        unit_of_work(self, || sweeps::finish(self, id, status, owner, error)).await
    }

    async fn listen(&self, notifier: Arc<notify::Notifier>) -> StoreResult<()> {
        Backend::listen(self, notifier).await
    }

    async fn idempotency_begin(
        &self,
        scope: &str,
        key: &str,
        fingerprint: &str,
    ) -> StoreResult<IdempotencyBegin> {
        unit_of_work(self, || idempotency::begin(self, scope, key, fingerprint)).await
    }

    async fn idempotency_finish(
        &self,
        scope: &str,
        key: &str,
        response: StoredResponse,
    ) -> StoreResult<()> {
        idempotency::finish(self, scope, key, response).await
    }

    async fn idempotency_abandon(&self, scope: &str, key: &str) -> StoreResult<()> {
        idempotency::abandon(self, scope, key).await
    }

    async fn create_key(&self, key: NewApiKey) -> StoreResult<bool> {
        keys::insert(self, &key).await
    }

    async fn list_keys(&self) -> StoreResult<Vec<ApiKey>> {
        keys::list(self).await
    }

    async fn audit(&self, q: &AuditQuery) -> StoreResult<Vec<AuditEntry>> {
        audit::list(self, q).await
    }

    async fn key_by_digest(&self, digest: KeyDigest) -> StoreResult<Option<ApiKey>> {
        keys::by_digest(self, &digest).await
    }

    async fn revoke_key(&self, name: &str, by_key: Option<&str>) -> StoreResult<ApiKey> {
        keys::revoke(self, name, by_key).await
    }

    async fn keys_exist(&self) -> StoreResult<bool> {
        keys::any(self).await
    }

    async fn touch_key(&self, name: &str, at: Timestamp) -> StoreResult<()> {
        keys::touch(self, name, at).await
    }

    async fn check(&self) -> StoreResult<Vec<Violation>> {
        check::check(self).await
    }
}

/// Connects to the database the URL names (`sqlite:` or `postgres:`) and migrates it; SQLite
/// commits with `synchronous = full`.
pub async fn connect(url: &str) -> anyhow::Result<Arc<dyn Store>> {
    connect_with(url, sqlite::Synchronous::Full).await
}

/// [`connect`], choosing how SQLite is opened (ignored for PostgreSQL).
pub async fn connect_with(
    url: &str,
    sqlite_options: impl Into<sqlite::SqliteOptions>,
) -> anyhow::Result<Arc<dyn Store>> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Arc::new(postgres::PgStore::connect(url).await?) as Arc<dyn Store>)
    } else if url.starts_with("sqlite:") {
        Ok(Arc::new(
            sqlite::SqliteStore::connect(url, sqlite_options).await?,
        ))
    } else {
        anyhow::bail!("unsupported database URL: expected sqlite:// or postgres://")
    }
}

/// How long an idempotency key is kept.
pub const IDEMPOTENCY_TTL_HOURS: i64 = 24;
/// An in-flight key older than this belongs to a request that died with its process.
pub const IDEMPOTENCY_STALE_SECS: i64 = 120;
