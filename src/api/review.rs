//! The review console (contract section 12): `GET /review` and its assets, compiled into the
//! binary so the page works with no network, and `GET /` redirecting to it. These are not JSON
//! API routes, so they stay out of the OpenAPI document. The assets hold no data and are served
//! without an API key (the page must be able to ask for one); every call the page makes to the
//! API carries the key as a Bearer token.

use std::sync::LazyLock;

use axum::Router;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use sha2::{Digest, Sha256};

/// The page may load scripts, styles, images and data from concord itself and nothing else; it
/// may not be framed, change its base URL or submit forms anywhere.
const CSP: &str = "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// One compiled-in file and the validator browsers revalidate it with.
struct Asset {
    body: &'static [u8],
    content_type: &'static str,
    etag: String,
}

impl Asset {
    fn new(body: &'static str, content_type: &'static str) -> Self {
        let digest = Sha256::digest(body.as_bytes());
        let hex: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
        Self {
            body: body.as_bytes(),
            content_type,
            etag: format!("\"{hex}\""),
        }
    }

    /// The file, or 304 when the browser's copy is current. `no-cache` makes browsers
    /// revalidate every time, so a new binary's assets are picked up at once.
    fn respond(&self, headers: &HeaderMap) -> Response {
        let fresh = headers
            .get(header::IF_NONE_MATCH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.split(',').any(|t| t.trim() == self.etag));
        let common = [
            (header::CACHE_CONTROL, "no-cache"),
            (header::CONTENT_SECURITY_POLICY, CSP),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::REFERRER_POLICY, "no-referrer"),
        ];
        let etag = HeaderValue::from_str(&self.etag).expect("hex is a valid header value");
        if fresh {
            return (StatusCode::NOT_MODIFIED, common, [(header::ETAG, etag)]).into_response();
        }
        (
            common,
            [
                (header::ETAG, etag),
                (
                    header::CONTENT_TYPE,
                    HeaderValue::from_static(self.content_type),
                ),
            ],
            self.body,
        )
            .into_response()
    }
}

static INDEX: LazyLock<Asset> = LazyLock::new(|| {
    Asset::new(
        include_str!("../../assets/review/index.html"),
        "text/html; charset=utf-8",
    )
});
static SCRIPT: LazyLock<Asset> = LazyLock::new(|| {
    Asset::new(
        include_str!("../../assets/review/app.js"),
        "text/javascript; charset=utf-8",
    )
});
static DIFF: LazyLock<Asset> = LazyLock::new(|| {
    Asset::new(
        include_str!("../../assets/review/diff.js"),
        "text/javascript; charset=utf-8",
    )
});
static STYLE: LazyLock<Asset> = LazyLock::new(|| {
    Asset::new(
        include_str!("../../assets/review/app.css"),
        "text/css; charset=utf-8",
    )
});

/// The browser tab's icon: browsers ask for `/favicon.ico` on their own, and an SVG under that
/// name with its own type works in every current browser.
static ICON: LazyLock<Asset> = LazyLock::new(|| {
    Asset::new(
        include_str!("../../assets/review/favicon.svg"),
        "image/svg+xml",
    )
});

/// Paths served without an API key: the page and its static files, never data.
pub fn is_public(path: &str) -> bool {
    matches!(
        path,
        "/" | "/review" | "/review/app.js" | "/review/diff.js" | "/review/app.css" | "/favicon.ico"
    )
}

/// The console's routes (undocumented in OpenAPI: they serve a page, not JSON).
pub fn router<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/", get(|| async { Redirect::to("/review") }))
        .route(
            "/review",
            get(|h: HeaderMap| async move { INDEX.respond(&h) }),
        )
        .route(
            "/review/app.js",
            get(|h: HeaderMap| async move { SCRIPT.respond(&h) }),
        )
        .route(
            "/review/diff.js",
            get(|h: HeaderMap| async move { DIFF.respond(&h) }),
        )
        .route(
            "/review/app.css",
            get(|h: HeaderMap| async move { STYLE.respond(&h) }),
        )
        .route(
            "/favicon.ico",
            get(|h: HeaderMap| async move { ICON.respond(&h) }),
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_served_path_is_public_and_nothing_else_is() {
        for p in [
            "/",
            "/review",
            "/review/app.js",
            "/review/app.css",
            "/favicon.ico",
        ] {
            assert!(is_public(p), "{p}");
        }
        for p in ["/conflicts", "/review/", "/review/../conflicts", "/events"] {
            assert!(!is_public(p), "{p}");
        }
    }
}
