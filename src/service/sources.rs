//! Sources and their verdict counters (`GET /sources`).

use crate::service::{Result, Services};

pub use crate::store::SourceStats;

/// Every source with its upheld and contradicted verdicts and its node count.
pub async fn list(svc: &Services) -> Result<Vec<SourceStats>> {
    Ok(svc.store.list_sources().await?)
}
