//! Resolution policies inside a node write: the resolution a rule decided on (in the service)
//! runs right after its conflict is queued, in the write's transaction, through the same
//! `execute_in` as a client's resolution, so its actions, history, verdicts and events are
//! those of any resolution and the write stands or falls with it.

use crate::domain::conflict::Conflict;
use crate::domain::plan::Resolve;
use crate::store::Refusal;
use crate::store::backend::{Backend, Conn};
use crate::store::units::resolution;
use crate::store::{StoreError, StoreResult, conflicts, failpoints};

/// Runs a policy's resolution of a conflict this write just queued, inside the write's
/// transaction, exactly as a client's resolution runs. A plan refused as stale wrote nothing
/// (an earlier policy resolution of this write made the kept node dormant): the conflict then
/// stays pending for a person to decide.
pub async fn apply<B: Backend>(
    tx: &mut Conn<B>,
    queued: Conflict,
    req: &Resolve,
) -> StoreResult<Conflict> {
    match resolution::execute_in::<B>(tx, req).await {
        Ok(_) => {}
        Err(StoreError::Refused(Refusal::Stale { node_id, state })) => {
            tracing::info!(conflict.id = %queued.id, %node_id, %state, "policy resolution left pending: stale");
            return Ok(queued);
        }
        Err(e) => return Err(e),
    }
    // Keyed by the old node: a test knows its id before the write, not the conflict's.
    failpoints::hit(queued.old_node_id.unwrap_or_default(), "policy_resolved")?;
    conflicts::get_in::<B>(tx, queued.id).await
}
