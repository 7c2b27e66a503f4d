//! API keys (contract section 1): with keys configured, every route but `/healthz` and
//! `/readyz` needs `Authorization: Bearer <key>`. The review console's page and static files
//! (`api::review`) are open too: they carry no data, and the page must load to ask for a key.
//! Keys are compared as SHA-256 digests in constant time and never logged.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use super::error::ApiError;
use crate::config::Secret;

fn digest(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// Equal digests, compared without an early exit.
fn same(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The digests of the configured keys; empty means auth is off.
#[derive(Clone, Default)]
pub struct ApiKeys(Arc<Vec<[u8; 32]>>);

impl ApiKeys {
    pub fn new(keys: &[Secret]) -> Self {
        let digests = keys
            .iter()
            .filter(|k| !k.0.is_empty())
            .map(|k| digest(&k.0))
            .collect();
        Self(Arc::new(digests))
    }

    pub fn is_off(&self) -> bool {
        self.0.is_empty()
    }

    /// The digest of the request's valid key, if it has one.
    fn authorise(&self, req: &Request) -> Option<[u8; 32]> {
        let header = req.headers().get(AUTHORIZATION)?.to_str().ok()?;
        let (scheme, key) = header.split_once(' ')?;
        if !scheme.eq_ignore_ascii_case("bearer") {
            return None;
        }
        let d = digest(key.trim());
        // Check every key so the time taken does not depend on which one matched.
        let hit = self.0.iter().fold(false, |acc, k| acc | same(k, &d));
        hit.then_some(d)
    }
}

/// The digest of the key a request was authorised with, left in its extensions by
/// [`require_key`] so idempotency keys can be scoped per API key.
#[derive(Clone, Copy)]
pub struct Caller(pub [u8; 32]);

pub async fn require_key(State(keys): State<ApiKeys>, mut req: Request, next: Next) -> Response {
    let path = req.uri().path();
    let open = matches!(path, "/healthz" | "/readyz") || super::review::is_public(path);
    if let Some(d) = keys.authorise(&req) {
        req.extensions_mut().insert(Caller(d));
        return next.run(req).await;
    }
    if keys.is_off() || open {
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
