//! Brings the postings a bulk import keeps in memory ([`MemoryPostings`]) in step with the
//! store, in a batch's write transaction (nobody else writes until it ends).
//!
//! The postings of stored nodes change only when a node is inserted, deleted, or its tokens
//! or scope change; the last two are counted in `postings_reshapes` (migration 0022). With
//! that count as the postings last saw it, and the node they hold last still stored where they
//! hold it, the store's postings are theirs plus those of the nodes stored after it (rowids
//! only grow), which are read; otherwise every node's are read again. The last node's check
//! also catches a batch that added its nodes here and then rolled back.

use sqlx::{Row, SqliteConnection};

use crate::store::batch_ranking::MemoryPostings;
use crate::store::{Failure, StoreError, StoreResult};

/// The largest rowid of `nodes`, the count of reshapes, and the id of the node at rowid `$1`.
const STATE: &str = "select coalesce((select max(rowid) from nodes), 0), \
     (select changes from postings_reshapes where one = 1), \
     (select node_id from nodes where rowid = $1)";

/// The postings of the nodes stored after rowid `$1`, in rowid order.
const NODES_AFTER: &str =
    "select rowid, node_id, scope, search_tokens from nodes where rowid > $1 order by rowid";

/// Makes `postings` exactly the store's, on the write transaction's connection `conn`.
pub async fn bring_in_step(
    conn: &mut SqliteConnection,
    postings: &mut MemoryPostings,
) -> StoreResult<()> {
    let (last, last_id) = postings.last();
    let row = sqlx::query(STATE).bind(last).fetch_one(&mut *conn).await?;
    let (largest, reshapes): (i64, i64) = (row.try_get(0)?, row.try_get(1)?);
    let at_last: Option<&str> = row.try_get(2)?;
    let still_last = at_last.and_then(|id| uuid::Uuid::parse_str(id).ok()) == last_id;
    let unchanged = postings.reshapes == Some(reshapes) && largest >= last && still_last;
    if !unchanged {
        postings.clear();
    }
    let rows = sqlx::query(NODES_AFTER)
        .bind(postings.last().0)
        .fetch_all(&mut *conn)
        .await?;
    for row in &rows {
        let key: i64 = row.try_get(0)?;
        let id: &str = row.try_get(1)?;
        let id = uuid::Uuid::parse_str(id)
            .map_err(|e| StoreError::Failed(Failure::Corrupt(format!("node id {id}: {e}"))))?;
        postings.add_stored(key, id, row.try_get(2)?, row.try_get(3)?);
    }
    postings.reshapes = Some(reshapes);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Hits;
    use crate::store::sqlite::search::tests::{by_token, node_with_tokens};
    use sqlx::SqlitePool;
    use uuid::Uuid;

    /// The hits of a search by each of a few tokens, and the last node.
    type Ranked = (Vec<Option<Hits>>, (i64, Option<Uuid>));

    /// What `postings` rank for a search by each of a few tokens, and their last node.
    fn ranked(postings: &MemoryPostings) -> Ranked {
        let hits = ["cache", "ttl", "relay", "proxy"].map(|term| {
            let mut q = by_token(term);
            postings.rank(&mut q);
            q.hits
        });
        (hits.to_vec(), postings.last())
    }

    /// `kept` brought in step must rank as postings read afresh from the store do.
    async fn assert_in_step(pool: &SqlitePool, kept: &mut MemoryPostings, when: &str) {
        let mut conn = pool.acquire().await.unwrap();
        bring_in_step(&mut conn, kept).await.unwrap();
        let mut fresh = MemoryPostings::default();
        bring_in_step(&mut conn, &mut fresh).await.unwrap();
        assert_eq!(ranked(kept), ranked(&fresh), "{when}");
    }

    #[sqlx::test(migrations = "migrations/sqlite")]
    async fn kept_postings_follow_every_change_to_the_stores(pool: SqlitePool) {
        let mut kept = MemoryPostings::default();
        node_with_tokens(&pool, "cache ttl").await;
        node_with_tokens(&pool, "cache relay").await;
        assert_in_step(&pool, &mut kept, "first read").await;
        assert_eq!(kept.last().0, 2);

        node_with_tokens(&pool, "ttl relay").await;
        assert_in_step(&pool, &mut kept, "a node stored by another writer").await;

        // A batch added its node and rolled back; another writer's node took its rowid.
        kept.add_new(Uuid::now_v7(), "default", "cache");
        node_with_tokens(&pool, "relay proxy").await;
        assert_in_step(&pool, &mut kept, "after a rolled-back batch").await;

        sqlx::query("update nodes set search_tokens = 'proxy' where rowid = 1")
            .execute(&pool)
            .await
            .unwrap();
        assert_in_step(&pool, &mut kept, "a node's tokens changed").await;

        sqlx::query("delete from nodes where rowid = 4")
            .execute(&pool)
            .await
            .unwrap();
        assert_in_step(&pool, &mut kept, "the last node deleted").await;
        assert_eq!(kept.last().0, 3);
    }
}
