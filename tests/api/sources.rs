use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::TestApp;

crate::on_both_databases!(
    verdicts_teach_credibility_and_recommendations_follow_it,
    concurrent_resolutions_count_every_verdict_once,
    credibility_is_learned_and_read_within_a_scope,
);

async fn sourced_conflict(app: &TestApp, i: usize, old_source: &str, new_source: &str) -> Value {
    scoped_conflict(app, "default", i, old_source, new_source).await
}

async fn scoped_conflict(
    app: &TestApp,
    scope: &str,
    i: usize,
    old_source: &str,
    new_source: &str,
) -> Value {
    let fact = |body: &str, source: &str| json!({"title": format!("fact {i}"), "body": body, "source": source, "scope": scope});
    let o = app.node_with(fact("old", old_source)).await;
    let n = app.node_with(fact("new", new_source)).await;
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

async fn credibility_is_learned_and_read_within_a_scope(app: TestApp) {
    // Arrange: in scope `team-a`, three verdicts for `docs` over `chat`; scope `team-b` has
    // memories of both sources and no verdicts.
    for i in 0..3 {
        let c = scoped_conflict(&app, "team-a", i, "chat", "docs").await;
        app.post(
            "/contradiction/resolve",
            json!({"conflict_id": c["id"], "resolution": "new_is_current"}),
        )
        .await
        .assert_status(StatusCode::OK);
    }
    let b = |body: &str, source: &str| json!({"title": "Cache TTL", "body": body, "source": source, "scope": "team-b"});

    // Act: in `team-b`, a later claim from `chat` contradicts one from `docs`.
    let mut first = b("The cache TTL is 30 seconds", "docs");
    first["observed_at"] = json!("2026-01-01T00:00:00Z");
    app.post("/nodes", first)
        .await
        .assert_status(StatusCode::CREATED);
    let r = app
        .post("/nodes", b("The cache TTL is 60 seconds", "chat"))
        .await
        .json();
    let all = app.get("/sources").await.json();
    let app = crate::keys::with_root(&app);
    let b_key = crate::keys::make_key(&app, "b-reader", "reader", &["team-b"]).await;
    let b_sources = crate::keys::call(&app, Method::GET, "/sources", Some(&b_key), None).await;

    // Assert: `team-a`'s verdicts do not make `docs` authoritative in `team-b`.
    let rec = &r["conflicts"][0]["recommendation"];
    assert_eq!(rec["resolution"], "prefer-recent", "{r}");
    assert_eq!(rec["strategy"], "new_is_current");
    // Counters are summed over the scopes a key holds; the anonymous admin holds every one.
    let docs = source(&all, "docs");
    assert_eq!((&docs["upheld"], &docs["nodes"]), (&json!(3), &json!(4)));
    b_sources.assert_status(StatusCode::OK);
    let b_sources = b_sources.json();
    let docs = source(&b_sources, "docs");
    assert_eq!(
        (
            &docs["upheld"],
            &docs["contradicted"],
            &docs["nodes"],
            &docs["credibility"]
        ),
        (&json!(0), &json!(0), &json!(1), &json!(0.5)),
        "a key of team-b reads team-b's counters only: {b_sources}"
    );
}
