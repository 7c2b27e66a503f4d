//! Planner statistics kept up to date as the store grows. PostgreSQL plans every statement
//! from its statistics, and concord's prepared statements keep the plan they were first given
//! until the next `ANALYZE` of their tables. Autovacuum analyses a table after a tenth of it
//! changed; a server that runs without it (or a store that grew from empty in minutes, faster
//! than autovacuum's naps) would keep, for every connection's lifetime, plans made for an empty
//! table: a sequential scan of `nodes` per candidate, of `node_versions` per write. So concord
//! analyses a table itself once the rows changed since its last `ANALYZE` outnumber the rows
//! it held then: a handful of times as a store grows from nothing to a million, and never
//! where autovacuum keeps up.

use std::sync::Arc;
use std::time::Duration;

use sqlx::PgPool;

use super::search::TokenStats;
use crate::store::StoreResult;

/// How often the tables' changes since their last `ANALYZE` are looked at.
const EVERY: Duration = Duration::from_secs(10);

/// Fewer changed rows than this never start an `ANALYZE` (the statistics of a small table
/// matter little, and its plans are cheap whatever they are).
pub const MIN_CHANGED: i64 = 1_000;

/// Looks every [`EVERY`] for tables that have grown and analyses them, for as long as the pool
/// is open. The token frequencies the candidate search caches are read again after an
/// `ANALYZE` changed them.
pub fn keep_fresh(pool: PgPool, token_stats: Arc<TokenStats>) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        while !pool.is_closed() {
            tick.tick().await;
            match analyse_grown(&pool, MIN_CHANGED).await {
                Ok(tables) if tables.is_empty() => {}
                Ok(tables) => {
                    token_stats.forget();
                    tracing::info!(?tables, "analysed tables that have grown");
                }
                Err(error) => tracing::warn!(%error, "could not look for tables to analyse"),
            }
        }
    });
}

/// Tables of the current schema with at least `min_changed` rows changed since their last
/// `ANALYZE`, and more than they held at it (`reltuples` is -1 before the first).
const GROWN: &str = "select s.relname::text from pg_stat_user_tables s \
     join pg_class c on c.oid = s.relid \
     where s.schemaname = current_schema() \
       and s.n_mod_since_analyze >= greatest($1, c.reltuples::bigint) \
     order by s.relname";

/// Analyses the tables that have grown (see [`GROWN`]) and names them.
pub async fn analyse_grown(pool: &PgPool, min_changed: i64) -> StoreResult<Vec<String>> {
    let grown: Vec<String> = sqlx::query_scalar(GROWN)
        .bind(min_changed)
        .fetch_all(pool)
        .await?;
    for table in &grown {
        // `ANALYZE` takes no parameters; the name comes from the catalogue and is quoted as an
        // identifier.
        let sql = format!("analyze \"{}\"", table.replace('"', "\"\""));
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .persistent(false)
            .execute(pool)
            .await?;
    }
    Ok(grown)
}
