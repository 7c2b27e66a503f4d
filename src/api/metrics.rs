//! Request metrics for `/metrics`. One Prometheus recorder per process (tests build many
//! routers in one process, so it is installed once and shared).

use std::sync::OnceLock;
use std::time::Instant;

use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::Response;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

/// Installs the process's recorder, so that metrics set before the first request (at
/// startup) are kept.
pub(crate) fn install() {
    handle();
}

fn handle() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new().build_recorder();
        let handle = recorder.handle();
        // Another recorder may already be installed (embedding concord as a library).
        let _ = metrics::set_global_recorder(recorder);
        handle
    })
}

pub fn render() -> String {
    handle().render()
}

pub async fn track(req: Request, next: Next) -> Response {
    handle();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let method = req.method().to_string();
    let started = Instant::now();
    let res = next.run(req).await;
    let status = res.status().as_u16().to_string();
    let labels = [("method", method), ("route", route), ("status", status)];
    metrics::counter!("concord_http_requests_total", &labels).increment(1);
    metrics::histogram!("concord_http_request_duration_seconds", &labels)
        .record(started.elapsed().as_secs_f64());
    res
}
