//! Idempotency keys: claim a key for a request, keep its reply, release it. A write a retry may
//! repeat takes the request's [`Claim`] (if it has one), renders its reply from its outcome
//! (`service::replies`) and hands that reply to the store as plain bytes, to commit in the same
//! transaction as the effect ([`commit`]): a crash between the two cannot make a retry execute
//! the write again. The front door keeps only the replies that had no effect to commit with
//! (a 4xx, a replay) and releases the key of a request that failed.
//!
//! The release is a write too, and fails where the effect failed (a full disk, the database
//! gone). The claim would then hold the key in flight (409) until it goes stale, though
//! nothing ran. So a key whose release failed is remembered, and the next request with it
//! releases it again first: a retry once space is freed runs at once.

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use crate::service::{Result, Services};
use crate::store::{KeyedReply, Pending, StoreResult};

pub use crate::store::failpoints::lost_reply;
pub use crate::store::{IdempotencyBegin, StoredResponse};

/// An `Idempotency-Key` claimed for a request that is running ([`begin`] said `Started`).
#[derive(Debug)]
pub struct Claim {
    scope: String,
    key: String,
    saved: AtomicBool,
}

impl Claim {
    pub fn new(scope: &str, key: &str) -> Self {
        Self {
            scope: scope.to_owned(),
            key: key.to_owned(),
            saved: AtomicBool::new(false),
        }
    }

    pub fn scope(&self) -> &str {
        &self.scope
    }

    pub fn key(&self) -> &str {
        &self.key
    }

    /// Whether the reply was committed with the effect (nothing is left to keep).
    pub fn saved(&self) -> bool {
        self.saved.load(Ordering::Acquire)
    }
}

/// A write's reply as a retry with the same key gets it back: status, JSON body and
/// `Location`.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub status: u16,
    pub location: Option<String>,
    pub body: Vec<u8>,
}

impl Reply {
    pub const CONTENT_TYPE: &str = "application/json";

    pub fn json(status: u16, location: Option<String>, body: &impl Serialize) -> Self {
        Self {
            status,
            location,
            body: serde_json::to_vec(body).expect("reply shapes serialise"),
        }
    }

    fn kept(self) -> StoredResponse {
        StoredResponse {
            status: self.status,
            body: self.body,
            content_type: Some(Self::CONTENT_TYPE.to_owned()),
            location: self.location,
        }
    }
}

/// Commits a keyed write with the reply `render` makes of its outcome, in one transaction.
pub(crate) async fn commit<T>(
    claim: &Claim,
    pending: Pending<'_, T>,
    render: fn(&T) -> Reply,
) -> StoreResult<T> {
    let reply = KeyedReply {
        scope: &claim.scope,
        key: &claim.key,
        response: render(pending.outcome()).kept(),
    };
    let (outcome, kept) = pending.commit(reply).await?;
    if kept {
        claim.saved.store(true, Ordering::Release);
    }
    Ok(outcome)
}

/// The claims of this process whose release failed: `(scope, key)`.
#[derive(Debug, Default)]
pub struct Unreleased(Mutex<HashSet<(String, String)>>);

impl Unreleased {
    fn set(&self) -> std::sync::MutexGuard<'_, HashSet<(String, String)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Removes the entry, true when it was there: one request only gets to release the key
    /// (two would each delete the claim the other just made).
    fn take(&self, scope: &str, key: &str) -> bool {
        self.set().remove(&(scope.to_owned(), key.to_owned()))
    }

    fn remember(&self, entry: (String, String)) {
        let mut set = self.set();
        // Bounded: past it, a stuck claim waits to go stale as it would without this.
        if set.len() < MAX_UNRELEASED {
            set.insert(entry);
        }
    }
}

const MAX_UNRELEASED: usize = 65_536;

/// Claims `key` in `scope` for the request with this fingerprint, or says why not.
pub async fn begin(
    svc: &Services,
    scope: &str,
    key: &str,
    fingerprint: &str,
) -> Result<IdempotencyBegin> {
    let begun = svc.store.idempotency_begin(scope, key, fingerprint).await?;
    if !matches!(begun, IdempotencyBegin::InFlight) || !svc.unreleased.take(scope, key) {
        return Ok(begun);
    }
    // In flight only because this process could not release it after its request failed.
    abandon(svc, scope, key).await?;
    Ok(svc.store.idempotency_begin(scope, key, fingerprint).await?)
}

/// Keeps the reply of a claimed key whose request had no effect to commit it with.
pub async fn finish(svc: &Services, scope: &str, key: &str, reply: StoredResponse) -> Result<()> {
    Ok(svc.store.idempotency_finish(scope, key, reply).await?)
}

/// Releases a claimed key whose request failed, so a retry executes. A key that cannot be
/// released now is remembered, to be released by the next request with it.
pub async fn abandon(svc: &Services, scope: &str, key: &str) -> Result<()> {
    let entry = (scope.to_owned(), key.to_owned());
    match svc.store.idempotency_abandon(scope, key).await {
        Ok(()) => {
            svc.unreleased.set().remove(&entry);
            Ok(())
        }
        Err(e) => {
            svc.unreleased.remember(entry);
            Err(e.into())
        }
    }
}
