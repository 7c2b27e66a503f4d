//! The LLM tier against a fake OpenAI-compatible server on loopback: the request it sends, how
//! it reads replies, and how every failure (timeout, HTTP error, malformed reply, no server)
//! falls back to the other tiers without failing the write.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, Request, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use concord::config::{LlmArgs, Secret, Settings};
use concord::domain::contradiction::ConflictType;
use concord::service::llm::{LlmClient, LlmError, Pair};
use concord::store::sqlite::SqliteStore;
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

/// What the fake server answers.
#[derive(Clone)]
enum Reply {
    /// A chat completion whose message content is this text, after an optional delay.
    Content(String, Duration),
    /// A raw status and body.
    Raw(StatusCode, String),
}

/// One request the fake server saw.
#[derive(Debug, Clone)]
struct Seen {
    method: Method,
    path: String,
    auth: Option<String>,
    body: Value,
}

#[derive(Clone)]
struct Fake {
    reply: Reply,
    seen: Arc<Mutex<Vec<Seen>>>,
    in_flight: Arc<AtomicUsize>,
    max_in_flight: Arc<AtomicUsize>,
}

impl Fake {
    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().expect("lock").clone()
    }
}

async fn answer(
    State(f): State<Fake>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let now = f.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    f.max_in_flight.fetch_max(now, Ordering::SeqCst);
    f.seen.lock().expect("lock").push(Seen {
        method,
        path: uri.path().to_owned(),
        auth: headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    });
    let response = match f.reply {
        Reply::Content(content, delay) => {
            tokio::time::sleep(delay).await;
            axum::Json(json!({
                "id": "chatcmpl-1", "object": "chat.completion",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": content}}],
            }))
            .into_response()
        }
        Reply::Raw(status, body) => (status, body).into_response(),
    };
    f.in_flight.fetch_sub(1, Ordering::SeqCst);
    response
}

/// A fake chat completions server on 127.0.0.1 and the URL of its endpoint.
async fn fake_llm(reply: Reply) -> (String, Fake) {
    let fake = Fake {
        reply,
        seen: Arc::default(),
        in_flight: Arc::default(),
        max_in_flight: Arc::default(),
    };
    let app = axum::Router::new()
        .fallback(answer)
        .with_state(fake.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let addr = listener.local_addr().expect("address");
    tokio::spawn(async move { axum::serve(listener, app).await.expect("fake server") });
    (format!("http://{addr}/v1/chat/completions"), fake)
}

fn verdict(contradiction: bool, probability: f64, kind: &str) -> Reply {
    let content = json!({
        "contradiction": contradiction, "probability": probability,
        "conflict_type": kind, "explanation": "\"30 seconds\" vs \"60 seconds\"",
    });
    Reply::Content(content.to_string(), Duration::ZERO)
}

fn args(url: &str, timeout_ms: u64) -> LlmArgs {
    LlmArgs {
        url: Some(url.to_owned()),
        model: Some("judge-mini".into()),
        api_key: Some(Secret("sk-test".into())),
        timeout_ms,
        ..LlmArgs::default()
    }
}

fn client(args: &LlmArgs) -> LlmClient {
    LlmClient::from_args(args)
        .expect("client builds")
        .expect("URL set")
}

fn pair() -> Pair {
    Pair::new(
        ("Request timeout", "The request timeout is 30 seconds."),
        ("Request timeout", "The request timeout is 60 seconds."),
    )
}

/// A URL on loopback where nothing listens.
async fn dead_url() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    drop(listener);
    format!("http://{addr}/v1/chat/completions")
}

#[tokio::test]
async fn the_request_is_an_authorized_json_mode_chat_completion() {
    // Arrange
    let (url, fake) = fake_llm(verdict(true, 0.9, "numeric-mismatch")).await;

    // Act
    client(&args(&url, 2000))
        .judge(&pair())
        .await
        .expect("judged");

    // Assert
    let seen = fake.seen();
    assert_eq!(seen.len(), 1, "one request per pair");
    let req = &seen[0];
    assert_eq!(
        (&req.method, req.path.as_str()),
        (&Method::POST, "/v1/chat/completions")
    );
    assert_eq!(req.auth.as_deref(), Some("Bearer sk-test"));
    assert_eq!(req.body["model"], "judge-mini");
    assert_eq!(req.body["temperature"], 0);
    assert_eq!(req.body["response_format"], json!({"type": "json_object"}));
    let roles: Vec<&str> = req.body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| m["role"].as_str().expect("role"))
        .collect();
    assert_eq!(roles, ["system", "user"]);
    let user = req.body["messages"][1]["content"]
        .as_str()
        .expect("user text");
    assert!(
        user.contains("30 seconds") && user.contains("60 seconds"),
        "{user}"
    );
}

#[tokio::test]
async fn no_api_key_sends_no_authorization_header() {
    let (url, fake) = fake_llm(verdict(true, 0.9, "numeric-mismatch")).await;
    let args = LlmArgs {
        api_key: None,
        ..args(&url, 2000)
    };

    client(&args).judge(&pair()).await.expect("judged");

    assert_eq!(fake.seen()[0].auth, None);
}

#[tokio::test]
async fn a_good_reply_becomes_a_judgement() {
    let (url, _fake) = fake_llm(verdict(true, 0.92, "numeric-mismatch")).await;

    let j = client(&args(&url, 2000))
        .judge(&pair())
        .await
        .expect("judged");

    assert!(j.contradiction);
    assert_eq!(j.probability, 0.92);
    assert_eq!(j.conflict_type, Some(ConflictType::NumericMismatch));
}

#[tokio::test]
async fn each_failure_is_an_error_naming_its_cause() {
    let slow = Reply::Content("{}".into(), Duration::from_millis(1500));
    let cases = [
        (
            Reply::Raw(StatusCode::INTERNAL_SERVER_ERROR, "boom".into()),
            "HTTP 500",
        ),
        (
            Reply::Content("Yes, they contradict.".into(), Duration::ZERO),
            "malformed reply: ",
        ),
        (
            verdict(true, 0.9, "opinion"),
            "malformed reply: unknown conflict_type",
        ),
        (slow, "timeout after 200 ms"),
    ];
    for (reply, want) in cases {
        let (url, _fake) = fake_llm(reply).await;

        let err = client(&args(&url, 200))
            .judge(&pair())
            .await
            .expect_err(want);

        assert!(
            err.to_string().starts_with(want),
            "wanted {want:?}, got {err}"
        );
    }
    let err = client(&args(&dead_url().await, 2000))
        .judge(&pair())
        .await
        .expect_err("down");
    assert!(matches!(err, LlmError::Transport(_)), "{err}");
}

#[tokio::test]
async fn concurrency_is_bounded_across_calls() {
    // Arrange
    let reply = Reply::Content(
        json!({"contradiction": false, "probability": 0.1, "conflict_type": null, "explanation": "same"})
            .to_string(),
        Duration::from_millis(100),
    );
    let (url, fake) = fake_llm(reply).await;
    let client = Arc::new(client(&LlmArgs {
        concurrency: 2,
        ..args(&url, 5000)
    }));

    // Act
    let calls: Vec<_> = (0..6)
        .map(|_| {
            let c = Arc::clone(&client);
            tokio::spawn(async move { c.judge(&pair()).await })
        })
        .collect();
    for call in calls {
        call.await.expect("joined").expect("judged");
    }

    // Assert
    assert_eq!(fake.seen().len(), 6);
    assert_eq!(
        fake.max_in_flight.load(Ordering::SeqCst),
        2,
        "at most two in flight"
    );
}

// ---- end to end through the real router ----

struct App {
    router: axum::Router,
}

impl App {
    fn new(pool: sqlx::SqlitePool, llm: LlmArgs) -> Self {
        let mut settings = Settings::for_database("sqlite::memory:");
        settings.detection.llm = llm;
        let store = Arc::new(SqliteStore::from_pool(pool));
        Self {
            router: concord::app(concord::AppState::new(store, settings)),
        }
    }

    async fn call(&self, method: Method, uri: &str, body: Option<Value>) -> (StatusCode, Value) {
        let (status, _, json) = self.call_keyed(method, uri, body, None).await;
        (status, json)
    }

    /// [`Self::call`] with an optional `Idempotency-Key`, answering the headers too.
    async fn call_keyed(
        &self,
        method: Method,
        uri: &str,
        body: Option<Value>,
        key: Option<&str>,
    ) -> (StatusCode, HeaderMap, Value) {
        let mut req = Request::builder()
            .method(method)
            .uri(uri)
            .header("content-type", "application/json");
        if let Some(k) = key {
            req = req.header("idempotency-key", k);
        }
        let req = req
            .body(body.map_or_else(Body::empty, |b| Body::from(b.to_string())))
            .expect("request");
        let res = self.router.clone().oneshot(req).await.expect("response");
        let (status, headers) = (res.status(), res.headers().clone());
        let bytes = res.into_body().collect().await.expect("body").to_bytes();
        (
            status,
            headers,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    async fn create(&self, query: &str, title: &str, body: &str) -> Value {
        let node = json!({"title": title, "body": body});
        let (status, res) = self
            .call(Method::POST, &format!("/nodes{query}"), Some(node))
            .await;
        assert_eq!(
            status,
            StatusCode::CREATED,
            "POST /nodes {body:?} answered {res}"
        );
        res
    }

    /// The detection of each conflict the write of `new` (after `old`) queued.
    async fn detections(&self, query: &str, old: &str, new: &str) -> Vec<Value> {
        self.create("", "Request timeout", old).await;
        let created = self.create(query, "Request timeout", new).await;
        let mut out = Vec::new();
        for hit in created["conflicts"].as_array().cloned().unwrap_or_default() {
            let id = hit["conflict_id"].as_str().expect("queued conflict");
            let (status, c) = self
                .call(Method::GET, &format!("/conflicts/{id}"), None)
                .await;
            assert_eq!(status, StatusCode::OK, "{c}");
            out.push(c["detection"].clone());
        }
        out
    }
}

const OLD: &str = "The request timeout is 30 seconds.";
const NEW: &str = "The request timeout is 60 seconds.";

#[sqlx::test(migrations = "migrations/sqlite")]
async fn an_llm_verdict_queues_a_conflict_of_tier_llm(pool: sqlx::SqlitePool) {
    // Arrange
    let (url, fake) = fake_llm(verdict(true, 0.93, "numeric-mismatch")).await;
    let app = App::new(pool, args(&url, 2000));

    // Act
    let detections = app.detections("", OLD, NEW).await;

    // Assert
    assert_eq!(detections.len(), 1, "{detections:?}");
    let d = &detections[0];
    assert_eq!(
        (d["tier"].as_str(), d["probability"].as_f64()),
        (Some("llm"), Some(0.93))
    );
    assert!(
        d["explanation"]
            .as_str()
            .is_some_and(|e| e.starts_with("llm: ")),
        "{d}"
    );
    assert!(d.get("llm_fallback").is_none(), "{d}");
    assert_eq!(fake.seen().len(), 1, "asked once, about the one candidate");
}

#[sqlx::test(migrations = "migrations/sqlite")]
async fn an_llm_no_overrides_the_heuristic_under_balanced_but_not_strict(pool: sqlx::SqlitePool) {
    // Arrange
    let no = Reply::Content(
        json!({"contradiction": false, "probability": 0.2, "conflict_type": null,
               "explanation": "different services"})
        .to_string(),
        Duration::ZERO,
    );
    let (url, _fake) = fake_llm(no).await;
    let app = App::new(pool, args(&url, 2000));

    // Act
    let balanced = app.detections("", OLD, NEW).await;
    let strict = app
        .detections(
            "?sensitivity=strict",
            "The cache TTL is 5 minutes.",
            "The cache TTL is 9 minutes.",
        )
        .await;

    // Assert
    assert!(balanced.is_empty(), "the LLM said no: {balanced:?}");
    assert_eq!(
        strict.len(),
        1,
        "strict flags any tier's verdict: {strict:?}"
    );
    assert_eq!(strict[0]["tier"], "heuristic");
}

#[sqlx::test(migrations = "migrations/sqlite")]
async fn only_candidates_that_pass_the_filters_are_sent(pool: sqlx::SqlitePool) {
    let (url, fake) = fake_llm(verdict(true, 0.93, "direct-contradiction")).await;
    let app = App::new(pool, args(&url, 2000));

    app.create(
        "",
        "Lunch",
        "The cafeteria serves lunch at noon on Fridays.",
    )
    .await;
    let created = app
        .create("", "Deploys", "The deploy pipeline is frozen on Fridays.")
        .await;

    assert!(created.get("conflicts").is_none(), "{created}");
    assert!(fake.seen().is_empty(), "an unrelated pair reached the LLM");
}

async fn assert_falls_back(pool: sqlx::SqlitePool, llm: LlmArgs, reason: &str) {
    // Arrange
    let app = App::new(pool, llm);

    // Act
    let detections = app.detections("", OLD, NEW).await;

    // Assert
    assert_eq!(
        detections.len(),
        1,
        "the heuristic verdict stands: {detections:?}"
    );
    let d = &detections[0];
    assert_eq!(d["tier"], "heuristic", "{d}");
    let fallback = d["llm_fallback"].as_str().unwrap_or_default();
    assert!(fallback.starts_with(reason), "wanted {reason:?}, got {d}");
}

#[sqlx::test(migrations = "migrations/sqlite")]
async fn a_down_llm_still_writes_with_the_heuristic_verdict(pool: sqlx::SqlitePool) {
    assert_falls_back(pool, args(&dead_url().await, 2000), "request failed: ").await;
}

#[sqlx::test(migrations = "migrations/sqlite")]
async fn an_http_500_falls_back(pool: sqlx::SqlitePool) {
    let (url, _fake) = fake_llm(Reply::Raw(StatusCode::INTERNAL_SERVER_ERROR, "{}".into())).await;
    assert_falls_back(pool, args(&url, 2000), "HTTP 500").await;
}

#[sqlx::test(migrations = "migrations/sqlite")]
async fn a_malformed_reply_falls_back(pool: sqlx::SqlitePool) {
    let (url, _fake) = fake_llm(verdict(true, 1.7, "numeric-mismatch")).await;
    assert_falls_back(pool, args(&url, 2000), "malformed reply: probability 1.7").await;
}

#[sqlx::test(migrations = "migrations/sqlite")]
async fn a_slow_llm_times_out_and_falls_back(pool: sqlx::SqlitePool) {
    let slow = Reply::Content("{}".into(), Duration::from_secs(3));
    let (url, _fake) = fake_llm(slow).await;
    let started = std::time::Instant::now();

    assert_falls_back(pool, args(&url, 300), "timeout after 300 ms").await;

    assert!(
        started.elapsed() < Duration::from_secs(3),
        "the write waited for the LLM"
    );
}

/// A batch holds its write transaction while the LLM judges its nodes, and SQLite has one
/// writer: a second request with the batch's key must still be told at once that the first is
/// running (409), not wait for its commit and replay it.
#[sqlx::test(migrations = "migrations/sqlite")]
async fn a_keyed_batch_waiting_on_the_llm_answers_its_duplicate_409_at_once(
    pool: sqlx::SqlitePool,
) {
    // Arrange: a stored fact, and a batch contradicting it whose judging takes two seconds.
    let slow = Reply::Content(
        json!({"contradiction": true, "probability": 0.9,
               "conflict_type": "numeric-mismatch", "explanation": "30 vs 60"})
        .to_string(),
        Duration::from_secs(2),
    );
    let (url, fake) = fake_llm(slow).await;
    let app = Arc::new(App::new(pool, args(&url, 10_000)));
    app.create("", "Request timeout", OLD).await;
    let batch = json!({"nodes": [{"title": "Request timeout", "body": NEW}]});
    let first = tokio::spawn({
        let (app, batch) = (Arc::clone(&app), batch.clone());
        async move {
            app.call_keyed(Method::POST, "/nodes/batch", Some(batch), Some("b1"))
                .await
        }
    });
    let asked = std::time::Instant::now();
    while fake.in_flight.load(Ordering::SeqCst) == 0 {
        assert!(
            asked.elapsed() < Duration::from_secs(5),
            "the LLM was never asked"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    // Act
    let (status, headers, problem) = app
        .call_keyed(
            Method::POST,
            "/nodes/batch",
            Some(batch.clone()),
            Some("b1"),
        )
        .await;

    // Assert: told while the first still waits on the LLM; the first then writes, once.
    assert!(!first.is_finished(), "the duplicate waited for the first");
    assert_eq!(status, StatusCode::CONFLICT, "{problem}");
    assert_eq!(problem["type"], "/problems/idempotency-in-flight");
    assert!(headers.get("retry-after").is_some());
    let (status, _, written) = first.await.expect("first request");
    assert_eq!(status, StatusCode::CREATED, "{written}");
    let (status, headers, replayed) = app
        .call_keyed(Method::POST, "/nodes/batch", Some(batch), Some("b1"))
        .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(headers["idempotency-replayed"], "true");
    assert_eq!(replayed, written);
    let (_, nodes) = app.call(Method::GET, "/nodes", None).await;
    assert_eq!(nodes["items"].as_array().map(Vec::len), Some(2));
}
