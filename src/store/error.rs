//! Backend-neutral storage errors. sqlx errors are classified once, here, by kind, so that
//! neither the API layer nor the backends match on database text or SQLSTATE codes.

use uuid::Uuid;

use crate::domain::FieldError;
use crate::domain::conflict::Action;
use crate::domain::node::NodeState;
use crate::domain::revert::Obstacle;

use super::Resolution;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The thing named (`node`, `conflict`) does not exist.
    #[error("{0} not found")]
    NotFound(&'static str),
    /// Conflict of state: the rows as they stand refuse the write; nothing was written.
    #[error(transparent)]
    Refused(Refusal),
    /// Another writer held a lock for longer than the database waits (SQLite's busy timeout,
    /// PostgreSQL's `lock_timeout`), or PostgreSQL aborted the transaction to break a deadlock
    /// or a serialization conflict (after the backend's own bounded retries): nothing was
    /// written, and a retry later can succeed.
    #[error("the database is busy")]
    Busy(#[source] sqlx::Error),
    /// The disk (or the database's size limit) is full: SQLite's SQLITE_FULL, PostgreSQL's
    /// 53100. The transaction rolled back; writes succeed again once space is freed.
    #[error("the database's storage is full")]
    StorageFull(#[source] sqlx::Error),
    /// The database failed (or was unreachable); nothing was written.
    #[error(transparent)]
    Failed(Failure),
}

impl StoreError {
    /// An invalid-input refusal about one item of a batch, its pointers under the item's
    /// (`/embedding` of node 3 is `/nodes/3/embedding`); any other error as it is.
    pub fn under(self, at: &str) -> Self {
        self.map_pointers(|p| format!("{at}{p}"))
    }

    /// An invalid-input refusal with the field `from` named `to` (a batch edge's ends are
    /// `source` and `target`, not `source_id` and `target_id`).
    pub fn renamed(self, from: &str, to: &str) -> Self {
        self.map_pointers(|p| match p.strip_suffix(from) {
            Some(head) => format!("{head}{to}"),
            None => p.to_owned(),
        })
    }

    fn map_pointers(self, f: impl Fn(&str) -> String) -> Self {
        match self {
            Self::Refused(Refusal::Invalid(errors)) => Self::Refused(Refusal::Invalid(
                errors
                    .into_iter()
                    .map(|e| FieldError {
                        pointer: f(&e.pointer),
                        detail: e.detail,
                    })
                    .collect(),
            )),
            other => other,
        }
    }
}

/// Why the rows as they stand refuse a write.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// Input that contradicts what is stored (an embedding of another dimension, an edge to
    /// a missing node, a cursor of another list); each entry points at its field.
    #[error("the request is invalid")]
    Invalid(Vec<FieldError>),
    #[error("node {node_id} is {state}, so the strategy would leave no current fact")]
    Stale { node_id: Uuid, state: NodeState },
    #[error("the conflict was already resolved with {}", .0.strategy.as_str())]
    AlreadyResolved(Box<Resolution>),
    /// A revert of a conflict that is pending (and was not just reverted).
    #[error("the conflict is pending: there is no resolution to revert")]
    NotResolved,
    /// Later changes a revert would overwrite; nothing was written.
    #[error("later changes are in the way: {}", list(.0))]
    RevertBlocked(Vec<Obstacle>),
}

/// How the database failed.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    #[error("the database is unreachable")]
    Unavailable(#[source] sqlx::Error),
    #[error("database error")]
    Backend(#[source] sqlx::Error),
    #[error("corrupt row: {0}")]
    Corrupt(String),
    /// A step of a resolution failed; everything rolled back.
    #[error("resolution step {failed_action} failed")]
    Resolution {
        partial_actions: Vec<Action>,
        failed_action: String,
        #[source]
        cause: Box<StoreError>,
    },
    /// A step of a revert failed; everything rolled back.
    #[error("revert step {failed_action} failed")]
    Revert {
        partial_actions: Vec<Action>,
        failed_action: String,
        #[source]
        cause: Box<StoreError>,
    },
    #[cfg(feature = "failpoints")]
    #[error("injected failure at {0}")]
    Injected(String),
}

impl StoreError {
    /// Whether the failure is the database being unreachable (503) rather than a fault (500).
    pub fn is_unavailable(&self) -> bool {
        match self {
            Self::Failed(Failure::Unavailable(_)) | Self::Busy(_) => true,
            Self::Failed(Failure::Resolution { cause, .. } | Failure::Revert { cause, .. }) => {
                cause.is_unavailable()
            }
            _ => false,
        }
    }

    /// Whether the failure is a lock held too long by another writer (503, retry soon).
    pub fn is_busy(&self) -> bool {
        match self {
            Self::Busy(_) => true,
            Self::Failed(Failure::Resolution { cause, .. } | Failure::Revert { cause, .. }) => {
                cause.is_busy()
            }
            _ => false,
        }
    }

    /// Whether the disk is full (507, retry once space is freed).
    pub fn is_storage_full(&self) -> bool {
        match self {
            Self::StorageFull(_) => true,
            Self::Failed(Failure::Resolution { cause, .. } | Failure::Revert { cause, .. }) => {
                cause.is_storage_full()
            }
            _ => false,
        }
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        match e {
            sqlx::Error::RowNotFound => Self::NotFound("row"),
            sqlx::Error::Io(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::Tls(_)
            | sqlx::Error::WorkerCrashed => Self::Failed(Failure::Unavailable(e)),
            sqlx::Error::Database(ref d) if is_connection_loss(d.code().as_deref()) => {
                Self::Failed(Failure::Unavailable(e))
            }
            sqlx::Error::Database(ref d) if is_lock_wait(d.as_ref()) => Self::Busy(e),
            sqlx::Error::Database(ref d) if is_disk_full(d.as_ref()) => Self::StorageFull(e),
            other => Self::Failed(Failure::Backend(other)),
        }
    }
}

/// SQLSTATE class 08 (connection exception) and 57P01..57P03 (admin shutdown, crash, cannot
/// connect now) mean the server went away, not that the request was wrong.
fn is_connection_loss(code: Option<&str>) -> bool {
    code.is_some_and(|c| c.starts_with("08") || matches!(c, "57P01" | "57P02" | "57P03"))
}

/// SQLite's SQLITE_BUSY (5) and SQLITE_LOCKED (6), with any extended code (the low byte is the
/// primary code), and PostgreSQL's 55P03 (lock_not_available), 40P01 (deadlock_detected) and
/// 40001 (serialization_failure): a lock wait gave up or lost.
fn is_lock_wait(d: &dyn sqlx::error::DatabaseError) -> bool {
    let code = d.code();
    if d.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some() {
        code.and_then(|c| c.parse::<i32>().ok())
            .is_some_and(|n| matches!(n & 0xff, 5 | 6))
    } else {
        matches!(code.as_deref(), Some("55P03" | "40P01" | "40001"))
    }
}

/// SQLite's SQLITE_FULL (13, any extended code) and PostgreSQL's 53100 (disk_full).
fn is_disk_full(d: &dyn sqlx::error::DatabaseError) -> bool {
    let code = d.code();
    if d.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some() {
        code.and_then(|c| c.parse::<i32>().ok())
            .is_some_and(|n| n & 0xff == 13)
    } else {
        code.as_deref() == Some("53100")
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        Self::Failed(Failure::Corrupt(e.to_string()))
    }
}

fn list(obstacles: &[Obstacle]) -> String {
    let parts: Vec<String> = obstacles.iter().map(ToString::to_string).collect();
    parts.join("; ")
}
