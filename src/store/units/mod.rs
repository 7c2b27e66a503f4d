//! The store's upper floor: units of work, each one transaction (with its deadlock retries and
//! write-health record applied by `store::unit_of_work`). They call the table helpers of the
//! floor below (`store::{nodes, edges, conflicts, history, pre_image, locks, rows, …}`) and
//! one another (a write runs a policy, which runs a resolution); nothing below calls them.
//!
//! A write that a keyed request may repeat (a node, an edge, a queued conflict, a resolution, a
//! revert) hands back its outcome with its transaction still open ([`Open`]): committed alone
//! ([`Open::commit`]), or with the request's reply stored in it first (`Store::*_keyed` and
//! `store::Pending`), so the reply commits atomically with the effect.

pub mod conflicts;
pub mod edges;
pub mod nodes;
pub mod policy;
pub mod resolution;
pub mod revert;
pub mod sweeps;

use crate::domain::conflict::Action;
use crate::store::backend::Backend;
use crate::store::{Failure, KeyedReply, StoreError, StoreResult, idempotency};

/// A unit of work's outcome, its transaction written and not yet committed.
pub struct Open<B: Backend, T> {
    pub outcome: T,
    pub tx: Uncommitted<B>,
}

impl<B: Backend, T> Open<B, T> {
    /// Commits the effect alone: a request without an idempotency key.
    pub async fn commit(self) -> StoreResult<T> {
        self.tx.commit(None).await?;
        Ok(self.outcome)
    }
}

/// A write transaction waiting for its commit.
pub struct Uncommitted<B: Backend> {
    tx: B::Tx,
    /// Whether anything was written: a replayed resolution or revert only read, and its
    /// transaction is dropped (rolled back) rather than committed.
    wrote: bool,
    /// What a failed commit is reported as.
    last: Last,
}

/// The unit of work a failed commit belongs to: a resolution's and a revert's report the
/// actions done before it (all rolled back), as any failed step of theirs does.
enum Last {
    Write,
    Resolution(Vec<Action>),
    Revert(Vec<Action>),
}

impl<B: Backend> Uncommitted<B> {
    /// A write's transaction.
    pub fn write(tx: B::Tx) -> Self {
        Self {
            tx,
            wrote: true,
            last: Last::Write,
        }
    }

    /// A transaction that only read (a replay): nothing to commit.
    pub fn read_only(tx: B::Tx) -> Self {
        Self {
            tx,
            wrote: false,
            last: Last::Write,
        }
    }

    /// A resolution's transaction, after the actions `done`.
    pub fn resolution(tx: B::Tx, done: Vec<Action>) -> Self {
        Self {
            tx,
            wrote: true,
            last: Last::Resolution(done),
        }
    }

    /// A revert's transaction, after the actions `done`.
    pub fn revert(tx: B::Tx, done: Vec<Action>) -> Self {
        Self {
            tx,
            wrote: true,
            last: Last::Revert(done),
        }
    }

    /// Commits, storing `reply` for its key first (the last row locked, see the lock order in
    /// `store`). True when the reply was stored; false when nothing was written, so nothing is
    /// committed and a reply is for the caller to keep apart.
    pub async fn commit(self, reply: Option<KeyedReply<'_>>) -> StoreResult<bool> {
        let Self {
            mut tx,
            wrote,
            last,
        } = self;
        if !wrote {
            return Ok(false);
        }
        let kept = reply.is_some();
        let committed: StoreResult<()> = async {
            if let Some(r) = reply {
                idempotency::store_response::<B>(&mut tx, r.scope, r.key, r.response).await?;
            }
            B::commit(tx).await?;
            Ok(())
        }
        .await;
        committed.map(|()| kept).map_err(|cause| match last {
            Last::Write => cause,
            Last::Resolution(partial_actions) => StoreError::Failed(Failure::Resolution {
                failed_action: "commit".into(),
                partial_actions,
                cause: Box::new(cause),
            }),
            Last::Revert(partial_actions) => StoreError::Failed(Failure::Revert {
                failed_action: "commit".into(),
                partial_actions,
                cause: Box::new(cause),
            }),
        })
    }
}
