//! `/mcp`: MCP Streamable HTTP on the REST server. Revision 2026-07-28 requests (one JSON-RPC
//! message per POST, `MCP-Protocol-Version` on each, `server/discover`) are served
//! statelessly; clients of 2025-11-25 and earlier initialize and get an `Mcp-Session-Id`
//! session. The route sits behind the same HTTP rules as REST (API keys, body limit, the
//! `Origin` check and the early refusal of oversized bodies, applied by the composition root
//! and answered as problem+json there); this module only serves the protocol.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::http::{Method, StatusCode};
use axum::middleware::{Next, from_fn};
use axum::response::Response;
use futures_util::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, SessionConfig,
};
use rmcp::transport::streamable_http_server::session::{
    RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::Concord;
use crate::config::BODY_LIMIT;
use crate::state::{AppState, SessionSlots};

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
    let shutting_down = state.services.shutting_down();
    tokio::spawn(async move {
        shutting_down.await;
        token.cancel();
    });
    let server = Concord::new(state.clone());
    let mut session_config = SessionConfig::default();
    session_config.keep_alive = Some(Duration::from_secs(state.settings.mcp_session_idle_secs));
    let mut sessions = LocalSessionManager::default();
    sessions.session_config = session_config;
    let sessions = Bounded {
        inner: sessions,
        slots: state.mcp_sessions.clone(),
    };
    let service =
        StreamableHttpService::new(move || Ok(server.clone()), Arc::new(sessions), config);
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

/// The SDK's in-memory sessions, counted against `--mcp-max-sessions`. The HTTP guard reserves
/// a slot for each `initialize` and refuses one past the cap with 503; this only books the
/// session into its slot and frees it when the session closes (DELETE, idle expiry, shutdown:
/// the SDK calls `close_session` for each).
struct Bounded {
    inner: LocalSessionManager,
    slots: Arc<SessionSlots>,
}

#[derive(Debug, thiserror::Error)]
enum BoundedError {
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
    #[error("{0} MCP sessions are open already")]
    Full(usize),
}

impl SessionManager for Bounded {
    type Error = BoundedError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, transport) = self.inner.create_session().await?;
        if !self.slots.opened(id.clone()) {
            self.inner.close_session(&id).await?;
            return Err(BoundedError::Full(self.slots.cap()));
        }
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        let closed = self.inner.close_session(id).await;
        self.slots.closed(id);
        // A closed session's buffers are free now; an expiry sweep frees thousands at once.
        crate::memory::return_freed_soon();
        Ok(closed?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        // No session store is configured, so there is nothing to restore a session from; the
        // SDK would only create an uncounted one.
        let _ = id;
        Ok(RestoreOutcome::NotSupported)
    }
}
