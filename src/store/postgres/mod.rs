//! PostgreSQL backend: the server option, and how it differs. Plain `begin()` transactions
//! under read committed; where SQLite relies on its single write lock, this backend takes row
//! locks (`for update`, `for key share`) and transaction-scoped advisory locks instead, runs a
//! unit of work again when it lost a deadlock, and wakes long-pollers of every instance with
//! `pg_notify` delivered on commit (`listen.rs`). Full-text search is a generated `tsvector`
//! column ranked by `ts_rank`; detection walks the postings of `node_tokens` (`search.rs`).

mod listen;
mod search;
pub mod statistics;

use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgPoolOptions, PgRow};
use sqlx::{PgConnection, PgPool, Postgres, Row as _, Transaction};
use uuid::Uuid;

use super::audit::audit_list;
use super::backend::{Backend, GroupedWrite, Id, QueryExt};
use super::notify::Notifier;
use super::sql::{
    candidates_by_labels, candidates_newest, labels_before, list_known, newest_before, node_columns,
};
use super::{Candidate, CandidateQuery, StoreError, StoreResult, Violation, WriteHealth};
use crate::store::Failure;
use crate::store::sql::JsonSql;

pub use listen::EVENTS_CHANNEL;

pub struct PgStore {
    pool: PgPool,
    health: WriteHealth,
    deadlock_retries: usize,
    token_stats: Arc<search::TokenStats>,
}

impl PgStore {
    pub async fn connect(url: &str) -> anyhow::Result<Self> {
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(5))
            .connect(url)
            .await?;
        sqlx::migrate!("migrations/postgres").run(&pool).await?;
        let store = Self::from_pool(pool);
        statistics::keep_fresh(store.pool.clone(), Arc::clone(&store.token_stats));
        Ok(store)
    }

    /// Wraps a pool whose database is already migrated (tests).
    pub fn from_pool(pool: PgPool) -> Self {
        Self {
            pool,
            health: WriteHealth::default(),
            deadlock_retries: 3,
            token_stats: Arc::default(),
        }
    }

    /// How often a unit of work that lost a deadlock or a serialization conflict runs again
    /// before the request is answered 503 (default 3). Tests set 0 to see every deadlock.
    pub fn with_deadlock_retries(mut self, retries: usize) -> Self {
        self.deadlock_retries = retries;
        self
    }
}

/// Serialises conflict inserts and events until commit, so seq and event id order is commit
/// order: a long-poller that has seen seq N (or an SSE client resuming from id N) can never
/// later miss a lower one. Re-entrant within a transaction.
const SEQ_LOCK: &str = "select pg_advisory_xact_lock(hashtext('concord.conflict_seq'))";

impl Backend for PgStore {
    type Db = Postgres;
    const NAME: &'static str = "postgres";
    type Tx = Transaction<'static, Postgres>;
    type Reader = sqlx::pool::PoolConnection<Postgres>;

    /// `for key share` waits for a concurrent delete of the old node and then sees it gone.
    const INSERT_CONFLICT: &'static str = "insert into conflict_queue (conflict_id, old_node_id, \
         new_node_id, new_content, new_key, conflict_type, detection, recommendation, status, note, \
         created_at, updated_at) \
         select $1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $10, $10 \
         where exists (select 1 from nodes where node_id = $2 for key share) \
         on conflict do nothing returning seq";
    /// `for key share` waits for a concurrent delete of an endpoint and then sees it gone,
    /// where a foreign key violation would poison the whole transaction.
    const INSERT_EDGE: &'static str = "insert into edges (edge_id, source_id, target_id, kind, \
         neural_weight, strength, confidence, valid_from, created_at, updated_at) \
         select $1, $2, $3, $4, $5, $6, $7, $8, $9, $9 \
         where exists (select 1 from nodes where node_id = $2 for key share) \
           and exists (select 1 from nodes where node_id = $3 for key share)";
    const LOCK_NODE: &'static str = "select 1 from nodes where node_id = $1 for update";
    const SHARE_NODES: Option<&'static str> =
        Some("select node_id from nodes where node_id = any($1) order by node_id for key share");
    const LOCK_NODES: Option<&'static str> =
        Some("select node_id from nodes where node_id = any($1) order by node_id for update");
    /// An update reads and writes the row without a concurrent writer between.
    const SELECT_NODE_LOCKED: &'static str = concat!(
        "select ",
        node_columns!("n", ""),
        " from nodes n where n.node_id = $1 for update"
    );
    /// Locked, so two requests that both find a stale claim cannot both take it over.
    const SELECT_IDEMPOTENCY_LOCKED: &'static str = "select fingerprint, status_code, \
         response_body, content_type, location, updated_at \
         from idempotency_keys where scope = $1 and idem_key = $2 for update";
    const PENDING_OF_NODES: &'static str = "select conflict_id, old_node_id, new_node_id \
         from conflict_queue \
         where status = 'pending' and (old_node_id = any($1) or new_node_id = any($1)) \
         order by created_at, conflict_id";
    const LIST_RANKED: &'static str = search::LIST_RANKED;
    const LIST_KNOWN: &'static str = list_known!("labels ? $5", "", "", "", "", "");
    const AUDIT_LIST: &'static str = audit_list!("", "");
    const CANDIDATES_BY_LABELS: &'static str =
        candidates_by_labels!("label = any($1)", [""], search::remembered!());
    const CANDIDATES_NEWEST: &'static str = candidates_newest!([""], search::remembered!());
    const CANDIDATES_BY_LABELS_BEFORE: &'static str =
        candidates_by_labels!("label = any($1)", [labels_before!()], "false as remembered");
    const CANDIDATES_NEWEST_BEFORE: &'static str =
        candidates_newest!([newest_before!()], "false as remembered");
    const REMEMBERED_AMONG: &'static str = search::REMEMBERED_AMONG;
    const TOKENS_BETWEEN: &'static str = crate::store::sql::tokens_between!("null::bigint");
    const JSON: JsonSql = search::JSON;

    fn pool(&self) -> &PgPool {
        &self.pool
    }

    fn deadlock_retries(&self) -> usize {
        self.deadlock_retries
    }

    fn health(&self) -> &WriteHealth {
        &self.health
    }

    async fn write(&self) -> StoreResult<Self::Tx> {
        Ok(self.pool.begin().await?)
    }

    async fn commit(tx: Self::Tx) -> Result<(), sqlx::Error> {
        tx.commit().await
    }

    async fn reader(&self) -> StoreResult<Self::Reader> {
        Ok(self.pool.acquire().await?)
    }

    /// Not used: [`Backend::grouped_node_write`] makes no grouped writes here (PostgreSQL
    /// takes one statement per call with bound parameters, and writers need no turn).
    async fn write_grouped(&self, _: GroupedWrite<Postgres>) -> StoreResult<Vec<PgRow>> {
        Err(StoreError::Failed(Failure::Corrupt(
            "grouped writes are SQLite's".into(),
        )))
    }

    /// Locks the conflict's nodes in id order, then the conflict row: the lock order of every
    /// unit of work (see `store`), so that a delete of either node, a PATCH or an edge insert
    /// waits for the resolution or the resolution for it, and no other writer changes the
    /// nodes between the plan and its execution. The ids are read unlocked first: a conflict
    /// never gains a node id afterwards (a delete can only clear one), so the nodes locked
    /// cover whatever the locked row names.
    async fn lock_for_resolution(conn: &mut PgConnection, conflict_id: Uuid) -> StoreResult<()> {
        const SIDES: &str =
            "select old_node_id, new_node_id from conflict_queue where conflict_id = $1";
        let row = sqlx::query::<Postgres>(SIDES)
            .arg(Id(conflict_id))
            .optional(&mut *conn)
            .await?
            .ok_or(StoreError::NotFound("conflict"))?;
        let ids: Vec<Uuid> = ["old_node_id", "new_node_id"]
            .into_iter()
            .map(|c| row.try_get::<Option<Uuid>, _>(c))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .flatten()
            .collect();
        sqlx::query(
            "select node_id from nodes where node_id = any($1) order by node_id for update",
        )
        .bind(&ids)
        .fetch_all(&mut *conn)
        .await?;
        sqlx::query::<Postgres>("select 1 from conflict_queue where conflict_id = $1 for update")
            .arg(Id(conflict_id))
            .optional(&mut *conn)
            .await?
            .ok_or(StoreError::NotFound("conflict"))?;
        Ok(())
    }

    async fn serialize_events(conn: &mut PgConnection) -> StoreResult<()> {
        sqlx::query(SEQ_LOCK).execute(&mut *conn).await?;
        Ok(())
    }

    async fn notify(conn: &mut PgConnection, seq: i64) -> StoreResult<()> {
        sqlx::query("select pg_notify($1, $2)")
            .bind(EVENTS_CHANNEL)
            .bind(seq.to_string())
            .execute(&mut *conn)
            .await?;
        Ok(())
    }

    /// The advisory lock makes the dimension check and the insert atomic among writers of
    /// embeddings, as SQLite's write lock does.
    async fn lock_embedding_dim(conn: &mut PgConnection) -> StoreResult<()> {
        sqlx::query("select pg_advisory_xact_lock(hashtext('concord.embedding_dim'))")
            .execute(&mut *conn)
            .await?;
        Ok(())
    }

    fn text_query(tokens: &[String], all: bool) -> String {
        search::tsquery(tokens, if all { " & " } else { " | " })
    }

    async fn candidates_by_tokens(
        &self,
        conn: &mut PgConnection,
        q: &CandidateQuery,
    ) -> StoreResult<Vec<Candidate>> {
        let rows = search::candidates_by_tokens(&self.token_stats, conn, q).await?;
        rows.iter()
            .map(crate::store::rows::candidate::<Postgres>)
            .collect()
    }

    /// `search_tsv` must be non-empty wherever there are tokens.
    async fn check_text_index(&self) -> StoreResult<Vec<Violation>> {
        search::check_index(&self.pool).await
    }

    async fn listen(&self, notifier: Arc<Notifier>) -> StoreResult<()> {
        listen::listen(&self.pool, notifier).await
    }
}
