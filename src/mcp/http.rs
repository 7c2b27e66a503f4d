//! `/mcp`: MCP Streamable HTTP on the REST server. Revision 2026-07-28 requests (one JSON-RPC
//! message per POST, `MCP-Protocol-Version` on each, `server/discover`) are served
//! statelessly; clients of 2025-11-25 and earlier initialize and get an `Mcp-Session-Id`
//! session. The route sits behind the same HTTP rules as REST (API keys, body limit, the
//! `Origin` check and the early refusal of oversized bodies, applied by the composition root
//! and answered as problem+json there); this module only serves the protocol.

use std::sync::Arc;

use axum::Router;
use axum::extract::Request;
use axum::http::{Method, StatusCode};
use axum::middleware::{Next, from_fn};
use axum::response::Response;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::Concord;
use crate::config::BODY_LIMIT;
use crate::state::AppState;

pub const PATH: &str = "/mcp";

/// The `/mcp` route for `state`. Sessions end when the server shuts down.
pub fn routes(state: &AppState) -> Router<AppState> {
    // The Host check is the composition root's (`api::guard::known_host`), the same for REST
    // and MCP, with the bound port and `--allowed-hosts`; the SDK's own would refuse those
    // names, and without problem+json.
    let config = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(BODY_LIMIT)
        .with_legacy_session_mode(true)
        .disable_allowed_hosts();
    let token = config.cancellation_token.clone();
    let services = state.services.clone();
    tokio::spawn(async move {
        services.shutting_down().await;
        token.cancel();
    });
    let server = Concord::new(state.clone());
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    Router::new()
        .route_service(PATH, service)
        .route_layer(from_fn(session_end))
}

/// A session's DELETE answers 204.
async fn session_end(req: Request, next: Next) -> Response {
    let deleting = req.method() == Method::DELETE;
    let mut res = next.run(req).await;
    if deleting && res.status() == StatusCode::ACCEPTED {
        // The session is gone when the SDK answers; clients expect 200 or 204 for that.
        *res.status_mut() = StatusCode::NO_CONTENT;
    }
    res
}
