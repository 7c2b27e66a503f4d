//! The write path's health, as `/readyz` reports it. A reachable database can still refuse
//! every write (a full disk), and a probe that only reads would call it ready. So the store
//! remembers whether its last write failed for lack of space; while it did, readiness is a
//! real write, and the first write that succeeds, probe or request, clears it. The probe must
//! need at least the space any request's write needs: a small one fits into pages a delete
//! freed (or a WAL already that long) while a real write still fails, and `/readyz` would
//! call the write path healthy too early. So it commits a row of [`PROBE_BYTES`], more than
//! the largest body a request may carry, then deletes it in a second transaction.

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
/// Twice the request body limit (2 MiB): a write of a request, its indexes and history
/// included, needs less.
const PROBE_BYTES: usize = 4 * 1024 * 1024;

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
    // Committed, so its pages are written (in one transaction with the delete, SQLite skips
    // writing pages freed before the commit). A row left by a failed delete expires at once
    // and goes with the next claim's sweep.
    B::commit(tx).await?;
    let mut tx = store.write().await?;
    B::query("delete from idempotency_keys where scope = $1 and idem_key = $2")
        .arg(PROBE_SCOPE)
        .arg(key.as_str())
        .run(&mut tx)
        .await?;
    B::commit(tx).await.map_err(StoreError::from)
}
