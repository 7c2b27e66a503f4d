//! Sources and their verdict counters (`GET /sources`).

use crate::domain::access::Caller;
use crate::domain::credibility;
use crate::domain::policy::trust_of;
use crate::service::{Result, Services};

pub use crate::store::SourceStats;

/// A source as the caller's scopes know it.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceRecord {
    pub stats: SourceStats,
    /// The starting trust the policy file's `[trust]` table gives it, when a pattern names it.
    pub trust: Option<f64>,
    /// Its credibility: the starting trust (0.5 without one) moved by its verdicts.
    pub credibility: f64,
}

/// Every source of the caller's scopes with its upheld and contradicted verdicts and its
/// node count there, its starting trust and its credibility.
pub async fn list(svc: &Services, caller: &Caller) -> Result<Vec<SourceRecord>> {
    let table = svc.detector.trust();
    let stats = svc.store.list_sources(caller.visible().as_deref()).await?;
    Ok(stats
        .into_iter()
        .map(|stats| {
            let trust = trust_of(&table, &stats.source);
            let start = trust.unwrap_or(credibility::NEUTRAL);
            SourceRecord {
                credibility: credibility::score_from(start, stats.upheld, stats.contradicted),
                trust,
                stats,
            }
        })
        .collect())
}
