//! `Idempotency-Key` on every POST (contract section 1). The first response for a key (a
//! success or a 4xx) is stored and replayed for the same request; a 5xx is not stored, since
//! its transaction was rolled back, so a retry executes again. This middleware claims the key
//! and hands the [`Claim`] to the handler (a request extension, read by [`Claimed`]); a write's
//! use case renders its reply and commits it in the transaction of its effect (see
//! `service::idempotency`), so a crash between the two cannot make a retry execute it twice.
//! Any other response is kept here once the handler answered. A keyed request runs to
//! completion even if its client goes away, so its key never stays in flight for nothing.
//! The fingerprint is the method, path and canonical JSON body (keys sorted), scoped per API
//! key (by its name) when auth is on. `POST /keys` is the one POST that ignores the header.

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::{Body, to_bytes};
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use super::error::ApiError;
use crate::config::body_limit;
use crate::domain::conflict::hex;
use crate::service::idempotency::{self, Claim, IdempotencyBegin, Reply, StoredResponse};
use crate::state::AppState;

pub const HEADER: &str = "idempotency-key";
pub const REPLAYED: &str = "idempotency-replayed";

pub async fn idempotent(State(state): State<AppState>, req: Request, next: Next) -> Response {
    // `POST /keys` answers with a new key, which is never stored; a retry of it gets 409
    // `key-exists` for the name instead of a replay.
    if req.method() != Method::POST || req.uri().path() == "/keys" {
        return next.run(req).await;
    }
    let Some(key) = req.headers().get(HEADER).cloned() else {
        return next.run(req).await;
    };
    match run(state, key, req, next).await {
        Ok(res) | Err(res) => res,
    }
}

async fn run(
    state: AppState,
    key: HeaderValue,
    req: Request,
    next: Next,
) -> Result<Response, Response> {
    let key = std::str::from_utf8(key.as_bytes())
        .ok()
        .filter(|k| is_valid_key(k))
        .ok_or_else(|| {
            ApiError::validation(
                "/headers/Idempotency-Key",
                "must be 1..255 visible ASCII characters",
            )
            .into_response()
        })?
        .to_owned();
    // Keys are scoped per API key, by its name (never reused); `-` without keys.
    let scope = req
        .extensions()
        .get::<super::auth::Caller>()
        .filter(|c| c.name != crate::domain::access::ANONYMOUS)
        .map_or_else(|| "-".to_owned(), |c| c.name.clone());
    let (parts, body) = req.into_parts();
    let limit = body_limit(parts.uri.path());
    let bytes = to_bytes(body, limit)
        .await
        .map_err(|_| ApiError::PayloadTooLarge(limit).into_response())?;
    let fingerprint = fingerprint(
        &parts.method,
        parts.uri.path_and_query().map_or("", |p| p.as_str()),
        &bytes,
    );
    // Everything from the claim on runs in its own task, to completion even when this future
    // is dropped (the client disconnected, or the request deadline answered 503 first): a
    // claim committed just before the drop would otherwise stay in flight (409) with nothing
    // written, or with its effect committed and no response stored.
    let mut req = Request::from_parts(parts, Body::from(bytes));
    let claim = Arc::new(Claim::new(&scope, &key));
    let held = (state.clone(), claim.clone());
    let task = tokio::spawn(crate::telemetry::in_request_context(async move {
        let begin = idempotency::begin(&state.services, &scope, &key, &fingerprint)
            .await
            .map_err(|e| ApiError::from(e).into_response())?;
        match begin {
            IdempotencyBegin::Mismatch => Err(ApiError::IdempotencyKeyReuse.into_response()),
            IdempotencyBegin::InFlight => Err(ApiError::IdempotencyInFlight.into_response()),
            IdempotencyBegin::Replay(stored) => Ok(replay(stored)),
            IdempotencyBegin::Started => {
                req.extensions_mut().insert(claim.clone());
                let res = next.run(req).await;
                Ok(keep_reply(&state, &claim, res).await)
            }
        }
    }));
    match task.await {
        Ok(res) => res,
        Err(e) => {
            // A panic rolled the request back: release the key so a retry executes.
            let (state, claim) = held;
            if !claim.saved() {
                let _ = idempotency::abandon(&state.services, claim.scope(), claim.key()).await;
            }
            Err(ApiError::internal(anyhow::anyhow!("keyed request failed: {e}")).into_response())
        }
    }
}

/// 1..255 visible ASCII characters (`!` to `~`, RFC 5234 VCHAR). `HeaderValue::to_str` also
/// lets tabs and spaces through, which would make keys that look alike in logs differ.
fn is_valid_key(key: &str) -> bool {
    (1..=255).contains(&key.len()) && key.bytes().all(|b| b.is_ascii_graphic())
}

pub fn fingerprint(method: &Method, path: &str, body: &[u8]) -> String {
    // serde_json's default map is sorted, so re-encoding gives a canonical form.
    let canonical = serde_json::from_slice::<serde_json::Value>(body)
        .and_then(|v| serde_json::to_vec(&v))
        .unwrap_or_else(|_| body.to_vec());
    let mut h = Sha256::new();
    h.update(method.as_str());
    h.update(b" ");
    h.update(path);
    h.update(b"\n");
    h.update(&canonical);
    hex(&h.finalize())
}

async fn keep_reply(state: &AppState, claim: &Claim, res: Response) -> Response {
    let (scope, key) = (claim.scope(), claim.key());
    if idempotency::lost_reply(key) {
        // Injected crash: the process dies once the effect has committed, so nothing after
        // that point runs (tests only).
        return ApiError::internal(anyhow::anyhow!("injected crash")).into_response();
    }
    if claim.saved() {
        // Stored with the effect, in its transaction.
        return res;
    }
    if res.status().is_server_error() {
        // Nothing was written, so a retry must run again.
        if let Err(e) = idempotency::abandon(&state.services, scope, key).await {
            tracing::warn!(error = ?e, "could not release an idempotency key");
        }
        return res;
    }
    let (parts, body) = res.into_parts();
    let Ok(bytes) = to_bytes(body, usize::MAX).await else {
        return ApiError::internal(anyhow::anyhow!("response body unreadable")).into_response();
    };
    let header_text = |name| {
        parts
            .headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
            .map(str::to_owned)
    };
    let stored = StoredResponse {
        status: parts.status.as_u16(),
        body: bytes.to_vec(),
        content_type: header_text(header::CONTENT_TYPE),
        location: header_text(header::LOCATION),
    };
    if let Err(e) = idempotency::finish(&state.services, scope, key, stored).await {
        tracing::warn!(error = ?e, "could not store an idempotent response");
    }
    Response::from_parts(parts, Body::from(bytes))
}

/// The request's claimed `Idempotency-Key`, if it has one: a write hands it to its use case,
/// which commits its reply with its effect.
pub struct Claimed(Option<Arc<Claim>>);

impl Claimed {
    pub fn get(&self) -> Option<&Claim> {
        self.0.as_deref()
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Claimed {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Self(parts.extensions.get::<Arc<Claim>>().cloned()))
    }
}

/// A write's reply as the service rendered it (and, for a keyed request, committed it).
impl IntoResponse for Reply {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::OK);
        let mut res = (status, self.body).into_response();
        let headers = res.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(Reply::CONTENT_TYPE),
        );
        if let Some(v) = self.location.and_then(|l| HeaderValue::from_str(&l).ok()) {
            headers.insert(header::LOCATION, v);
        }
        res
    }
}

fn replay(stored: StoredResponse) -> Response {
    let status =
        axum::http::StatusCode::from_u16(stored.status).unwrap_or(axum::http::StatusCode::OK);
    let mut res = (status, stored.body).into_response();
    let headers = res.headers_mut();
    for (name, value) in [
        (header::CONTENT_TYPE, stored.content_type),
        (header::LOCATION, stored.location),
    ] {
        if let Some(v) = value.and_then(|v| HeaderValue::from_str(&v).ok()) {
            headers.insert(name, v);
        }
    }
    headers.insert(REPLAYED, HeaderValue::from_static("true"));
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_visible_ascii_only() {
        assert!(is_valid_key("order-42_a.B~!"));
        for bad in ["", "a\tb", "a b", "\tab", "caf\u{e9}", &"k".repeat(256)] {
            assert!(!is_valid_key(bad), "{bad:?}");
        }
    }
}
