//! Sources and their verdict counters (`GET /sources`).

use crate::domain::access::Caller;
use crate::service::{Result, Services};

pub use crate::store::SourceStats;

/// Every source of the caller's scopes with its upheld and contradicted verdicts and its
/// node count there.
pub async fn list(svc: &Services, caller: &Caller) -> Result<Vec<SourceStats>> {
    Ok(svc.store.list_sources(caller.visible().as_deref()).await?)
}
