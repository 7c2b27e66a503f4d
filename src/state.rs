//! What every front door (REST handlers, MCP tools) is given: the use cases and the settings.
//! The composition root builds it once per process ([`AppState::new`]).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use crate::config::Settings;
use crate::service::Services;
use crate::service::detect::Detector;
use crate::store::Store;
use crate::store::notify::Notifier;

#[derive(Clone)]
pub struct AppState {
    /// Every use case; the only way a handler or a tool reaches the store.
    pub services: Services,
    pub settings: Arc<Settings>,
    /// The store the services run on, for the composition root (LISTEN, `concord check`) and
    /// tests; front doors go through `services`.
    pub store: Arc<dyn Store>,
    /// Wakes long polls and event streams; the composition root shuts it down on exit.
    pub notifier: Arc<Notifier>,
    /// The detector the services judge with (its memo is filled at start), for tests.
    pub detector: Arc<Detector>,
    /// Open MCP sessions under `--mcp-max-sessions`: the HTTP guard reserves a slot for an
    /// `initialize` (or refuses it), the session manager holds it while the session lives.
    pub mcp_sessions: Arc<SessionSlots>,
}

impl AppState {
    pub fn new(store: Arc<dyn Store>, settings: Settings) -> Self {
        let notifier = Arc::new(Notifier::default());
        let detector = Arc::new(Detector::new(&settings));
        Self {
            services: Services::new(
                Arc::clone(&store),
                Arc::clone(&detector),
                Arc::clone(&notifier),
            )
            .with_api_keys(settings.api_keys.iter().map(|k| k.0.as_str())),
            mcp_sessions: Arc::new(SessionSlots::new(settings.mcp_max_sessions as usize)),
            settings: Arc::new(settings),
            store,
            notifier,
            detector,
        }
    }
}

/// The count of open MCP sessions against their cap. A slot is reserved before a session is
/// created (so concurrent `initialize` calls cannot overshoot the cap) and becomes the
/// session's once it exists; it is freed when the session closes (DELETE, idle expiry,
/// shutdown).
#[derive(Debug)]
pub struct SessionSlots {
    cap: usize,
    inner: Mutex<Slots>,
}

#[derive(Debug, Default)]
struct Slots {
    open: HashSet<Arc<str>>,
    reserved: usize,
}

/// A reserved slot, returned when dropped: by then the session holds its own, if it was
/// created.
#[derive(Debug)]
pub struct Reservation(Arc<SessionSlots>);

impl Drop for Reservation {
    fn drop(&mut self) {
        self.0.lock().reserved -= 1;
    }
}

impl SessionSlots {
    pub fn new(cap: usize) -> Self {
        Self {
            cap,
            inner: Mutex::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Slots> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Sessions open now.
    pub fn open(&self) -> usize {
        self.lock().open.len()
    }

    /// A slot for a session about to be created; `None` at the cap.
    pub fn reserve(self: &Arc<Self>) -> Option<Reservation> {
        let mut slots = self.lock();
        if slots.open.len() + slots.reserved >= self.cap {
            return None;
        }
        slots.reserved += 1;
        Some(Reservation(self.clone()))
    }

    /// Counts a created session; false when it would exceed the cap (a session created
    /// without a reservation, which the caller then refuses).
    pub fn opened(&self, id: Arc<str>) -> bool {
        let mut slots = self.lock();
        // A reserved slot leaves room under the cap; only an unreserved session can find none.
        if slots.open.len() >= self.cap {
            return false;
        }
        slots.open.insert(id);
        true
    }

    /// Frees a session's slot (once, however often it is closed).
    pub fn closed(&self, id: &str) {
        self.lock().open.remove(id);
    }
}
