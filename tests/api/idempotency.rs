use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};

use crate::support::{Reply, TestApp};

crate::on_both_databases!(
    the_same_key_and_body_replays_the_first_response,
    the_same_key_with_another_body_is_422,
    a_key_still_in_flight_is_409_with_retry_after,
    a_validation_error_is_stored_and_replayed_too,
    a_server_error_is_not_stored_so_a_retry_executes,
);

async fn post_with_key(app: &TestApp, uri: &str, key: &str, body: Value) -> Reply {
    let req = Request::post(uri)
        .header("content-type", "application/json")
        .header("idempotency-key", key)
        .body(Body::from(body.to_string()))
        .unwrap();
    app.send(req).await
}

async fn the_same_key_and_body_replays_the_first_response(app: TestApp) {
    let first = post_with_key(&app, "/nodes", "k1", json!({"title": "a", "labels": ["x"]})).await;
    first.assert_status(StatusCode::CREATED);
    assert!(first.headers.get("idempotency-replayed").is_none());
    // Key order does not matter: the body is compared in canonical form.
    let second = post_with_key(&app, "/nodes", "k1", json!({"labels": ["x"], "title": "a"})).await;
    second.assert_status(StatusCode::CREATED);
    assert_eq!(second.headers["idempotency-replayed"], "true");
    assert_eq!(second.text, first.text);
    assert_eq!(second.headers["location"], first.headers["location"]);
    let listed = app.get("/nodes").await.json();
    assert_eq!(
        listed["items"].as_array().unwrap().len(),
        1,
        "executed once"
    );
}

async fn the_same_key_with_another_body_is_422(app: TestApp) {
    post_with_key(&app, "/nodes", "k2", json!({"title": "a"}))
        .await
        .assert_status(StatusCode::CREATED);
    post_with_key(&app, "/nodes", "k2", json!({"title": "b"}))
        .await
        .assert_problem(
            StatusCode::UNPROCESSABLE_ENTITY,
            "/problems/idempotency-key-reuse",
        );
    post_with_key(&app, "/edges", "k2", json!({"title": "a"}))
        .await
        .assert_problem(
            StatusCode::UNPROCESSABLE_ENTITY,
            "/problems/idempotency-key-reuse",
        );
}

async fn a_key_still_in_flight_is_409_with_retry_after(app: TestApp) {
    // Arrange: another request with the same key and body holds the key and has not finished.
    let body = json!({"title": "a"});
    let fp = concord::api::idempotency::fingerprint(
        &axum::http::Method::POST,
        "/nodes",
        body.to_string().as_bytes(),
    );
    app.store.idempotency_begin("-", "held", &fp).await.unwrap();

    // Act
    let r = post_with_key(&app, "/nodes", "held", body).await;

    // Assert
    r.assert_problem(StatusCode::CONFLICT, "/problems/idempotency-in-flight");
    assert!(r.headers.get("retry-after").is_some());
    assert_eq!(
        app.get("/nodes").await.json()["items"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
}

async fn a_validation_error_is_stored_and_replayed_too(app: TestApp) {
    let first = post_with_key(&app, "/nodes", "bad", json!({"title": ""})).await;
    first.assert_status(StatusCode::UNPROCESSABLE_ENTITY);
    let second = post_with_key(&app, "/nodes", "bad", json!({"title": ""})).await;
    assert_eq!(second.headers["idempotency-replayed"], "true");
    assert_eq!(second.status, StatusCode::UNPROCESSABLE_ENTITY);
}

async fn a_server_error_is_not_stored_so_a_retry_executes(app: TestApp) {
    let (c, _, _) = app.conflict("a", "b").await;
    let body = json!({"conflict_id": c["id"], "resolution": "keep_both"});
    concord::store::failpoints::arm(
        uuid::Uuid::parse_str(c["id"].as_str().unwrap()).unwrap(),
        "conflict_resolved",
    );
    post_with_key(&app, "/contradiction/resolve", "r1", body.clone())
        .await
        .assert_problem(
            StatusCode::INTERNAL_SERVER_ERROR,
            "/problems/resolution-failed",
        );
    let retry = post_with_key(&app, "/contradiction/resolve", "r1", body).await;
    retry.assert_status(StatusCode::OK);
    assert!(
        retry.headers.get("idempotency-replayed").is_none(),
        "the retry executed"
    );
    assert_eq!(retry.json()["replayed"], false);
}

/// The client goes away while its keyed write waits on a lock another connection holds: the
/// write still completes once the lock is released, and the retry replays it instead of
/// finding the key stuck in flight (409) with nothing written.
async fn a_client_that_disconnects_does_not_leave_its_key_in_flight(
    app: std::sync::Arc<TestApp>,
    release: tokio::sync::oneshot::Sender<()>,
) {
    // Arrange + Act: the request starts, blocks on the lock, and its client disconnects.
    let body = json!({"title": "written once"});
    let first = {
        let app = app.clone();
        let body = body.clone();
        tokio::spawn(async move { post_with_key(&app, "/nodes", "gone", body).await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    first.abort();
    if let Ok(answered) = first.await {
        panic!("the write was answered while the lock was held: {answered:?}");
    }
    release.send(()).unwrap();

    // Assert: the retry is answered 201 (once the first request has finished): a replay of the
    // first request's when it got past claiming its key before the disconnect, else executed
    // now. Either way the node exists once.
    let mut retry = post_with_key(&app, "/nodes", "gone", body.clone()).await;
    for _ in 0..200 {
        if retry.status != StatusCode::CONFLICT {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        retry = post_with_key(&app, "/nodes", "gone", body.clone()).await;
    }
    retry.assert_status(StatusCode::CREATED);
    let items = app.get("/nodes").await.json()["items"].clone();
    assert_eq!(items.as_array().unwrap().len(), 1, "written once: {items}");
}

#[sqlx::test(migrations = "migrations/sqlite")]
async fn sqlite_a_client_that_disconnects_does_not_leave_its_key_in_flight(pool: sqlx::SqlitePool) {
    let app = std::sync::Arc::new(TestApp::sqlite(pool.clone()));
    let mut holder = pool.acquire().await.unwrap();
    sqlx::query("begin immediate")
        .execute(&mut *holder)
        .await
        .unwrap();
    let (release, released) = tokio::sync::oneshot::channel();
    let unlock = tokio::spawn(async move {
        released.await.unwrap();
        sqlx::query("commit").execute(&mut *holder).await.unwrap();
    });
    a_client_that_disconnects_does_not_leave_its_key_in_flight(app, release).await;
    unlock.await.unwrap();
}

#[sqlx::test(migrations = "migrations/postgres")]
#[ignore = "needs PostgreSQL; scripts/test runs it with --include-ignored"]
async fn postgres_a_client_that_disconnects_does_not_leave_its_key_in_flight(pool: sqlx::PgPool) {
    let app = std::sync::Arc::new(TestApp::postgres(pool.clone()));
    let mut holder = pool.begin().await.unwrap();
    sqlx::query("lock table nodes in exclusive mode")
        .execute(&mut *holder)
        .await
        .unwrap();
    let (release, released) = tokio::sync::oneshot::channel();
    let unlock = tokio::spawn(async move {
        released.await.unwrap();
        holder.commit().await.unwrap();
    });
    a_client_that_disconnects_does_not_leave_its_key_in_flight(app, release).await;
    unlock.await.unwrap();
}

/// Killed right after a keyed write committed, before anything else ran: the claim is left
/// as a crash leaves it, then aged past the stale window (as a retry 120 s later finds it).
/// The retry replays the response committed with the effect instead of executing again, on
/// every keyed write route.
async fn a_reply_lost_after_the_commit_replays_instead_of_executing_again(
    app: TestApp,
    age_claims: impl AsyncFn(),
) {
    use concord::store::failpoints::arm_lost_reply;
    // Arrange
    let a = app.node("Deploy region", "eu-west-1").await;
    let b = app.node("Deploy region", "us-east-1").await;
    let (pending, _, _) = app.conflict("x", "y").await;
    let writes = [
        (
            "/nodes",
            json!({"title": "written once"}),
            StatusCode::CREATED,
        ),
        (
            "/edges",
            json!({"source_id": a["id"], "target_id": b["id"], "kind": "mentions"}),
            StatusCode::CREATED,
        ),
        (
            "/conflicts",
            json!({"old_node_id": a["id"], "new_node_id": b["id"]}),
            StatusCode::CREATED,
        ),
        (
            "/contradiction/resolve",
            json!({"conflict_id": pending["id"], "resolution": "keep_both"}),
            StatusCode::OK,
        ),
    ];

    for (uri, body, status) in writes {
        // Act
        let key = format!("lost{}", uri.replace('/', "-"));
        arm_lost_reply(&key);
        let lost = post_with_key(&app, uri, &key, body.clone()).await;
        age_claims().await;
        let retry = post_with_key(&app, uri, &key, body).await;

        // Assert
        assert!(lost.status.is_server_error(), "{uri}: the reply was lost");
        retry.assert_status(status);
        assert_eq!(
            retry
                .headers
                .get("idempotency-replayed")
                .map(|v| v.to_str().unwrap()),
            Some("true"),
            "{uri}: replayed, not executed again: {}",
            retry.text
        );
    }
    let nodes = app.get("/nodes?limit=200").await.json()["items"].clone();
    let titles: Vec<_> = nodes
        .as_array()
        .unwrap()
        .iter()
        .map(|n| &n["title"])
        .collect();
    assert_eq!(
        titles.iter().filter(|t| **t == "written once").count(),
        1,
        "{titles:?}"
    );
    let edges = app
        .get(&format!(
            "/nodes/{}/edges?direction=out",
            a["id"].as_str().unwrap()
        ))
        .await;
    let mentions = edges.json()["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "mentions")
        .count();
    assert_eq!(mentions, 1, "{}", edges.text);
    let queued = app.get("/conflicts?status=all&limit=200").await.json()["items"].clone();
    assert_eq!(queued.as_array().unwrap().len(), 2, "{queued}");
}

/// As a claim looks once the stale window has passed.
const AGE_CLAIMS: &str =
    "update idempotency_keys set updated_at = '2000-01-01T00:00:00.000Z' where status_code is null";

#[sqlx::test(migrations = "migrations/sqlite")]
async fn sqlite_a_reply_lost_after_the_commit_replays_instead_of_executing_again(
    pool: sqlx::SqlitePool,
) {
    let app = TestApp::sqlite(pool.clone());
    let age = async || {
        sqlx::query(AGE_CLAIMS).execute(&pool).await.unwrap();
    };
    a_reply_lost_after_the_commit_replays_instead_of_executing_again(app, age).await;
}

#[sqlx::test(migrations = "migrations/postgres")]
#[ignore = "needs PostgreSQL; scripts/test runs it with --include-ignored"]
async fn postgres_a_reply_lost_after_the_commit_replays_instead_of_executing_again(
    pool: sqlx::PgPool,
) {
    let app = TestApp::postgres(pool.clone());
    let age = async || {
        sqlx::query(AGE_CLAIMS).execute(&pool).await.unwrap();
    };
    a_reply_lost_after_the_commit_replays_instead_of_executing_again(app, age).await;
}
