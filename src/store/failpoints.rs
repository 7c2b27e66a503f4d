//! Failure injection for resolution steps and for a crash after a keyed write committed. With
//! the `failpoints` feature (tests only) a test arms a step of one conflict and the store fails
//! right after executing it, or arms an Idempotency-Key whose reply is then lost; without the
//! feature `hit` and `lost_reply` are inlined no-ops, so release builds carry no injection
//! point. A policy's write-time resolution is armed by its old node's id instead
//! (`policy_resolved`, right after the resolution ran inside the write), since the conflict's
//! id does not exist before the write.

use uuid::Uuid;

use crate::store::StoreError;

#[cfg(feature = "failpoints")]
mod armed {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};

    use uuid::Uuid;

    pub fn table() -> &'static Mutex<HashMap<Uuid, String>> {
        static TABLE: OnceLock<Mutex<HashMap<Uuid, String>>> = OnceLock::new();
        TABLE.get_or_init(Default::default)
    }

    pub fn lost_replies() -> &'static Mutex<std::collections::HashSet<String>> {
        static KEYS: OnceLock<Mutex<std::collections::HashSet<String>>> = OnceLock::new();
        KEYS.get_or_init(Default::default)
    }
}

/// Makes the step `action` (e.g. `edge_created`) of resolutions of `conflict_id` fail once;
/// for `policy_resolved`, `conflict_id` is the old node's id.
#[cfg(feature = "failpoints")]
pub fn arm(conflict_id: Uuid, action: &str) {
    armed::table()
        .lock()
        .expect("failpoint table")
        .insert(conflict_id, action.to_owned());
}

#[cfg(feature = "failpoints")]
pub fn hit(conflict_id: Uuid, action: &str) -> Result<(), StoreError> {
    let mut table = armed::table().lock().expect("failpoint table");
    if table.get(&conflict_id).is_some_and(|a| a == action) {
        table.remove(&conflict_id);
        return Err(StoreError::Failed(crate::store::Failure::Injected(
            action.to_owned(),
        )));
    }
    Ok(())
}

/// Makes the keyed request with Idempotency-Key `key` lose its reply once its effect has
/// committed, as if the process were killed right then: nothing after that point runs.
#[cfg(feature = "failpoints")]
pub fn arm_lost_reply(key: &str) {
    armed::lost_replies()
        .lock()
        .expect("failpoint table")
        .insert(key.to_owned());
}

#[cfg(feature = "failpoints")]
pub fn lost_reply(key: &str) -> bool {
    armed::lost_replies()
        .lock()
        .expect("failpoint table")
        .remove(key)
}

#[cfg(not(feature = "failpoints"))]
#[inline(always)]
pub fn lost_reply(_key: &str) -> bool {
    false
}

#[cfg(not(feature = "failpoints"))]
#[inline(always)]
pub fn hit(_conflict_id: Uuid, _action: &str) -> Result<(), StoreError> {
    Ok(())
}
