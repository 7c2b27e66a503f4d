//! The queue's change feeds: the wake long poll (`GET /conflicts/wake`) and the event stream
//! (`GET /events`). Waiters sleep on the notifier (no database work while they wait) and read
//! again only when something committed; at most `MAX_WAITERS` wait at once.

use std::time::Duration;

use tokio::sync::OwnedSemaphorePermit;
use tokio::time::Instant;

use crate::domain::access::Caller;
use crate::service::{Error, Result, Services};
use crate::store::notify::{Subscription, Woken};

pub use crate::store::{Event, WakeBatch};

/// Events read from the log per round trip.
const BATCH: usize = 100;
/// How long an idle event feed sleeps between looks at the shutdown flag.
const IDLE: Duration = Duration::from_secs(15);

/// Pending conflicts after the cursor `after` (at most `max`): at once when there are some,
/// else the first ones queued within `wait`; `None` when none came (or the server is
/// shutting down).
pub async fn wake(
    svc: &Services,
    caller: &Caller,
    after: i64,
    max: usize,
    wait: Duration,
) -> Result<Option<WakeBatch>> {
    let _permit = svc.notifier.admit().ok_or(Error::Overloaded)?;
    let deadline = Instant::now() + wait;
    let scopes = caller.visible();
    // Subscribe before reading: a commit between the read and the wait still wakes us.
    let mut sub = svc.notifier.subscribe();
    loop {
        let batch = svc.store.wake_batch(after, max, scopes.as_deref()).await?;
        if !batch.conflicts.is_empty() {
            return Ok(Some(batch));
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || sub.wait(left).await != Woken::Changed {
            return Ok(None);
        }
    }
}

/// An event feed: the events after a cursor, then each new one as it commits.
pub struct Events {
    svc: Services,
    sub: Subscription,
    after: i64,
    pending: Vec<Event>,
    /// The caller's scope patterns: the feed carries the events of what it sees.
    scopes: Option<String>,
    _permit: OwnedSemaphorePermit,
}

/// Opens a feed after the event `resume`, or (without one) after the newest event, so that it
/// carries what happens from now on.
pub async fn events(svc: &Services, caller: &Caller, resume: Option<i64>) -> Result<Events> {
    let permit = svc.notifier.admit().ok_or(Error::Overloaded)?;
    let sub = svc.notifier.subscribe();
    let after = match resume {
        Some(id) => id,
        None => latest_id(svc).await?,
    };
    Ok(Events {
        svc: svc.clone(),
        sub,
        after,
        pending: Vec::new(),
        scopes: caller.visible(),
        _permit: permit,
    })
}

/// The id of the newest event.
async fn latest_id(svc: &Services) -> Result<i64> {
    let mut after = 0;
    loop {
        let page = svc.store.events_after(after, 1000, None).await?;
        match page.last() {
            Some(e) if page.len() == 1000 => after = e.id,
            Some(e) => return Ok(e.id),
            None => return Ok(after),
        }
    }
}

impl Events {
    /// The next event, waiting for one as long as it takes; `None` once the server shuts
    /// down. A failed read is retried shortly (or as soon as something commits).
    pub async fn next(&mut self) -> Option<Event> {
        loop {
            if !self.pending.is_empty() {
                let e = self.pending.remove(0);
                self.after = e.id;
                return Some(e);
            }
            let scopes = self.scopes.as_deref();
            match self.svc.store.events_after(self.after, BATCH, scopes).await {
                Ok(events) if !events.is_empty() => self.pending = events,
                Ok(_) => loop {
                    match self.sub.wait(IDLE).await {
                        Woken::ShuttingDown => return None,
                        Woken::Changed => break,
                        Woken::TimedOut => {}
                    }
                },
                Err(e) => {
                    tracing::warn!(error = ?e, "event stream read failed; retrying");
                    if self.sub.wait(Duration::from_secs(1)).await == Woken::ShuttingDown {
                        return None;
                    }
                }
            }
        }
    }
}

impl Services {
    /// Resolves when the server starts shutting down (long-lived sessions end then). The
    /// future holds the notifier only, never the store: a task that waits on it for the life
    /// of the process keeps no database connection checked out, so closing the pool (a test's
    /// teardown, the end of `serve`) does not wait on it.
    pub fn shutting_down(&self) -> impl Future<Output = ()> + Send + 'static {
        let notifier = std::sync::Arc::clone(&self.notifier);
        async move {
            let mut sub = notifier.subscribe();
            while sub.wait(Duration::from_secs(3600)).await != Woken::ShuttingDown {}
        }
    }
}
