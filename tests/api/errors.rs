use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use serde_json::json;

use crate::support::TestApp;

crate::on_both_databases!(
    a_wrong_content_type_is_415,
    malformed_json_is_400,
    a_body_over_two_mebibytes_is_413,
    unknown_routes_and_methods_are_problems,
    bad_query_values_are_422_naming_the_parameter,
    the_request_id_is_echoed_or_assigned,
    health_readiness_metrics_and_docs_answer,
);

async fn a_wrong_content_type_is_415(app: TestApp) {
    let req = Request::post("/nodes")
        .header("content-type", "text/plain")
        .body(Body::from("{}"))
        .unwrap();
    app.send(req).await.assert_problem(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "/problems/unsupported-media-type",
    );
    let req = Request::post("/nodes")
        .body(Body::from("{\"title\":\"x\"}"))
        .unwrap();
    app.send(req).await.assert_problem(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "/problems/unsupported-media-type",
    );
}

async fn malformed_json_is_400(app: TestApp) {
    for body in [
        "{",
        "{\"title\": NaN}",
        "{\"title\": Infinity}",
        "{} x",
        "\u{0}",
    ] {
        let req = Request::post("/nodes")
            .header("content-type", "application/json")
            .body(Body::from(body.to_owned()))
            .unwrap();
        app.send(req)
            .await
            .assert_problem(StatusCode::BAD_REQUEST, "/problems/malformed-json");
    }
    // Nesting beyond the parser's depth limit is refused, whatever the target shape.
    let deep = format!(
        "{{\"title\": \"t\", \"labels\": {}{}}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let req = Request::post("/nodes")
        .header("content-type", "application/json")
        .body(Body::from(deep))
        .unwrap();
    let r = app.send(req).await;
    assert!(
        r.status == StatusCode::BAD_REQUEST || r.status == StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        r.text
    );
    let invalid_utf8 = Request::post("/nodes")
        .header("content-type", "application/json")
        .body(Body::from(vec![b'"', 0xff, b'"']))
        .unwrap();
    app.send(invalid_utf8)
        .await
        .assert_problem(StatusCode::BAD_REQUEST, "/problems/malformed-json");
}

async fn a_body_over_two_mebibytes_is_413(app: TestApp) {
    let big = json!({"title": "t", "body": "x".repeat(2 * 1024 * 1024 + 10)});
    app.post("/nodes", big.clone())
        .await
        .assert_problem(StatusCode::PAYLOAD_TOO_LARGE, "/problems/payload-too-large");
    let req = Request::post("/nodes")
        .header("content-type", "application/json")
        .header("idempotency-key", "big")
        .body(Body::from(big.to_string()))
        .unwrap();
    app.send(req)
        .await
        .assert_problem(StatusCode::PAYLOAD_TOO_LARGE, "/problems/payload-too-large");
}

async fn unknown_routes_and_methods_are_problems(app: TestApp) {
    app.get("/nope")
        .await
        .assert_problem(StatusCode::NOT_FOUND, "/problems/not-found");
    app.request(Method::PUT, "/nodes", Some(json!({})))
        .await
        .assert_problem(
            StatusCode::METHOD_NOT_ALLOWED,
            "/problems/method-not-allowed",
        );
}

async fn bad_query_values_are_422_naming_the_parameter(app: TestApp) {
    for (q, p) in [
        ("limit=abc", "/limit"),
        ("limit=-1", "/limit"),
        ("limit=99999999999999999999", "/limit"),
        ("cursor=%%%", "/cursor"),
        ("state=gone", "/state"),
    ] {
        let r = app.get(&format!("/nodes?{q}")).await;
        assert_eq!(
            r.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{q}: {}",
            r.text
        );
        assert!(r.pointers().contains(&p.to_owned()), "{q}: {}", r.text);
    }
    let r = app.post("/nodes?detect=maybe", json!({"title": "x"})).await;
    assert_eq!(r.pointers(), vec!["/detect"]);
    assert_eq!(
        app.post("/nodes?sensitivity=paranoid", json!({"title": "x"}))
            .await
            .pointers(),
        vec!["/sensitivity"]
    );
}

async fn the_request_id_is_echoed_or_assigned(app: TestApp) {
    let req = Request::get("/healthz")
        .header("x-request-id", "abc-123")
        .body(Body::empty())
        .unwrap();
    assert_eq!(app.send(req).await.headers["x-request-id"], "abc-123");
    let r = app.get("/nope").await;
    let assigned = r.headers["x-request-id"].to_str().unwrap().to_owned();
    assert_eq!(
        uuid::Uuid::parse_str(&assigned).unwrap().get_version_num(),
        7
    );
    assert_eq!(r.json()["request_id"], assigned);
}

async fn health_readiness_metrics_and_docs_answer(app: TestApp) {
    app.get("/healthz").await.assert_status(StatusCode::OK);
    let ready = app.get("/readyz").await;
    ready.assert_status(StatusCode::OK);
    assert!(ready.json()["database"].is_string());
    app.get("/nodes").await;
    let metrics = app.get("/metrics").await;
    metrics.assert_status(StatusCode::OK);
    assert!(
        metrics.text.contains("concord_http_requests_total"),
        "{}",
        metrics.text
    );
    let spec = app.get("/openapi.json").await;
    spec.assert_status(StatusCode::OK);
    assert_eq!(spec.json()["openapi"], "3.1.0");
    let docs = app.get("/docs/").await;
    docs.assert_status(StatusCode::OK);
    assert!(docs.text.contains("swagger-ui"));
    assert!(
        !docs.text.contains("https://"),
        "the docs page must load nothing from a CDN"
    );
}
