//! SQLite backend: the embedded default, and how it differs. WAL mode, a busy timeout and
//! foreign keys on; every write transaction takes the write lock up front (`BEGIN
//! IMMEDIATE`), so two writers never deadlock upgrading a read lock and a resolution sees the
//! state it will change. With that lock held nothing needs row locks: `LOCK_NODE` is a plain
//! read, and lists of nodes are not locked at all. Full-text search is an FTS5 table (`search.rs`); waiters are woken in
//! process, since one process serves one database file.

mod batch_postings;
mod functions;
mod grouped;
mod search;

use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sqlx::pool::PoolConnection;
use sqlx::sqlite::SqliteRow;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{AssertSqlSafe, Sqlite, SqliteConnection, SqlitePool};
use tokio::sync::oneshot;
use uuid::Uuid;

use super::audit::audit_list;
use super::backend::{Backend, GroupedWrite, QueryExt};
use super::notify::Notifier;
use super::sql::{
    candidates_by_labels, candidates_newest, labels_before, list_known, newest_before,
};
use super::{
    Candidate, CandidateQuery, DetectedConflict, StoreError, StoreResult, Violation, WriteHealth,
};
use crate::domain::node::NewNode;
use crate::store::Failure;
use crate::store::batch_ranking::{BatchRanking, MemoryPostings};
use crate::store::sql::JsonSql;

/// How a commit reaches the disk (`PRAGMA synchronous` in WAL mode).
///
/// `Full` (the default) syncs the WAL on every commit: an acknowledged write survives a power
/// loss or an OS crash. `Normal` syncs only at checkpoints: still safe against a crash of
/// concord itself, and faster, but the last commits before a power loss or kernel panic can be
/// lost (the database stays consistent; it just goes back in time).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Synchronous {
    Normal,
    #[default]
    Full,
}

impl FromStr for Synchronous {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "normal" => Ok(Self::Normal),
            "full" => Ok(Self::Full),
            _ => Err("must be normal or full".into()),
        }
    }
}

/// How concord opens a SQLite database: its durability, and how much of the file SQLite reads
/// through a memory map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SqliteOptions {
    pub synchronous: Synchronous,
    /// `PRAGMA mmap_size` in MiB (`--sqlite-mmap-mib`, whose help says what it costs); 0, SQLite's
    /// default, reads every page with a system call.
    pub mmap_mib: u64,
    /// Whether batches rank their candidate searches from postings kept in memory
    /// (`store::batch_ranking`): a bulk import's, which writes batch after batch. They hold
    /// every stored node's postings (tens of MB per 100k memories) and are read again whole
    /// after another process deletes a node or changes its text.
    pub batch_postings: bool,
}

impl From<Synchronous> for SqliteOptions {
    fn from(synchronous: Synchronous) -> Self {
        Self {
            synchronous,
            ..Self::default()
        }
    }
}

pub struct SqliteStore {
    pool: SqlitePool,
    /// This process's turn to write, with the connection every write uses (taken from the
    /// pool by the first write, and again after one had to be closed).
    writer: Arc<tokio::sync::Mutex<Option<PoolConnection<Sqlite>>>>,
    /// Whether the writer keeps its connection between writes: only where the pool has
    /// others left for reads.
    keep_writer: bool,
    /// Writes waiting for the writer's turn (group commit).
    queue: Mutex<Vec<Queued>>,
    queued_ids: AtomicU64,
    health: WriteHealth,
    /// Postings for batches' searches ([`SqliteOptions::batch_postings`]), read at the first.
    batch_postings: Option<tokio::sync::Mutex<MemoryPostings>>,
}

type Turn = tokio::sync::OwnedMutexGuard<Option<PoolConnection<Sqlite>>>;

/// A write transaction and this process's turn to write. Writers queue on an async mutex
/// instead of on SQLite's busy handler, whose sleeps (up to 100 ms each) add latency spikes
/// under concurrency; the busy timeout still covers other processes on the same file.
///
/// Every write runs on the same connection (in a pool of more than one). A connection
/// discards its page cache when it sees that another connection committed since its last
/// transaction; the writer's own cache survives its commits, so its inserts, and the
/// candidate searches that borrow it while no write holds it ([`ReadConn`]), find their
/// pages in memory instead of reading them again from the WAL (at 1k nodes, one client,
/// about a sixth of the server's CPU per write went to those reads).
///
/// The transaction is driven with plain `BEGIN IMMEDIATE` / `COMMIT` / `ROLLBACK` statements
/// rather than sqlx's `Transaction`, because a failed transaction must always leave its
/// connection clean. SQLite rolls a transaction back by itself on some errors (a full disk,
/// an I/O error); sqlx's own `ROLLBACK` then fails, its transaction depth stays at one, and
/// that connection refused every later `BEGIN` until a restart. Here a transaction that does
/// not commit is rolled back before the writer's turn is released, and a connection whose
/// rollback fails is closed instead of reused.
pub struct WriteTx {
    turn: Option<Turn>,
    keep: bool,
}

impl WriteTx {
    fn conn(&mut self) -> &mut PoolConnection<Sqlite> {
        self.turn
            .as_mut()
            .and_then(|t| t.as_mut())
            .expect("an open write transaction")
    }

    /// On failure the transaction is dropped, and so rolled back as below.
    async fn commit(mut self) -> Result<(), sqlx::Error> {
        sqlx::query("COMMIT").execute(&mut **self.conn()).await?;
        self.done();
        Ok(())
    }

    /// Ends a transaction that committed: releases the writer's turn, and the connection too
    /// unless the writer keeps it.
    fn done(&mut self) {
        if let Some(mut turn) = self.turn.take()
            && !self.keep
        {
            turn.take();
        }
    }
}

/// Ends whatever is left of a transaction; a connection that cannot say so is closed, not
/// reused. "No transaction is active" means SQLite already rolled it back: the connection is
/// clean.
async fn roll_back(mut conn: PoolConnection<Sqlite>) -> Option<PoolConnection<Sqlite>> {
    if let Err(e) = sqlx::query("ROLLBACK").execute(&mut *conn).await {
        let auto_rolled_back = matches!(&e, sqlx::Error::Database(d)
            if d.message().contains("no transaction is active"));
        if !auto_rolled_back {
            tracing::warn!(error = %e, "rollback failed; closing the connection");
            conn.close_on_drop();
            return None;
        }
    }
    Some(conn)
}

impl Drop for WriteTx {
    /// Not committed (an error, or the request's future was dropped): roll back in the
    /// background, keeping the writer's turn until the rollback is done.
    fn drop(&mut self) {
        let Some(mut turn) = self.turn.take() else {
            return;
        };
        let Some(conn) = turn.take() else {
            return;
        };
        let keep = self.keep;
        match tokio::runtime::Handle::try_current() {
            Ok(rt) => {
                rt.spawn(async move {
                    let conn = roll_back(conn).await;
                    if keep {
                        *turn = conn;
                    }
                    drop(turn);
                });
            }
            Err(_) => {
                let mut conn = conn;
                conn.close_on_drop();
            }
        }
    }
}

impl std::ops::Deref for WriteTx {
    type Target = SqliteConnection;
    fn deref(&self) -> &Self::Target {
        self.turn
            .as_ref()
            .and_then(|t| t.as_ref())
            .expect("an open write transaction")
    }
}

impl std::ops::DerefMut for WriteTx {
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.conn()
    }
}

/// A connection for a short read: the writer's, while no write holds it (its page cache is
/// current), else one of the pool.
pub enum ReadConn {
    Writer(Turn),
    Pool(PoolConnection<Sqlite>),
}

impl std::ops::Deref for ReadConn {
    type Target = SqliteConnection;
    fn deref(&self) -> &Self::Target {
        match self {
            Self::Writer(t) => t.as_ref().expect("the writer's connection"),
            Self::Pool(c) => c,
        }
    }
}

impl std::ops::DerefMut for ReadConn {
    fn deref_mut(&mut self) -> &mut Self::Target {
        match self {
            Self::Writer(t) => t.as_mut().expect("the writer's connection"),
            Self::Pool(c) => c,
        }
    }
}

/// Turns off SQLite's memory statistics for the process, before its first connection (the
/// setting is refused once SQLite is initialised; then it stays as it was, which is only
/// slower). With statistics on, every allocation of every connection takes one global mutex:
/// under concurrent writes the connections' threads queued on it, a few percent of the
/// server's CPU in waking each other. Nothing reads the statistics.
fn no_memory_statistics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: `sqlite3_config` takes the option and, for MEMSTATUS, one int; SQLite
        // checks that it is not initialised yet and returns SQLITE_MISUSE otherwise.
        let rc = unsafe {
            libsqlite3_sys::sqlite3_config(
                libsqlite3_sys::SQLITE_CONFIG_MEMSTATUS,
                0 as std::ffi::c_int,
            )
        };
        if rc != libsqlite3_sys::SQLITE_OK {
            tracing::debug!(
                rc,
                "SQLite was initialised already; memory statistics stay on"
            );
        }
    });
}

impl SqliteStore {
    pub async fn connect(url: &str, options: impl Into<SqliteOptions>) -> anyhow::Result<Self> {
        no_memory_statistics();
        let options: SqliteOptions = options.into();
        let batch_postings = options.batch_postings;
        let mmap_bytes = options.mmap_mib.saturating_mul(1 << 20);
        let synchronous = match options.synchronous {
            Synchronous::Normal => SqliteSynchronous::Normal,
            Synchronous::Full => SqliteSynchronous::Full,
        };
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(synchronous)
            .busy_timeout(Duration::from_secs(10))
            .foreign_keys(true)
            // A node's insert fires triggers that change many rows, so it keeps a statement
            // journal; in memory it is never written to a temporary file (it spilled past 64
            // KiB, about 7% of the server's CPU per write).
            .pragma("temp_store", "memory")
            .pragma("mmap_size", mmap_bytes.to_string());
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            .after_connect(|conn, _| Box::pin(configure(conn)))
            .connect_with(options)
            .await?;
        sqlx::migrate!("migrations/sqlite").run(&pool).await?;
        let store = Self::from_pool(pool);
        Ok(if batch_postings {
            store.with_batch_postings()
        } else {
            store
        })
    }

    /// Ranks batches' candidate searches from postings kept in memory
    /// ([`SqliteOptions::batch_postings`]).
    pub fn with_batch_postings(mut self) -> Self {
        self.batch_postings = Some(tokio::sync::Mutex::default());
        self
    }

    /// This process's turn to write, with the writer's connection.
    async fn turn(&self) -> StoreResult<Turn> {
        let mut turn = self.writer.clone().lock_owned().await;
        if turn.is_none() {
            *turn = Some(self.pool.acquire().await?);
        }
        Ok(turn)
    }

    /// Wraps a pool whose database is already migrated (tests). Its connections were opened
    /// without concord's SQL functions: every connection this process opens from now on gets
    /// them, and the pool's idle ones are closed, so that the next are opened with them.
    pub fn from_pool(pool: SqlitePool) -> Self {
        functions_on_every_new_connection();
        while let Some(idle) = pool.try_acquire() {
            drop(idle.detach());
        }
        let writer = Arc::default();
        release_on_close(&pool, &writer);
        Self {
            keep_writer: pool.options().get_max_connections() > 1,
            pool,
            writer,
            queue: Mutex::default(),
            queued_ids: AtomicU64::new(0),
            health: WriteHealth::default(),
            batch_postings: None,
        }
    }
}

/// Hands the writer's kept connection back once its pool starts closing. `close` waits for
/// every connection to come back, and the store may outlive the pool's user: a task that
/// lives until shutdown (an MCP session, say) holds it, and with it this connection, so a
/// test's teardown used to wait its 10 s limit for it.
fn release_on_close(
    pool: &SqlitePool,
    writer: &Arc<tokio::sync::Mutex<Option<PoolConnection<Sqlite>>>>,
) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    let closing = pool.close_event();
    let writer = Arc::downgrade(writer);
    runtime.spawn(async move {
        closing.await;
        if let Some(writer) = writer.upgrade() {
            writer.lock().await.take();
        }
    });
}

/// Sets up a new connection: stable plans, and the candidate search's functions.
async fn configure(conn: &mut SqliteConnection) -> Result<(), sqlx::Error> {
    let mut handle = conn.lock_handle().await?;
    let db = handle.as_raw_handle().as_ptr();
    // SAFETY: `db` is this connection's open handle, held locked for both calls.
    unsafe {
        stable_plans(db)?;
        functions_on(db)
    }
}

/// Makes SQLite register concord's functions on each connection this process opens from now
/// on, wherever it is opened (a test's pool has no `configure` step).
fn functions_on_every_new_connection() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    unsafe extern "C" fn entry(
        db: *mut libsqlite3_sys::sqlite3,
        _: *mut *mut std::ffi::c_char,
        _: *const libsqlite3_sys::sqlite3_api_routines,
    ) -> std::ffi::c_int {
        // SAFETY: SQLite calls this on the connection it is opening, before anyone uses it.
        unsafe { functions::register(db) }
    }
    ONCE.call_once(|| {
        // SAFETY: `entry` is a valid entry point for the life of the process.
        let rc = unsafe { libsqlite3_sys::sqlite3_auto_extension(Some(entry)) };
        if rc != libsqlite3_sys::SQLITE_OK {
            tracing::error!(
                code = rc,
                "registering concord's SQL functions for new connections failed"
            );
        }
    });
}

/// Registers the candidate search's functions on a connection opened elsewhere (a test's
/// pool): registering them again only replaces them.
async fn register_functions(conn: &mut SqliteConnection) -> Result<(), sqlx::Error> {
    let mut handle = conn.lock_handle().await?;
    // SAFETY: as in `configure`.
    unsafe { functions_on(handle.as_raw_handle().as_ptr()) }
}

/// # Safety
/// `db` must be an open connection that no other thread uses during the call.
unsafe fn functions_on(db: *mut libsqlite3_sys::sqlite3) -> Result<(), sqlx::Error> {
    // SAFETY: the caller's promise.
    let rc = unsafe { functions::register(db) };
    if rc != libsqlite3_sys::SQLITE_OK {
        return Err(sqlx::Error::Configuration(
            format!("registering the search functions failed with code {rc}").into(),
        ));
    }
    Ok(())
}

/// Turns on SQLite's query planner stability guarantee for a connection: plans no longer
/// depend on bound values. Without it, a statement with a bound `limit $n` (read at prepare
/// time as a constant) expires whenever the value is bound again and is parsed and planned
/// anew on every execution (about 6% of the server's CPU per `POST /nodes`). No query here
/// relies on a bound value for its plan (no `like` with a bound pattern, no `sqlite_stat4`).
///
/// # Safety
/// `db` must be an open connection that no other thread uses during the call.
unsafe fn stable_plans(db: *mut libsqlite3_sys::sqlite3) -> Result<(), sqlx::Error> {
    // SAFETY: the caller's promise; the option takes an int and an optional out-pointer,
    // passed as null.
    let rc = unsafe {
        libsqlite3_sys::sqlite3_db_config(
            db,
            libsqlite3_sys::SQLITE_DBCONFIG_ENABLE_QPSG,
            1,
            std::ptr::null_mut::<std::ffi::c_int>(),
        )
    };
    if rc != libsqlite3_sys::SQLITE_OK {
        return Err(sqlx::Error::Configuration(
            format!("sqlite3_db_config(ENABLE_QPSG) failed with code {rc}").into(),
        ));
    }
    Ok(())
}

/// Writes without rows sent to SQLite in one call by a batch: a batch of up to this many (as
/// many as writers were waiting) costs one round trip to the connection's thread instead of
/// one per write, and every size is a statement SQLite prepares once and keeps.
const WRITES_PER_CALL: usize = 16;

/// The outcome of a queued write whose writer went away without answering (it panicked, or
/// the runtime is shutting down): whether it was written is unknown, as after a lost reply.
fn writer_gone() -> StoreError {
    StoreError::Failed(Failure::Unavailable(sqlx::Error::WorkerCrashed))
}

type Rows = Vec<SqliteRow>;

/// A write waiting for the writer's turn, and where its outcome goes.
struct Queued {
    id: u64,
    write: GroupedWrite<Sqlite>,
    done: oneshot::Sender<StoreResult<Rows>>,
}

/// How a batch's writes are split into calls: writes without rows together, up to
/// [`WRITES_PER_CALL`] a call; a write with rows alone, so that a call's rows are its own.
fn calls(returns_rows: &[bool]) -> Vec<Vec<usize>> {
    let (with_rows, plain): (Vec<usize>, Vec<usize>) =
        (0..returns_rows.len()).partition(|&i| returns_rows[i]);
    let mut calls: Vec<Vec<usize>> = plain.chunks(WRITES_PER_CALL).map(<[_]>::to_vec).collect();
    calls.extend(with_rows.into_iter().map(|i| vec![i]));
    calls
}

/// Writes a batch of queued writes in one transaction. When it fails, each write is written
/// alone, so that one bad write fails only itself and none is half written. A write whose
/// request was dropped (a deadline) before its statements ran is not written.
async fn write_batch(mut turn: Turn, batch: Vec<Queued>, pool: SqlitePool, keep: bool) {
    let Some(mut conn) = turn.take() else {
        return;
    };
    let live = |q: &Queued| !q.done.is_closed();
    // With the writer's turn: a request that gave up while it was awaited is left out.
    let batch: Vec<Queued> = batch.into_iter().filter(live).collect();
    let together = async {
        let returns_rows: Vec<bool> = batch.iter().map(|q| q.write.returns_rows).collect();
        let calls = calls(&returns_rows);
        let mut rows: Vec<Rows> = batch.iter().map(|_| Vec::new()).collect();
        for (i, call) in calls.iter().enumerate() {
            let these: Vec<&GroupedWrite<Sqlite>> = call.iter().map(|&w| &batch[w].write).collect();
            let sql = grouped::call_sql(&these, i == 0, i + 1 == calls.len());
            let mut query = sqlx::query(AssertSqlSafe(sql));
            for w in &these {
                query = (w.bind)(query);
            }
            let returned = query.all(&mut conn).await?;
            if let [only] = call.as_slice() {
                rows[*only] = returned;
            }
        }
        Ok::<_, StoreError>(rows)
    }
    .await;
    let mut conn = match together {
        Ok(rows) => {
            for (q, rows) in batch.into_iter().zip(rows) {
                let _ = q.done.send(Ok(rows));
            }
            Some(conn)
        }
        Err(e) => {
            tracing::debug!(error = %e, "a grouped write failed; writing each alone");
            let mut conn = roll_back(conn).await;
            for q in batch.into_iter().filter(live) {
                let outcome = write_one(&mut conn, &pool, &q.write).await;
                let _ = q.done.send(outcome);
            }
            conn
        }
    };
    if keep {
        *turn = conn.take();
    }
}

/// One write in its own transaction, on `conn` (or a fresh connection when the last one had
/// to be closed).
async fn write_one(
    conn: &mut Option<PoolConnection<Sqlite>>,
    pool: &SqlitePool,
    write: &GroupedWrite<Sqlite>,
) -> StoreResult<Rows> {
    let mut c = match conn.take() {
        Some(c) => c,
        None => pool.acquire().await?,
    };
    let sql = grouped::call_sql(&[write], true, true);
    let outcome = (write.bind)(sqlx::query(AssertSqlSafe(sql)))
        .all(&mut c)
        .await;
    *conn = match outcome {
        Ok(_) => Some(c),
        Err(_) => roll_back(c).await,
    };
    outcome
}

impl Backend for SqliteStore {
    type Db = Sqlite;
    const NAME: &'static str = "sqlite";
    type Tx = WriteTx;
    type Reader = ReadConn;

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
    const LOCK_NODE: &'static str = "select 1 from nodes where node_id = $1";
    const SHARE_NODES: Option<&'static str> = None;
    const LOCK_NODES: Option<&'static str> = None;
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
    const AUDIT_LIST: &'static str =
        audit_list!("cast(round(unixepoch(", ", 'subsec') * 1000) as integer)");
    const LIST_KNOWN: &'static str = list_known!(
        "exists (select 1 from json_each(labels) where value = $5)",
        "strftime('%Y-%m-%dT%H:%M:%fZ', ",
        " / 1000.0, 'unixepoch')",
        "indexed by node_versions_replaced_title",
        "indexed by node_versions_replaced_body",
        "indexed by node_versions_replaced_standing"
    );
    const CANDIDATES_BY_LABELS: &'static str = candidates_by_labels!(
        "label in (select value from json_each($1))",
        [""],
        search::remembered!()
    );
    const CANDIDATES_NEWEST: &'static str = candidates_newest!([""], search::remembered!());
    const CANDIDATES_BY_LABELS_BEFORE: &'static str = candidates_by_labels!(
        "label in (select value from json_each($1))",
        [labels_before!()],
        "0 as remembered"
    );
    const CANDIDATES_NEWEST_BEFORE: &'static str =
        candidates_newest!([newest_before!()], "0 as remembered");
    const REMEMBERED_AMONG: &'static str = search::REMEMBERED_AMONG;
    const TOKENS_BETWEEN: &'static str = crate::store::sql::tokens_between!("rowid");
    const JSON: JsonSql = search::JSON;

    fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    /// One writer at a time: nothing deadlocks.
    fn deadlock_retries(&self) -> usize {
        0
    }

    fn health(&self) -> &WriteHealth {
        &self.health
    }

    /// A write transaction holding the database's write lock from its first statement.
    async fn write(&self) -> StoreResult<WriteTx> {
        // Wrapped before `BEGIN`, so that even a cancelled `BEGIN` is rolled back.
        let mut tx = WriteTx {
            turn: Some(self.turn().await?),
            keep: self.keep_writer,
        };
        sqlx::query("BEGIN IMMEDIATE")
            .execute(&mut **tx.conn())
            .await?;
        Ok(tx)
    }

    async fn commit(tx: WriteTx) -> Result<(), sqlx::Error> {
        tx.commit().await
    }

    fn grouped_node_write(
        node: &NewNode,
        tokens: &str,
        found: &[DetectedConflict],
    ) -> Option<GroupedWrite<Sqlite>> {
        Some(grouped::node_write(node, tokens, found))
    }

    /// Group commit: the write joins the queue of waiting writes, and whoever gets the
    /// writer's turn writes the whole queue in one transaction (one commit, one sync of the
    /// WAL) instead of one each. A write that is alone goes as one call, from its `begin` to
    /// its `commit`.
    async fn write_grouped(&self, write: GroupedWrite<Sqlite>) -> StoreResult<Rows> {
        let id = self.queued_ids.fetch_add(1, Ordering::Relaxed);
        let (done, outcome) = oneshot::channel();
        self.queue
            .lock()
            .expect("write queue")
            .push(Queued { id, write, done });
        let turn = match self.turn().await {
            Ok(turn) => turn,
            Err(e) => {
                // Not written if still queued; else another writer has it and answers.
                let withdrawn = {
                    let mut queue = self.queue.lock().expect("write queue");
                    let at = queue.iter().position(|q| q.id == id);
                    at.map(|i| queue.remove(i)).is_some()
                };
                if withdrawn {
                    return Err(e);
                }
                return outcome.await.unwrap_or_else(|_| Err(writer_gone()));
            }
        };
        let batch = std::mem::take(&mut *self.queue.lock().expect("write queue"));
        match batch.as_slice() {
            [] => drop(turn),
            [only] if only.id == id => {
                // Alone: dropped before its last statement ran, `tx` rolls back what did
                // (SQLite stops running a call's statements once nobody takes their results).
                let mut tx = WriteTx {
                    turn: Some(turn),
                    keep: self.keep_writer,
                };
                let w = &only.write;
                let sql = grouped::call_sql(&[w], true, true);
                let rows = (w.bind)(sqlx::query(AssertSqlSafe(sql)))
                    .all(&mut **tx.conn())
                    .await?;
                tx.done();
                return Ok(rows);
            }
            // Others wait on this batch: it runs to its end even if this request is dropped.
            _ => drop(tokio::spawn(write_batch(
                turn,
                batch,
                self.pool.clone(),
                self.keep_writer,
            ))),
        }
        outcome.await.unwrap_or_else(|_| Err(writer_gone()))
    }

    async fn batch_ranking(&self, tx: &mut WriteTx) -> StoreResult<Option<BatchRanking<'_>>> {
        let Some(postings) = &self.batch_postings else {
            return Ok(None);
        };
        let mut postings = postings.lock().await;
        if let Err(e) = batch_postings::bring_in_step(tx, &mut postings).await {
            postings.clear();
            return Err(e);
        }
        Ok(Some(postings))
    }

    async fn reader(&self) -> StoreResult<ReadConn> {
        if let Ok(turn) = self.writer.clone().try_lock_owned()
            && turn.is_some()
        {
            return Ok(ReadConn::Writer(turn));
        }
        Ok(ReadConn::Pool(self.pool.acquire().await?))
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

    async fn candidates_by_tokens(
        &self,
        conn: &mut SqliteConnection,
        q: &CandidateQuery,
    ) -> StoreResult<Vec<Candidate>> {
        search::candidates_by_tokens(conn, q).await
    }

    /// FTS5's own integrity check, and a recount of the token statistics.
    async fn check_text_index(&self) -> StoreResult<Vec<Violation>> {
        Ok(search::check_index(&self.pool).await)
    }

    /// One process serves one database file: its waiters are woken in process.
    async fn listen(&self, _: Arc<Notifier>) -> StoreResult<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How SQLite would run `sql`: the `detail` of each step of its plan.
    async fn plan(sql: &str) -> Vec<String> {
        use sqlx::Row;
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect("sqlite::memory:")
            .await
            .unwrap();
        sqlx::migrate!("migrations/sqlite")
            .run(&pool)
            .await
            .unwrap();
        let explain = AssertSqlSafe(format!("explain query plan {sql}"));
        let rows = sqlx::query(explain).fetch_all(&pool).await.unwrap();
        rows.iter().map(|r| r.get::<String, _>("detail")).collect()
    }

    /// Asserts that SQLite runs `sql` from `index` first (its plan's first step names it) and
    /// reads the rows in that order, never sorting them.
    async fn assert_read_in_order(sql: &str, index: &str) {
        let steps = plan(sql).await;
        assert!(steps[0].contains(index), "{steps:?}");
        assert!(
            !steps.iter().any(|s| s.contains("TEMP B-TREE")),
            "read in order, never sorted: {steps:?}"
        );
    }

    #[tokio::test]
    async fn a_list_of_one_scope_reads_in_order_from_the_index_that_leads_with_scope() {
        let index = "USING INDEX nodes_in_scope_newest";
        assert_read_in_order(crate::store::nodes::LIST_NEWEST_IN_SCOPE, index).await;
    }

    #[tokio::test]
    async fn a_sweep_pages_through_the_id_range_never_the_whole_store() {
        let index = "USING INDEX sqlite_autoindex_nodes_1 (node_id>? AND node_id<?)";
        assert_read_in_order(crate::store::sweeps::PAGE, index).await;
    }

    #[tokio::test]
    async fn a_restatement_is_looked_for_among_its_titles_memories_only() {
        let steps = plan(crate::store::restatements::SAME_TITLE).await;
        assert!(
            steps[0].contains("USING INDEX nodes_by_title (scope=? AND <expr>=?)"),
            "{steps:?}"
        );
    }

    #[tokio::test]
    async fn a_queue_of_one_scope_reads_in_order_from_the_indexes_that_lead_with_scope() {
        use crate::store::{conflicts, wake};
        let reads = [
            (
                "oldest pending",
                conflicts::LISTS[1][0][1],
                "conflicts_in_scope",
            ),
            (
                "newest pending",
                conflicts::LISTS[1][1][1],
                "conflicts_in_scope",
            ),
            ("wake batch", wake::BATCH[1], "conflicts_in_scope_seq"),
        ];
        for (read, sql, index) in reads {
            let steps = plan(sql).await;
            assert!(
                steps
                    .iter()
                    .any(|s| s.contains(&format!("USING INDEX {index} (scopes=? AND status=?"))),
                "{read}: {steps:?}"
            );
            assert!(
                !steps.iter().any(|s| s.contains("TEMP B-TREE")),
                "{read}: read in order, never sorted: {steps:?}"
            );
        }
        for (read, sql) in [
            ("pending total", conflicts::PENDING_TOTALS[1]),
            ("stats", conflicts::STATS[1]),
            ("wake counts", wake::COUNTS[1]),
        ] {
            let steps = plan(sql).await;
            assert!(
                steps.iter().any(|s| s.contains("INDEX conflicts_in_scope")),
                "{read}: {steps:?}"
            );
        }
    }

    #[test]
    fn a_batch_sends_writes_without_rows_together_and_each_with_rows_alone() {
        let mut flags = vec![false; 20];
        flags[3] = true;
        flags[7] = true;
        let calls = calls(&flags);
        let plain: Vec<usize> = (0..20).filter(|i| ![3, 7].contains(i)).collect();
        assert_eq!(calls.len(), 4);
        assert_eq!(calls[0], plain[..WRITES_PER_CALL]);
        assert_eq!(calls[1], plain[WRITES_PER_CALL..]);
        assert_eq!(calls[2..], [vec![3], vec![7]]);
        assert_eq!(super::calls(&[true]), [vec![0]]);
        assert!(super::calls(&[]).is_empty());
    }
}
