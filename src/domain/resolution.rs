//! The outcome of a resolution: what a retry replays and what the caller is told.

use uuid::Uuid;

use crate::domain::conflict::{Action, Strategy};
use crate::domain::time::Timestamp;
use crate::domain::valid_time::Reason;

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
    /// Why the losing side stopped holding (absent for `keep_both` and `merge`, and in
    /// replies stored before valid time existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
    /// Whether concord chose the reason (the request gave none).
    #[serde(default)]
    pub reason_inferred: bool,
}
