use axum::http::StatusCode;
use serde_json::json;

use crate::support::TestApp;

crate::on_both_databases!(
    a_created_node_is_returned_in_an_envelope_with_its_location,
    every_field_limit_is_enforced_with_a_pointer,
    labels_are_trimmed_lowercased_and_deduplicated,
    a_node_can_be_read_patched_and_deleted,
    unknown_and_malformed_ids_are_not_found,
    pagination_walks_every_node_exactly_once,
    full_text_search_finds_words_in_title_and_body,
    list_filters_by_label_memory_type_and_state,
    deleting_a_node_removes_its_edges,
    embeddings_of_another_dimension_are_rejected,
);

async fn a_created_node_is_returned_in_an_envelope_with_its_location(app: TestApp) {
    // Act
    let r = app
        .post("/nodes", json!({"title": "Cache TTL", "body": "The cache keeps entries", "source": "file:src/cache.rs:42"}))
        .await;

    // Assert
    r.assert_status(StatusCode::CREATED);
    let body = r.json();
    let node = &body["node"];
    assert_eq!(
        r.headers["location"],
        format!("/nodes/{}", node["id"].as_str().unwrap())
    );
    assert!(
        body.get("conflicts").is_none(),
        "conflicts must be absent when none: {body}"
    );
    assert_eq!(node["memory_type"], "fact");
    assert_eq!(node["scope"], "default");
    assert_eq!(node["confidence"], 0.8);
    assert_eq!(node["state"], "active");
    assert_eq!(node["has_embedding"], false);
    assert!(node.get("conflict_ids").is_none());
    let ts = node["created_at"].as_str().unwrap();
    assert!(
        ts.ends_with('Z') && ts.len() == 24,
        "RFC 3339 with milliseconds: {ts}"
    );
    assert_eq!(node["observed_at"], node["created_at"]);
}

async fn every_field_limit_is_enforced_with_a_pointer(app: TestApp) {
    let cases = [
        (json!({"title": "  "}), "/title"),
        (json!({"title": "x".repeat(501)}), "/title"),
        (json!({"title": "t", "memory_type": "Fact"}), "/memory_type"),
        (
            json!({"title": "t", "memory_type": "a".repeat(41)}),
            "/memory_type",
        ),
        (json!({"title": "t", "labels": ["ok", ""]}), "/labels/1"),
        (
            json!({"title": "t", "labels": ["x".repeat(65)]}),
            "/labels/0",
        ),
        (
            json!({"title": "t", "labels": (0..33).map(|i| i.to_string()).collect::<Vec<_>>()}),
            "/labels",
        ),
        (json!({"title": "t", "source": "s".repeat(501)}), "/source"),
        (json!({"title": "t", "confidence": 1.01}), "/confidence"),
        (json!({"title": "t", "confidence": -0.1}), "/confidence"),
        (json!({"title": "t", "state": "gone"}), "/state"),
        (
            json!({"title": "t", "observed_at": "yesterday"}),
            "/observed_at",
        ),
        (
            json!({"title": "t", "body": "b".repeat(1024 * 1024 + 1)}),
            "/body",
        ),
        (json!({"title": "t", "embedding": []}), "/embedding"),
        (json!({"title": 7}), "/title"),
        (json!({}), "/title"),
    ];
    for (body, pointer) in cases {
        let r = app.post("/nodes", body.clone()).await;
        assert!(
            r.pointers().contains(&pointer.to_owned()),
            "{pointer} not reported for {}: {}",
            body.to_string().chars().take(80).collect::<String>(),
            r.text
        );
    }
    let listed = app.get("/nodes?state=active").await.json();
    assert_eq!(
        listed["items"].as_array().unwrap().len(),
        0,
        "a rejected write wrote something"
    );
}

async fn labels_are_trimmed_lowercased_and_deduplicated(app: TestApp) {
    let node = app
        .node_with(json!({"title": "t", "labels": [" Cache ", "cache", "DB"]}))
        .await;
    assert_eq!(node["labels"], json!(["cache", "db"]));
    let r = app.get("/nodes?label=CACHE").await.json();
    assert_eq!(r["items"].as_array().unwrap().len(), 1);
}

async fn a_node_can_be_read_patched_and_deleted(app: TestApp) {
    // Arrange
    let node = app.node_with(json!({"title": "Old", "source": "a"})).await;
    let url = format!("/nodes/{}", node["id"].as_str().unwrap());

    // Act
    let patched = app
        .patch(&url, json!({"title": " New ", "labels": ["X"], "confidence": 0.3, "state": "dormant", "source": null, "scope": "team", "observed_at": "2026-01-01T10:00:00+02:00"}))
        .await;

    // Assert
    patched.assert_status(StatusCode::OK);
    let p = patched.json();
    assert_eq!(p["title"], "New");
    assert_eq!(p["labels"], json!(["x"]));
    assert_eq!(p["confidence"], 0.3);
    assert_eq!(p["state"], "dormant");
    assert_eq!(p["source"], serde_json::Value::Null);
    assert_eq!(p["scope"], "team");
    assert_eq!(p["observed_at"], "2026-01-01T08:00:00.000Z");
    assert_eq!(app.get(&url).await.json(), p);
    app.patch(&url, json!({"confidence": 2})).await.pointers();
    assert_eq!(
        app.get(&url).await.json(),
        p,
        "an invalid patch wrote something"
    );
    app.delete(&url).await.assert_status(StatusCode::NO_CONTENT);
    app.get(&url)
        .await
        .assert_problem(StatusCode::NOT_FOUND, "/problems/not-found");
    app.delete(&url)
        .await
        .assert_problem(StatusCode::NOT_FOUND, "/problems/not-found");
}

async fn unknown_and_malformed_ids_are_not_found(app: TestApp) {
    for path in [
        "/nodes/01900000-0000-7000-8000-000000000000",
        "/nodes/not-a-uuid",
        "/nodes/not-a-uuid/edges",
        "/conflicts/01900000-0000-7000-8000-000000000000",
    ] {
        app.get(path)
            .await
            .assert_problem(StatusCode::NOT_FOUND, "/problems/not-found");
    }
    app.patch(
        "/nodes/01900000-0000-7000-8000-000000000000",
        json!({"title": "x"}),
    )
    .await
    .assert_problem(StatusCode::NOT_FOUND, "/problems/not-found");
}

async fn pagination_walks_every_node_exactly_once(app: TestApp) {
    let mut ids = Vec::new();
    for i in 0..7 {
        ids.push(
            app.node(&format!("n{i}"), "").await["id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    let mut seen = Vec::new();
    let mut url = "/nodes?limit=3".to_owned();
    loop {
        let page = app.get(&url).await.json();
        for n in page["items"].as_array().unwrap() {
            seen.push(n["id"].as_str().unwrap().to_owned());
        }
        match page["next_cursor"].as_str() {
            Some(c) => url = format!("/nodes?limit=3&cursor={c}"),
            None => break,
        }
    }
    ids.reverse();
    assert_eq!(seen, ids, "newest first, each exactly once");
}

async fn full_text_search_finds_words_in_title_and_body(app: TestApp) {
    app.node("Redis cache", "sessions are stored in Redis")
        .await;
    app.node("Postgres", "the primary database").await;
    app.node("缓存策略", "服务使用 Redis 作为缓存").await;
    let hits = |r: serde_json::Value| {
        r["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["title"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    let redis = hits(app.get("/nodes?q=redis").await.json());
    assert_eq!(redis.len(), 2, "{redis:?}");
    assert_eq!(
        hits(app.get("/nodes?q=primary%20database").await.json()),
        vec!["Postgres"]
    );
    assert_eq!(
        hits(app.get("/nodes?q=%E7%BC%93%E5%AD%98").await.json()),
        vec!["缓存策略"]
    );
    // Operators and unbalanced quotes are searched literally, never a server error.
    for q in ["%22", "NEAR(", "a%20OR", "*", "(x", "redis%22%20OR%20%22"] {
        app.get(&format!("/nodes?q={q}"))
            .await
            .assert_status(StatusCode::OK);
    }
}

async fn list_filters_by_label_memory_type_and_state(app: TestApp) {
    app.node_with(json!({"title": "a", "labels": ["x"], "memory_type": "decision"}))
        .await;
    app.node_with(json!({"title": "b", "labels": ["y"]})).await;
    app.node_with(json!({"title": "c", "state": "archived"}))
        .await;
    let count = |r: serde_json::Value| r["items"].as_array().unwrap().len();
    assert_eq!(
        count(app.get("/nodes").await.json()),
        2,
        "default state is active"
    );
    assert_eq!(count(app.get("/nodes?label=x").await.json()), 1);
    assert_eq!(
        count(app.get("/nodes?memory_type=decision").await.json()),
        1
    );
    assert_eq!(count(app.get("/nodes?state=archived").await.json()), 1);
}

async fn deleting_a_node_removes_its_edges(app: TestApp) {
    let a = app.node("a", "").await;
    let b = app.node("b", "").await;
    app.post(
        "/edges",
        json!({"source_id": a["id"], "target_id": b["id"], "kind": "depends_on"}),
    )
    .await
    .assert_status(StatusCode::CREATED);
    app.delete(&format!("/nodes/{}", a["id"].as_str().unwrap()))
        .await
        .assert_status(StatusCode::NO_CONTENT);
    let edges = app
        .get(&format!("/nodes/{}/edges", b["id"].as_str().unwrap()))
        .await
        .json();
    assert_eq!(edges["items"].as_array().unwrap().len(), 0);
}

async fn embeddings_of_another_dimension_are_rejected(app: TestApp) {
    let first = app
        .post(
            "/nodes",
            json!({"title": "a", "embedding": [0.1, 0.2, 0.3]}),
        )
        .await;
    first.assert_status(StatusCode::CREATED);
    assert_eq!(first.json()["node"]["has_embedding"], true);
    assert!(
        first.json()["node"].get("embedding").is_none(),
        "embeddings are write-only"
    );
    let r = app
        .post("/nodes", json!({"title": "b", "embedding": [0.1, 0.2]}))
        .await;
    assert_eq!(r.pointers(), vec!["/embedding"]);
}
