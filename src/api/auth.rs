//! API keys and roles on REST (contract section 1). With keys required (`--api-keys`, or any
//! key in the database: `concord keys`, `/keys`), every route but `/healthz`, `/readyz` and
//! the review console's page and static files (`api::review`: they carry no data, and the
//! page must load to ask for a key) needs `Authorization: Bearer <key>`. [`require_key`] is the
//! one place REST checks who calls and what the caller's role may do:
//!
//! 1. the key is resolved to a [`Caller`] (`service::keys::authenticate`: name, role, scopes);
//!    none, a wrong or a revoked key is 401, and past the failures an address may send, 429
//!    (`throttle`);
//! 2. the route's permission (`access::needs`) is checked against the role: 403
//!    `/problems/role-forbidden`;
//! 3. the caller goes into the request's extensions, where handlers take it as an extractor
//!    (`caller: Caller`) and idempotency keys are scoped by its name.
//!
//! Without keys every request runs as [`Caller::anonymous`] (admin of every scope). Keys are
//! never logged.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{ConnectInfo, FromRequestParts, MatchedPath, Request, State};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::access;
use super::error::ApiError;
use super::throttle::Throttle;
use crate::domain::access::Permission;
use crate::service::{self, Services, keys};

pub use crate::domain::access::Caller;

/// What [`require_key`] needs: the use cases (to find keys) and the failure counts.
#[derive(Clone)]
pub struct Gate {
    services: Services,
    throttle: Arc<Throttle>,
}

impl Gate {
    pub fn new(services: Services) -> Self {
        Self {
            services,
            throttle: Arc::default(),
        }
    }
}

/// The key of a `Bearer` authorization; `Some("")` for a malformed header (a failed key).
fn bearer(req: &Request) -> Option<String> {
    let header = req.headers().get(AUTHORIZATION)?;
    let Some((scheme, key)) = header.to_str().ok().and_then(|h| h.split_once(' ')) else {
        return Some(String::new());
    };
    Some(if scheme.eq_ignore_ascii_case("bearer") {
        key.trim().to_owned()
    } else {
        String::new()
    })
}

pub async fn require_key(State(gate): State<Gate>, mut req: Request, next: Next) -> Response {
    let path = req.uri().path();
    if matches!(path, "/healthz" | "/readyz") || super::review::is_public(path) {
        return next.run(req).await;
    }
    let addr = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    let caller = match identify(&gate, bearer(&req), addr).await {
        Ok(caller) => caller,
        Err(refused) => return refused.into_response(),
    };
    if let Err(refused) = authorise(&caller, &req) {
        return refused.into_response();
    }
    req.extensions_mut().insert(caller);
    next.run(req).await
}

/// Who a request with `key` from `addr` comes from, or why it is refused.
async fn identify(
    gate: &Gate,
    key: Option<String>,
    addr: Option<IpAddr>,
) -> Result<Caller, ApiError> {
    if !keys::required(&gate.services).await? {
        return Ok(Caller::anonymous());
    }
    let Some(key) = key else {
        return Err(ApiError::Unauthorized);
    };
    if !key.is_empty()
        && let Some(caller) = keys::authenticate(&gate.services, &key).await?
    {
        return Ok(caller);
    }
    match gate.throttle.failed(addr) {
        Some(wait) => Err(ApiError::TooManyFailedKeys(wait)),
        None => Err(ApiError::Unauthorized),
    }
}

/// Whether the caller's role may call the route: REST's one permission check.
fn authorise(caller: &Caller, req: &Request) -> Result<(), ApiError> {
    // No matched path: no route, and the fallback answers 404.
    let Some(path) = req.extensions().get::<MatchedPath>() else {
        return Ok(());
    };
    let Some(needs) = access::needs(req.method(), path.as_str()) else {
        return Ok(());
    };
    check(caller, needs, || {
        access::describe(req.method(), path.as_str())
    })
}

/// `Ok` when the caller's role holds `needs`, else the refusal naming `what`.
pub fn check(
    caller: &Caller,
    needs: Permission,
    what: impl FnOnce() -> String,
) -> Result<(), ApiError> {
    if caller.may(needs) {
        return Ok(());
    }
    Err(service::Error::Forbidden {
        role: caller.role,
        needs,
        what: what(),
    }
    .into())
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = ApiError;

    /// The caller [`require_key`] found; 401 on a route it let through without one.
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<Caller>()
            .cloned()
            .ok_or(ApiError::Unauthorized)
    }
}
