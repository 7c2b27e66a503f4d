//! A memory's versions, on either database. The triggers of the `node_versions` migration
//! write them; this module only reads them back, whole ([`crate::domain::version`]).

use uuid::Uuid;

use super::backend::{Backend, Id, QueryExt, SysTime, Ts};
use super::rows;
use super::{Failure, KnownQuery, StoreError, StoreResult};
use crate::domain::cursor::{Cursor, Page};
use crate::domain::node::Node;
use crate::domain::version::{self, NodeVersion};

/// The live node (as version 0 that replaced everything) and its stored versions, in one
/// statement so that both are read from one snapshot.
const VERSIONS_OF_NODE: &str = "select 0 as version, 'live' as kind, updated_at as recorded_at, \
       changed_by as by_whom, changed_key as key_name, changed_in as conflict_id, title as prev_title, \
       body as prev_body, confidence as prev_confidence, memory_type as prev_memory_type, \
       labels as prev_labels, scope as prev_scope, source as prev_source, \
       state as prev_state, observed_at as prev_observed_at, \
       valid_until as prev_valid_until, corrected as prev_corrected \
     from nodes where node_id = $1 \
     union all \
     select version, kind, recorded_at, by_whom, key_name, conflict_id, prev_title, prev_body, \
       prev_confidence, prev_memory_type, prev_labels, prev_scope, prev_source, prev_state, \
       prev_observed_at, prev_valid_until, prev_corrected \
     from node_versions where node_id = $1 \
     order by version";

/// Every version of a node, oldest first, a deleted node's included; `NotFound` when the
/// node never existed.
pub async fn list<B: Backend>(store: &B, id: Uuid) -> StoreResult<Vec<NodeVersion>> {
    let mut conn = store.pool().acquire().await?;
    let found = B::query(VERSIONS_OF_NODE)
        .arg(Id(id))
        .all(&mut conn)
        .await?;
    let mut live = None;
    let mut stored = Vec::with_capacity(found.len());
    for row in &found {
        match rows::version_row::<B::Db>(row)? {
            (0, r) => live = Some(r.replaced),
            (_, r) => stored.push(r),
        }
    }
    if stored.is_empty() {
        return Err(StoreError::NotFound("node"));
    }
    version::reconstruct(id, stored, live).map_err(|e| StoreError::Failed(Failure::Corrupt(e)))
}

/// [`crate::store::Store::list_known`]: one query ([`super::sql::list_known`]).
pub async fn list_known<B: Backend>(store: &B, q: KnownQuery) -> StoreResult<Page<Node>> {
    let mut conn = store.pool().acquire().await?;
    let found = B::query(B::LIST_KNOWN)
        .arg(SysTime(q.at.known))
        .arg(Ts(q.at.valid))
        .arg(q.state.map(|s| s.as_str()))
        .arg(q.memory_type)
        .arg(q.label)
        .arg(q.after.map(Id))
        .arg((q.limit + 1) as i64)
        .arg(q.scopes)
        .all(&mut conn)
        .await?;
    let nodes = found
        .iter()
        .map(rows::some_node::<B::Db>)
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(Page::from_rows(nodes, q.limit, |n| {
        Cursor::new("known", n.id)
    }))
}
