//! The test harness: the real router, driven in process (no sockets), on either database.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use concord::AppState;
use concord::config::Settings;
use concord::store::Store;
use concord::store::postgres::PgStore;
use concord::store::sqlite::SqliteStore;

pub struct TestApp {
    pub router: axum::Router,
    pub store: Arc<dyn Store>,
}

/// A response, read whole.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: axum::http::HeaderMap,
    pub text: String,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }

    #[track_caller]
    pub fn assert_status(&self, status: StatusCode) -> &Self {
        assert_eq!(
            self.status, status,
            "unexpected status; body: {}",
            self.text
        );
        self
    }

    /// Asserts an RFC 9457 problem of this status and type, and returns its body.
    #[track_caller]
    pub fn assert_problem(&self, status: StatusCode, kind: &str) -> Value {
        self.assert_status(status);
        assert_eq!(
            self.headers[header::CONTENT_TYPE],
            "application/problem+json",
            "problem content type; body: {}",
            self.text
        );
        let body = self.json();
        assert_eq!(body["type"], kind, "problem type; body: {}", self.text);
        assert_eq!(body["status"], status.as_u16());
        assert!(body["title"].is_string() && body["detail"].is_string());
        assert_eq!(
            body["request_id"].as_str(),
            self.headers["x-request-id"].to_str().ok(),
            "request_id must match the x-request-id header"
        );
        body
    }

    /// The JSON Pointers of a 422's `errors`.
    #[track_caller]
    pub fn pointers(&self) -> Vec<String> {
        let body = self.assert_problem(StatusCode::UNPROCESSABLE_ENTITY, "/problems/validation");
        body["errors"]
            .as_array()
            .expect("errors")
            .iter()
            .map(|e| e["pointer"].as_str().unwrap().to_owned())
            .collect()
    }
}

impl TestApp {
    pub fn with_store(store: Arc<dyn Store>, settings: Settings) -> Self {
        Self::of_state(AppState::new(store, settings))
    }

    /// The router of an application state built by the test (a restarted process, say).
    pub fn of_state(state: AppState) -> Self {
        let store = state.store.clone();
        Self {
            router: concord::app(state),
            store,
        }
    }

    /// The same database behind a router built with other settings (e.g. policies).
    pub fn reconfigured(&self, settings: Settings) -> Self {
        Self::with_store(self.store.clone(), settings)
    }

    /// The same database with the background sweeper running, as `serve` runs it.
    pub fn with_sweeper(&self, settings: Settings) -> Self {
        let state = AppState::new(self.store.clone(), settings);
        concord::service::sweep::spawn(&state.services);
        Self::of_state(state)
    }

    pub fn sqlite(pool: sqlx::SqlitePool) -> Self {
        Self::with_store(
            Arc::new(SqliteStore::from_pool(pool)),
            Settings::for_database("sqlite://test"),
        )
    }

    /// On SQLite, batches ranking their searches from postings kept in memory, as a bulk
    /// import's do.
    pub fn sqlite_with_batch_postings(pool: sqlx::SqlitePool) -> Self {
        Self::with_store(
            Arc::new(SqliteStore::from_pool(pool).with_batch_postings()),
            Settings::for_database("sqlite://test"),
        )
    }

    pub fn postgres(pool: sqlx::PgPool) -> Self {
        Self::with_store(
            Arc::new(PgStore::from_pool(pool)),
            Settings::for_database("postgres://test"),
        )
    }

    pub async fn send(&self, req: Request<Body>) -> Reply {
        let res = self
            .router
            .clone()
            .oneshot(req)
            .await
            .expect("router never fails");
        let status = res.status();
        let headers = res.headers().clone();
        let bytes = res.into_body().collect().await.expect("body").to_bytes();
        Reply {
            status,
            headers,
            text: String::from_utf8_lossy(&bytes).into_owned(),
        }
    }

    pub async fn request(&self, method: Method, uri: &str, body: Option<Value>) -> Reply {
        let mut req = Request::builder().method(method).uri(uri);
        let body = match body {
            Some(v) => {
                req = req.header(header::CONTENT_TYPE, "application/json");
                Body::from(v.to_string())
            }
            None => Body::empty(),
        };
        self.send(req.body(body).unwrap()).await
    }

    pub async fn get(&self, uri: &str) -> Reply {
        self.request(Method::GET, uri, None).await
    }

    pub async fn post(&self, uri: &str, body: Value) -> Reply {
        self.request(Method::POST, uri, Some(body)).await
    }

    pub async fn patch(&self, uri: &str, body: Value) -> Reply {
        self.request(Method::PATCH, uri, Some(body)).await
    }

    pub async fn delete(&self, uri: &str) -> Reply {
        self.request(Method::DELETE, uri, None).await
    }

    /// Creates a node and returns its JSON (`node` of the write result).
    pub async fn node(&self, title: &str, body: &str) -> Value {
        self.node_with(json!({"title": title, "body": body})).await
    }

    pub async fn node_with(&self, fields: Value) -> Value {
        let r = self
            .post("/nodes?detect=false&allow_duplicate=true", fields)
            .await;
        r.assert_status(StatusCode::CREATED);
        r.json()["node"].clone()
    }

    /// Two nodes and a pending manual conflict between them: `(conflict, old, new)`.
    pub async fn conflict(&self, old: &str, new: &str) -> (Value, Value, Value) {
        let o = self.node("Deploy region", old).await;
        let n = self.node("Deploy region", new).await;
        let r = self
            .post(
                "/conflicts",
                json!({"old_node_id": o["id"], "new_node_id": n["id"]}),
            )
            .await;
        r.assert_status(StatusCode::CREATED);
        (r.json(), o, n)
    }
}

/// Generates each case twice: on SQLite, and on PostgreSQL (run by scripts/test).
#[macro_export]
macro_rules! on_both_databases {
    ($($case:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[sqlx::test(migrations = "migrations/sqlite")]
                async fn $case(pool: sqlx::SqlitePool) {
                    super::$case($crate::support::TestApp::sqlite(pool)).await
                }
            )*
        }
        mod postgres {
            $(
                #[sqlx::test(migrations = "migrations/postgres")]
                #[ignore = "needs PostgreSQL; scripts/test runs it with --include-ignored"]
                async fn $case(pool: sqlx::PgPool) {
                    super::$case($crate::support::TestApp::postgres(pool)).await
                }
            )*
        }
    };
}
