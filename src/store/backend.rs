//! What the shared store code needs of a database, in two small traits:
//!
//! - [`Sql`], implemented by sqlx's `Sqlite` and `Postgres`: bind a value, read a column, run a
//!   query. Both implementations are the same four lines, because every value concord stores
//!   is one of the [`Value`] types both databases encode: sqlx's own (`String`, `i64`, `f64`,
//!   `bool`, bytes, `Json<T>`) and the wrappers below for ids, timestamps and lists, which
//!   pick the column type each schema uses (SQLite: text; PostgreSQL: `uuid`, `timestamptz`,
//!   arrays).
//! - [`Backend`], implemented by `SqliteStore` and `PgStore`: how a write transaction starts
//!   and the statements the two dialects really write differently (locks, full-text search,
//!   notifications, `returning` and array syntax), as SQL constants or small step functions.

use std::borrow::Cow;
use std::future::Future;
use std::ops::DerefMut;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::query::Query;
use sqlx::types::Json;
use sqlx::{Database, Decode, Encode, Executor, Pool, Postgres, Row as _, Sqlite, Type};
use uuid::Uuid;

use super::batch_ranking::BatchRanking;
use super::notify::Notifier;
use super::sql::JsonSql;
use super::{Candidate, CandidateQuery, StoreError, StoreResult, Violation};
use crate::domain::time::{self, Timestamp};
use crate::store::Failure;

/// A query of database `D` (its SQL is always a `&'static str`).
pub type Q<D> = Query<'static, D, <D as Database>::Arguments>;
pub type Conn<B> = <<B as Backend>::Db as Database>::Connection;
pub type Row<B> = <<B as Backend>::Db as Database>::Row;

/// A value both databases can bind.
pub trait Value<'q>:
    Send + Type<Sqlite> + Encode<'q, Sqlite> + Type<Postgres> + Encode<'q, Postgres>
{
}
impl<'q, T> Value<'q> for T where
    T: Send + Type<Sqlite> + Encode<'q, Sqlite> + Type<Postgres> + Encode<'q, Postgres>
{
}

/// A value both databases can read.
pub trait Column:
    Type<Sqlite> + for<'r> Decode<'r, Sqlite> + Type<Postgres> + for<'r> Decode<'r, Postgres>
{
}
impl<T> Column for T where
    T: Type<Sqlite> + for<'r> Decode<'r, Sqlite> + Type<Postgres> + for<'r> Decode<'r, Postgres>
{
}

/// sqlx's calls for either database. The trait exists only because Rust cannot state "`T`
/// encodes for whichever database this is" once for generic code; see [`Value`].
pub trait Sql: Database {
    fn bind<'q, T: Value<'q>>(q: Q<Self>, v: T) -> Q<Self>;
    fn get<T: Column>(row: &Self::Row, column: &str) -> Result<T, sqlx::Error>;
    fn get_at<T: Column>(row: &Self::Row, index: usize) -> Result<T, sqlx::Error>;
    fn execute(
        conn: &mut Self::Connection,
        q: Q<Self>,
    ) -> impl Future<Output = Result<u64, sqlx::Error>> + Send;
    fn fetch_all(
        conn: &mut Self::Connection,
        q: Q<Self>,
    ) -> impl Future<Output = Result<Vec<Self::Row>, sqlx::Error>> + Send;
    fn fetch_optional(
        conn: &mut Self::Connection,
        q: Q<Self>,
    ) -> impl Future<Output = Result<Option<Self::Row>, sqlx::Error>> + Send;
}

macro_rules! sql_for {
    ($db:ty) => {
        impl Sql for $db {
            fn bind<'q, T: Value<'q>>(q: Q<Self>, v: T) -> Q<Self> {
                q.bind(v)
            }
            fn get<T: Column>(row: &Self::Row, column: &str) -> Result<T, sqlx::Error> {
                row.try_get(column)
            }
            fn get_at<T: Column>(row: &Self::Row, index: usize) -> Result<T, sqlx::Error> {
                row.try_get(index)
            }
            async fn execute(conn: &mut Self::Connection, q: Q<Self>) -> Result<u64, sqlx::Error> {
                Ok((&mut *conn).execute(q).await?.rows_affected())
            }
            async fn fetch_all(
                conn: &mut Self::Connection,
                q: Q<Self>,
            ) -> Result<Vec<Self::Row>, sqlx::Error> {
                (&mut *conn).fetch_all(q).await
            }
            async fn fetch_optional(
                conn: &mut Self::Connection,
                q: Q<Self>,
            ) -> Result<Option<Self::Row>, sqlx::Error> {
                (&mut *conn).fetch_optional(q).await
            }
        }
    };
}
sql_for!(Sqlite);
sql_for!(Postgres);

/// Binding and running, written as methods of the query: `B::query(SQL).arg(x).run(conn)`.
pub trait QueryExt<D: Sql>: Sized {
    fn arg<'q, T: Value<'q>>(self, v: T) -> Self;
    /// Executes; returns the number of rows affected.
    fn run(self, conn: &mut D::Connection) -> impl Future<Output = StoreResult<u64>> + Send;
    fn all(self, conn: &mut D::Connection)
    -> impl Future<Output = StoreResult<Vec<D::Row>>> + Send;
    fn optional(
        self,
        conn: &mut D::Connection,
    ) -> impl Future<Output = StoreResult<Option<D::Row>>> + Send;
}

impl<D: Sql> QueryExt<D> for Q<D> {
    fn arg<'q, T: Value<'q>>(self, v: T) -> Self {
        D::bind(self, v)
    }
    async fn run(self, conn: &mut D::Connection) -> StoreResult<u64> {
        Ok(D::execute(conn, self).await?)
    }
    async fn all(self, conn: &mut D::Connection) -> StoreResult<Vec<D::Row>> {
        Ok(D::fetch_all(conn, self).await?)
    }
    async fn optional(self, conn: &mut D::Connection) -> StoreResult<Option<D::Row>> {
        Ok(D::fetch_optional(conn, self).await?)
    }
}

/// The columns of one row, optionally prefixed (`o_title` for a conflict's old node).
pub struct Cols<'r, D: Sql> {
    row: &'r D::Row,
    prefix: &'static str,
}

impl<'r, D: Sql> Cols<'r, D> {
    pub fn new(row: &'r D::Row) -> Self {
        Self::prefixed(row, "")
    }
    pub fn prefixed(row: &'r D::Row, prefix: &'static str) -> Self {
        Self { row, prefix }
    }
    pub fn get<T: Column>(&self, column: &str) -> StoreResult<T> {
        let name = match self.prefix {
            "" => Cow::Borrowed(column),
            p => Cow::Owned(format!("{p}{column}")),
        };
        Ok(D::get(self.row, &name)?)
    }
    pub fn get_at<T: Column>(&self, index: usize) -> StoreResult<T> {
        Ok(D::get_at(self.row, index)?)
    }
    pub fn id(&self, column: &str) -> StoreResult<Uuid> {
        Ok(self.get::<Id>(column)?.0)
    }
    pub fn opt_id(&self, column: &str) -> StoreResult<Option<Uuid>> {
        Ok(self.get::<Option<Id>>(column)?.map(|i| i.0))
    }
    pub fn ts(&self, column: &str) -> StoreResult<Timestamp> {
        Ok(self.get::<Ts>(column)?.0)
    }
    pub fn opt_ts(&self, column: &str) -> StoreResult<Option<Timestamp>> {
        Ok(self.get::<Option<Ts>>(column)?.map(|t| t.0))
    }
    pub fn json<T: DeserializeOwned + 'static>(&self, column: &str) -> StoreResult<T> {
        Ok(self.get::<Json<T>>(column)?.0)
    }
    pub fn opt_json<T: DeserializeOwned + 'static>(&self, column: &str) -> StoreResult<Option<T>> {
        Ok(self.get::<Option<Json<T>>>(column)?.map(|j| j.0))
    }
    /// A text column holding one of the names of `T` (a state, a status, a strategy).
    pub fn parse<T>(&self, column: &str) -> StoreResult<T>
    where
        T: std::str::FromStr,
        T::Err: std::fmt::Display,
    {
        let text: String = self.get(column)?;
        text.parse()
            .map_err(|e: T::Err| StoreError::Failed(Failure::Corrupt(e.to_string())))
    }
    pub fn opt_parse<T>(&self, column: &str) -> StoreResult<Option<T>>
    where
        T: std::str::FromStr,
        T::Err: std::fmt::Display,
    {
        let text: Option<String> = self.get(column)?;
        text.map(|t| {
            t.parse()
                .map_err(|e: T::Err| StoreError::Failed(Failure::Corrupt(e.to_string())))
        })
        .transpose()
    }
}

/// What differs between the databases, beyond the SQL types that [`Sql`] hides.
pub trait Backend: Send + Sync + Sized + 'static {
    type Db: Sql;
    /// `sqlite` or `postgres`.
    const NAME: &'static str;
    /// A write transaction (SQLite: holding the write lock from its first statement).
    type Tx: DerefMut<Target = <Self::Db as Database>::Connection> + Send;
    /// A connection for a short read on the write path (detection's candidate search).
    type Reader: DerefMut<Target = <Self::Db as Database>::Connection> + Send;

    /// `insert into conflict_queue … returning seq`, binds `$1..$10` as in `conflicts::insert`;
    /// no row when the pair has a pending conflict or the old node is gone.
    const INSERT_CONFLICT: &'static str;
    /// `insert into edges … select … where` both endpoints exist (`$1..$9`).
    const INSERT_EDGE: &'static str;
    /// `select 1` of node `$1`, locked where the database locks rows.
    const LOCK_NODE: &'static str;
    /// Key-share locks the nodes in list `$1` in id order, where the database locks rows: a
    /// unit of work that adds rows referring to nodes takes this before any other lock. None
    /// where the database does not lock rows (a statement less per write).
    const SHARE_NODES: Option<&'static str>;
    /// As `SHARE_NODES`, `for update`: for a unit of work that will change those nodes.
    const LOCK_NODES: Option<&'static str>;
    /// One node's columns (`node_columns!("n", "")`), locked where the database locks rows.
    const SELECT_NODE_LOCKED: &'static str;
    /// The idempotency row `($1 scope, $2 key)`, locked where the database locks rows.
    const SELECT_IDEMPOTENCY_LOCKED: &'static str;
    /// `conflict_id, old_node_id, new_node_id` of pending conflicts of the nodes in list `$1`.
    const PENDING_OF_NODES: &'static str;
    /// The versions known at one system time of the memories that held at one valid time;
    /// binds as `versions::list_known` ([`super::sql::list_known`]).
    const LIST_KNOWN: &'static str;
    /// `GET /audit`'s list ([`super::audit::audit_list`]); binds as `audit::list`.
    const AUDIT_LIST: &'static str;
    /// Nodes matching the full-text query `$7`, ranked; binds as `nodes::list`.
    const LIST_RANKED: &'static str;
    /// Active nodes with an embedding sharing a label of list `$1`, newest first; binds as
    /// `nodes::candidates`.
    const CANDIDATES_BY_LABELS: &'static str;
    /// A scope's newest active nodes of a memory type; binds as `nodes::candidates`.
    const CANDIDATES_NEWEST: &'static str;
    /// [`Self::CANDIDATES_BY_LABELS`] and [`Self::CANDIDATES_NEWEST`] bounded to the nodes
    /// stored before a sweep's memory, without the `remembered` probes
    /// (`CandidateQuery::before`).
    const CANDIDATES_BY_LABELS_BEFORE: &'static str;
    const CANDIDATES_NEWEST_BEFORE: &'static str;
    /// `node_id` of each node of list `$1` that has a verdict with node `$2` already: a
    /// conflict of the pair, whatever its status, or an edge recording a verdict.
    const REMEMBERED_AMONG: &'static str;
    /// The node id, the backend's own key of the row (`key`: SQLite's rowid, null where
    /// there is none), scope and `search_tokens` of the nodes with ids after `$1` up to `$2`,
    /// in id order; binds as `sweeps::tokens_between`.
    const TOKENS_BETWEEN: &'static str;
    /// How `concord check` reads the JSON columns.
    const JSON: JsonSql;

    fn pool(&self) -> &Pool<Self::Db>;
    /// How often a unit of work that lost a deadlock runs again (PostgreSQL only).
    fn deadlock_retries(&self) -> usize;
    /// Whether the last write failed for a full disk.
    fn health(&self) -> &super::WriteHealth;
    fn write(&self) -> impl Future<Output = StoreResult<Self::Tx>> + Send;
    fn commit(tx: Self::Tx) -> impl Future<Output = Result<(), sqlx::Error>> + Send;
    /// A node's write with the conflicts detection found, none of them to be resolved, as
    /// one [`GroupedWrite`] returning the queued conflicts' rows (`conflicts::SELECT_ONE`):
    /// where the backend groups writes (SQLite), else `None`.
    fn grouped_node_write(
        _node: &crate::domain::node::NewNode,
        _tokens: &str,
        _found: &[super::DetectedConflict],
    ) -> Option<GroupedWrite<Self::Db>> {
        None
    }
    /// Runs a write from [`Self::grouped_node_write`] in this process's turn to write, in a
    /// transaction it may share with other writes; returns the rows its statements returned.
    /// Not written when the request's future is dropped before its transaction began.
    fn write_grouped(
        &self,
        write: GroupedWrite<Self::Db>,
    ) -> impl Future<Output = StoreResult<Vec<Row<Self>>>> + Send;
    /// The postings a batch ranks its candidate searches from, in memory, where the store
    /// keeps them (`store::batch_ranking`), brought in step in the batch's transaction `tx`.
    /// `None` (the default): the store's index ranks them.
    fn batch_ranking(
        &self,
        _tx: &mut Self::Tx,
    ) -> impl Future<Output = StoreResult<Option<BatchRanking<'_>>>> + Send {
        std::future::ready(Ok(None))
    }
    /// A connection for a short read on the write path; SQLite lends the writer's connection
    /// while no write holds it, since its page cache is current.
    fn reader(&self) -> impl Future<Output = StoreResult<Self::Reader>> + Send;

    /// Called before a resolution reads its conflict: locks what it will change.
    fn lock_for_resolution(
        conn: &mut Conn<Self>,
        conflict_id: Uuid,
    ) -> impl Future<Output = StoreResult<()>> + Send;
    /// Called before a conflict or an event is inserted, so seq and event ids follow commits.
    fn serialize_events(conn: &mut Conn<Self>) -> impl Future<Output = StoreResult<()>> + Send;
    /// Tells other processes that the conflict numbered `seq` changed (on commit).
    fn notify(conn: &mut Conn<Self>, seq: i64) -> impl Future<Output = StoreResult<()>> + Send;
    /// Called before a node with an embedding checks the stored dimension.
    fn lock_embedding_dim(conn: &mut Conn<Self>) -> impl Future<Output = StoreResult<()>> + Send;

    /// The full-text query text matching every token (`all`) or any of them.
    fn text_query(tokens: &[String], all: bool) -> String;
    /// A rank key of `LIST_RANKED`, from a cursor.
    fn rank_key(key: &str) -> Option<f64> {
        key.parse().ok()
    }
    /// Candidates matching any of the rarest of `q.tokens` (by the index's own statistics),
    /// best first; or, when the caller ranked them (`q.hits`), those among its hits.
    fn candidates_by_tokens(
        &self,
        conn: &mut Conn<Self>,
        q: &CandidateQuery,
    ) -> impl Future<Output = StoreResult<Vec<Candidate>>> + Send;
    /// The full-text index's own consistency check.
    fn check_text_index(&self) -> impl Future<Output = StoreResult<Vec<Violation>>> + Send;
    /// Delivers commits of other processes to `notifier`.
    fn listen(&self, notifier: Arc<Notifier>) -> impl Future<Output = StoreResult<()>> + Send;

    fn query(sql: &'static str) -> Q<Self::Db> {
        sqlx::query(sql)
    }
}

/// A unit of work sent to the database in one call, inside a transaction it may share with
/// other writes (group commit, see `Backend::write_grouped`).
pub struct GroupedWrite<D: Database> {
    /// Statements with the parameters `$1..$params`, all bound by `bind`.
    pub sql: Cow<'static, str>,
    pub params: usize,
    /// Whether a statement returns rows: such a write gets a call of its own, so that the
    /// rows of a call are one write's.
    pub returns_rows: bool,
    pub bind: Box<dyn Fn(Q<D>) -> Q<D> + Send + Sync>,
}

/// A UUID: text on SQLite, `uuid` on PostgreSQL.
#[derive(Debug, Clone, Copy)]
pub struct Id(pub Uuid);

/// A timestamp: RFC 3339 text (`time::format`) on SQLite, `timestamptz` on PostgreSQL.
#[derive(Debug, Clone, Copy)]
pub struct Ts(pub Timestamp);

/// A version's system time: milliseconds since the Unix epoch on SQLite (a version row stores
/// it in 6 bytes, where the RFC 3339 text takes 24), `timestamptz` on PostgreSQL.
#[derive(Debug, Clone, Copy)]
pub struct SysTime(pub Timestamp);

/// A list of ids: a JSON array (for `json_each`) on SQLite, `uuid[]` on PostgreSQL.
pub struct Ids<'a>(pub &'a [Uuid]);

/// A list of strings: a JSON array (for `json_each`) on SQLite, `text[]` on PostgreSQL.
pub struct Texts<'a>(pub &'a [String]);

type SqliteBuf = <Sqlite as Database>::ArgumentBuffer;
type PgBuf = <Postgres as Database>::ArgumentBuffer;

macro_rules! encode_both {
    ($t:ty, |$s:ident, $buf:ident| sqlite: $sqlite:expr, postgres: $pg:expr, pg_type: $pg_ty:ty) => {
        impl Type<Sqlite> for $t {
            fn type_info() -> <Sqlite as Database>::TypeInfo {
                <String as Type<Sqlite>>::type_info()
            }
            fn compatible(ty: &<Sqlite as Database>::TypeInfo) -> bool {
                <String as Type<Sqlite>>::compatible(ty)
            }
        }
        impl Encode<'_, Sqlite> for $t {
            fn encode_by_ref(&self, buf: &mut SqliteBuf) -> Result<IsNull, BoxDynError> {
                let $s = self;
                <String as Encode<Sqlite>>::encode($sqlite, buf)
            }
        }
        impl Type<Postgres> for $t {
            fn type_info() -> <Postgres as Database>::TypeInfo {
                <$pg_ty as Type<Postgres>>::type_info()
            }
            fn compatible(ty: &<Postgres as Database>::TypeInfo) -> bool {
                <$pg_ty as Type<Postgres>>::compatible(ty)
            }
        }
        impl Encode<'_, Postgres> for $t {
            fn encode_by_ref(&self, $buf: &mut PgBuf) -> Result<IsNull, BoxDynError> {
                let $s = self;
                $pg
            }
        }
    };
}

encode_both!(Id, |s, buf|
    sqlite: s.0.to_string(),
    postgres: <Uuid as Encode<Postgres>>::encode_by_ref(&s.0, buf),
    pg_type: Uuid);
encode_both!(Ts, |s, buf|
    sqlite: time::format(&s.0),
    postgres: <Timestamp as Encode<Postgres>>::encode_by_ref(&s.0, buf),
    pg_type: Timestamp);
encode_both!(Ids<'_>, |s, buf|
    sqlite: json_list(s.0.iter().map(Uuid::to_string)),
    postgres: <&[Uuid] as Encode<Postgres>>::encode(s.0, buf),
    pg_type: Vec<Uuid>);
encode_both!(Texts<'_>, |s, buf|
    sqlite: json_list(s.0.iter().cloned()),
    postgres: <&[String] as Encode<Postgres>>::encode(s.0, buf),
    pg_type: Vec<String>);

fn json_list(items: impl Iterator<Item = String>) -> String {
    serde_json::to_string(&items.collect::<Vec<_>>()).expect("strings serialise")
}

impl Type<Sqlite> for SysTime {
    fn type_info() -> <Sqlite as Database>::TypeInfo {
        <i64 as Type<Sqlite>>::type_info()
    }
    fn compatible(ty: &<Sqlite as Database>::TypeInfo) -> bool {
        <i64 as Type<Sqlite>>::compatible(ty)
    }
}
impl Encode<'_, Sqlite> for SysTime {
    fn encode_by_ref(&self, buf: &mut SqliteBuf) -> Result<IsNull, BoxDynError> {
        <i64 as Encode<Sqlite>>::encode(self.0.timestamp_millis(), buf)
    }
}
impl<'r> Decode<'r, Sqlite> for SysTime {
    fn decode(value: <Sqlite as Database>::ValueRef<'r>) -> Result<Self, BoxDynError> {
        let ms = <i64 as Decode<Sqlite>>::decode(value)?;
        Timestamp::from_timestamp_millis(ms)
            .map(Self)
            .ok_or_else(|| format!("bad system time {ms}").into())
    }
}
impl Type<Postgres> for SysTime {
    fn type_info() -> <Postgres as Database>::TypeInfo {
        <Timestamp as Type<Postgres>>::type_info()
    }
    fn compatible(ty: &<Postgres as Database>::TypeInfo) -> bool {
        <Timestamp as Type<Postgres>>::compatible(ty)
    }
}
impl Encode<'_, Postgres> for SysTime {
    fn encode_by_ref(&self, buf: &mut PgBuf) -> Result<IsNull, BoxDynError> {
        <Timestamp as Encode<Postgres>>::encode_by_ref(&self.0, buf)
    }
}
impl<'r> Decode<'r, Postgres> for SysTime {
    fn decode(value: <Postgres as Database>::ValueRef<'r>) -> Result<Self, BoxDynError> {
        Ok(Self(<Timestamp as Decode<Postgres>>::decode(value)?))
    }
}

impl<'r> Decode<'r, Sqlite> for Id {
    fn decode(value: <Sqlite as Database>::ValueRef<'r>) -> Result<Self, BoxDynError> {
        Ok(Self(Uuid::parse_str(<&str as Decode<Sqlite>>::decode(
            value,
        )?)?))
    }
}
impl<'r> Decode<'r, Postgres> for Id {
    fn decode(value: <Postgres as Database>::ValueRef<'r>) -> Result<Self, BoxDynError> {
        Ok(Self(<Uuid as Decode<Postgres>>::decode(value)?))
    }
}
impl<'r> Decode<'r, Sqlite> for Ts {
    fn decode(value: <Sqlite as Database>::ValueRef<'r>) -> Result<Self, BoxDynError> {
        let text = <&str as Decode<Sqlite>>::decode(value)?;
        time::parse(text)
            .map(Self)
            .ok_or_else(|| format!("bad timestamp {text}").into())
    }
}
impl<'r> Decode<'r, Postgres> for Ts {
    fn decode(value: <Postgres as Database>::ValueRef<'r>) -> Result<Self, BoxDynError> {
        Ok(Self(<Timestamp as Decode<Postgres>>::decode(value)?))
    }
}
