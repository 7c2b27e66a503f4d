//! HTTP guards against other sites and oversized bodies.
//!
//! - [`known_host`], on every route: without API keys, a request whose `Host` is not the
//!   service's own name (the bound address, `localhost`, `127.0.0.1`, `[::1]` with the bound
//!   port, or a name of `--allowed-hosts`) is refused with 421 `/problems/foreign-host`. A page
//!   of another site that rebinds its DNS name to 127.0.0.1 still sends its own name as `Host`,
//!   so it cannot reach a key-less service. With keys the service may be reached under any
//!   name; the keys keep other sites out. A request without `Host` comes from no browser and
//!   passes.
//! - [`guarded`], in front of a route that reads its own body (MCP's Streamable HTTP, whose SDK
//!   reads and limits the body itself): a browser page of another origin (scheme, host or
//!   port) is refused (403 `/problems/foreign-origin`), and so is a body declared over the
//!   limit, before it is read (413 `/problems/payload-too-large`).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::header::{CONTENT_LENGTH, HOST, ORIGIN};
use axum::http::{HeaderMap, Method};
use axum::middleware::{Next, from_fn, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;

use super::error::ApiError;
use crate::config::{BODY_LIMIT, Settings};
use crate::state::{AppState, Refusal, SessionSlots};

/// The `Host` names a key-less service answers to; `None` when any is accepted (keys required).
#[derive(Clone)]
pub struct KnownHosts(Option<Arc<Vec<Allowed>>>);

/// One accepted authority: a lowercase host (IPv6 in brackets) and its port, `None` for any.
#[derive(Debug, PartialEq)]
struct Allowed {
    host: String,
    port: Option<u16>,
}

impl KnownHosts {
    pub fn new(settings: &Settings) -> Self {
        if settings.keys_required() {
            return Self(None);
        }
        Self(Some(Arc::new(allowed_hosts(
            settings.bind,
            &settings.allowed_hosts,
        ))))
    }

    fn accepts(&self, host: &str) -> bool {
        let Some(allowed) = &self.0 else {
            return true;
        };
        let Some((name, port)) = split_authority(host) else {
            return false;
        };
        // A Host without a port names the scheme's default, and the server speaks plain HTTP.
        let port = port.unwrap_or(80);
        allowed
            .iter()
            .any(|a| a.host == name && a.port.is_none_or(|p| p == port))
    }
}

fn allowed_hosts(bind: SocketAddr, extra: &[String]) -> Vec<Allowed> {
    let bound = match bind {
        SocketAddr::V4(a) => a.ip().to_string(),
        SocketAddr::V6(a) => format!("[{}]", a.ip()),
    };
    let own = [bound.as_str(), "localhost", "127.0.0.1", "[::1]"]
        .into_iter()
        .map(|host| Allowed {
            host: host.to_owned(),
            port: Some(bind.port()),
        });
    let configured = extra.iter().filter_map(|entry| {
        let (host, port) = split_authority(entry.trim())?;
        Some(Allowed { host, port })
    });
    own.chain(configured).collect()
}

/// `host[:port]` (`[v6][:port]`) as a lowercase host and its port; `None` when malformed.
fn split_authority(authority: &str) -> Option<(String, Option<u16>)> {
    let authority = authority.to_ascii_lowercase();
    let (host, port) = if authority.starts_with('[') {
        let end = authority.find(']')?;
        let (host, rest) = authority.split_at(end + 1);
        match rest {
            "" => (host, None),
            _ => (host, Some(rest.strip_prefix(':')?)),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority.as_str(), None),
        }
    };
    if host.is_empty() || (host.contains(['/', '@', ':']) && !host.starts_with('[')) {
        return None;
    }
    let port = match port {
        Some(p) => Some(p.parse::<u16>().ok()?),
        None => None,
    };
    Some((host.to_owned(), port))
}

/// Refuses a `Host` the service does not answer to (421 `/problems/foreign-host`).
pub async fn known_host(State(known): State<KnownHosts>, req: Request, next: Next) -> Response {
    if let Some(host) = req.headers().get(HOST) {
        let host = host.to_str().unwrap_or("");
        if !known.accepts(host) {
            return ApiError::ForeignHost(host.to_owned()).into_response();
        }
    }
    next.run(req).await
}

/// `routes` (MCP's) behind the guards: origin and declared size, then the session cap.
pub fn guarded(routes: Router<AppState>, sessions: Arc<SessionSlots>) -> Router<AppState> {
    routes
        .route_layer(from_fn_with_state(sessions, session_cap))
        .route_layer(from_fn(guard))
}

/// Refuses an MCP `initialize` that would open a session past `--mcp-max-sessions` (503
/// `/problems/mcp-sessions-full` with `Retry-After`) or past its client's share of them (503
/// `/problems/mcp-client-sessions-full`); otherwise holds a slot for the session while the SDK
/// creates it, and books the session to its client (the peer's IP address).
async fn session_cap(State(slots): State<Arc<SessionSlots>>, req: Request, next: Next) -> Response {
    if req.method() != Method::POST || req.headers().contains_key("mcp-session-id") {
        return next.run(req).await;
    }
    let client = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(peer)| peer.ip().to_canonical());
    let (parts, body) = req.into_parts();
    let Ok(bytes) = to_bytes(body, BODY_LIMIT).await else {
        return ApiError::PayloadTooLarge(BODY_LIMIT).into_response();
    };
    let slot = if opens_session(&bytes) {
        match slots.reserve(client) {
            Ok(slot) => Some(slot),
            Err(refusal) => {
                metrics::counter!("concord_mcp_sessions_refused_total").increment(1);
                return match refusal {
                    Refusal::Full { cap } => ApiError::McpSessionsFull(cap),
                    Refusal::ClientShare { per_client } => {
                        ApiError::McpClientSessionsFull(per_client)
                    }
                }
                .into_response();
            }
        }
    } else {
        None
    };
    let res = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    if let (Some(slot), Some(id)) = (&slot, res.headers().get("mcp-session-id")) {
        slot.assign(id.to_str().unwrap_or_default());
    }
    res
}

/// Whether a POST body is an `initialize`: the SDK answers each with a new session, whatever
/// revision it names (revision 2026-07-28 clients do not initialize; they send
/// `server/discover` and are served without a session).
fn opens_session(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Message<'a> {
        #[serde(borrow)]
        method: Option<std::borrow::Cow<'a, str>>,
    }
    serde_json::from_slice::<Message>(body).is_ok_and(|m| m.method.as_deref() == Some("initialize"))
}

/// Refuses foreign origins (403) and declared bodies over the limit (413) with problem+json.
async fn guard(req: Request, next: Next) -> Response {
    if let Some(origin) = req.headers().get(ORIGIN) {
        let origin = origin.to_str().unwrap_or("(not text)");
        let host = req.headers().get(HOST).and_then(|h| h.to_str().ok());
        if !same_origin(origin, host, scheme(req.headers())) {
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

/// The scheme the client used: concord speaks plain HTTP, unless a TLS-terminating proxy in
/// front says otherwise (a browser cannot add `X-Forwarded-Proto` to a cross-site request
/// without a CORS preflight, which concord never grants).
fn scheme(headers: &HeaderMap) -> String {
    headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(',').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_else(|| "http".to_owned())
}

/// Whether a browser `Origin` is the origin the request was sent to (a page served by concord
/// itself): same scheme, host and port. Any other is foreign.
fn same_origin(origin: &str, host: Option<&str>, scheme: String) -> bool {
    let Some(host) = host else {
        return false;
    };
    let Some((origin_scheme, authority)) = origin.split_once("://") else {
        return false;
    };
    if !origin_scheme.eq_ignore_ascii_case(&scheme) {
        return false;
    }
    let default_port = match scheme.as_str() {
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
    use super::*;

    fn same(origin: &str, host: Option<&str>) -> bool {
        same_origin(origin, host, "http".into())
    }

    #[test]
    fn only_the_host_itself_is_a_same_origin() {
        assert!(same("http://127.0.0.1:8080", Some("127.0.0.1:8080")));
        assert!(same("http://LOCALHOST:8080", Some("localhost:8080")));
        assert!(same("http://memory.example", Some("memory.example:80")));
        assert!(same("http://[::1]:9000", Some("[::1]:9000")));
        assert!(!same("http://evil.example", Some("127.0.0.1:8080")));
        assert!(!same("http://127.0.0.1:8081", Some("127.0.0.1:8080")));
        assert!(!same("https://127.0.0.1:8080", Some("127.0.0.1")));
        assert!(!same("null", Some("127.0.0.1:8080")));
        assert!(!same("http://127.0.0.1:8080", None));
    }

    #[test]
    fn the_scheme_is_compared_too() {
        // An http server is not the origin of an https page on the same host and port.
        assert!(!same("https://127.0.0.1:8080", Some("127.0.0.1:8080")));
        assert!(!same("HTTPS://localhost:8080", Some("localhost:8080")));
        // Behind a TLS-terminating proxy that says so, https is the server's own scheme.
        let https = || "https".to_owned();
        assert!(same_origin(
            "https://memory.example",
            Some("memory.example"),
            https()
        ));
        assert!(same_origin(
            "https://memory.example",
            Some("memory.example:443"),
            https()
        ));
        assert!(!same_origin(
            "http://memory.example",
            Some("memory.example"),
            https()
        ));
    }

    fn known(bind: &str, extra: &[&str]) -> KnownHosts {
        let mut settings = Settings::for_database("sqlite://test");
        settings.bind = bind.parse().unwrap();
        settings.allowed_hosts = extra.iter().map(|s| s.to_string()).collect();
        KnownHosts::new(&settings)
    }

    #[test]
    fn without_keys_only_the_own_names_with_the_bound_port_are_hosts() {
        let hosts = known("127.0.0.1:8080", &[]);
        for ok in [
            "127.0.0.1:8080",
            "localhost:8080",
            "LocalHost:8080",
            "[::1]:8080",
        ] {
            assert!(hosts.accepts(ok), "{ok}");
        }
        for refused in [
            "evil.example:8080",
            "evil.example",
            "localhost:8081",
            "localhost",
            "127.0.0.1",
            "127.0.0.2:8080",
            "localhost.:8080",
            "localhost:8080@evil.example",
            "[::1",
            "",
        ] {
            assert!(!hosts.accepts(refused), "{refused}");
        }
        let v6 = known("[::1]:9000", &[]);
        assert!(v6.accepts("[::1]:9000"));
        assert!(!v6.accepts("[::1]:8080"));
        let other_loopback = known("127.0.0.2:8080", &[]);
        assert!(other_loopback.accepts("127.0.0.2:8080"));
    }

    #[test]
    fn allowed_hosts_add_names_with_any_port_or_the_one_given() {
        let hosts = known("127.0.0.1:8080", &["memory.local", " Proxy.Example:443 "]);
        assert!(hosts.accepts("memory.local"));
        assert!(hosts.accepts("memory.local:9999"));
        assert!(hosts.accepts("proxy.example:443"));
        assert!(!hosts.accepts("proxy.example"));
        assert!(!hosts.accepts("proxy.example:8080"));
        assert!(!hosts.accepts("evil.example:8080"));
    }

    #[test]
    fn every_initialize_opens_a_session() {
        let init = |v: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{v}"}}}}"#
            )
        };
        assert!(opens_session(init("2025-11-25").as_bytes()));
        assert!(opens_session(init("2025-03-26").as_bytes()));
        assert!(opens_session(br#"{"method":"initialize"}"#));
        assert!(opens_session(init("2026-07-28").as_bytes()));
        assert!(!opens_session(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#
        ));
        assert!(!opens_session(br#"[{"method":"initialize"}]"#));
        assert!(!opens_session(b"not json"));
    }

    #[test]
    fn with_keys_any_host_is_accepted() {
        let mut settings = Settings::for_database("sqlite://test");
        settings.api_keys = vec![crate::config::Secret("k".into())];
        assert!(KnownHosts::new(&settings).accepts("evil.example:1234"));
    }
}
