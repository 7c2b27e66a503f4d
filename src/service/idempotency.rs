//! Idempotency keys: claim a key for a request, store its reply, release it. A keyed write's
//! reply is committed with its effect by the store (see `store::idempotency`); the front door
//! only keeps replies that had no effect to commit with (a 4xx, a replay).

use crate::service::{Result, Services};

pub use crate::store::failpoints::lost_reply;
pub use crate::store::{Claim, IdempotencyBegin, StoredResponse, answer_with};

/// Claims `key` in `scope` for the request with this fingerprint, or says why not.
pub async fn begin(
    svc: &Services,
    scope: &str,
    key: &str,
    fingerprint: &str,
) -> Result<IdempotencyBegin> {
    Ok(svc.store.idempotency_begin(scope, key, fingerprint).await?)
}

/// Stores the reply of a claimed key.
pub async fn finish(svc: &Services, scope: &str, key: &str, reply: StoredResponse) -> Result<()> {
    Ok(svc.store.idempotency_finish(scope, key, reply).await?)
}

/// Releases a claimed key whose request failed, so a retry executes.
pub async fn abandon(svc: &Services, scope: &str, key: &str) -> Result<()> {
    Ok(svc.store.idempotency_abandon(scope, key).await?)
}
