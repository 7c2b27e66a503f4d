use axum::http::StatusCode;
use serde_json::json;

use crate::support::TestApp;

crate::on_both_databases!(
    an_edge_is_created_with_default_weights,
    an_edge_to_a_missing_node_names_the_missing_endpoint,
    edges_are_listed_by_direction_and_kind,
    invalid_edges_are_rejected_with_pointers,
);

async fn an_edge_is_created_with_default_weights(app: TestApp) {
    let (a, b) = (app.node("a", "").await, app.node("b", "").await);
    let r = app
        .post(
            "/edges",
            json!({"source_id": a["id"], "target_id": b["id"], "kind": "depends_on"}),
        )
        .await;
    r.assert_status(StatusCode::CREATED);
    let e = r.json();
    assert_eq!(
        (
            e["neural_weight"].clone(),
            e["strength"].clone(),
            e["confidence"].clone()
        ),
        (json!(0.5), json!(0.5), json!(1.0))
    );
    assert_eq!(e["source_id"], a["id"]);
}

async fn an_edge_to_a_missing_node_names_the_missing_endpoint(app: TestApp) {
    let a = app.node("a", "").await;
    let r = app
        .post("/edges", json!({"source_id": a["id"], "target_id": "01900000-0000-7000-8000-000000000000", "kind": "x"}))
        .await;
    assert_eq!(r.pointers(), vec!["/target_id"]);
}

async fn edges_are_listed_by_direction_and_kind(app: TestApp) {
    let (a, b, c) = (
        app.node("a", "").await,
        app.node("b", "").await,
        app.node("c", "").await,
    );
    for (s, t, k) in [(&a, &b, "x"), (&c, &a, "y"), (&a, &c, "y")] {
        app.post(
            "/edges",
            json!({"source_id": s["id"], "target_id": t["id"], "kind": k}),
        )
        .await
        .assert_status(StatusCode::CREATED);
    }
    let id = a["id"].as_str().unwrap();
    let n = |r: serde_json::Value| r["items"].as_array().unwrap().len();
    assert_eq!(n(app.get(&format!("/nodes/{id}/edges")).await.json()), 3);
    assert_eq!(
        n(app
            .get(&format!("/nodes/{id}/edges?direction=out"))
            .await
            .json()),
        2
    );
    assert_eq!(
        n(app
            .get(&format!("/nodes/{id}/edges?direction=in"))
            .await
            .json()),
        1
    );
    assert_eq!(
        n(app.get(&format!("/nodes/{id}/edges?kind=y")).await.json()),
        2
    );
    let first = app.get(&format!("/nodes/{id}/edges?limit=2")).await.json();
    let cursor = first["next_cursor"].as_str().expect("more edges");
    assert_eq!(
        n(app
            .get(&format!("/nodes/{id}/edges?limit=2&cursor={cursor}"))
            .await
            .json()),
        1
    );
    assert_eq!(
        app.get(&format!("/nodes/{id}/edges?direction=up"))
            .await
            .pointers(),
        vec!["/direction"]
    );
}

async fn invalid_edges_are_rejected_with_pointers(app: TestApp) {
    let (a, b) = (app.node("a", "").await, app.node("b", "").await);
    let cases = [
        (
            json!({"source_id": a["id"], "target_id": a["id"], "kind": "x"}),
            "/target_id",
        ),
        (
            json!({"source_id": a["id"], "target_id": b["id"], "kind": "Bad-Kind"}),
            "/kind",
        ),
        (
            json!({"source_id": a["id"], "target_id": b["id"], "kind": "x", "strength": 1.5}),
            "/strength",
        ),
        (
            json!({"source_id": "nope", "target_id": b["id"], "kind": "x"}),
            "/source_id",
        ),
        (json!({"target_id": b["id"], "kind": "x"}), "/source_id"),
    ];
    for (body, pointer) in cases {
        assert_eq!(
            app.post("/edges", body.clone()).await.pointers(),
            vec![pointer],
            "{body}"
        );
    }
}
