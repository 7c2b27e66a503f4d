//! Edge writes: an edge between two existing nodes, in one transaction.

use crate::domain::edge::Edge;
use crate::store::backend::Backend;
use crate::store::edges::insert;
use crate::store::units::{Open, Uncommitted};
use crate::store::{StoreResult, locks};

pub async fn create<B: Backend>(store: &B, edge: Edge) -> StoreResult<Open<B, Edge>> {
    let mut tx = store.write().await?;
    // In id order, not source-then-target: see the lock order in `store`.
    locks::share_nodes::<B>(&mut tx, vec![edge.source_id, edge.target_id]).await?;
    insert::<B>(&mut tx, &edge).await?;
    Ok(Open {
        outcome: edge,
        tx: Uncommitted::write(tx),
    })
}
