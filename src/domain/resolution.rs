//! The outcome of a resolution: what a retry replays and what the caller is told.

use uuid::Uuid;

use crate::domain::conflict::{Action, Strategy};
use crate::domain::time::Timestamp;

/// The outcome of a resolution, as stored for replay.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Resolution {
    pub conflict_id: Uuid,
    pub strategy: Strategy,
    pub old_node_id: Option<Uuid>,
    pub new_node_id: Option<Uuid>,
    pub actions: Vec<Action>,
    pub resolved_at: Timestamp,
    #[serde(default)]
    pub replayed: bool,
}
