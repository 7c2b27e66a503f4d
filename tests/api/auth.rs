use axum::body::Body;
use axum::http::{Request, StatusCode};

use crate::support::TestApp;

crate::on_both_databases!(keys_guard_every_route_but_health);

async fn keys_guard_every_route_but_health(app: TestApp) {
    // Arrange: the same store behind a router with two keys configured.
    let mut settings = concord::config::Settings::for_database("test");
    settings.api_keys = vec![
        concord::config::Secret("k-one".into()),
        concord::config::Secret("k-two".into()),
    ];
    let app = TestApp::with_store(app.store.clone(), settings);
    let get = |auth: Option<&str>, path: &str| {
        let mut r = Request::get(path);
        if let Some(a) = auth {
            r = r.header("authorization", a);
        }
        r.body(Body::empty()).unwrap()
    };

    // Act + Assert
    let denied = app.send(get(None, "/nodes")).await;
    denied.assert_problem(StatusCode::UNAUTHORIZED, "/problems/unauthorized");
    assert!(
        denied.headers["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Bearer")
    );
    app.send(get(Some("Bearer wrong"), "/nodes"))
        .await
        .assert_status(StatusCode::UNAUTHORIZED);
    app.send(get(Some("Basic k-one"), "/nodes"))
        .await
        .assert_status(StatusCode::UNAUTHORIZED);
    app.send(get(Some("Bearer k-two"), "/nodes"))
        .await
        .assert_status(StatusCode::OK);
    app.send(get(None, "/healthz"))
        .await
        .assert_status(StatusCode::OK);
    app.send(get(None, "/readyz"))
        .await
        .assert_status(StatusCode::OK);
    app.send(get(None, "/openapi.json"))
        .await
        .assert_status(StatusCode::UNAUTHORIZED);
}

#[test]
fn a_keyless_service_refuses_to_bind_beyond_loopback() {
    let mut s = concord::config::Settings::for_database("sqlite://x");
    s.bind = "0.0.0.0:8080".parse().unwrap();
    assert!(s.check_bind().is_err());
    s.api_keys = vec![concord::config::Secret("k".into())];
    assert!(s.check_bind().is_ok());
    s.api_keys.clear();
    s.bind = "127.0.0.1:8080".parse().unwrap();
    assert!(s.check_bind().is_ok());
}
