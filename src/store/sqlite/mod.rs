//! SQLite backend: the embedded default. WAL mode, a busy timeout and foreign keys on; every
//! write transaction takes the write lock up front (`BEGIN IMMEDIATE`), so two writers never
//! deadlock upgrading a read lock and a resolution sees the state it will change.

mod check;
mod conflicts;
mod edges;
mod idempotency;
mod nodes;
mod resolve;
mod rows;
mod wake;

use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Sqlite, SqlitePool, Transaction};
use uuid::Uuid;

use super::*;
use crate::domain::conflict::{Conflict, ConflictFilter, ConflictStats, NewConflict};

pub struct SqliteStore {
    pool: SqlitePool,
    writer: std::sync::Arc<tokio::sync::Mutex<()>>,
}

type Tx = Transaction<'static, Sqlite>;

/// A write transaction and this process's turn to write. Writers queue on an async mutex
/// instead of on SQLite's busy handler, whose sleeps (up to 100 ms each) add latency spikes
/// under concurrency; the busy timeout still covers other processes on the same file.
pub(super) struct WriteTx {
    tx: Tx,
    _turn: tokio::sync::OwnedMutexGuard<()>,
}

impl WriteTx {
    pub async fn commit(self) -> Result<(), sqlx::Error> {
        self.tx.commit().await
    }
}

impl std::ops::Deref for WriteTx {
    type Target = sqlx::SqliteConnection;
    fn deref(&self) -> &Self::Target {
        &self.tx
    }
}

impl std::ops::DerefMut for WriteTx {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.tx
    }
}

impl SqliteStore {
    pub async fn connect(url: &str) -> anyhow::Result<Self> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(10))
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            .connect_with(options)
            .await?;
        sqlx::migrate!("migrations/sqlite").run(&pool).await?;
        Ok(Self::from_pool(pool))
    }

    /// Wraps a pool whose database is already migrated (tests).
    pub fn from_pool(pool: SqlitePool) -> Self {
        Self {
            pool,
            writer: Default::default(),
        }
    }

    /// A write transaction holding the database's write lock from its first statement.
    async fn write(&self) -> StoreResult<WriteTx> {
        let turn = self.writer.clone().lock_owned().await;
        Ok(WriteTx {
            tx: self.pool.begin_with("BEGIN IMMEDIATE").await?,
            _turn: turn,
        })
    }
}

#[async_trait]
impl Store for SqliteStore {
    fn backend(&self) -> &'static str {
        "sqlite"
    }

    async fn ping(&self) -> StoreResult<()> {
        sqlx::query("select 1").execute(&self.pool).await?;
        Ok(())
    }

    async fn create_node(
        &self,
        node: NewNode,
        found: Vec<DetectedConflict>,
    ) -> StoreResult<(Node, Vec<Conflict>)> {
        nodes::create(self, node, found).await
    }

    async fn get_node(&self, id: Uuid) -> StoreResult<Node> {
        nodes::get(&self.pool, id).await
    }

    async fn get_node_with_embedding(&self, id: Uuid) -> StoreResult<(Node, Option<Vec<f32>>)> {
        nodes::get_with_embedding(&self.pool, id).await
    }

    async fn update_node(&self, id: Uuid, patch: NodePatch) -> StoreResult<Node> {
        nodes::update(self, id, patch).await
    }

    async fn delete_node(&self, id: Uuid) -> StoreResult<()> {
        let mut tx = self.write().await?;
        nodes::delete_in(&mut tx, id).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn list_nodes(&self, query: NodeQuery) -> StoreResult<Page<Node>> {
        nodes::list(&self.pool, query).await
    }

    async fn embedding_dim(&self) -> StoreResult<Option<usize>> {
        nodes::embedding_dim(&self.pool).await
    }

    async fn create_edge(&self, edge: Edge) -> StoreResult<Edge> {
        let mut tx = self.write().await?;
        edges::insert(&mut tx, &edge).await?;
        tx.commit().await?;
        Ok(edge)
    }

    async fn list_edges(&self, node_id: Uuid, query: EdgeQuery) -> StoreResult<Page<Edge>> {
        edges::list(&self.pool, node_id, query).await
    }

    async fn candidates(&self, query: CandidateQuery) -> StoreResult<Vec<Candidate>> {
        nodes::candidates(&self.pool, query).await
    }

    async fn queue_conflict(&self, conflict: NewConflict) -> StoreResult<(Conflict, bool)> {
        conflicts::queue(self, conflict).await
    }

    async fn get_conflict(&self, id: Uuid) -> StoreResult<Conflict> {
        conflicts::get(&self.pool, id).await
    }

    async fn list_conflicts(&self, filter: ConflictFilter) -> StoreResult<(Page<Conflict>, i64)> {
        conflicts::list(&self.pool, filter).await
    }

    async fn conflict_stats(&self) -> StoreResult<ConflictStats> {
        conflicts::stats(&self.pool).await
    }

    async fn resolve_conflict(&self, request: Resolve) -> StoreResult<Resolution> {
        resolve::resolve(self, request).await
    }

    async fn list_sources(&self) -> StoreResult<Vec<SourceStats>> {
        conflicts::sources(&self.pool).await
    }

    async fn source_verdicts(&self) -> StoreResult<Vec<SourceStats>> {
        conflicts::source_verdicts(&self.pool).await
    }

    async fn save_report(&self, report: StoredReport) -> StoreResult<()> {
        conflicts::save_report(self, report).await
    }

    async fn list_reports(
        &self,
        limit: usize,
        after: Option<Cursor>,
    ) -> StoreResult<Page<StoredReport>> {
        conflicts::list_reports(&self.pool, limit, after).await
    }

    async fn idempotency_begin(
        &self,
        scope: &str,
        key: &str,
        fingerprint: &str,
    ) -> StoreResult<IdempotencyBegin> {
        idempotency::begin(self, scope, key, fingerprint).await
    }

    async fn idempotency_finish(
        &self,
        scope: &str,
        key: &str,
        response: StoredResponse,
    ) -> StoreResult<()> {
        idempotency::finish(&self.pool, scope, key, response).await
    }

    async fn idempotency_abandon(&self, scope: &str, key: &str) -> StoreResult<()> {
        idempotency::abandon(&self.pool, scope, key).await
    }

    async fn check(&self) -> StoreResult<Vec<Violation>> {
        check::check(&self.pool).await
    }
    async fn wake_batch(&self, after: i64, max: usize) -> StoreResult<WakeBatch> {
        wake::batch(&self.pool, after, max).await
    }

    async fn events_after(&self, after: i64, limit: usize) -> StoreResult<Vec<Event>> {
        wake::events_after(&self.pool, after, limit).await
    }

    async fn listen(
        &self,
        notifier: std::sync::Arc<crate::store::notify::Notifier>,
    ) -> StoreResult<()> {
        wake::listen(&self.pool, notifier).await
    }
}
