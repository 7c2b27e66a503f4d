//! The review console's page and assets (`GET /review`, `GET /`): served from the binary with
//! the right types, a strict CSP and revalidation, open without a key while the API is not.

use axum::body::Body;
use axum::http::{Request, StatusCode, header};

use crate::support::TestApp;

#[sqlx::test(migrations = "migrations/sqlite")]
async fn the_root_redirects_to_the_review_page(pool: sqlx::SqlitePool) {
    // Arrange
    let app = TestApp::sqlite(pool);

    // Act
    let res = app.get("/").await;

    // Assert
    assert!(res.status.is_redirection(), "GET / answered {}", res.status);
    assert_eq!(res.headers[header::LOCATION], "/review");
}

#[sqlx::test(migrations = "migrations/sqlite")]
async fn the_page_and_its_assets_have_types_csp_and_validators(pool: sqlx::SqlitePool) {
    // Arrange
    let app = TestApp::sqlite(pool);
    let cases = [
        ("/review", "text/html; charset=utf-8", "<!doctype html>"),
        (
            "/review/app.js",
            "text/javascript; charset=utf-8",
            "/conflicts",
        ),
        (
            "/review/diff.js",
            "text/javascript; charset=utf-8",
            "ConcordDiff",
        ),
        ("/review/app.css", "text/css; charset=utf-8", ":root"),
        ("/favicon.ico", "image/svg+xml", "<svg"),
    ];

    for (path, content_type, snippet) in cases {
        // Act
        let res = app.get(path).await;

        // Assert
        res.assert_status(StatusCode::OK);
        assert_eq!(res.headers[header::CONTENT_TYPE], content_type, "{path}");
        let csp = res.headers[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap();
        assert!(csp.starts_with("default-src 'self'"), "{path}: {csp}");
        assert_eq!(res.headers[header::CACHE_CONTROL], "no-cache", "{path}");
        assert_eq!(res.headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
        assert!(res.text.contains(snippet), "{path} lacks {snippet:?}");

        // A browser holding the current copy gets 304 and no body.
        let etag = res.headers[header::ETAG].clone();
        let again = app
            .send(
                Request::get(path)
                    .header(header::IF_NONE_MATCH, etag.clone())
                    .body(Body::empty())
                    .unwrap(),
            )
            .await;
        again.assert_status(StatusCode::NOT_MODIFIED);
        assert!(again.text.is_empty(), "{path}: 304 with a body");
        assert_eq!(again.headers[header::ETAG], etag);
    }
}

#[sqlx::test(migrations = "migrations/sqlite")]
async fn the_page_loads_without_a_key_but_its_data_does_not(pool: sqlx::SqlitePool) {
    // Arrange: keys configured.
    let mut settings = concord::config::Settings::for_database("test");
    settings.api_keys = vec![concord::config::Secret("k-one".into())];
    let app = TestApp::with_store(TestApp::sqlite(pool).store, settings);

    // Act + Assert
    for path in [
        "/review",
        "/review/app.js",
        "/review/diff.js",
        "/review/app.css",
        "/favicon.ico",
    ] {
        app.get(path).await.assert_status(StatusCode::OK);
    }
    assert!(app.get("/").await.status.is_redirection());
    for path in [
        "/conflicts",
        "/conflicts/stats",
        "/sources",
        "/review/../conflicts",
    ] {
        app.get(path)
            .await
            .assert_problem(StatusCode::UNAUTHORIZED, "/problems/unauthorized");
    }
}

#[test]
fn the_console_is_not_part_of_the_api_document() {
    let doc = concord::api::openapi_json();
    assert!(
        !doc.contains("\"/review"),
        "the console's routes leaked into OpenAPI"
    );
}
