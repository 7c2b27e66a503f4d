//! Queueing a conflict by hand, in one transaction: the existing pending one for a known pair.

use crate::domain::conflict::{Conflict, NewConflict};
use crate::store::backend::{Backend, Cols, Id, QueryExt};
use crate::store::conflicts::{get_in, insert};
use crate::store::units::{Open, Uncommitted};
use crate::store::{StoreError, StoreResult};

pub async fn queue<B: Backend>(
    store: &B,
    c: NewConflict,
) -> StoreResult<Open<B, (Conflict, bool)>> {
    let mut tx = store.write().await?;
    let inserted = insert::<B>(&mut tx, &c).await?;
    let conflict = if inserted {
        get_in::<B>(&mut tx, c.id).await?
    } else {
        let row = B::query(
            "select conflict_id from conflict_queue \
             where old_node_id = $1 and new_key = $2 and status = 'pending'",
        )
        .arg(Id(c.old_node_id))
        .arg(c.new_key())
        .optional(&mut tx)
        .await?;
        // No pending conflict and nothing inserted: the old node does not exist.
        let row = row.ok_or(StoreError::NotFound("node"))?;
        let id = Cols::<B::Db>::new(&row).id("conflict_id")?;
        get_in::<B>(&mut tx, id).await?
    };
    Ok(Open {
        outcome: (conflict, inserted),
        tx: Uncommitted::write(tx),
    })
}
