//! The store contract: one suite, written once against the `Store` trait and instantiated per
//! backend, so SQLite and PostgreSQL are held to the same observable behaviour. The SQLite half
//! needs nothing; the PostgreSQL half is ignored unless run with `--include-ignored` and a
//! `DATABASE_URL` (scripts/test does both).

#[path = "store_contract/check.rs"]
mod check;
#[path = "store_contract/conflicts.rs"]
mod conflicts;
#[path = "store_contract/edges.rs"]
mod edges;
#[path = "store_contract/nodes.rs"]
mod nodes;
#[path = "store_contract/policies.rs"]
mod policies;
#[path = "store_contract/resolve.rs"]
mod resolve;
#[path = "store_contract/retries.rs"]
mod retries;
#[path = "store_contract/revert.rs"]
mod revert;
#[path = "store_contract/support.rs"]
mod support;
#[path = "store_contract/versions_migration.rs"]
mod versions_migration;

use concord::store::postgres::PgStore;
use concord::store::sqlite::SqliteStore;

pub use check::*;
pub use conflicts::*;
pub use edges::*;
pub use nodes::*;
pub use policies::*;
pub use resolve::*;
pub use retries::*;
pub use revert::*;
pub use support::Db;

/// Generates one test per case and backend. `store` cases see only the trait; `db` cases also
/// get raw access to dump every table (to prove a failed resolution wrote nothing).
macro_rules! contract {
    (store: [$($case:ident),* $(,)?], db: [$($db_case:ident),* $(,)?]) => {
        mod sqlite {
            use super::*;
            $(
                #[sqlx::test(migrations = "migrations/sqlite")]
                async fn $case(pool: sqlx::SqlitePool) {
                    super::$case(&SqliteStore::from_pool(pool)).await
                }
            )*
            $(
                #[sqlx::test(migrations = "migrations/sqlite")]
                async fn $db_case(pool: sqlx::SqlitePool) {
                    let db = Db::Sqlite(pool.clone());
                    super::$db_case(&SqliteStore::from_pool(pool), &db).await
                }
            )*
        }
        mod postgres {
            use super::*;
            $(
                #[sqlx::test(migrations = "migrations/postgres")]
                #[ignore = "needs PostgreSQL; scripts/test runs it with --include-ignored"]
                async fn $case(pool: sqlx::PgPool) {
                    super::$case(&PgStore::from_pool(pool)).await
                }
            )*
            $(
                #[sqlx::test(migrations = "migrations/postgres")]
                #[ignore = "needs PostgreSQL; scripts/test runs it with --include-ignored"]
                async fn $db_case(pool: sqlx::PgPool) {
                    let db = Db::Postgres(pool.clone());
                    super::$db_case(&PgStore::from_pool(pool), &db).await
                }
            )*
        }
    };
}

contract!(
    store: [
        a_created_node_reads_back_unchanged_and_can_be_patched_and_deleted,
        patching_labels_rewrites_the_label_index,
        a_node_carries_conflict_ids_only_while_it_has_pending_conflicts,
        listing_is_newest_first_and_pagination_visits_every_node_once,
        full_text_search_requires_every_token_and_pages_by_rank,
        listing_filters_by_label_memory_type_and_state,
        an_embedding_of_another_dimension_is_invalid,
        an_edge_to_a_missing_node_is_invalid_and_names_the_endpoint,
        edges_are_listed_by_direction_and_kind,
        candidates_are_active_nodes_of_the_same_scope_and_type_sharing_a_token,
        deleting_a_node_removes_its_edges_and_pending_conflicts_but_keeps_history,
        queueing_a_known_pair_again_returns_the_pending_conflict,
        queueing_against_a_missing_node_is_not_found,
        conflicts_are_listed_with_filters_order_pagination_and_full_bodies,
        stats_count_pending_and_resolved_conflicts_by_type,
        reports_are_listed_newest_first_with_pagination,
        idempotency_keys_start_replay_mismatch_and_refuse_in_flight_requests,
        new_is_current_retires_the_old_node_behind_a_supersedes_edge,
        old_is_current_retires_the_new_node_behind_a_supersedes_edge,
        keep_both_links_the_nodes_with_relates_to,
        merge_appends_the_new_body_unites_labels_moves_edges_and_deletes_the_new_node,
        merge_with_merged_content_replaces_the_old_body,
        a_new_content_conflict_creates_the_new_node_first_when_the_strategy_needs_one,
        resolving_again_with_the_same_request_replays_the_stored_outcome,
        resolving_again_with_another_strategy_is_already_resolved,
        a_strategy_that_would_leave_no_current_fact_is_stale_and_writes_nothing,
        making_an_already_dormant_node_dormant_is_not_a_step,
        resolving_an_unknown_conflict_is_not_found,
        verdicts_count_for_the_sources_of_both_sides,
        thirty_two_concurrent_resolutions_of_one_conflict_execute_exactly_once,
        a_store_written_through_the_trait_passes_the_check,
        newest_candidates_are_the_scopes_newest_active_nodes_of_the_type,
        thirty_two_concurrent_reverts_of_one_conflict_execute_once,
        reverting_a_pending_or_unknown_conflict_is_refused,
        a_revert_racing_a_resolution_on_the_same_node_is_one_or_the_other,
        verdicts_counted_since_stay_when_a_resolution_is_reverted,
        a_policy_that_cannot_apply_after_an_earlier_one_leaves_its_conflict_pending,
        concurrent_writes_are_each_written_once_and_a_failing_one_fails_alone,
        concurrent_writes_with_conflicts_queue_each_once_with_its_history_event_and_edge,
    ],
    db: [
        a_failure_at_any_step_of_any_strategy_rolls_everything_back_and_a_retry_succeeds,
        candidates_are_found_by_rare_tokens_among_many_common_ones,
        each_corruption_is_reported_under_its_invariant,
        every_strategy_reverts_to_the_exact_rows_before_it_and_resolves_again,
        a_failure_at_any_revert_step_writes_nothing_and_a_retry_succeeds,
        later_changes_are_named_and_nothing_is_written,
        a_failure_after_a_policy_resolution_rolls_back_the_whole_write,
        a_stale_claim_is_taken_over_and_an_expired_key_claimed_anew,
    ]
);

/// PostgreSQL keeps a prepared statement's cached plan however much its tables grow. Until
/// the store has statistics, the candidate search's walks over `node_tokens` are planned at
/// every call instead: prepared once on a connection that first searched a nearly empty store,
/// their plan scans every posting for every token for as long as the connection lives (an
/// import into an empty store ran eight times slower that way).
#[sqlx::test(migrations = "migrations/postgres")]
#[ignore = "needs PostgreSQL; scripts/test runs it with --include-ignored"]
async fn postgres_plans_the_postings_walks_at_every_call_until_analysed(pool: sqlx::PgPool) {
    // Arrange: one connection, so that every statement below is prepared (or not) on it.
    let one = sqlx::postgres::PgPoolOptions::new()
        .max_connections(1)
        .connect_with((*pool.connect_options()).clone())
        .await
        .unwrap();
    let store = PgStore::from_pool(one.clone());

    // Act: writes and searches, more than the five runs after which a cached plan is reused.
    for i in 0..8 {
        support::service_settings(&store, i..i + 1).await;
        let found = concord::store::Store::candidates(
            &store,
            support::by_tokens(support::tokens("service setting 3"), 5),
        )
        .await
        .unwrap();
        assert!(!found.is_empty(), "search {i} found nothing");
    }

    // Assert
    let prepared: Vec<String> = sqlx::query_scalar("select statement from pg_prepared_statements")
        .fetch_all(&one)
        .await
        .unwrap();
    assert!(
        prepared.iter().any(|s| s.contains("nodes")),
        "the write's statements were not prepared: {prepared:?}"
    );
    let walks: Vec<&String> = prepared
        .iter()
        .filter(|s| s.contains("from node_tokens k"))
        .collect();
    assert!(walks.is_empty(), "postings walks kept prepared: {walks:?}");
}

/// Concord analyses a table once more of its rows changed since its last `ANALYZE` than it
/// held then (at least a threshold), so its prepared statements are planned again for the
/// table's size even where autovacuum is off.
#[sqlx::test(migrations = "migrations/postgres")]
#[ignore = "needs PostgreSQL; scripts/test runs it with --include-ignored"]
async fn postgres_analyses_the_tables_that_have_grown(pool: sqlx::PgPool) {
    use concord::store::postgres::statistics::analyse_grown;
    // Arrange: 30 nodes in a store whose `nodes` was never analysed; the writers' connections
    // report their counts to the statistics within a second or so of going idle.
    let store = PgStore::from_pool(pool.clone());
    support::service_settings(&store, 0..30).await;
    let changed = || async {
        sqlx::query_scalar::<_, i64>(
            "select n_mod_since_analyze from pg_stat_user_tables where relname = 'nodes'",
        )
        .fetch_one(&pool)
        .await
        .unwrap()
    };
    for _ in 0..100 {
        if changed().await >= 30 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(changed().await >= 30, "the writes were never counted");

    // Act
    let under_threshold = analyse_grown(&pool, 1_000).await.unwrap();
    let grown = analyse_grown(&pool, 20).await.unwrap();
    let again = analyse_grown(&pool, 20).await.unwrap();

    // Assert
    assert!(
        !under_threshold.contains(&"nodes".to_string()),
        "{under_threshold:?}"
    );
    assert!(
        grown.contains(&"nodes".to_string()) && grown.contains(&"node_tokens".to_string()),
        "{grown:?}"
    );
    let elements: i64 = sqlx::query_scalar(
        "select count(*) from pg_stats where tablename = 'nodes' and attname = 'search_tsv' \
           and most_common_elems is not null",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(elements, 1, "nodes has no statistics after the analyse");
    assert!(!again.contains(&"nodes".to_string()), "{again:?}");
}
