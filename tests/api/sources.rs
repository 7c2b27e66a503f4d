use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::support::TestApp;

crate::on_both_databases!(
    verdicts_teach_credibility_and_recommendations_follow_it,
    concurrent_resolutions_count_every_verdict_once,
);

async fn sourced_conflict(app: &TestApp, i: usize, old_source: &str, new_source: &str) -> Value {
    let o = app
        .node_with(json!({"title": format!("fact {i}"), "body": "old", "source": old_source}))
        .await;
    let n = app
        .node_with(json!({"title": format!("fact {i}"), "body": "new", "source": new_source}))
        .await;
    app.post(
        "/conflicts",
        json!({"old_node_id": o["id"], "new_node_id": n["id"]}),
    )
    .await
    .json()
}

fn source<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["source"] == name)
        .expect(name)
}

async fn verdicts_teach_credibility_and_recommendations_follow_it(app: TestApp) {
    // Arrange: three verdicts for `docs` over `chat`.
    for i in 0..3 {
        let c = sourced_conflict(&app, i, "chat", "docs").await;
        app.post(
            "/contradiction/resolve",
            json!({"conflict_id": c["id"], "resolution": "new_is_current"}),
        )
        .await
        .assert_status(StatusCode::OK);
    }

    // Act
    let sources = app.get("/sources").await.json();

    // Assert
    let docs = source(&sources, "docs");
    assert_eq!(
        (
            docs["upheld"].clone(),
            docs["contradicted"].clone(),
            docs["nodes"].clone()
        ),
        (json!(3), json!(0), json!(3))
    );
    assert_eq!(docs["credibility"], 0.714);
    assert_eq!(source(&sources, "chat")["credibility"], 0.286);
    // A later, equally confident claim from the less credible source does not win.
    app.post("/nodes", json!({"title": "Cache TTL", "body": "The cache TTL is 30 seconds", "source": "docs", "observed_at": "2026-01-01T00:00:00Z"}))
        .await
        .assert_status(StatusCode::CREATED);
    let r = app
        .post(
            "/nodes",
            json!({"title": "Cache TTL", "body": "The cache TTL is 60 seconds", "source": "chat"}),
        )
        .await
        .json();
    let rec = &r["conflicts"][0]["recommendation"];
    assert_eq!(rec["resolution"], "prefer-authoritative");
    assert_eq!(rec["strategy"], "old_is_current");
}

async fn concurrent_resolutions_count_every_verdict_once(app: TestApp) {
    let mut conflicts = Vec::new();
    for i in 0..8 {
        conflicts.push(sourced_conflict(&app, i, "a", "b").await);
    }
    let mut tasks = tokio::task::JoinSet::new();
    for c in conflicts.iter().chain(conflicts.iter()) {
        let router = app.router.clone();
        let body = json!({"conflict_id": c["id"], "resolution": "old_is_current"});
        tasks.spawn(async move {
            use tower::ServiceExt;
            let req = axum::http::Request::post("/contradiction/resolve")
                .header("content-type", "application/json")
                .body(axum::body::Body::from(body.to_string()))
                .unwrap();
            router.oneshot(req).await.unwrap().status()
        });
    }
    assert!(tasks.join_all().await.iter().all(|s| *s == StatusCode::OK));
    let sources = app.get("/sources").await.json();
    assert_eq!(
        source(&sources, "a")["upheld"],
        8,
        "each conflict counted once, retries not at all"
    );
    assert_eq!(source(&sources, "b")["contradicted"], 8);
}
