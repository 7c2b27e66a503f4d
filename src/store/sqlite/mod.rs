//! SQLite backend: the embedded default, and how it differs. WAL mode, a busy timeout and
//! foreign keys on; every write transaction takes the write lock up front (`BEGIN
//! IMMEDIATE`), so two writers never deadlock upgrading a read lock and a resolution sees the
//! state it will change. With that lock held nothing needs row locks: the `LOCK_*` statements
//! are plain reads. Full-text search is an FTS5 table (`search.rs`); waiters are woken in
//! process, since one process serves one database file.

mod search;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Sqlite, SqliteConnection, SqlitePool, Transaction};
use uuid::Uuid;

use super::backend::{Backend, Conn, Row};
use super::notify::Notifier;
use super::sql::node_columns;
use super::{CandidateQuery, StoreResult, Violation};

pub struct SqliteStore {
    pool: SqlitePool,
    writer: Arc<tokio::sync::Mutex<()>>,
}

/// A write transaction and this process's turn to write. Writers queue on an async mutex
/// instead of on SQLite's busy handler, whose sleeps (up to 100 ms each) add latency spikes
/// under concurrency; the busy timeout still covers other processes on the same file.
pub struct WriteTx {
    tx: Transaction<'static, Sqlite>,
    _turn: tokio::sync::OwnedMutexGuard<()>,
}

impl std::ops::Deref for WriteTx {
    type Target = SqliteConnection;
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
}

impl Backend for SqliteStore {
    type Db = Sqlite;
    const NAME: &'static str = "sqlite";
    type Tx = WriteTx;
    const DEADLOCK_RETRIES: usize = 0;

    /// The write lock is held, so `max(seq) + 1` cannot race.
    const INSERT_CONFLICT: &'static str = "insert into conflict_queue (conflict_id, seq, \
         old_node_id, new_node_id, new_content, new_key, conflict_type, detection, recommendation, \
         status, note, created_at, updated_at) \
         select $1, (select coalesce(max(seq), 0) + 1 from conflict_queue), $2, $3, $4, $5, $6, \
                $7, $8, 'pending', $9, $10, $10 \
         where exists (select 1 from nodes where node_id = $2) \
         on conflict do nothing returning seq";
    const INSERT_EDGE: &'static str = "insert into edges (edge_id, source_id, target_id, kind, \
         neural_weight, strength, confidence, valid_from, created_at, updated_at) \
         select $1, $2, $3, $4, $5, $6, $7, $8, $9, $9 \
         where exists (select 1 from nodes where node_id = $2) \
           and exists (select 1 from nodes where node_id = $3)";
    const INSERT_LABELS: &'static str =
        "insert into node_labels (label, node_id) select value, $2 from json_each($1)";
    const LOCK_NODE: &'static str = "select 1 from nodes where node_id = $1";
    const SELECT_NODE_LOCKED: &'static str = super::nodes::SELECT_ONE;
    const SELECT_IDEMPOTENCY_LOCKED: &'static str = "select fingerprint, status_code, \
         response_body, content_type, location, updated_at \
         from idempotency_keys where scope = $1 and idem_key = $2";
    const PENDING_OF_NODES: &'static str = "select conflict_id, old_node_id, new_node_id \
         from conflict_queue where status = 'pending' \
           and (old_node_id in (select value from json_each($1)) \
                or new_node_id in (select value from json_each($1))) \
         order by created_at, conflict_id";
    const LIST_RANKED: &'static str = search::LIST_RANKED;
    const CANDIDATES_BY_LABELS: &'static str = concat!(
        "with tagged as materialized (select distinct node_id from node_labels \
         where label in (select value from json_each($1)) order by node_id desc limit $6) \
         select ",
        node_columns!("n", ""),
        ", n.embedding, ",
        search::remembered!(),
        " from tagged join nodes n on n.node_id = tagged.node_id \
         where n.embedding is not null \
           and n.scope = $2 and n.memory_type = $3 and n.state = 'active' \
           and ($4 is null or n.node_id <> $4) \
         order by n.node_id desc limit $5"
    );
    const JSON_CHECKS: &'static [(&'static str, &'static str)] = search::JSON_CHECKS;

    fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    /// A write transaction holding the database's write lock from its first statement.
    async fn write(&self) -> StoreResult<WriteTx> {
        let turn = self.writer.clone().lock_owned().await;
        Ok(WriteTx {
            tx: self.pool.begin_with("BEGIN IMMEDIATE").await?,
            _turn: turn,
        })
    }

    async fn commit(tx: WriteTx) -> Result<(), sqlx::Error> {
        tx.tx.commit().await
    }

    async fn lock_for_resolution(_: &mut SqliteConnection, _: Uuid) -> StoreResult<()> {
        Ok(())
    }

    async fn serialize_events(_: &mut SqliteConnection) -> StoreResult<()> {
        Ok(())
    }

    async fn notify(_: &mut SqliteConnection, _: i64) -> StoreResult<()> {
        Ok(())
    }

    async fn lock_embedding_dim(_: &mut SqliteConnection) -> StoreResult<()> {
        Ok(())
    }

    fn text_query(tokens: &[String], all: bool) -> String {
        search::fts_query(tokens, all)
    }

    async fn rarest(conn: &mut Conn<Self>, tokens: &[String]) -> StoreResult<Vec<String>> {
        search::rarest(conn, tokens).await
    }

    async fn candidates_by_tokens(
        conn: &mut Conn<Self>,
        tokens: &[String],
        q: &CandidateQuery,
    ) -> StoreResult<Vec<Row<Self>>> {
        search::candidates_by_tokens(conn, tokens, q).await
    }

    async fn check_text_index(&self) -> StoreResult<Vec<Violation>> {
        search::check_index(&self.pool).await
    }

    /// One process serves one database file: its waiters are woken in process.
    async fn listen(&self, _: Arc<Notifier>) -> StoreResult<()> {
        Ok(())
    }
}
