//! Persistence port: one `Store` trait, one implementation per database. One method is one
//! unit of work and at most one transaction. Inputs and outputs are domain types; no sqlx
//! type crosses the trait, so the API layer never knows which database it talks to.

mod error;
pub mod postgres;
pub(crate) mod resolution;
pub(crate) mod sql;
pub mod sqlite;

use std::sync::Arc;

use async_trait::async_trait;
use uuid::Uuid;

use crate::domain::conflict::{
    Action, Conflict, ConflictFilter, ConflictStats, NewConflict, Strategy,
};
use crate::domain::cursor::{Cursor, Page};
use crate::domain::edge::{Direction, Edge};
use crate::domain::node::{NewNode, Node, NodePatch, NodeState};
use crate::domain::plan::Resolve;
use crate::domain::time::Timestamp;

pub use error::StoreError;

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
}

/// `GET /nodes/{id}/edges` filters.
#[derive(Debug, Clone, Default)]
pub struct EdgeQuery {
    pub direction: Direction,
    pub kind: Option<String>,
    pub limit: usize,
    pub after: Option<Cursor>,
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
}

/// A detected contradiction to be written with the new node.
#[derive(Debug, Clone)]
pub struct DetectedConflict {
    pub conflict: NewConflict,
    pub edge: Edge,
}

/// The outcome of a resolution, as stored for replay.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Resolution {
    pub conflict_id: Uuid,
    pub strategy: Strategy,
    pub old_node_id: Option<Uuid>,
    pub new_node_id: Option<Uuid>,
    pub actions: Vec<Action>,
    pub resolved_at: Timestamp,
    #[serde(default)]
    pub replayed: bool,
}

/// Per-source verdict counters.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceStats {
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
    /// `conflict.created` or `conflict.resolved`.
    pub kind: String,
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

    async fn create_node(
        &self,
        node: NewNode,
        found: Vec<DetectedConflict>,
    ) -> StoreResult<(Node, Vec<Conflict>)>;
    async fn get_node(&self, id: Uuid) -> StoreResult<Node>;
    async fn get_node_with_embedding(&self, id: Uuid) -> StoreResult<(Node, Option<Vec<f32>>)>;
    async fn update_node(&self, id: Uuid, patch: NodePatch) -> StoreResult<Node>;
    async fn delete_node(&self, id: Uuid) -> StoreResult<()>;
    async fn list_nodes(&self, query: NodeQuery) -> StoreResult<Page<Node>>;
    /// Dimension every embedding in the store has, if any is stored.
    async fn embedding_dim(&self) -> StoreResult<Option<usize>>;

    async fn create_edge(&self, edge: Edge) -> StoreResult<Edge>;
    async fn list_edges(&self, node_id: Uuid, query: EdgeQuery) -> StoreResult<Page<Edge>>;

    async fn candidates(&self, query: CandidateQuery) -> StoreResult<Vec<Candidate>>;

    /// Queues a conflict; returns the existing pending one (and `false`) for a known pair.
    async fn queue_conflict(&self, conflict: NewConflict) -> StoreResult<(Conflict, bool)>;
    async fn get_conflict(&self, id: Uuid) -> StoreResult<Conflict>;
    async fn list_conflicts(&self, filter: ConflictFilter) -> StoreResult<(Page<Conflict>, i64)>;
    async fn conflict_stats(&self) -> StoreResult<ConflictStats>;
    async fn resolve_conflict(&self, request: Resolve) -> StoreResult<Resolution>;

    async fn list_sources(&self) -> StoreResult<Vec<SourceStats>>;
    /// Sources with at least one verdict, without node counts: cheap enough for every write.
    async fn source_verdicts(&self) -> StoreResult<Vec<SourceStats>>;
    async fn save_report(&self, report: StoredReport) -> StoreResult<()>;
    async fn list_reports(
        &self,
        limit: usize,
        after: Option<Cursor>,
    ) -> StoreResult<Page<StoredReport>>;

    /// Pending conflicts with `seq > after`, oldest first, at most `max`.
    async fn wake_batch(&self, after: i64, max: usize) -> StoreResult<WakeBatch>;
    /// Events with an id above `after`, oldest first, at most `limit`.
    async fn events_after(&self, after: i64, limit: usize) -> StoreResult<Vec<Event>>;
    /// Delivers commits made by other processes to `notifier` from now on (PostgreSQL
    /// LISTEN/NOTIFY). SQLite has no such channel: one process serves one database file.
    async fn listen(&self, notifier: std::sync::Arc<crate::notify::Notifier>) -> StoreResult<()>;

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

    /// Verifies the database's invariants (`concord check`); an empty list means clean.
    async fn check(&self) -> StoreResult<Vec<Violation>>;
}

/// Connects to the database the URL names (`sqlite:` or `postgres:`) and migrates it.
pub async fn connect(url: &str) -> anyhow::Result<Arc<dyn Store>> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Arc::new(postgres::PgStore::connect(url).await?) as Arc<dyn Store>)
    } else if url.starts_with("sqlite:") {
        Ok(Arc::new(sqlite::SqliteStore::connect(url).await?))
    } else {
        anyhow::bail!("unsupported database URL: expected sqlite:// or postgres://")
    }
}

/// How long an idempotency key is kept.
pub const IDEMPOTENCY_TTL_HOURS: i64 = 24;
/// An in-flight key older than this belongs to a request that died with its process.
pub const IDEMPOTENCY_STALE_SECS: i64 = 120;
