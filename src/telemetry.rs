//! Logging and request ids. Every request gets an id (the client's `x-request-id` when it is
//! sane, else a new UUID v7), carried in a task-local so that problem bodies and log spans
//! name the same id the response header does.

use axum::extract::{MatchedPath, Request};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;
use tracing_subscriber::EnvFilter;

tokio::task_local! {
    static REQUEST_ID: String;
}

pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// Installs the global subscriber; `CONCORD_LOG` holds the filter (default `info`). Colours
/// only on a terminal: a log redirected to a file reads as plain text.
pub fn init() {
    let filter = EnvFilter::try_from_env("CONCORD_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stdout()))
        .try_init();
}

/// Like [`init`], writing to stderr: for `concord mcp`, whose stdout is the protocol.
pub fn init_stderr() {
    let filter = EnvFilter::try_from_env("CONCORD_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_ansi(false)
        .with_writer(std::io::stderr)
        .try_init();
}

/// The id of the request being served, or `-` outside a request.
/// Runs `fut` (typically in a spawned task) with the current request's id and span, so that
/// work that outlives its request still logs and answers under that request's id.
pub fn in_request_context<F: std::future::Future>(
    fut: F,
) -> impl std::future::Future<Output = F::Output> {
    use tracing::Instrument;
    REQUEST_ID.scope(
        current_request_id(),
        fut.instrument(tracing::Span::current()),
    )
}

pub fn current_request_id() -> String {
    REQUEST_ID
        .try_with(Clone::clone)
        .unwrap_or_else(|_| "-".to_owned())
}

fn sane(id: &HeaderValue) -> Option<String> {
    let s = id.to_str().ok()?;
    let ok = !s.is_empty() && s.len() <= 128 && s.bytes().all(|b| b.is_ascii_graphic());
    ok.then(|| s.to_owned())
}

/// Assigns the request id, opens the request's span and logs the outcome.
pub async fn request_context(req: Request, next: Next) -> Response {
    let id = req
        .headers()
        .get(REQUEST_ID_HEADER)
        .and_then(sane)
        .unwrap_or_else(|| uuid::Uuid::now_v7().to_string());
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| req.uri().path().to_owned());
    let span =
        tracing::info_span!("request", method = %req.method(), route = %route, request_id = %id);
    let started = std::time::Instant::now();
    let mut res = REQUEST_ID
        .scope(id.clone(), next.run(req).instrument(span.clone()))
        .await;
    let status = res.status().as_u16();
    span.in_scope(|| {
        tracing::info!(
            status,
            latency_ms = started.elapsed().as_secs_f64() * 1e3,
            "served"
        );
    });
    if let Ok(v) = HeaderValue::from_str(&id) {
        res.headers_mut().insert(REQUEST_ID_HEADER, v);
    }
    res
}
