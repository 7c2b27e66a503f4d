//! API keys (contract section 1): with keys configured, every route but `/healthz` and
//! `/readyz` needs `Authorization: Bearer <key>`. The review console's page and static files
//! (`api::review`) are open too: they carry no data, and the page must load to ask for a key. Keys are compared as SHA-256 digests in
//! constant time and never logged.

use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use crate::error::ApiError;
use crate::state::AppState;

pub fn digest(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// Equal digests, compared without an early exit.
fn same(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The digest of the request's valid key, if it has one.
pub fn authorised_key(state: &AppState, req: &Request) -> Option<[u8; 32]> {
    let header = req.headers().get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, key) = header.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let d = digest(key.trim());
    // Check every key so the time taken does not depend on which one matched.
    let hit = state
        .api_key_digests
        .iter()
        .fold(false, |acc, k| acc | same(k, &d));
    hit.then_some(d)
}

pub async fn require_key(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let path = req.uri().path();
    let open = matches!(path, "/healthz" | "/readyz") || super::review::is_public(path);
    if state.api_key_digests.is_empty() || open || authorised_key(&state, &req).is_some() {
        return next.run(req).await;
    }
    ApiError::Unauthorized.into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_compare_equal_only_for_the_same_key() {
        assert!(same(&digest("k1"), &digest("k1")));
        assert!(!same(&digest("k1"), &digest("k2")));
    }
}
