//! What every front door (REST handlers, MCP tools) is given: the use cases and the settings.
//! The composition root builds it once per process ([`AppState::new`]).

use std::collections::HashMap;
use std::net::IpAddr;
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
            mcp_sessions: Arc::new(SessionSlots::new(
                settings.mcp_max_sessions as usize,
                settings.mcp_sessions_per_client(),
            )),
            settings: Arc::new(settings),
            store,
            notifier,
            detector,
        }
    }
}

/// The count of open MCP sessions against their cap, in all and per client. A slot is reserved
/// before a session is created (so concurrent `initialize` calls cannot overshoot the cap) and
/// becomes the session's once it exists; it is freed when the session closes (DELETE, idle
/// expiry, shutdown). One client (a peer IP address) holds at most `per_client` of the slots,
/// reserved and open together, so a single client cannot take them all.
#[derive(Debug)]
pub struct SessionSlots {
    cap: usize,
    per_client: usize,
    inner: Mutex<Slots>,
}

#[derive(Debug, Default)]
struct Slots {
    /// Open sessions and the client each belongs to (`None`: not known yet, or no peer).
    open: HashMap<Arc<str>, Option<IpAddr>>,
    reserved: usize,
    /// Slots reserved or open per client; a client holding none has no entry.
    by_client: HashMap<IpAddr, usize>,
}

impl Slots {
    fn release(&mut self, client: Option<IpAddr>) {
        let Some(client) = client else { return };
        if let Some(held) = self.by_client.get_mut(&client) {
            *held -= 1;
            if *held == 0 {
                self.by_client.remove(&client);
            }
        }
    }
}

/// Why a slot could not be reserved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Every slot is taken.
    Full { cap: usize },
    /// This client holds its share already.
    ClientShare { per_client: usize },
}

/// A reserved slot, returned when dropped: by then the session holds its own, if it was
/// created.
#[derive(Debug)]
pub struct Reservation {
    slots: Arc<SessionSlots>,
    client: Option<IpAddr>,
}

impl Reservation {
    /// Books the session the SDK created for this reservation to its client, so the client's
    /// share counts it until it closes. A session that closed already is not booked.
    pub fn assign(&self, id: &str) {
        let Some(client) = self.client else { return };
        let mut slots = self.slots.lock();
        if let Some(owner @ None) = slots.open.get_mut(id) {
            *owner = Some(client);
            *slots.by_client.entry(client).or_default() += 1;
        }
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        let mut slots = self.slots.lock();
        slots.reserved -= 1;
        slots.release(self.client);
    }
}

impl SessionSlots {
    /// `cap` sessions in all, `per_client` of them (at least one) for any one client.
    pub fn new(cap: usize, per_client: usize) -> Self {
        Self {
            cap,
            per_client: per_client.clamp(1, cap.max(1)),
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

    /// A slot for a session about to be created for `client` (`None`: unknown, counted only
    /// against the cap).
    pub fn reserve(self: &Arc<Self>, client: Option<IpAddr>) -> Result<Reservation, Refusal> {
        let mut slots = self.lock();
        if slots.open.len() + slots.reserved >= self.cap {
            return Err(Refusal::Full { cap: self.cap });
        }
        if let Some(client) = client {
            let held = slots.by_client.entry(client).or_default();
            if *held >= self.per_client {
                return Err(Refusal::ClientShare {
                    per_client: self.per_client,
                });
            }
            *held += 1;
        }
        slots.reserved += 1;
        Ok(Reservation {
            slots: self.clone(),
            client,
        })
    }

    /// Counts a created session; false when it would exceed the cap (a session created
    /// without a reservation, which the caller then refuses).
    pub fn opened(&self, id: Arc<str>) -> bool {
        let mut slots = self.lock();
        // A reserved slot leaves room under the cap; only an unreserved session can find none.
        if slots.open.len() >= self.cap {
            return false;
        }
        slots.open.insert(id, None);
        true
    }

    /// Frees a session's slot (once, however often it is closed).
    pub fn closed(&self, id: &str) {
        let mut slots = self.lock();
        if let Some(client) = slots.open.remove(id) {
            slots.release(client);
        }
    }
}
