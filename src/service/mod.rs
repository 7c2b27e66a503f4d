//! The use cases both front doors call, one function each: writing, reading and checking
//! memories with detection, edges, manual queueing, listing, resolving and reverting the
//! queue, recall, topic reports, sources, the wake and event feeds, health and idempotent
//! replies; with the optional LLM judge they consult and the memo warm-up at start. Each use
//! case takes the [`Services`] (its dependencies, built by the composition root) and returns
//! domain types or an [`Error`] that names the outcome; REST handlers and MCP tools only parse
//! and shape. Nothing here knows axum or rmcp: what the doors report is plain data, an
//! outcome's [`Kind`] (stable code, title, status) and, for a write a retry may repeat, the
//! reply's bytes ([`replies`]), which a request holding an idempotency key commits with the
//! write ([`idempotency`]).

pub mod audit;
pub mod batch;
pub mod conflicts;
pub mod detect;
pub mod edges;
mod error;
pub mod feed;
pub mod finding;
pub mod health;
pub mod idempotency;
pub mod judging;
pub mod keys;
pub mod llm;
pub mod memo;
pub mod nodes;
pub mod policy;
pub mod queue;
pub mod recall;
pub mod replies;
pub mod report;
pub mod scopes;
pub mod sources;
pub mod sweep;
pub mod timeline;
pub mod warmup;

use std::sync::Arc;

use crate::store::Store;
use crate::store::notify::Notifier;

pub use error::{Error, Kind, Result};

use detect::Detector;

/// Everything a use case depends on: the store, the detector (with its memo, policies and
/// LLM tier) and the notifier that wakes long polls and event streams. Cheap to clone.
#[derive(Clone)]
pub struct Services {
    store: Arc<dyn Store>,
    detector: Arc<Detector>,
    notifier: Arc<Notifier>,
    /// Keys whose release failed (`idempotency::abandon`).
    unreleased: Arc<idempotency::Unreleased>,
    /// The API keys this process accepts ([`keys::authenticate`]).
    keyring: Arc<keys::KeyRing>,
    /// Rung when a sweep starts, so that the sweeper takes it at once.
    sweeper: sweep::Sweeper,
}

impl Services {
    /// The use cases over `store`, judging with `detector` and waking `notifier`'s waiters.
    pub fn new(store: Arc<dyn Store>, detector: Arc<Detector>, notifier: Arc<Notifier>) -> Self {
        Self {
            store,
            detector,
            notifier,
            unreleased: Arc::default(),
            keyring: Arc::default(),
            sweeper: Arc::default(),
        }
    }

    /// Accepts `configured` (`--api-keys`) as admin keys of every scope, besides the keys
    /// stored in the database.
    pub fn with_api_keys<'a>(mut self, configured: impl IntoIterator<Item = &'a str>) -> Self {
        self.keyring = Arc::new(keys::KeyRing::new(configured));
        self
    }

    /// Which database serves the use cases (`sqlite` or `postgres`).
    pub fn backend(&self) -> &'static str {
        self.store.backend()
    }

    /// The notifier the use cases bump after a change to the queue.
    pub fn notifier(&self) -> &Arc<Notifier> {
        &self.notifier
    }
}
