//! Conflict history rows, on either database: written inside the transaction of the change
//! they record (queue, resolution, revert), read oldest first.

use sqlx::types::Json;
use uuid::Uuid;

use super::backend::{Backend, Conn, Id, QueryExt, Ts};
use super::rows::{self, LatestEntry};
use super::{StoreError, StoreResult};
use crate::domain::history::HistoryEntry;
use crate::domain::pre_image::PreImage;
use crate::store::Failure;

/// Appends an entry. `pre_image` is what a resolution overwrote (see `conflict_history`).
pub async fn record<B: Backend>(
    conn: &mut Conn<B>,
    conflict_id: Uuid,
    entry: &HistoryEntry,
    pre_image: Option<&PreImage>,
) -> StoreResult<()> {
    B::query(
        "insert into conflict_history \
           (conflict_id, at, kind, by_whom, key_name, resolution, note, actions, pre_image) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .arg(Id(conflict_id))
    .arg(Ts(entry.at))
    .arg(entry.kind.as_str())
    .arg(&entry.by)
    .arg(&entry.key)
    .arg(entry.resolution.map(|r| r.as_str()))
    .arg(&entry.note)
    .arg(Json(&entry.actions))
    .arg(pre_image.map(Json))
    .run(conn)
    .await?;
    Ok(())
}

/// Every entry of a conflict, oldest first; `NotFound` when the conflict does not exist.
pub async fn list<B: Backend>(store: &B, conflict_id: Uuid) -> StoreResult<Vec<HistoryEntry>> {
    let mut conn = store.pool().acquire().await?;
    let exists = B::query("select 1 from conflict_queue where conflict_id = $1")
        .arg(Id(conflict_id))
        .optional(&mut conn)
        .await?;
    if exists.is_none() {
        return Err(StoreError::NotFound("conflict"));
    }
    let rows = B::query(
        "select at, kind, by_whom, key_name, resolution, note, actions from conflict_history \
         where conflict_id = $1 order by entry_id",
    )
    .arg(Id(conflict_id))
    .all(&mut conn)
    .await?;
    rows.iter().map(rows::history_entry::<B::Db>).collect()
}

/// A conflict's latest entry with its id and pre-image, read inside a transaction.
pub async fn latest<B: Backend>(conn: &mut Conn<B>, conflict_id: Uuid) -> StoreResult<LatestEntry> {
    let row = B::query(
        "select entry_id, at, kind, by_whom, key_name, resolution, note, actions, pre_image \
         from conflict_history where conflict_id = $1 order by entry_id desc limit 1",
    )
    .arg(Id(conflict_id))
    .optional(conn)
    .await?
    .ok_or_else(|| {
        StoreError::Failed(Failure::Corrupt(format!(
            "conflict {conflict_id} has no history"
        )))
    })?;
    rows::latest_entry::<B::Db>(&row)
}
