//! Readiness: the database answers and takes writes.

use crate::service::{Error, Result, Services};

/// Reachable, and able to write: while the last write failed for a full disk, a probe write
/// must succeed. A full disk is [`Error::StorageFull`]; any other failure means the database
/// cannot serve now, [`Error::Unavailable`].
pub async fn ready(svc: &Services) -> Result<()> {
    svc.store.ready().await.map_err(|e| {
        if e.is_storage_full() {
            Error::StorageFull(e)
        } else {
            Error::Unavailable(e)
        }
    })
}
