use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::support::TestApp;

crate::on_both_databases!(
    new_is_current_supersedes_the_old_node,
    merge_appends_the_new_body_and_deletes_the_new_node,
    keep_both_from_new_content_creates_the_new_node_first,
    a_repeated_resolution_replays_byte_identical_actions,
    another_resolution_of_a_resolved_conflict_is_refused_with_the_current_one,
    the_alias_route_resolves_the_conflict_in_the_path,
    invalid_resolutions_are_rejected_and_write_nothing,
    keeping_a_node_that_went_dormant_is_stale_and_writes_nothing,
    a_failed_step_rolls_back_and_a_retry_succeeds,
    concurrent_requests_for_one_conflict_execute_once,
    thirty_two_identical_requests_execute_once_and_replay_31_times,
);

fn id(v: &Value) -> &str {
    v["id"].as_str().unwrap()
}

fn action_names(r: &Value) -> Vec<String> {
    r["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["action"].as_str().unwrap().to_owned())
        .collect()
}

async fn resolve(app: &TestApp, c: &Value, how: Value) -> crate::support::Reply {
    let mut body = how;
    body["conflict_id"] = c["id"].clone();
    app.post("/contradiction/resolve", body).await
}

async fn new_is_current_supersedes_the_old_node(app: TestApp) {
    let (c, o, n) = app.conflict("us-east-1", "eu-west-1").await;
    let r = resolve(
        &app,
        &c,
        json!({"resolution": "new_is_current", "resolved_by": "alice", "note": "moved"}),
    )
    .await;
    r.assert_status(StatusCode::OK);
    let body = r.json();
    assert_eq!(body["ok"], true);
    assert_eq!(body["replayed"], false);
    assert_eq!(body["old_node_id"], o["id"]);
    assert_eq!(body["new_node_id"], n["id"]);
    assert_eq!(
        action_names(&body),
        ["node_state_changed", "edge_created", "conflict_resolved"]
    );
    let edge = &body["actions"][1];
    assert_eq!(
        (
            edge["kind"].clone(),
            edge["source_id"].clone(),
            edge["target_id"].clone()
        ),
        (json!("supersedes"), n["id"].clone(), o["id"].clone())
    );
    assert!(
        body["actions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["summary"].is_string())
    );
    assert_eq!(
        app.get(&format!("/nodes/{}", id(&o))).await.json()["state"],
        "dormant"
    );
    let stored = app.get(&format!("/conflicts/{}", id(&c))).await.json();
    assert_eq!(stored["status"], "resolved");
    assert_eq!(stored["resolution"], "new_is_current");
    assert_eq!(stored["resolved_by"], "alice");
    assert_eq!(stored["note"], "moved");
    assert_eq!(stored["actions"], body["actions"]);
    let edges = app
        .get(&format!("/nodes/{}/edges?kind=supersedes", id(&o)))
        .await
        .json();
    let e = &edges["items"][0];
    assert_eq!(
        (
            e["neural_weight"].clone(),
            e["strength"].clone(),
            e["confidence"].clone()
        ),
        (json!(0.5), json!(0.5), json!(1.0))
    );
}

async fn merge_appends_the_new_body_and_deletes_the_new_node(app: TestApp) {
    let o = app
        .node_with(json!({"title": "Region", "body": "old", "labels": ["a"]}))
        .await;
    let n = app
        .node_with(json!({"title": "Region", "body": "new", "labels": ["b"]}))
        .await;
    let other = app.node("other", "").await;
    app.post(
        "/edges",
        json!({"source_id": n["id"], "target_id": other["id"], "kind": "depends_on"}),
    )
    .await
    .assert_status(StatusCode::CREATED);
    let c = app
        .post(
            "/conflicts",
            json!({"old_node_id": o["id"], "new_node_id": n["id"]}),
        )
        .await
        .json();
    let r = resolve(&app, &c, json!({"resolution": "merge"})).await;
    r.assert_status(StatusCode::OK);
    let body = r.json();
    assert_eq!(
        action_names(&body),
        [
            "node_body_merged",
            "edges_moved",
            "node_deleted",
            "conflict_resolved"
        ]
    );
    assert_eq!(body["actions"][1]["count"], 1);
    let merged = app.get(&format!("/nodes/{}", id(&o))).await.json();
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    assert_eq!(
        merged["body"],
        format!("old\n\n--- Merged ({today}) ---\n\nnew")
    );
    assert_eq!(merged["labels"], json!(["a", "b"]));
    app.get(&format!("/nodes/{}", id(&n)))
        .await
        .assert_problem(StatusCode::NOT_FOUND, "/problems/not-found");
    let moved = app
        .get(&format!("/nodes/{}/edges?kind=depends_on", id(&o)))
        .await
        .json();
    assert_eq!(moved["items"][0]["target_id"], other["id"]);
    let history = app.get(&format!("/conflicts/{}", id(&c))).await.json();
    assert_eq!(history["new_node"], Value::Null);
    assert_eq!(
        history["new_content"], "new",
        "history keeps the deleted new node's text"
    );
}

async fn keep_both_from_new_content_creates_the_new_node_first(app: TestApp) {
    let o = app.node_with(json!({"title": "Region", "body": "old", "labels": ["deploy"], "scope": "ops", "memory_type": "decision"})).await;
    let c = app
        .post(
            "/conflicts",
            json!({"old_node_id": o["id"], "new_content": "eu-west-1"}),
        )
        .await
        .json();
    let body = resolve(&app, &c, json!({"resolution": "keep_both"}))
        .await
        .json();
    assert_eq!(
        action_names(&body),
        ["node_created", "edge_created", "conflict_resolved"]
    );
    let created = app
        .get(&format!("/nodes/{}", body["new_node_id"].as_str().unwrap()))
        .await
        .json();
    assert_eq!(
        (created["title"].clone(), created["body"].clone()),
        (json!("Region"), json!("eu-west-1"))
    );
    assert_eq!(
        (
            created["labels"].clone(),
            created["scope"].clone(),
            created["memory_type"].clone()
        ),
        (json!(["deploy"]), json!("ops"), json!("decision"))
    );
    let e = &body["actions"][1];
    assert_eq!(
        (
            e["kind"].clone(),
            e["source_id"].clone(),
            e["target_id"].clone()
        ),
        (json!("relates_to"), o["id"].clone(), created["id"].clone())
    );
}

async fn a_repeated_resolution_replays_byte_identical_actions(app: TestApp) {
    let (c, _, _) = app.conflict("a", "b").await;
    let how = json!({"resolution": "merge", "merged_content": "a and b"});
    let first = resolve(&app, &c, how.clone()).await.json();
    let second = resolve(&app, &c, how).await;
    second.assert_status(StatusCode::OK);
    let second = second.json();
    assert_eq!(second["replayed"], true);
    assert_eq!(second["actions"].to_string(), first["actions"].to_string());
    assert_eq!(second["resolved_at"], first["resolved_at"]);
    // A different merged_content is a different resolution.
    resolve(
        &app,
        &c,
        json!({"resolution": "merge", "merged_content": "other"}),
    )
    .await
    .assert_problem(StatusCode::CONFLICT, "/problems/already-resolved");
}

async fn another_resolution_of_a_resolved_conflict_is_refused_with_the_current_one(app: TestApp) {
    let (c, _, n) = app.conflict("a", "b").await;
    let first = resolve(&app, &c, json!({"resolution": "new_is_current"}))
        .await
        .json();
    let p = resolve(&app, &c, json!({"resolution": "merge"}))
        .await
        .assert_problem(StatusCode::CONFLICT, "/problems/already-resolved");
    assert_eq!(p["current"]["resolution"], "new_is_current");
    assert_eq!(p["current"]["actions"], first["actions"]);
    assert_eq!(p["current"]["resolved_at"], first["resolved_at"]);
    // The refused merge deleted nothing: the current fact is still there.
    assert_eq!(
        app.get(&format!("/nodes/{}", id(&n))).await.json()["state"],
        "active"
    );
}

async fn the_alias_route_resolves_the_conflict_in_the_path(app: TestApp) {
    let (c, _, _) = app.conflict("a", "b").await;
    let r = app
        .post(
            &format!("/conflicts/{}/resolve", id(&c)),
            json!({"resolution": "old_is_current"}),
        )
        .await;
    r.assert_status(StatusCode::OK);
    assert_eq!(r.json()["conflict_id"], c["id"]);
    app.post(
        "/conflicts/01900000-0000-7000-8000-000000000000/resolve",
        json!({"resolution": "keep_both"}),
    )
    .await
    .assert_problem(StatusCode::NOT_FOUND, "/problems/not-found");
}

async fn invalid_resolutions_are_rejected_and_write_nothing(app: TestApp) {
    let (c, _, _) = app.conflict("a", "b").await;
    let cases = [
        (
            json!({"resolution": "keep_both", "merged_content": "x"}),
            "/merged_content",
        ),
        (json!({"resolution": "shrug"}), "/resolution"),
        (json!({}), "/resolution"),
        (json!({"resolution": 3}), "/resolution"),
    ];
    for (how, pointer) in cases {
        assert_eq!(
            resolve(&app, &c, how.clone()).await.pointers(),
            vec![pointer],
            "{how}"
        );
    }
    assert_eq!(
        app.post("/contradiction/resolve", json!({"resolution": "merge"}))
            .await
            .pointers(),
        vec!["/conflict_id"]
    );
    resolve(
        &app,
        &json!({"id": "01900000-0000-7000-8000-000000000000"}),
        json!({"resolution": "merge"}),
    )
    .await
    .assert_problem(StatusCode::NOT_FOUND, "/problems/not-found");
    assert_eq!(
        app.get(&format!("/conflicts/{}", id(&c))).await.json()["status"],
        "pending"
    );
}

async fn keeping_a_node_that_went_dormant_is_stale_and_writes_nothing(app: TestApp) {
    // Arrange: the old node went dormant through another conflict.
    let o = app.node("Region", "us-east-1").await;
    let n1 = app.node("Region", "eu-west-1").await;
    let n2 = app.node("Region", "ap-south-1").await;
    let c1 = app
        .post(
            "/conflicts",
            json!({"old_node_id": o["id"], "new_node_id": n1["id"]}),
        )
        .await
        .json();
    let c2 = app
        .post(
            "/conflicts",
            json!({"old_node_id": o["id"], "new_node_id": n2["id"]}),
        )
        .await
        .json();
    resolve(&app, &c1, json!({"resolution": "new_is_current"}))
        .await
        .assert_status(StatusCode::OK);

    // Act + Assert
    for strategy in ["old_is_current", "merge"] {
        let p = resolve(&app, &c2, json!({"resolution": strategy}))
            .await
            .assert_problem(StatusCode::CONFLICT, "/problems/stale-conflict");
        assert_eq!(p["node_id"], o["id"]);
        assert_eq!(p["node_state"], "dormant");
    }
    assert_eq!(
        app.get(&format!("/conflicts/{}", id(&c2))).await.json()["status"],
        "pending"
    );
    assert_eq!(
        app.get(&format!("/nodes/{}", id(&n2))).await.json()["state"],
        "active"
    );
    // Superseding the already dormant node again is fine.
    let ok = resolve(&app, &c2, json!({"resolution": "new_is_current"})).await;
    ok.assert_status(StatusCode::OK);
    assert_eq!(
        action_names(&ok.json()),
        ["edge_created", "conflict_resolved"]
    );
}

async fn a_failed_step_rolls_back_and_a_retry_succeeds(app: TestApp) {
    let (c, o, _) = app.conflict("a", "b").await;
    let cid = uuid::Uuid::parse_str(id(&c)).unwrap();
    concord::store::failpoints::arm(cid, "edge_created");
    let p = resolve(&app, &c, json!({"resolution": "new_is_current"}))
        .await
        .assert_problem(
            StatusCode::INTERNAL_SERVER_ERROR,
            "/problems/resolution-failed",
        );
    assert_eq!(p["failed_action"], "edge_created");
    assert_eq!(p["rolled_back"], true);
    assert_eq!(p["retryable"], true);
    let partial: Vec<_> = p["partial_actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["action"].clone())
        .collect();
    assert_eq!(partial, vec![json!("node_state_changed")]);
    assert!(
        !p["detail"].as_str().unwrap().contains("injected"),
        "a 5xx shows no internals"
    );
    assert_eq!(
        app.get(&format!("/nodes/{}", id(&o))).await.json()["state"],
        "active",
        "rolled back"
    );
    assert_eq!(
        app.get(&format!("/conflicts/{}", id(&c))).await.json()["status"],
        "pending"
    );
    let retry = resolve(&app, &c, json!({"resolution": "new_is_current"})).await;
    retry.assert_status(StatusCode::OK);
    assert_eq!(retry.json()["replayed"], false);
}

async fn concurrent_requests_for_one_conflict_execute_once(app: TestApp) {
    let (c, o, _) = app.conflict("a", "b").await;
    let strategies = ["new_is_current", "old_is_current", "keep_both", "merge"];
    let replies = futures_join(&app, &c, &strategies).await;
    let executed: Vec<&Value> = replies
        .iter()
        .filter(|(s, b)| *s == StatusCode::OK && b["replayed"] == false)
        .map(|(_, b)| b)
        .collect();
    assert_eq!(executed.len(), 1, "exactly one execution: {replies:?}");
    let winner = executed[0]["resolution"].as_str().unwrap().to_owned();
    for (status, body) in &replies {
        match *status {
            StatusCode::OK => assert_eq!(body["resolution"], winner),
            StatusCode::CONFLICT => assert_eq!(body["type"], "/problems/already-resolved"),
            other => panic!("unexpected {other}: {body}"),
        }
    }
    let edges = app.get(&format!("/nodes/{}/edges", id(&o))).await.json();
    let resolution_edges = edges["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "supersedes" || e["kind"] == "relates_to")
        .count();
    let expected = if winner == "merge" { 0 } else { 1 };
    assert_eq!(resolution_edges, expected, "one set of edges for {winner}");
}

async fn thirty_two_identical_requests_execute_once_and_replay_31_times(app: TestApp) {
    let (c, o, _) = app.conflict("a", "b").await;
    let replies = futures_join(&app, &c, &["new_is_current"]).await;
    assert!(
        replies.iter().all(|(s, _)| *s == StatusCode::OK),
        "{replies:?}"
    );
    let executed: Vec<_> = replies
        .iter()
        .filter(|(_, b)| b["replayed"] == false)
        .collect();
    assert_eq!(executed.len(), 1, "exactly one execution");
    let actions = &executed[0].1["actions"];
    assert!(
        replies.iter().all(|(_, b)| &b["actions"] == actions),
        "identical actions"
    );
    let edges = app
        .get(&format!("/nodes/{}/edges?kind=supersedes", id(&o)))
        .await
        .json();
    assert_eq!(
        edges["items"].as_array().unwrap().len(),
        1,
        "one supersedes edge"
    );
}

async fn futures_join(app: &TestApp, c: &Value, strategies: &[&str]) -> Vec<(StatusCode, Value)> {
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..32 {
        let router = app.router.clone();
        let body = json!({"conflict_id": c["id"], "resolution": strategies[i % strategies.len()]});
        tasks.spawn(async move {
            use tower::ServiceExt;
            let req = axum::http::Request::post("/contradiction/resolve")
                .header("content-type", "application/json")
                .body(axum::body::Body::from(body.to_string()))
                .unwrap();
            let res = router.oneshot(req).await.unwrap();
            let status = res.status();
            let bytes = http_body_util::BodyExt::collect(res.into_body())
                .await
                .unwrap()
                .to_bytes();
            (status, serde_json::from_slice::<Value>(&bytes).unwrap())
        });
    }
    tasks.join_all().await
}
