//! What every front door (REST handlers, MCP tools) is given: the use cases and the settings.
//! The composition root builds it once per process ([`AppState::new`]).

use std::sync::Arc;

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
            ),
            settings: Arc::new(settings),
            store,
            notifier,
            detector,
        }
    }
}
