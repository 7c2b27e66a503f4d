use axum::http::StatusCode;
use serde_json::json;

use crate::support::TestApp;

crate::on_both_databases!(
    queueing_a_pair_twice_returns_the_pending_conflict,
    a_manual_conflict_needs_a_new_side_and_existing_nodes,
    the_listing_carries_both_nodes_in_full,
    max_chars_truncates_bodies_on_request,
    the_listing_filters_orders_and_paginates,
    nodes_carry_conflict_ids_only_while_pending,
    stats_count_the_queue,
    deleting_the_new_node_keeps_its_text_in_the_conflict,
);

async fn queueing_a_pair_twice_returns_the_pending_conflict(app: TestApp) {
    let (c, o, n) = app.conflict("us-east-1", "eu-west-1").await;
    assert_eq!(c["detection"]["tier"], "manual");
    assert_eq!(c["status"], "pending");
    assert_eq!(c["conflict_type"], "direct-contradiction");
    let again = app
        .post(
            "/conflicts",
            json!({"old_node_id": o["id"], "new_node_id": n["id"]}),
        )
        .await;
    again.assert_status(StatusCode::OK);
    assert_eq!(again.json()["id"], c["id"]);
    let text = app
        .post(
            "/conflicts",
            json!({"old_node_id": o["id"], "new_content": "ap-south-1"}),
        )
        .await;
    text.assert_status(StatusCode::CREATED);
    assert_eq!(text.json()["new_node"], serde_json::Value::Null);
    assert_eq!(text.json()["new_content"], "ap-south-1");
    let text_again = app
        .post(
            "/conflicts",
            json!({"old_node_id": o["id"], "new_content": "ap-south-1"}),
        )
        .await;
    text_again.assert_status(StatusCode::OK);
    assert_eq!(text_again.json()["id"], text.json()["id"]);
}

async fn a_manual_conflict_needs_a_new_side_and_existing_nodes(app: TestApp) {
    let o = app.node("a", "").await;
    let missing = "01900000-0000-7000-8000-000000000000";
    let cases = [
        (json!({"old_node_id": o["id"]}), "/new_node_id"),
        (
            json!({"old_node_id": o["id"], "new_node_id": o["id"]}),
            "/new_node_id",
        ),
        (
            json!({"old_node_id": missing, "new_content": "x"}),
            "/old_node_id",
        ),
        (
            json!({"old_node_id": o["id"], "new_node_id": missing}),
            "/new_node_id",
        ),
        (
            json!({"old_node_id": o["id"], "new_content": "x", "conflict_type": "vibes"}),
            "/conflict_type",
        ),
        (json!({"new_content": "x"}), "/old_node_id"),
    ];
    for (body, pointer) in cases {
        assert_eq!(
            app.post("/conflicts", body.clone()).await.pointers(),
            vec![pointer],
            "{body}"
        );
    }
    assert_eq!(app.get("/conflicts/stats").await.json()["pending"], 0);
}

async fn the_listing_carries_both_nodes_in_full(app: TestApp) {
    let long = "x".repeat(5000);
    let o = app.node("Deploy", &long).await;
    let n = app.node("Deploy", "short").await;
    app.post(
        "/conflicts",
        json!({"old_node_id": o["id"], "new_node_id": n["id"]}),
    )
    .await
    .assert_status(StatusCode::CREATED);
    let list = app.get("/conflicts").await.json();
    let item = &list["items"][0];
    assert_eq!(
        item["old_node"]["body"].as_str().unwrap().len(),
        5000,
        "full body, never a preview"
    );
    assert_eq!(item["new_node"]["body"], "short");
    assert_eq!(list["pending_total"], 1);
    assert_eq!(list["next_cursor"], serde_json::Value::Null);
    let one = app
        .get(&format!("/conflicts/{}", item["id"].as_str().unwrap()))
        .await;
    one.assert_status(StatusCode::OK);
    assert_eq!(one.json()["old_node"]["body"].as_str().unwrap().len(), 5000);
}

async fn max_chars_truncates_bodies_on_request(app: TestApp) {
    let (_, _, _) = app.conflict(&"a".repeat(300), &"b".repeat(300)).await;
    let item = app.get("/conflicts?max_chars=100").await.json()["items"][0].clone();
    assert_eq!(item["old_node"]["body"].as_str().unwrap().len(), 100);
    assert_eq!(item["new_node"]["body"].as_str().unwrap().len(), 100);
    assert_eq!(
        app.get("/conflicts?max_chars=0").await.pointers(),
        vec!["/max_chars"]
    );
}

async fn the_listing_filters_orders_and_paginates(app: TestApp) {
    let mut ids = Vec::new();
    for i in 0..5 {
        let o = app
            .node_with(json!({"title": "t", "labels": [if i % 2 == 0 { "even" } else { "odd" }]}))
            .await;
        let kind = if i == 4 {
            "numeric-mismatch"
        } else {
            "direct-contradiction"
        };
        let c = app.post("/conflicts", json!({"old_node_id": o["id"], "new_content": format!("v{i}"), "conflict_type": kind})).await;
        ids.push(c.json()["id"].as_str().unwrap().to_owned());
    }
    let walk = |order: &'static str| {
        let app = &app;
        async move {
            let mut seen = Vec::new();
            let mut url = format!("/conflicts?limit=2&order={order}");
            loop {
                let page = app.get(&url).await.json();
                assert_eq!(page["pending_total"], 5);
                seen.extend(
                    page["items"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|c| c["id"].as_str().unwrap().to_owned()),
                );
                match page["next_cursor"].as_str() {
                    Some(c) => url = format!("/conflicts?limit=2&order={order}&cursor={c}"),
                    None => return seen,
                }
            }
        }
    };
    assert_eq!(walk("oldest").await, ids);
    let mut newest = ids.clone();
    newest.reverse();
    assert_eq!(walk("newest").await, newest);
    let n = |r: serde_json::Value| r["items"].as_array().unwrap().len();
    assert_eq!(n(app.get("/conflicts?label=even").await.json()), 3);
    assert_eq!(
        n(app
            .get("/conflicts?conflict_type=numeric-mismatch")
            .await
            .json()),
        1
    );
    assert_eq!(n(app.get("/conflicts?status=resolved").await.json()), 0);
    assert_eq!(n(app.get("/conflicts?status=all").await.json()), 5);
    for (q, p) in [
        ("status=open", "/status"),
        ("order=sideways", "/order"),
        ("conflict_type=x", "/conflict_type"),
        ("limit=0", "/limit"),
        ("limit=201", "/limit"),
        ("cursor=zzz", "/cursor"),
    ] {
        assert_eq!(
            app.get(&format!("/conflicts?{q}")).await.pointers(),
            vec![p],
            "{q}"
        );
    }
}

async fn nodes_carry_conflict_ids_only_while_pending(app: TestApp) {
    let (c, o, n) = app.conflict("a", "b").await;
    let node_url = |v: &serde_json::Value| format!("/nodes/{}", v["id"].as_str().unwrap());
    assert_eq!(
        app.get(&node_url(&o)).await.json()["conflict_ids"],
        json!([c["id"]])
    );
    assert_eq!(
        app.get(&node_url(&n)).await.json()["conflict_ids"],
        json!([c["id"]])
    );
    let listed = app.get("/nodes").await.json();
    assert!(
        listed["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x["conflict_ids"] == json!([c["id"]]))
    );
    app.post(
        "/contradiction/resolve",
        json!({"conflict_id": c["id"], "resolution": "keep_both"}),
    )
    .await
    .assert_status(StatusCode::OK);
    assert!(
        app.get(&node_url(&o))
            .await
            .json()
            .get("conflict_ids")
            .is_none()
    );
}

async fn stats_count_the_queue(app: TestApp) {
    let (c, _, _) = app.conflict("a", "b").await;
    app.conflict("c", "d").await;
    app.post(
        "/contradiction/resolve",
        json!({"conflict_id": c["id"], "resolution": "keep_both"}),
    )
    .await
    .assert_status(StatusCode::OK);
    let s = app.get("/conflicts/stats").await.json();
    assert_eq!(s["pending"], 1);
    assert_eq!(s["resolved"], 1);
    assert_eq!(s["by_type"], json!({"direct-contradiction": 1}));
    assert!(s["oldest_pending_at"].is_string());
}

async fn deleting_the_new_node_keeps_its_text_in_the_conflict(app: TestApp) {
    let (c, o, n) = app.conflict("old text", "new text").await;
    app.delete(&format!("/nodes/{}", n["id"].as_str().unwrap()))
        .await
        .assert_status(StatusCode::NO_CONTENT);
    let got = app
        .get(&format!("/conflicts/{}", c["id"].as_str().unwrap()))
        .await
        .json();
    assert_eq!(got["new_node"], serde_json::Value::Null);
    assert_eq!(got["new_content"], "new text");
    assert_eq!(got["status"], "pending");
    // Deleting the old node removes the pending conflict.
    app.delete(&format!("/nodes/{}", o["id"].as_str().unwrap()))
        .await
        .assert_status(StatusCode::NO_CONTENT);
    app.get(&format!("/conflicts/{}", c["id"].as_str().unwrap()))
        .await
        .assert_problem(StatusCode::NOT_FOUND, "/problems/not-found");
}
