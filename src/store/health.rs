//! The write path's health, as `/readyz` reports it. A reachable database can still refuse
//! every write (a full disk), and a probe that only reads would call it ready. So the store
//! remembers whether its last write failed for lack of space; while it did, readiness is a
//! real write (a probe row inserted and deleted in one committed transaction), and the first
//! write that succeeds, probe or request, clears it.

use std::sync::atomic::{AtomicBool, Ordering};

use super::backend::{Backend, QueryExt, Ts};
use crate::domain::time;
use crate::store::{StoreError, StoreResult};

#[derive(Debug, Default)]
pub struct WriteHealth {
    storage_full: AtomicBool,
}

impl WriteHealth {
    /// Notes the outcome of a write.
    pub fn record<T>(&self, result: &StoreResult<T>) {
        match result {
            Ok(_) => self.storage_full.store(false, Ordering::Relaxed),
            Err(e) if e.is_storage_full() => self.storage_full.store(true, Ordering::Relaxed),
            // Other failures say nothing about space.
            Err(_) => {}
        }
    }

    fn failing(&self) -> bool {
        self.storage_full.load(Ordering::Relaxed)
    }
}

/// The probe row's scope: API scopes are `-` or hex, so it meets no client's key.
const PROBE_SCOPE: &str = "~ready-probe";
/// Larger than a page, so the probe needs new pages as real writes do.
const PROBE_BYTES: usize = 16 * 1024;

/// Succeeds at once while writes succeed; after a write failed for a full disk, only when a
/// probe write commits.
pub async fn probe_if_failing<B: Backend>(store: &B) -> StoreResult<()> {
    if !store.health().failing() {
        return Ok(());
    }
    let result = probe(store).await;
    store.health().record(&result);
    result
}

async fn probe<B: Backend>(store: &B) -> StoreResult<()> {
    let now = Ts(time::now());
    let key = uuid::Uuid::now_v7().to_string();
    let mut tx = store.write().await?;
    B::query(
        "insert into idempotency_keys \
         (scope, idem_key, fingerprint, response_body, created_at, updated_at, expires_at) \
         values ($1, $2, '', $3, $4, $4, $4)",
    )
    .arg(PROBE_SCOPE)
    .arg(key.as_str())
    .arg(vec![0u8; PROBE_BYTES])
    .arg(now)
    .run(&mut tx)
    .await?;
    B::query("delete from idempotency_keys where scope = $1 and idem_key = $2")
        .arg(PROBE_SCOPE)
        .arg(key.as_str())
        .run(&mut tx)
        .await?;
    B::commit(tx).await.map_err(StoreError::from)
}
