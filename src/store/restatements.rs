//! Restatements, on either database (contract section 14): the active memories of a scope
//! whose title matches a new write's, and the sources that restated a memory.

use uuid::Uuid;

use super::backend::{Backend, Cols, Id, QueryExt, Ts};
use super::rows;
use super::sql::node_columns;
use crate::domain::node::Node;
use crate::domain::time::Timestamp;
use crate::store::*;

/// Through `nodes_by_title` (scope, lower(title)), active memories only. A title has a
/// handful of memories; the bound keeps a pathological one from reading thousands.
pub(crate) const SAME_TITLE: &str = concat!(
    "select ",
    node_columns!("n", ""),
    " from nodes n where n.scope = $1 and lower(n.title) = lower($2) and n.state = 'active' \
     limit 100"
);

pub async fn same_title<B: Backend>(store: &B, scope: &str, title: &str) -> StoreResult<Vec<Node>> {
    let mut conn = store.pool().acquire().await?;
    let rows = B::query(SAME_TITLE)
        .arg(scope)
        .arg(title)
        .all(&mut conn)
        .await?;
    let mut nodes = rows
        .iter()
        .map(rows::some_node::<B::Db>)
        .collect::<StoreResult<Vec<_>>>()?;
    // Oldest first, sorted here: an `order by` in SQL makes SQLite prefer the scope's list
    // index (read in order) to the title's.
    nodes.sort_by_key(|n| (n.created_at, n.id));
    Ok(nodes)
}

/// Records `source` as corroborating `node` (once per source; a retry records nothing more),
/// and returns every source that corroborated it, oldest first.
pub async fn corroborate<B: Backend>(
    store: &B,
    node: Uuid,
    source: Option<&str>,
    key: Option<&str>,
    at: Timestamp,
) -> StoreResult<Vec<String>> {
    let mut conn = store.pool().acquire().await?;
    if let Some(source) = source {
        B::query(
            "insert into node_corroborations (node_id, source, key_name, created_at) \
             select $1, $2, $3, $4 where exists (select 1 from nodes where node_id = $1) \
             on conflict do nothing",
        )
        .arg(Id(node))
        .arg(source)
        .arg(key)
        .arg(Ts(at))
        .run(&mut conn)
        .await?;
    }
    let rows = B::query(
        "select source from node_corroborations where node_id = $1 \
         order by created_at, source",
    )
    .arg(Id(node))
    .all(&mut conn)
    .await?;
    rows.iter()
        .map(|r| Cols::<B::Db>::new(r).get::<String>("source"))
        .collect()
}
