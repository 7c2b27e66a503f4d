//! Readiness: the database answers and takes writes.

use crate::service::{Result, Services};

/// Reachable, and able to write: while the last write failed for a full disk, a probe write
/// must succeed (a full disk is [`crate::service::Error::StorageFull`]).
pub async fn ready(svc: &Services) -> Result<()> {
    Ok(svc.store.ready().await?)
}
