//! PostgreSQL backend: the server option. Plain `begin()` transactions under read committed;
//! where SQLite relies on its single write lock, this backend takes row locks (`for update`,
//! `for key share`), `on conflict` claims or a transaction-scoped advisory lock instead, and
//! wakes long-pollers with `pg_notify` delivered on commit.

mod check;
mod conflicts;
mod edges;
mod idempotency;
mod nodes;
mod resolve;
mod rows;
mod wake;

use std::future::Future;
use std::time::Duration;

use async_trait::async_trait;
use sqlx::postgres::PgPoolOptions;
use sqlx::{PgPool, Postgres, Transaction};
use uuid::Uuid;

use super::*;
use crate::domain::conflict::{Conflict, ConflictFilter, ConflictStats, NewConflict};

pub struct PgStore {
    pool: PgPool,
}

type Tx = Transaction<'static, Postgres>;

/// The channel `pg_notify` wakes: its payload is the seq of the conflict that changed.
pub const EVENTS_CHANNEL: &str = "concord_events";

/// How often a unit of work that lost a deadlock is run again before the error is returned.
const DEADLOCK_RETRIES: usize = 3;

impl PgStore {
    pub async fn connect(url: &str) -> anyhow::Result<Self> {
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(5))
            .connect(url)
            .await?;
        sqlx::migrate!("migrations/postgres").run(&pool).await?;
        Ok(Self { pool })
    }

    /// Wraps a pool whose database is already migrated (tests).
    pub fn from_pool(pool: PgPool) -> Self {
        Self { pool }
    }

    async fn begin(&self) -> StoreResult<Tx> {
        Ok(self.pool.begin().await?)
    }
}

/// Whether PostgreSQL aborted the transaction to break a deadlock (40P01) or a serialization
/// conflict (40001): the whole unit of work rolled back and can simply run again.
fn is_retryable(e: &StoreError) -> bool {
    match e {
        StoreError::Busy(sqlx::Error::Database(d))
        | StoreError::Backend(sqlx::Error::Database(d)) => {
            matches!(d.code().as_deref(), Some("40P01" | "40001"))
        }
        StoreError::ResolutionFailed { cause, .. } => is_retryable(cause),
        _ => false,
    }
}

/// Runs a unit of work again when it lost a deadlock. Resolutions lock the conflict before its
/// nodes, while deletes lock a node before its conflicts and detected conflicts share-lock their
/// old nodes one by one, so these can deadlock; PostgreSQL aborts one of them, and that one's
/// retry then sees the other's committed result. Every retried method is one transaction.
async fn retry_deadlocks<T, F, Fut>(mut work: F) -> StoreResult<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = StoreResult<T>>,
{
    let mut attempt = 0;
    loop {
        match work().await {
            Err(e) if attempt < DEADLOCK_RETRIES && is_retryable(&e) => attempt += 1,
            other => return other,
        }
    }
}

#[async_trait]
impl Store for PgStore {
    fn backend(&self) -> &'static str {
        "postgres"
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
        retry_deadlocks(|| nodes::create(self, node.clone(), found.clone())).await
    }

    async fn get_node(&self, id: Uuid) -> StoreResult<Node> {
        nodes::get(&self.pool, id).await
    }

    async fn get_node_with_embedding(&self, id: Uuid) -> StoreResult<(Node, Option<Vec<f32>>)> {
        nodes::get_with_embedding(&self.pool, id).await
    }

    async fn update_node(&self, id: Uuid, patch: NodePatch) -> StoreResult<Node> {
        retry_deadlocks(|| nodes::update(self, id, patch.clone())).await
    }

    async fn delete_node(&self, id: Uuid) -> StoreResult<()> {
        retry_deadlocks(|| async {
            let mut tx = self.begin().await?;
            nodes::delete_in(&mut tx, id).await?;
            tx.commit().await?;
            Ok(())
        })
        .await
    }

    async fn list_nodes(&self, query: NodeQuery) -> StoreResult<Page<Node>> {
        nodes::list(&self.pool, query).await
    }

    async fn embedding_dim(&self) -> StoreResult<Option<usize>> {
        nodes::embedding_dim(&self.pool).await
    }

    async fn create_edge(&self, edge: Edge) -> StoreResult<Edge> {
        retry_deadlocks(|| async {
            let mut tx = self.begin().await?;
            edges::insert(&mut tx, &edge).await?;
            tx.commit().await?;
            Ok(edge.clone())
        })
        .await
    }

    async fn list_edges(&self, node_id: Uuid, query: EdgeQuery) -> StoreResult<Page<Edge>> {
        edges::list(&self.pool, node_id, query).await
    }

    async fn candidates(&self, query: CandidateQuery) -> StoreResult<Vec<Candidate>> {
        nodes::candidates(&self.pool, query).await
    }

    async fn queue_conflict(&self, conflict: NewConflict) -> StoreResult<(Conflict, bool)> {
        retry_deadlocks(|| conflicts::queue(self, conflict.clone())).await
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
        retry_deadlocks(|| resolve::resolve(self, request.clone())).await
    }

    async fn list_sources(&self) -> StoreResult<Vec<SourceStats>> {
        conflicts::sources(&self.pool).await
    }

    async fn source_verdicts(&self) -> StoreResult<Vec<SourceStats>> {
        conflicts::source_verdicts(&self.pool).await
    }

    async fn save_report(&self, report: StoredReport) -> StoreResult<()> {
        conflicts::save_report(&self.pool, report).await
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
