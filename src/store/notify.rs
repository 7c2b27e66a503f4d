//! Wake-ups for long polls and event streams. Writers bump a version after they commit;
//! waiters sleep on it (no database work while they wait) and re-read only when it moves.
//! On PostgreSQL the store also bumps it for commits made by other instances (LISTEN/NOTIFY).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};

/// At most this many long polls and event streams at once; more get 503 + `Retry-After`.
pub const MAX_WAITERS: usize = 1024;

pub struct Notifier {
    version: watch::Sender<u64>,
    shutdown: watch::Sender<bool>,
    waiters: Arc<Semaphore>,
}

impl Default for Notifier {
    fn default() -> Self {
        Self {
            version: watch::channel(0).0,
            shutdown: watch::channel(false).0,
            waiters: Arc::new(Semaphore::new(MAX_WAITERS)),
        }
    }
}

/// Why a wait ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Woken {
    Changed,
    TimedOut,
    ShuttingDown,
}

impl Notifier {
    /// Something was committed: wake every waiter.
    pub fn bump(&self) {
        self.version.send_modify(|v| *v = v.wrapping_add(1));
    }

    /// Ends every wait (the server is shutting down).
    pub fn shut_down(&self) {
        self.shutdown.send_replace(true);
        self.bump();
    }

    pub fn is_shutting_down(&self) -> bool {
        *self.shutdown.borrow()
    }

    /// A place among the waiters, or `None` when all are taken.
    pub fn admit(&self) -> Option<OwnedSemaphorePermit> {
        self.waiters.clone().try_acquire_owned().ok()
    }

    pub fn subscribe(&self) -> Subscription {
        Subscription {
            version: self.version.subscribe(),
            shutdown: self.shutdown.subscribe(),
        }
    }
}

/// Taken before reading, so a commit between the read and the wait is not missed.
pub struct Subscription {
    version: watch::Receiver<u64>,
    shutdown: watch::Receiver<bool>,
}

impl Subscription {
    /// Waits until something is committed after the subscription (or its last wait), the
    /// timeout passes, or the server shuts down.
    pub async fn wait(&mut self, timeout: Duration) -> Woken {
        if *self.shutdown.borrow() {
            return Woken::ShuttingDown;
        }
        tokio::select! {
            changed = self.version.changed() => match changed {
                Ok(()) if *self.shutdown.borrow() => Woken::ShuttingDown,
                Ok(()) => Woken::Changed,
                Err(_) => Woken::ShuttingDown,
            },
            _ = self.shutdown.changed() => Woken::ShuttingDown,
            _ = tokio::time::sleep(timeout) => Woken::TimedOut,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_bump_wakes_a_subscriber_taken_before_it() {
        let n = Notifier::default();
        let mut sub = n.subscribe();
        n.bump();
        assert_eq!(sub.wait(Duration::from_secs(5)).await, Woken::Changed);
        assert_eq!(sub.wait(Duration::from_millis(10)).await, Woken::TimedOut);
    }

    #[tokio::test]
    async fn shutting_down_ends_waits() {
        let n = Arc::new(Notifier::default());
        let mut sub = n.subscribe();
        let waiter = tokio::spawn(async move { sub.wait(Duration::from_secs(60)).await });
        n.shut_down();
        assert_eq!(waiter.await.unwrap(), Woken::ShuttingDown);
    }

    #[test]
    fn waiters_beyond_the_cap_are_refused() {
        let n = Notifier::default();
        let permits: Vec<_> = (0..MAX_WAITERS).map(|_| n.admit().unwrap()).collect();
        assert!(n.admit().is_none());
        drop(permits);
        assert!(n.admit().is_some());
    }
}
