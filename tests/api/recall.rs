use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::support::TestApp;

crate::on_both_databases!(
    memories_that_agree_come_back_without_a_conflicts_member,
    memories_that_disagree_come_back_with_a_typed_conflict,
    a_pending_conflict_is_listed_with_its_other_side,
    a_resolved_pair_is_not_reported_again_and_dormant_memories_are_not_recalled,
    recall_requests_are_validated,
);

fn ids(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("sources")
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_owned())
        .collect()
}

async fn memories_that_agree_come_back_without_a_conflicts_member(app: TestApp) {
    // Arrange
    let ttl = app
        .node_with(json!({"title": "Cache TTL", "body": "The cache TTL is 30 seconds", "source": "docs", "confidence": 0.9}))
        .await;
    let lru = app
        .node(
            "Cache eviction",
            "The cache evicts the least recently used entries",
        )
        .await;
    app.node("Deploys", "We deploy on Fridays").await;

    // Act
    let r = app.get("/recall?q=cache").await;

    // Assert
    r.assert_status(StatusCode::OK);
    let body = r.json();
    assert_eq!(body["query"], "cache");
    let found = ids(&body["sources"]);
    assert_eq!(found.len(), 2, "{body}");
    assert!(found.contains(&ttl["id"].as_str().unwrap().to_owned()));
    assert!(found.contains(&lru["id"].as_str().unwrap().to_owned()));
    let docs = body["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == ttl["id"])
        .unwrap();
    assert_eq!(docs["provenance"], "docs");
    assert_eq!(docs["confidence"], "high");
    assert_eq!(docs["source_text"], "The cache TTL is 30 seconds");
    assert!(body.get("conflicts").is_none(), "{body}");
}

async fn memories_that_disagree_come_back_with_a_typed_conflict(app: TestApp) {
    // Arrange: written without detection, so nothing is queued.
    let old = app
        .node_with(json!({"title": "Cache TTL", "body": "The cache TTL is 30 seconds", "observed_at": "2026-01-01T00:00:00Z"}))
        .await;
    let new = app.node("Cache TTL", "The cache TTL is 60 seconds").await;

    // Act
    let body = app.get("/recall?q=cache%20ttl&limit=5").await.json();

    // Assert
    let conflicts = body["conflicts"].as_array().expect("conflicts");
    assert_eq!(conflicts.len(), 1, "{body}");
    let c = &conflicts[0];
    assert_eq!(c["conflict_type"], "numeric-mismatch");
    assert_eq!(c["sources"], json!([old["id"], new["id"]]));
    assert!(
        ["prefer-recent", "prefer-authoritative", "escalate-to-user"]
            .contains(&c["recommended_resolution"].as_str().unwrap())
    );
    // What was found and what is suggested, as two sentences.
    let reasoning = c["reasoning"].as_str().unwrap();
    let (found, suggested) = reasoning.split_once(". ").expect("two sentences");
    assert!(found.contains("30") && found.contains("60"), "{reasoning}");
    assert!(
        suggested.len() > 10 && suggested.ends_with('.'),
        "{reasoning}"
    );
    assert!(c.get("conflict_id").is_none(), "nothing is queued: {c}");
    assert_eq!(
        app.get("/conflicts/stats").await.json()["pending"],
        0,
        "recall writes nothing"
    );
}

async fn a_pending_conflict_is_listed_with_its_other_side(app: TestApp) {
    // Arrange: only the old side carries the label the recall filters on.
    let old = app
        .node_with(json!({"title": "Deploy region", "body": "Deploy region is us-east-1", "labels": ["infra"]}))
        .await;
    let new = app
        .node("Deploy region", "Deploy region is eu-west-1")
        .await;
    let queued = app
        .post(
            "/conflicts",
            json!({"old_node_id": old["id"], "new_node_id": new["id"]}),
        )
        .await
        .json();

    // Act
    let body = app.get("/recall?q=deploy&label=INFRA").await.json();

    // Assert
    assert_eq!(
        ids(&body["sources"]),
        vec![
            old["id"].as_str().unwrap().to_owned(),
            new["id"].as_str().unwrap().to_owned()
        ],
        "the match first, then the other side of its conflict: {body}"
    );
    let conflicts = body["conflicts"].as_array().expect("conflicts");
    assert_eq!(conflicts.len(), 1, "{body}");
    assert_eq!(conflicts[0]["conflict_id"], queued["id"]);
    assert_eq!(conflicts[0]["conflict_type"], "direct-contradiction");
    assert_eq!(conflicts[0]["sources"], json!([old["id"], new["id"]]));
}

async fn a_resolved_pair_is_not_reported_again_and_dormant_memories_are_not_recalled(app: TestApp) {
    // Arrange: a contradicting write queues a conflict; keep_both resolves it.
    let old = app.node("Cache TTL", "The cache TTL is 30 seconds").await;
    let w = app
        .post(
            "/nodes",
            json!({"title": "Cache TTL", "body": "The cache TTL is 60 seconds"}),
        )
        .await
        .json();
    let conflict_id = w["conflicts"][0]["conflict_id"].clone();
    assert!(conflict_id.is_string(), "detection queued it: {w}");
    let pending = app.get("/recall?q=cache").await.json();
    assert_eq!(pending["conflicts"][0]["conflict_id"], conflict_id);
    assert_eq!(pending["conflicts"].as_array().unwrap().len(), 1);

    // Act 1: both stay current, linked by relates_to.
    app.post(
        &format!("/conflicts/{}/resolve", conflict_id.as_str().unwrap()),
        json!({"resolution": "keep_both"}),
    )
    .await
    .assert_status(StatusCode::OK);
    let kept = app.get("/recall?q=cache").await.json();

    // Assert 1
    assert_eq!(ids(&kept["sources"]).len(), 2);
    assert!(kept.get("conflicts").is_none(), "{kept}");

    // Act 2: a third value replaces the old one.
    let third = app.node("Cache TTL", "The cache TTL is 90 seconds").await;
    app.patch(
        &format!("/nodes/{}", old["id"].as_str().unwrap()),
        json!({"state": "dormant"}),
    )
    .await
    .assert_status(StatusCode::OK);
    let after = app.get("/recall?q=cache").await.json();

    // Assert 2: the dormant memory is gone; the new pair disagrees.
    let found = ids(&after["sources"]);
    assert_eq!(found.len(), 2, "{after}");
    assert!(!found.contains(&old["id"].as_str().unwrap().to_owned()));
    assert!(found.contains(&third["id"].as_str().unwrap().to_owned()));
    assert_eq!(after["conflicts"].as_array().unwrap().len(), 1, "{after}");
}

async fn recall_requests_are_validated(app: TestApp) {
    for (uri, pointer) in [
        ("/recall", "/q"),
        ("/recall?q=%20", "/q"),
        ("/recall?q=x&limit=0", "/limit"),
        ("/recall?q=x&limit=51", "/limit"),
        ("/recall?q=x&label=%20", "/label"),
    ] {
        assert_eq!(app.get(uri).await.pointers(), vec![pointer], "{uri}");
    }
    let long = "x".repeat(501);
    assert_eq!(
        app.get(&format!("/recall?q={long}")).await.pointers(),
        vec!["/q"]
    );
    let empty = app.get("/recall?q=%21%21").await;
    empty.assert_status(StatusCode::OK);
    assert_eq!(empty.json()["sources"], json!([]));
}
