//! What every handler can reach: the store, the detector and the settings.

use std::sync::Arc;

use crate::config::Settings;
use crate::detect::Detector;
use crate::notify::Notifier;
use crate::store::Store;

#[derive(Clone)]
pub struct AppState {
    pub store: Arc<dyn Store>,
    pub detector: Arc<Detector>,
    pub settings: Arc<Settings>,
    /// Wakes long polls and event streams when conflicts are queued or resolved.
    pub notifier: Arc<Notifier>,
    /// SHA-256 digests of the configured API keys (compared in constant time).
    pub api_key_digests: Arc<Vec<[u8; 32]>>,
}

impl AppState {
    pub fn new(store: Arc<dyn Store>, settings: Settings) -> Self {
        let api_key_digests = settings
            .api_keys
            .iter()
            .filter(|k| !k.0.is_empty())
            .map(|k| crate::api::auth::digest(&k.0))
            .collect();
        Self {
            store,
            detector: Arc::new(Detector::new(&settings)),
            settings: Arc::new(settings),
            notifier: Arc::new(Notifier::default()),
            api_key_digests: Arc::new(api_key_digests),
        }
    }
}
