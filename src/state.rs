//! What every front door (REST handlers, MCP tools) can reach: the store, the detector and the
//! settings.

use std::sync::Arc;

use crate::config::Settings;
use crate::service::detect::Detector;
use crate::store::Store;
use crate::store::notify::Notifier;

#[derive(Clone)]
pub struct AppState {
    pub store: Arc<dyn Store>,
    pub detector: Arc<Detector>,
    pub settings: Arc<Settings>,
    /// Wakes long polls and event streams when conflicts are queued or resolved.
    pub notifier: Arc<Notifier>,
}

impl AppState {
    pub fn new(store: Arc<dyn Store>, settings: Settings) -> Self {
        Self {
            store,
            detector: Arc::new(Detector::new(&settings)),
            settings: Arc::new(settings),
            notifier: Arc::new(Notifier::default()),
        }
    }
}
