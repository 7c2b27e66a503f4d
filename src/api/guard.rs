//! HTTP guards for a route that reads its own body (MCP's Streamable HTTP, whose SDK reads and
//! limits the body itself): a browser page of another site is refused (403
//! `/problems/foreign-origin`), and so is a body declared over the limit, before it is read
//! (413 `/problems/payload-too-large`). The composition root puts them in front of `/mcp`.

use axum::Router;
use axum::extract::Request;
use axum::http::header::{CONTENT_LENGTH, HOST, ORIGIN};
use axum::middleware::{Next, from_fn};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;

use super::error::ApiError;
use crate::config::BODY_LIMIT;
use crate::state::AppState;

/// `routes` behind the guards.
pub fn guarded(routes: Router<AppState>) -> Router<AppState> {
    routes.route_layer(from_fn(guard))
}

/// Refuses foreign origins (403) and declared bodies over the limit (413) with problem+json.
async fn guard(req: Request, next: Next) -> Response {
    if let Some(origin) = req.headers().get(ORIGIN) {
        let origin = origin.to_str().unwrap_or("(not text)");
        let host = req.headers().get(HOST).and_then(|h| h.to_str().ok());
        if !same_origin(origin, host) {
            return ApiError::ForeignOrigin(origin.to_owned()).into_response();
        }
    }
    let declared = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > BODY_LIMIT as u64) {
        drain(req).await;
        return ApiError::PayloadTooLarge(BODY_LIMIT).into_response();
    }
    next.run(req).await
}

/// Reads and discards a refused body (up to a bound), so the client, still sending it, reads
/// the 413 instead of a connection reset.
async fn drain(req: Request) {
    const DRAIN_LIMIT: usize = 4 * BODY_LIMIT;
    let mut body = req.into_body().into_data_stream();
    let mut seen = 0;
    while let Some(Ok(chunk)) = body.next().await {
        seen += chunk.len();
        if seen > DRAIN_LIMIT {
            break;
        }
    }
}

/// Whether a browser `Origin` names the host the request was sent to (a page served by
/// concord itself); any other site is foreign.
fn same_origin(origin: &str, host: Option<&str>) -> bool {
    let Some(host) = host else {
        return false;
    };
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false;
    };
    let default_port = match scheme.to_ascii_lowercase().as_str() {
        "http" => "80",
        "https" => "443",
        _ => return false,
    };
    let with_port = |a: &str| {
        let a = a.to_ascii_lowercase();
        let has_port = a
            .rsplit_once(':')
            .is_some_and(|(_, p)| p.bytes().all(|b| b.is_ascii_digit()))
            && !a.ends_with(']');
        if has_port {
            a
        } else {
            format!("{a}:{default_port}")
        }
    };
    with_port(authority.trim_end_matches('/')) == with_port(host)
}

#[cfg(test)]
mod tests {
    use super::same_origin;

    #[test]
    fn only_the_host_itself_is_a_same_origin() {
        assert!(same_origin("http://127.0.0.1:8080", Some("127.0.0.1:8080")));
        assert!(same_origin("http://LOCALHOST:8080", Some("localhost:8080")));
        assert!(same_origin(
            "https://memory.example",
            Some("memory.example:443")
        ));
        assert!(same_origin("http://[::1]:9000", Some("[::1]:9000")));
        assert!(!same_origin("http://evil.example", Some("127.0.0.1:8080")));
        assert!(!same_origin(
            "http://127.0.0.1:8081",
            Some("127.0.0.1:8080")
        ));
        assert!(!same_origin("https://127.0.0.1:8080", Some("127.0.0.1")));
        assert!(!same_origin("null", Some("127.0.0.1:8080")));
        assert!(!same_origin("http://127.0.0.1:8080", None));
    }
}
