//! What a use case can answer besides its result: outcomes named for what happened, whichever
//! front door asked. The store's errors convert once, here; REST maps these kinds to problem
//! details and MCP to tool results, each in one place.

use uuid::Uuid;

use crate::domain::FieldError;
use crate::domain::conflict::Action;
use crate::domain::node::NodeState;
use crate::domain::resolution::Resolution;
use crate::domain::revert::Obstacle;
use crate::store::{Failure, Refusal, StoreError};

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input is invalid; each entry points at a field (a JSON Pointer).
    #[error("the request is invalid")]
    Invalid(Vec<FieldError>),
    /// The thing named (`node`, `conflict`) does not exist.
    #[error("{0} not found")]
    NotFound(&'static str),
    /// A side of the conflict is no longer active: the strategy would leave no current fact.
    #[error("node {node_id} is {state}, so the strategy would leave no current fact")]
    Stale { node_id: Uuid, state: NodeState },
    /// The conflict has another resolution already.
    #[error("the conflict was already resolved with {}", .0.strategy.as_str())]
    AlreadyResolved(Box<Resolution>),
    /// A revert of a conflict that is pending.
    #[error("the conflict is pending: there is no resolution to revert")]
    NotResolved,
    /// Later changes stand in the way of a revert; nothing was written.
    #[error("later changes are in the way")]
    RevertBlocked(Vec<Obstacle>),
    /// A step of a resolution (or of a revert, `revert: true`) failed and everything rolled
    /// back.
    #[error("{} step {failed_action} failed", if *.revert { "revert" } else { "resolution" })]
    StepFailed {
        revert: bool,
        /// The step failed because the database was unreachable or busy (retry later).
        unavailable: bool,
        partial_actions: Vec<Action>,
        failed_action: String,
        #[source]
        cause: Box<StoreError>,
    },
    /// Too many long polls and event streams wait already (retry later).
    #[error("too many waiters")]
    Overloaded,
    /// The database is unreachable (retry later).
    #[error("the database is unreachable")]
    Unavailable(#[source] StoreError),
    /// Another writer held a lock too long (retry soon).
    #[error("the database is busy")]
    Busy(#[source] StoreError),
    /// The database's storage is full (retry once space is freed).
    #[error("the database's storage is full")]
    StorageFull(#[source] StoreError),
    /// Any other failure: the cause is for the log, not for the caller.
    #[error("internal error")]
    Internal(#[source] anyhow::Error),
}

impl Error {
    pub fn invalid(pointer: &str, detail: impl Into<String>) -> Self {
        Self::Invalid(vec![FieldError::new(pointer, detail)])
    }
}

impl From<Vec<FieldError>> for Error {
    fn from(errors: Vec<FieldError>) -> Self {
        Self::Invalid(errors)
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Self {
        match e {
            // Before the failed steps: a full disk is the same answer whichever step hit it.
            e if e.is_storage_full() => Self::StorageFull(e),
            StoreError::NotFound(what) => Self::NotFound(what),
            StoreError::Refused(Refusal::Invalid(errors)) => Self::Invalid(errors),
            StoreError::Refused(Refusal::Stale { node_id, state }) => {
                Self::Stale { node_id, state }
            }
            StoreError::Refused(Refusal::AlreadyResolved(r)) => Self::AlreadyResolved(r),
            StoreError::Refused(Refusal::NotResolved) => Self::NotResolved,
            StoreError::Refused(Refusal::RevertBlocked(found)) => Self::RevertBlocked(found),
            StoreError::Failed(Failure::Resolution {
                partial_actions,
                failed_action,
                cause,
            }) => Self::StepFailed {
                revert: false,
                unavailable: cause.is_unavailable(),
                partial_actions,
                failed_action,
                cause,
            },
            StoreError::Failed(Failure::Revert {
                partial_actions,
                failed_action,
                cause,
            }) => Self::StepFailed {
                revert: true,
                unavailable: cause.is_unavailable(),
                partial_actions,
                failed_action,
                cause,
            },
            e if e.is_busy() => Self::Busy(e),
            e if e.is_unavailable() => Self::Unavailable(e),
            other => Self::Internal(other.into()),
        }
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Self::Internal(e.into())
    }
}
