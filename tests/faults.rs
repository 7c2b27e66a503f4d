//! Database faults on PostgreSQL (ignored unless run with `--include-ignored` and a
//! `DATABASE_URL`; scripts/test does both). The machine's PostgreSQL server is never stopped:
//! a connection is killed with `pg_terminate_backend`, and an outage is simulated by cutting a
//! TCP proxy that stands between the store and the server.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tower::ServiceExt;

use concord::AppState;
use concord::config::Settings;
use concord::store::Store;
use concord::store::postgres::PgStore;

struct App {
    router: axum::Router,
    store: Arc<dyn Store>,
}

impl App {
    fn new(pool: sqlx::PgPool) -> Self {
        let store: Arc<dyn Store> = Arc::new(PgStore::from_pool(pool));
        let router = concord::app(AppState::new(
            store.clone(),
            Settings::for_database("postgres://test"),
        ));
        Self { router, store }
    }

    async fn call(&self, method: &str, uri: &str, body: Option<Value>) -> (StatusCode, Value) {
        let mut req = Request::builder().method(method).uri(uri);
        let body = match body {
            Some(v) => {
                req = req.header("content-type", "application/json");
                Body::from(v.to_string())
            }
            None => Body::empty(),
        };
        let res = self
            .router
            .clone()
            .oneshot(req.body(body).unwrap())
            .await
            .unwrap();
        let status = res.status();
        let bytes = res.into_body().collect().await.unwrap().to_bytes();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }
}

/// The process ids of this database's other backends that wait for a lock.
async fn lock_waiters(pool: &sqlx::PgPool) -> Vec<i32> {
    sqlx::query_scalar(
        "select pid from pg_stat_activity where datname = current_database() \
         and pid <> pg_backend_pid() and wait_event_type = 'Lock'",
    )
    .fetch_all(pool)
    .await
    .unwrap()
}

#[sqlx::test(migrations = "migrations/postgres")]
#[ignore = "needs PostgreSQL; scripts/test runs it with --include-ignored"]
async fn a_connection_killed_mid_resolution_rolls_back_and_a_retry_succeeds(pool: sqlx::PgPool) {
    // Arrange: two sourced nodes and a conflict; another transaction locks `sources`, so the
    // resolution stops at its last step (the source verdicts) after two steps are done.
    let app = App::new(pool.clone());
    let node = |title: &str, body: &str, source: &str| json!({"title": title, "body": body, "source": source});
    let (_, old) = app
        .call(
            "POST",
            "/nodes?detect=false",
            Some(node("Port", "The port is 80", "doc:a")),
        )
        .await;
    let (_, new) = app
        .call(
            "POST",
            "/nodes?detect=false",
            Some(node("Port", "The port is 8080", "doc:b")),
        )
        .await;
    let (old_id, new_id) = (old["node"]["id"].clone(), new["node"]["id"].clone());
    let (s, conflict) = app
        .call(
            "POST",
            "/conflicts",
            Some(json!({"old_node_id": old_id, "new_node_id": new_id})),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED);
    let cid = conflict["id"].as_str().unwrap().to_owned();
    let mut blocker = pool.begin().await.unwrap();
    sqlx::query("lock table sources in exclusive mode")
        .execute(&mut *blocker)
        .await
        .unwrap();

    // Act: resolve; once its connection waits for the lock, terminate that backend.
    let app = Arc::new(app);
    let resolving = {
        let app = app.clone();
        let uri = format!("/conflicts/{cid}/resolve");
        tokio::spawn(async move {
            app.call("POST", &uri, Some(json!({"resolution": "new_is_current"})))
                .await
        })
    };
    let mut killed = 0;
    for _ in 0..200 {
        let waiting = lock_waiters(&pool).await;
        if !waiting.is_empty() {
            for pid in waiting {
                let ok: bool = sqlx::query_scalar("select pg_terminate_backend($1)")
                    .bind(pid)
                    .fetch_one(&pool)
                    .await
                    .unwrap();
                killed += usize::from(ok);
            }
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let (status, problem) = resolving.await.unwrap();
    blocker.rollback().await.unwrap();

    // Assert: the failure names the steps it undid, and nothing was written.
    assert_eq!(killed, 1, "one backend was waiting inside the resolution");
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{problem}");
    assert_eq!(problem["type"], "/problems/resolution-failed");
    let partial: Vec<&str> = problem["partial_actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["action"].as_str().unwrap())
        .collect();
    assert_eq!(partial, ["node_state_changed", "edge_created"], "{problem}");
    assert_eq!(problem["failed_action"], "conflict_resolved");
    assert_eq!(problem["rolled_back"], true);
    assert_eq!(problem["retryable"], true);
    let (_, c) = app.call("GET", &format!("/conflicts/{cid}"), None).await;
    assert_eq!(c["status"], "pending", "{c}");
    let (_, o) = app
        .call("GET", &format!("/nodes/{}", old_id.as_str().unwrap()), None)
        .await;
    assert_eq!(o["state"], "active", "the state change was rolled back");
    let (_, edges) = app
        .call(
            "GET",
            &format!("/nodes/{}/edges?kind=supersedes", old_id.as_str().unwrap()),
            None,
        )
        .await;
    assert_eq!(edges["items"], json!([]), "the edge was rolled back");

    // Act + Assert: the retry executes everything once; the database is consistent.
    let (status, done) = app
        .call(
            "POST",
            &format!("/conflicts/{cid}/resolve"),
            Some(json!({"resolution": "new_is_current"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done["replayed"], false);
    assert_eq!(app.store.check().await.unwrap(), Vec::new());
}

/// A TCP proxy to the PostgreSQL server that can be cut (every connection dropped, the port
/// closed) and restored on the same port.
struct Proxy {
    port: u16,
    tasks: Arc<Mutex<Vec<JoinHandle<()>>>>,
}

impl Proxy {
    async fn start(port: u16, upstream: String) -> Self {
        let listener = TcpListener::bind(("127.0.0.1", port)).await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let tasks = Arc::new(Mutex::new(Vec::new()));
        let conns = tasks.clone();
        let accept = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let upstream = upstream.clone();
                let conn = tokio::spawn(async move {
                    if let Ok(mut server) = TcpStream::connect(upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                conns.lock().unwrap().push(conn);
            }
        });
        tasks.lock().unwrap().push(accept);
        Self { port, tasks }
    }

    fn cut(&self) {
        for t in self.tasks.lock().unwrap().drain(..) {
            t.abort();
        }
    }
}

#[sqlx::test(migrations = "migrations/postgres")]
#[ignore = "needs PostgreSQL; scripts/test runs it with --include-ignored"]
async fn readiness_is_503_while_the_database_is_unreachable_and_recovers(pool: sqlx::PgPool) {
    // Arrange: a store that reaches this test's database through the proxy.
    let db: String = sqlx::query_scalar("select current_database()")
        .fetch_one(&pool)
        .await
        .unwrap();
    let url = std::env::var("DATABASE_URL").expect("DATABASE_URL");
    let rest = url.split_once("://").map_or(url.as_str(), |(_, r)| r);
    let (user, hostport) = rest.split_once('@').unwrap_or(("postgres", rest));
    let upstream = hostport.split('/').next().unwrap().to_owned();
    let proxy = Proxy::start(0, upstream.clone()).await;
    let lazy = sqlx::postgres::PgPoolOptions::new()
        .max_connections(2)
        .acquire_timeout(Duration::from_secs(1))
        .connect_lazy(&format!("postgres://{user}@127.0.0.1:{}/{db}", proxy.port))
        .unwrap();
    let app = App::new(lazy);
    let (ready, _) = app.call("GET", "/readyz", None).await;
    assert_eq!(ready, StatusCode::OK, "ready through the proxy");

    // Act: cut the proxy.
    proxy.cut();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (down, problem) = app.call("GET", "/readyz", None).await;
    let (write, write_problem) = app
        .call(
            "POST",
            "/nodes",
            Some(json!({"title": "during the outage"})),
        )
        .await;
    let (alive, _) = app.call("GET", "/healthz", None).await;

    // Assert
    assert_eq!(down, StatusCode::SERVICE_UNAVAILABLE, "{problem}");
    assert_eq!(problem["type"], "/problems/unavailable");
    assert_eq!(write, StatusCode::SERVICE_UNAVAILABLE, "{write_problem}");
    assert!(
        !write_problem
            .to_string()
            .to_lowercase()
            .contains("postgres"),
        "a 5xx never shows database text: {write_problem}"
    );
    assert_eq!(
        alive,
        StatusCode::OK,
        "liveness does not depend on the database"
    );

    // Act: restore it on the same port; the pool reconnects by itself.
    let restored = Proxy::start(proxy.port, upstream).await;
    let mut recovered = false;
    for _ in 0..50 {
        if app.call("GET", "/readyz", None).await.0 == StatusCode::OK {
            recovered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    restored.cut();

    // Assert
    assert!(recovered, "ready again once the database is reachable");
}
