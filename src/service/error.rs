//! What a use case can answer besides its result: outcomes named for what happened, whichever
//! front door asked. The store's errors convert once, here. What both doors report of an
//! outcome is written here once too: its [`Kind`] (a stable code, a title and a status) and its
//! text, the detail the caller reads. REST maps these to problem details (`api/error.rs`) and
//! MCP to tool results (`mcp/reply.rs`), each in one place; neither keeps a table of its own.

use uuid::Uuid;

use crate::domain::FieldError;
use crate::domain::access::{Permission, Role};
use crate::domain::conflict::Action;
use crate::domain::node::NodeState;
use crate::domain::resolution::Resolution;
use crate::domain::revert::Obstacle;
use crate::store::{Failure, Refusal, StoreError};
use crate::wire::dto::{ActionDto, ChangeDto, CurrentResolution, NodeStateDto, ProblemMembers};

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input is invalid; each entry points at a field (a JSON Pointer).
    #[error("the request has invalid fields")]
    Invalid(Vec<FieldError>),
    /// The thing named (`node`, `conflict`) does not exist.
    #[error("{0} not found")]
    NotFound(&'static str),
    /// A side of the conflict is no longer active: the strategy would leave no current fact.
    #[error(
        "node {node_id} is {state}: the strategy would leave the conflict without a current fact"
    )]
    Stale { node_id: Uuid, state: NodeState },
    /// The conflict has another resolution already.
    #[error("the conflict was already resolved with another resolution")]
    AlreadyResolved(Box<Resolution>),
    /// A revert of a conflict that is pending.
    #[error("the conflict is pending: there is no resolution to revert")]
    NotResolved,
    /// Later changes stand in the way of a revert; nothing was written.
    #[error("the resolution cannot be reverted: {}", changes_text(.0))]
    RevertBlocked(Vec<Obstacle>),
    /// A step of a resolution (or of a revert, `revert: true`) failed and everything rolled
    /// back.
    #[error(
        "the {} failed at {failed_action} and was rolled back",
        if *.revert { "revert" } else { "resolution" }
    )]
    StepFailed {
        revert: bool,
        /// The step failed because the database was unreachable or busy (retry later).
        unavailable: bool,
        partial_actions: Vec<Action>,
        failed_action: String,
        #[source]
        cause: Box<StoreError>,
    },
    /// The caller's role does not hold the permission the operation needs.
    #[error("the key's role `{role}` may not {what} (it needs the `{}` permission)", needs.as_str())]
    Forbidden {
        role: Role,
        needs: Permission,
        /// The operation, in words: `resolve conflicts`, `call the tool remember`.
        what: String,
    },
    /// The caller's key does not hold the scope it writes into (or, for an operation over
    /// every scope, does not hold every scope).
    #[error("the key holds the scopes {held}, not {scope:?}")]
    ScopeForbidden {
        /// The scope asked for; `*` for every scope.
        scope: String,
        /// The key's scope patterns, as written.
        held: String,
    },
    /// A key of this name exists already (revoked or not).
    #[error("a key named {0:?} exists already; names are never reused")]
    KeyExists(String),
    /// A sweep runs already (one runs at a time): this is its id.
    #[error("sweep {0} is running; cancel it or wait for it to finish")]
    SweepRunning(Uuid),
    /// Too many long polls and event streams wait already (retry later).
    #[error("the service is overloaded; retry later")]
    Overloaded,
    /// The database is unreachable (retry later).
    #[error("the database is unreachable; retry later")]
    Unavailable(#[source] StoreError),
    /// Another writer held a lock too long (retry soon).
    #[error("the database is busy with another writer; retry later")]
    Busy(#[source] StoreError),
    /// The database's storage is full (retry once space is freed).
    #[error("the database's storage is full; nothing was written, retry once space is freed")]
    StorageFull(#[source] StoreError),
    /// Any other failure: the cause is for the log, not for the caller.
    #[error("internal error")]
    Internal(#[source] anyhow::Error),
}

/// An outcome's kind as both doors report it: a stable code (REST's problem type
/// `/problems/<code>`), a title, the same for every occurrence, and a status (REST answers with
/// it; an MCP tool result carries it in its problem body).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Invalid,
    NotFound,
    Stale,
    AlreadyResolved,
    NotResolved,
    RevertBlocked,
    RoleForbidden,
    ScopeForbidden,
    KeyExists,
    SweepRunning,
    /// A resolution rolled back; `unavailable`: because the database was (503, else 500).
    ResolutionFailed {
        unavailable: bool,
    },
    /// A revert rolled back; `unavailable` as for a resolution.
    RevertFailed {
        unavailable: bool,
    },
    Overloaded,
    Unavailable,
    Busy,
    StorageFull,
    Internal,
}

impl Kind {
    /// The stable code, e.g. `stale-conflict`.
    pub fn code(self) -> &'static str {
        self.facts().0
    }

    /// The short summary, e.g. `Conflict is stale`.
    pub fn title(self) -> &'static str {
        self.facts().1
    }

    /// The status code, e.g. 409.
    pub fn status(self) -> u16 {
        self.facts().2
    }

    fn facts(self) -> (&'static str, &'static str, u16) {
        use Kind::*;
        match self {
            Invalid => ("validation", "Invalid request", 422),
            NotFound => ("not-found", "Not found", 404),
            Stale => ("stale-conflict", "Conflict is stale", 409),
            AlreadyResolved => ("already-resolved", "Conflict already resolved", 409),
            NotResolved => ("not-resolved", "Conflict not resolved", 409),
            RevertBlocked => ("revert-conflict", "Later changes in the way", 409),
            RoleForbidden => ("role-forbidden", "Forbidden for this role", 403),
            ScopeForbidden => ("scope-forbidden", "Forbidden scope", 403),
            KeyExists => ("key-exists", "Key name taken", 409),
            SweepRunning => ("sweep-running", "A sweep is running", 409),
            ResolutionFailed { unavailable } => (
                "resolution-failed",
                "Resolution failed",
                failed(unavailable),
            ),
            RevertFailed { unavailable } => ("revert-failed", "Revert failed", failed(unavailable)),
            Overloaded => ("overloaded", "Service overloaded", 503),
            Unavailable => ("unavailable", "Service unavailable", 503),
            Busy => ("busy", "Database busy", 503),
            StorageFull => ("storage-full", "Storage full", 507),
            Internal => ("internal", "Internal server error", 500),
        }
    }
}

/// A rolled-back step's status: retry later (503) when the database was unavailable, else 500.
fn failed(unavailable: bool) -> u16 {
    if unavailable { 503 } else { 500 }
}

fn changes_text(obstacles: &[Obstacle]) -> String {
    let parts: Vec<String> = obstacles.iter().map(ToString::to_string).collect();
    parts.join("; ")
}

impl Error {
    pub fn invalid(pointer: &str, detail: impl Into<String>) -> Self {
        Self::Invalid(vec![FieldError::new(pointer, detail)])
    }

    /// The extension members both doors add to this outcome's problem details.
    pub fn members(&self) -> ProblemMembers {
        let mut m = ProblemMembers::default();
        match self {
            Self::AlreadyResolved(r) => m.current = Some(CurrentResolution::from(&**r)),
            Self::Stale { node_id, state } => {
                m.node_id = Some(*node_id);
                m.node_state = Some(NodeStateDto::from_domain(*state));
            }
            Self::RevertBlocked(found) => {
                m.changes = Some(found.iter().map(ChangeDto::from).collect());
            }
            Self::SweepRunning(id) => m.sweep_id = Some(*id),
            Self::StepFailed {
                partial_actions,
                failed_action,
                ..
            } => {
                m.partial_actions = Some(partial_actions.iter().map(ActionDto::from).collect());
                m.failed_action = Some(failed_action.clone());
                m.rolled_back = Some(true);
                m.retryable = Some(true);
            }
            _ => {}
        }
        m
    }

    /// How both doors report this outcome.
    pub fn kind(&self) -> Kind {
        match self {
            Self::Invalid(_) => Kind::Invalid,
            Self::NotFound(_) => Kind::NotFound,
            Self::Stale { .. } => Kind::Stale,
            Self::AlreadyResolved(_) => Kind::AlreadyResolved,
            Self::NotResolved => Kind::NotResolved,
            Self::RevertBlocked(_) => Kind::RevertBlocked,
            Self::Forbidden { .. } => Kind::RoleForbidden,
            Self::ScopeForbidden { .. } => Kind::ScopeForbidden,
            Self::KeyExists(_) => Kind::KeyExists,
            Self::SweepRunning(_) => Kind::SweepRunning,
            Self::StepFailed {
                revert: false,
                unavailable,
                ..
            } => Kind::ResolutionFailed {
                unavailable: *unavailable,
            },
            Self::StepFailed {
                revert: true,
                unavailable,
                ..
            } => Kind::RevertFailed {
                unavailable: *unavailable,
            },
            Self::Overloaded => Kind::Overloaded,
            Self::Unavailable(_) => Kind::Unavailable,
            Self::Busy(_) => Kind::Busy,
            Self::StorageFull(_) => Kind::StorageFull,
            Self::Internal(_) => Kind::Internal,
        }
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
