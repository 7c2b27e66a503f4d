use axum::http::StatusCode;
use serde_json::json;

use crate::support::TestApp;

crate::on_both_databases!(
    a_topic_report_lists_sources_and_conflicts_and_is_stored,
    a_report_without_conflicts_has_no_conflicts_member,
    report_requests_are_validated,
    an_integral_limit_is_an_integer_as_the_schema_says,
);

async fn a_topic_report_lists_sources_and_conflicts_and_is_stored(app: TestApp) {
    // Arrange: two contradicting nodes, written without detection, and an unrelated one.
    app.node_with(json!({"title": "Cache TTL", "body": "The cache TTL is 30 seconds", "source": "docs", "confidence": 0.9, "observed_at": "2026-01-01T00:00:00Z"})).await;
    app.node_with(
        json!({"title": "Cache TTL", "body": "The cache TTL is 60 seconds", "confidence": 0.4}),
    )
    .await;
    app.node("Deploys", "We deploy on Fridays").await;

    // Act
    let r = app
        .post("/conflicts/check", json!({"topic": "cache ttl"}))
        .await;

    // Assert
    r.assert_status(StatusCode::OK);
    let report = r.json();
    assert_eq!(report["topic"], "cache ttl");
    assert_eq!(report["sources_analyzed"], 2);
    let sources = report["sources"].as_array().unwrap();
    assert!(
        sources
            .iter()
            .any(|s| s["provenance"] == "docs" && s["confidence"] == "high")
    );
    assert!(sources.iter().any(
        |s| s["provenance"].as_str().unwrap().starts_with("node:") && s["confidence"] == "low"
    ));
    let c = &report["conflicts"][0];
    assert_eq!(c["conflict_type"], "numeric-mismatch");
    assert_eq!(
        c["claims"],
        json!(["The cache TTL is 30 seconds", "The cache TTL is 60 seconds"])
    );
    assert!(["high", "medium", "low"].contains(&c["severity"].as_str().unwrap()));
    assert!(c["recommended_resolution"].is_string() && c["reasoning"].is_string());
    assert!(report["summary"].as_str().unwrap().contains("1 conflict"));
    assert_eq!(
        app.get("/conflicts/stats").await.json()["pending"],
        0,
        "a report queues nothing"
    );
    let listed = app.get("/reports").await.json();
    assert_eq!(listed["items"][0]["id"], report["id"]);
}

async fn a_report_without_conflicts_has_no_conflicts_member(app: TestApp) {
    app.node("Deploys", "We deploy on Fridays").await;
    let report = app
        .post(
            "/conflicts/check",
            json!({"topic": "deploy", "sensitivity": "strict"}),
        )
        .await
        .json();
    assert!(report.get("conflicts").is_none(), "{report}");
    assert_eq!(report["confidence"], "high");
}

async fn report_requests_are_validated(app: TestApp) {
    for (body, p) in [
        (json!({"topic": " "}), "/topic"),
        (json!({"topic": "x", "limit": 1}), "/limit"),
        (json!({"topic": "x", "limit": 51}), "/limit"),
        (json!({"topic": "x", "sensitivity": "max"}), "/sensitivity"),
        (json!({}), "/topic"),
        (json!({"topic": "x", "limit": 4.5}), "/limit"),
        (json!({"topic": "x", "limit": "4"}), "/limit"),
    ] {
        assert_eq!(
            app.post("/conflicts/check", body.clone()).await.pointers(),
            vec![p],
            "{body}"
        );
    }
}

/// The document says `limit` is an `integer`, which JSON Schema allows to be written `44.0`.
async fn an_integral_limit_is_an_integer_as_the_schema_says(app: TestApp) {
    app.node("Deploys", "We deploy on Fridays").await;
    let r = app
        .post(
            "/conflicts/check",
            json!({"topic": "deploy", "limit": 44.0}),
        )
        .await;
    r.assert_status(StatusCode::OK);
}
