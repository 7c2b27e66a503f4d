//! Row locks in the lock order of `store` (PostgreSQL; SQLite has one writer and needs none):
//! nodes in id order, shared for rows that will refer to them, exclusive for writes that will
//! change them.

use uuid::Uuid;

use super::StoreResult;
use super::backend::{Backend, Conn, Ids, QueryExt};

/// Key-share locks nodes in id order (PostgreSQL), so that rows about to refer to them cannot
/// lose them and lock waits never cross those of another unit of work.
pub async fn share_nodes<B: Backend>(conn: &mut Conn<B>, ids: Vec<Uuid>) -> StoreResult<()> {
    lock_in_order::<B>(conn, B::SHARE_NODES, ids).await
}

/// `for update` locks on nodes in id order (PostgreSQL), for a write that will change them
/// later in its transaction: taking the strong lock up front, rather than upgrading a key
/// share lock after the event lock, keeps the one lock order.
pub async fn lock_nodes<B: Backend>(conn: &mut Conn<B>, ids: Vec<Uuid>) -> StoreResult<()> {
    lock_in_order::<B>(conn, B::LOCK_NODES, ids).await
}

async fn lock_in_order<B: Backend>(
    conn: &mut Conn<B>,
    sql: Option<&'static str>,
    mut ids: Vec<Uuid>,
) -> StoreResult<()> {
    let Some(sql) = sql.filter(|_| !ids.is_empty()) else {
        return Ok(());
    };
    ids.sort_unstable();
    ids.dedup();
    B::query(sql).arg(Ids(&ids)).all(conn).await?;
    Ok(())
}
