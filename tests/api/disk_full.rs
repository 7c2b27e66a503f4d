//! A full disk: the write that hits it is 507 `/problems/storage-full` with `Retry-After`
//! (never a 500) and wrote nothing, a revert and a batch as well as a node write, `/readyz`
//! is 503 while writes cannot succeed, and once space is back both recover on the same pool,
//! without a restart; a keyed write refused for space runs when retried with its key, even
//! when the release of its key failed too.
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
        app.post(
            "/nodes?detect=false&allow_duplicate=true",
            json!({"title": "more"}),
        )
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

async fn a_revert_is_507_then_runs_once_space_is_freed(
    app: &TestApp,
    fill: impl AsyncFnOnce(),
    free: impl AsyncFnOnce(),
) {
    // Arrange: a resolved conflict whose nodes are long, so a revert needs new pages.
    let old = app
        .node_with(json!({"title": "Deploy region", "body": big_body() + "us-east-1"}))
        .await;
    let new = app
        .node_with(json!({"title": "Deploy region", "body": big_body() + "eu-west-1"}))
        .await;
    let conflict = app
        .post(
            "/conflicts",
            json!({"old_node_id": old["id"], "new_node_id": new["id"]}),
        )
        .await
        .json();
    let uri = format!("/conflicts/{}", conflict["id"].as_str().unwrap());
    app.post(
        &format!("{uri}/resolve"),
        json!({"resolution": "new_is_current"}),
    )
    .await
    .assert_status(StatusCode::OK);
    fill().await;

    // Act
    let full = app.post(&format!("{uri}/revert"), json!({})).await;
    free().await;
    let after = app.post(&format!("{uri}/revert"), json!({})).await;

    // Assert: 507, not 500 revert-failed; the resolution stood until the retry undid it.
    full.assert_problem(StatusCode::INSUFFICIENT_STORAGE, "/problems/storage-full");
    assert!(full.headers.contains_key(header::RETRY_AFTER));
    after.assert_status(StatusCode::OK);
    assert_eq!(after.json()["replayed"], false);
    assert_eq!(app.get(&uri).await.json()["status"], "pending");
}

/// A keyed node write refused for space, whose key could not be released either (`stuck`
/// makes deleting the claim fail), runs at once when retried with its key after space is
/// freed, rather than answering 409 in flight until the claim goes stale.
async fn a_keyed_write_refused_for_space_runs_when_retried(
    app: &TestApp,
    fill: impl AsyncFnOnce(),
    free: impl AsyncFnOnce(),
) {
    let keyed = async || {
        let req = axum::http::Request::post("/nodes")
            .header("content-type", "application/json")
            .header("idempotency-key", "disk-full-retry")
            .body(axum::body::Body::from(
                json!({"title": "keyed", "body": big_body()}).to_string(),
            ))
            .unwrap();
        app.send(req).await
    };
    fill().await;

    let refused = keyed().await;
    free().await;
    let retried = keyed().await;
    let replayed = keyed().await;

    refused.assert_problem(StatusCode::INSUFFICIENT_STORAGE, "/problems/storage-full");
    retried.assert_status(StatusCode::CREATED);
    replayed.assert_status(StatusCode::CREATED);
    assert_eq!(replayed.headers["idempotency-replayed"], "true");
    assert_eq!(replayed.json()["node"]["id"], retried.json()["node"]["id"]);
}

/// A keyed batch that runs out of space part way writes none of its nodes (507, never a
/// 500), and written with its key once space is freed it is written whole, once.
async fn a_batch_on_a_full_disk_writes_nothing_then_runs_when_retried(
    app: &TestApp,
    fill: impl AsyncFnOnce(),
    free: impl AsyncFnOnce(),
) {
    // Arrange: small memories around a big one that needs pages the full disk lacks.
    let mut nodes: Vec<_> = (0..10)
        .map(|i| json!({"title": format!("small {i}"), "body": "fits"}))
        .collect();
    nodes.insert(5, json!({"title": "big one", "body": big_body()}));
    let batch = json!({"nodes": nodes});
    let keyed = async || {
        let req = axum::http::Request::post("/nodes/batch")
            .header("content-type", "application/json")
            .header("idempotency-key", "disk-full-batch")
            .body(axum::body::Body::from(batch.to_string()))
            .unwrap();
        app.send(req).await
    };
    fill().await;

    // Act
    let refused = keyed().await;
    let after_refusal = app.get("/nodes?limit=200").await.json();
    free().await;
    let retried = keyed().await;
    let replayed = keyed().await;

    // Assert
    refused.assert_problem(StatusCode::INSUFFICIENT_STORAGE, "/problems/storage-full");
    assert!(refused.headers.contains_key(header::RETRY_AFTER));
    assert_eq!(
        after_refusal["items"].as_array().unwrap().len(),
        0,
        "{after_refusal}"
    );
    retried.assert_status(StatusCode::CREATED);
    replayed.assert_status(StatusCode::CREATED);
    assert_eq!(replayed.headers["idempotency-replayed"], "true");
    assert_eq!(replayed.json(), retried.json());
    let items = app.get("/nodes?limit=200").await.json()["items"].clone();
    assert_eq!(items.as_array().unwrap().len(), 11, "{items}");
}

/// The SQLite test database behind a one-connection pool, so that a page cap set on the
/// connection applies to every write.
struct Sqlite {
    app: TestApp,
    pool: sqlx::SqlitePool,
}

impl Sqlite {
    async fn new(pool: sqlx::SqlitePool) -> Self {
        let options = (*pool.connect_options()).clone();
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options)
            .await
            .unwrap();
        let app = TestApp::with_store(
            Arc::new(SqliteStore::from_pool(pool.clone())),
            Settings::for_database("sqlite://test"),
        );
        Self { app, pool }
    }

    async fn exec(&self, sql: &str) -> Result<(), sqlx::Error> {
        let mut conn = self.pool.acquire().await.unwrap();
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned()))
            .execute(&mut *conn)
            .await
            .map(drop)
    }

    async fn page_count(&self) -> i64 {
        let mut conn = self.pool.acquire().await.unwrap();
        sqlx::query_scalar("pragma page_count")
            .fetch_one(&mut *conn)
            .await
            .unwrap()
    }

    /// Caps the file at `pages` (its current size by default).
    async fn cap(&self, pages: Option<i64>) {
        let pages = match pages {
            Some(p) => p,
            None => self.page_count().await,
        };
        let mut conn = self.pool.acquire().await.unwrap();
        sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(format!(
            "pragma max_page_count = {pages}"
        )))
        .fetch_one(&mut *conn)
        .await
        .unwrap();
    }

    /// Caps the file and uses up its free pages, so any write that needs a page fails.
    async fn fill_up(&self) {
        self.exec("create table if not exists filler (b blob)")
            .await
            .unwrap();
        self.cap(None).await;
        let mut size = 1 << 20;
        while size >= 64 {
            let sql = format!("insert into filler values (zeroblob({size}))");
            if self.exec(&sql).await.is_err() {
                size /= 2;
            }
        }
    }

    async fn free(&self) {
        self.cap(Some(1_000_000)).await;
    }
}

#[sqlx::test(migrations = "migrations/sqlite")]
async fn sqlite_a_revert_on_a_full_disk_is_507(pool: sqlx::SqlitePool) {
    let db = Sqlite::new(pool).await;
    a_revert_is_507_then_runs_once_space_is_freed(
        &db.app,
        async || db.fill_up().await,
        async || db.free().await,
    )
    .await;
}

#[sqlx::test(migrations = "migrations/sqlite")]
async fn sqlite_a_batch_on_a_full_disk_writes_nothing(pool: sqlx::SqlitePool) {
    let db = Sqlite::new(pool).await;
    a_batch_on_a_full_disk_writes_nothing_then_runs_when_retried(
        &db.app,
        async || db.fill_up().await,
        async || db.free().await,
    )
    .await;
}

#[sqlx::test(migrations = "migrations/sqlite")]
async fn sqlite_a_keyed_write_refused_for_space_runs_when_retried(pool: sqlx::SqlitePool) {
    let db = Sqlite::new(pool).await;
    // Releasing a claim fails while `stuck` has a row, as a write on a full disk may.
    db.exec(
        "create table stuck (x); \
         create trigger keys_stuck before delete on idempotency_keys \
         when exists (select 1 from stuck) begin select raise(abort, 'disk I/O error'); end",
    )
    .await
    .unwrap();
    a_keyed_write_refused_for_space_runs_when_retried(
        &db.app,
        async || {
            db.exec("insert into stuck values (1)").await.unwrap();
            db.cap(None).await;
        },
        async || {
            db.free().await;
            db.exec("delete from stuck").await.unwrap();
        },
    )
    .await;
}

/// A little space back is not enough: `/readyz` stays 503 while a write of the size that
/// failed would still fail, rather than passing on a probe that fits where it does not.
#[sqlx::test(migrations = "migrations/sqlite")]
async fn sqlite_readyz_is_not_ready_while_a_write_of_the_failed_size_would_fail(
    pool: sqlx::SqlitePool,
) {
    // Arrange: a write failed for space.
    let db = Sqlite::new(pool).await;
    let app = &db.app;
    db.cap(None).await;
    app.post("/nodes", json!({"title": "too big", "body": big_body()}))
        .await
        .assert_status(StatusCode::INSUFFICIENT_STORAGE);

    // Act: room for a few pages, fewer than the write needs.
    let pages = db.page_count().await;
    db.cap(Some(pages + 8)).await;
    let ready = app.get("/readyz").await;
    let write = app
        .post("/nodes", json!({"title": "too big", "body": big_body()}))
        .await;
    db.free().await;
    let ready_again = app.get("/readyz").await;

    // Assert
    write.assert_status(StatusCode::INSUFFICIENT_STORAGE);
    ready.assert_problem(StatusCode::SERVICE_UNAVAILABLE, "/problems/storage-full");
    ready_again.assert_status(StatusCode::OK);
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

/// Installs on PostgreSQL a `disk_full` flag table and `fail_when_full`, a trigger function
/// that fails as a full disk does (SQLSTATE 53100) while the flag has a row, on each table and
/// event of `triggers` (`(name, "before insert or update on nodes")`).
async fn pg_full_disk(pool: &sqlx::PgPool, triggers: &[(&str, &str)]) {
    for sql in [
        "create table disk_full (full_ boolean)".to_owned(),
        "create function fail_when_full() returns trigger language plpgsql as $$ \
         begin if exists (select 1 from disk_full) then \
           raise exception 'could not extend file: No space left on device' \
           using errcode = 'disk_full'; end if; \
           if tg_op = 'DELETE' then return old; end if; return new; end $$"
            .to_owned(),
    ]
    .into_iter()
    .chain(triggers.iter().map(|(name, on)| {
        format!("create trigger {name} {on} for each row execute function fail_when_full()")
    })) {
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(pool)
            .await
            .unwrap();
    }
}

async fn pg_flag(pool: &sqlx::PgPool, full: bool) {
    let sql = if full {
        "insert into disk_full values (true)"
    } else {
        "delete from disk_full"
    };
    sqlx::query(sql).execute(pool).await.unwrap();
}

#[sqlx::test(migrations = "migrations/postgres")]
#[ignore = "needs PostgreSQL; scripts/test runs it with --include-ignored"]
async fn postgres_a_revert_on_a_full_disk_is_507(pool: sqlx::PgPool) {
    let app = TestApp::postgres(pool.clone());
    pg_full_disk(&pool, &[("nodes_full", "before insert or update on nodes")]).await;
    a_revert_is_507_then_runs_once_space_is_freed(
        &app,
        async || pg_flag(&pool, true).await,
        async || pg_flag(&pool, false).await,
    )
    .await;
}

#[sqlx::test(migrations = "migrations/postgres")]
#[ignore = "needs PostgreSQL; scripts/test runs it with --include-ignored"]
async fn postgres_a_keyed_write_refused_for_space_runs_when_retried(pool: sqlx::PgPool) {
    let app = TestApp::postgres(pool.clone());
    // Claiming a key still works (no trigger on its insert); the node write and the
    // claim's release fail.
    pg_full_disk(
        &pool,
        &[
            ("nodes_full", "before insert or update on nodes"),
            ("keys_release_full", "before delete on idempotency_keys"),
        ],
    )
    .await;
    a_keyed_write_refused_for_space_runs_when_retried(
        &app,
        async || pg_flag(&pool, true).await,
        async || pg_flag(&pool, false).await,
    )
    .await;
}

#[sqlx::test(migrations = "migrations/postgres")]
#[ignore = "needs PostgreSQL; scripts/test runs it with --include-ignored"]
async fn postgres_a_batch_on_a_full_disk_writes_nothing(pool: sqlx::PgPool) {
    let app = TestApp::postgres(pool.clone());
    // The disk fills at the big node, the sixth of the batch: five were inserted before it.
    for sql in [
        "create table disk_full (full_ boolean)",
        "create function fail_when_full() returns trigger language plpgsql as $$ \
         begin if exists (select 1 from disk_full) and new.title = 'big one' then \
           raise exception 'could not extend file: No space left on device' \
           using errcode = 'disk_full'; end if; return new; end $$",
        "create trigger nodes_full before insert on nodes \
         for each row execute function fail_when_full()",
    ] {
        sqlx::query(sql).execute(&pool).await.unwrap();
    }
    a_batch_on_a_full_disk_writes_nothing_then_runs_when_retried(
        &app,
        async || pg_flag(&pool, true).await,
        async || pg_flag(&pool, false).await,
    )
    .await;
}
