//! Filling the analysis memo when the process starts.
//!
//! Detection keeps each memory's analysis from the moment it is written (`Detector`'s memo),
//! so judging a candidate never analyses stored text again. A process that starts on an
//! existing database holds none of them, and its first writes would analyse every stored
//! candidate they meet, at the cost of the writes an agent is waiting for. So the memo is
//! filled in the background when the process starts: the memo's analogue of a migration
//! that fills a new column. Newest memories go first, since they are the likeliest
//! candidates, and filling stops where the memo's budget is full, so it never evicts what
//! writes keep there.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::domain::contradiction::{self, Analysis, fingerprint};
use crate::domain::node::Node;
use crate::service::Services;
use crate::service::detect::Probe;
use crate::service::memo::Memo;
use crate::store::{NodeQuery, Store, StoreResult};

/// Memories read per page: enough to keep the database's round trips rare.
const PAGE: usize = 200;
/// Memories analysed between yields to other tasks (about 0.3 ms).
const SLICE: usize = 16;

/// Set to 1 while the memo is being filled, and to 0 once filling has ended.
pub const RUNNING_GAUGE: &str = "concord_analysis_warmup_running";

/// What filling did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Warmed {
    /// Active memories whose analysis was computed and kept.
    pub analysed: usize,
    /// Active memories whose analysis was kept already (written since the process started).
    pub kept_already: usize,
    /// Whether filling stopped because the memo was full; otherwise every active memory's
    /// analysis is kept.
    pub full: bool,
}

/// Analyses of the active memories, newest first, into `memo` until it is full.
pub async fn fill(store: &dyn Store, memo: &Memo<Analysis>) -> StoreResult<Warmed> {
    let mut warmed = Warmed {
        analysed: 0,
        kept_already: 0,
        full: false,
    };
    let mut after = None;
    loop {
        let page = store
            .list_nodes(NodeQuery {
                limit: PAGE,
                after,
                ..Default::default()
            })
            .await?;
        // A page is a few milliseconds of CPU: it is analysed in slices, and requests on
        // the same thread wait at most one slice behind it.
        for slice in page.items.chunks(SLICE) {
            let (analysed, kept_already, full) = fill_slice(memo, slice);
            warmed.analysed += analysed;
            warmed.kept_already += kept_already;
            if full {
                warmed.full = true;
                return Ok(warmed);
            }
            tokio::task::yield_now().await;
        }
        match page.next_cursor {
            Some(next) => after = Some(next),
            None => return Ok(warmed),
        }
    }
}

/// Some memories into the memo: how many were analysed, how many were kept already, and
/// whether the memo is full.
fn fill_slice(memo: &Memo<Analysis>, nodes: &[Node]) -> (usize, usize, bool) {
    let (mut analysed, mut kept_already) = (0, 0);
    for node in nodes {
        let print = fingerprint(&node.title, &node.body);
        if memo.holds(node.id, print) {
            kept_already += 1;
            continue;
        }
        let analysis = contradiction::analyse(&Probe::of_stored(node, None).memory());
        if !memo.fill(node.id, print, Arc::new(analysis)) {
            return (analysed, kept_already, true);
        }
        analysed += 1;
    }
    (analysed, kept_already, false)
}

/// Fills the detector's memo in the background; the outcome is logged, and
/// [`RUNNING_GAUGE`] on `/metrics` says when it has ended. A failure only means that the
/// memo fills as writes meet candidates, as it would without this.
pub fn spawn(svc: &Services) {
    let (store, detector) = (Arc::clone(&svc.store), Arc::clone(&svc.detector));
    let running = Running::start();
    tokio::spawn(async move {
        let _running = running;
        let started = Instant::now();
        match fill(store.as_ref(), detector.analyses()).await {
            Ok(w) => tracing::info!(
                analysed = w.analysed,
                kept_already = w.kept_already,
                memo_full = w.full,
                ms = millis(started.elapsed()),
                "stored memories' analyses loaded"
            ),
            Err(e) => tracing::warn!(
                error = %e,
                "stored memories' analyses not loaded; writes analyse candidates as they meet them"
            ),
        }
    });
}

/// [`RUNNING_GAUGE`] at 1 for as long as this lives, however the fill ends (a panic
/// included), so nothing waits on it forever.
struct Running;

impl Running {
    fn start() -> Self {
        metrics::gauge!(RUNNING_GAUGE).set(1.0);
        Running
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        metrics::gauge!(RUNNING_GAUGE).set(0.0);
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
