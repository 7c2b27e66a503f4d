//! A full disk: the write that hits it is 507 `/problems/storage-full` with `Retry-After`
//! (never a 500) and wrote nothing, `/readyz` is 503 while writes cannot succeed, and once
//! space is back both recover on the same pool, without a restart.
//!
//! SQLite's `max_page_count` caps the file at its current size, so the next insert that needs
//! a page fails with SQLITE_FULL; on PostgreSQL a trigger raises `disk_full` (SQLSTATE 53100)
//! while a flag row exists.

use std::sync::Arc;

use axum::http::{StatusCode, header};
use serde_json::json;
use sqlx::sqlite::SqlitePoolOptions;

use concord::config::Settings;
use concord::store::sqlite::SqliteStore;

use crate::support::TestApp;

/// Big enough to need pages the capped file does not have.
fn big_body() -> String {
    "lorem ipsum dolor ".repeat(4_000)
}

async fn writes_fail_then_recover(
    app: &TestApp,
    fill: impl AsyncFnOnce(),
    free: impl AsyncFnOnce(),
) {
    // Arrange
    app.post("/nodes", json!({"title": "before"}))
        .await
        .assert_status(StatusCode::CREATED);
    app.get("/readyz").await.assert_status(StatusCode::OK);
    fill().await;

    // Act: a write on the full disk, then the probe.
    let full = app
        .post("/nodes", json!({"title": "too big", "body": big_body()}))
        .await;
    let ready_full = app.get("/readyz").await;
    free().await;
    let ready_again = app.get("/readyz").await;
    let after = app
        .post("/nodes", json!({"title": "after", "body": big_body()}))
        .await;

    // Assert
    full.assert_problem(StatusCode::INSUFFICIENT_STORAGE, "/problems/storage-full");
    assert!(full.headers.contains_key(header::RETRY_AFTER));
    ready_full.assert_problem(StatusCode::SERVICE_UNAVAILABLE, "/problems/storage-full");
    assert!(ready_full.headers.contains_key(header::RETRY_AFTER));
    ready_again.assert_status(StatusCode::OK);
    after.assert_status(StatusCode::CREATED);
    for _ in 0..8 {
        // Every connection of the pool is clean: no write fails on one left mid-transaction.
        app.post("/nodes?detect=false", json!({"title": "more"}))
            .await
            .assert_status(StatusCode::CREATED);
    }
    let titles: Vec<_> = app.get("/nodes?limit=200").await.json()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["title"].as_str().unwrap().to_owned())
        .collect();
    assert!(!titles.contains(&"too big".to_owned()), "{titles:?}");
    assert_eq!(titles.len(), 10, "{titles:?}");
}

#[sqlx::test(migrations = "migrations/sqlite")]
async fn sqlite_a_full_disk_is_507_and_writes_recover_without_a_restart(pool: sqlx::SqlitePool) {
    // One connection, so the page cap set on it applies to every write.
    let options = (*pool.connect_options()).clone();
    let app_pool = SqlitePoolOptions::new()
        .max_connections(1)
        .connect_with(options)
        .await
        .unwrap();
    let app = TestApp::with_store(
        Arc::new(SqliteStore::from_pool(app_pool.clone())),
        Settings::for_database("sqlite://test"),
    );
    let cap = async |pages: Option<i64>| {
        let mut conn = app_pool.acquire().await.unwrap();
        let pages = match pages {
            Some(p) => p,
            None => sqlx::query_scalar("pragma page_count")
                .fetch_one(&mut *conn)
                .await
                .unwrap(),
        };
        sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(format!(
            "pragma max_page_count = {pages}"
        )))
        .fetch_one(&mut *conn)
        .await
        .unwrap();
    };
    writes_fail_then_recover(
        &app,
        async || cap(None).await,
        async || cap(Some(1_000_000)).await,
    )
    .await;
}

#[sqlx::test(migrations = "migrations/postgres")]
#[ignore = "needs PostgreSQL; scripts/test runs it with --include-ignored"]
async fn postgres_a_full_disk_is_507_and_writes_recover_without_a_restart(pool: sqlx::PgPool) {
    let app = TestApp::postgres(pool.clone());
    // Every write that reaches the database fails as on a full disk while `disk_full` has a
    // row: concord's own probe writes (`idempotency_keys`) and nodes alike.
    for sql in [
        "create table disk_full (full_ boolean)",
        "create function fail_when_full() returns trigger language plpgsql as $$ \
         begin if exists (select 1 from disk_full) then \
           raise exception 'could not extend file: No space left on device' \
           using errcode = 'disk_full'; end if; return new; end $$",
        "create trigger nodes_full before insert or update on nodes \
         for each row execute function fail_when_full()",
        "create trigger keys_full before insert or update on idempotency_keys \
         for each row execute function fail_when_full()",
    ] {
        sqlx::query(sql).execute(&pool).await.unwrap();
    }
    writes_fail_then_recover(
        &app,
        async || {
            sqlx::query("insert into disk_full values (true)")
                .execute(&pool)
                .await
                .unwrap();
        },
        async || {
            sqlx::query("delete from disk_full")
                .execute(&pool)
                .await
                .unwrap();
        },
    )
    .await;
}
