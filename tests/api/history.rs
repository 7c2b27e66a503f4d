//! Conflict history (contract section 9): every change is an entry, oldest first, written in
//! the change's own transaction; `GET /conflicts/{id}` carries the latest; the listing filters
//! by who resolved.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::support::TestApp;

crate::on_both_databases!(
    a_queued_conflict_has_one_queued_entry,
    a_detected_conflict_starts_its_history_at_write_time,
    a_resolution_appends_who_what_why_and_the_actions,
    a_failed_resolution_leaves_no_entry,
    a_replayed_resolution_adds_no_entry,
    the_history_of_an_unknown_conflict_is_404,
    the_listing_filters_by_resolver_and_by_automatic,
    the_resolver_filter_takes_a_prefix_ending_in_a_star,
    clients_cannot_resolve_in_the_name_of_a_policy,
);

fn id(v: &Value) -> &str {
    v["id"].as_str().unwrap()
}

async fn history(app: &TestApp, c: &Value) -> Vec<Value> {
    let r = app.get(&format!("/conflicts/{}/history", id(c))).await;
    r.assert_status(StatusCode::OK);
    r.json()["items"].as_array().unwrap().clone()
}

fn kinds(entries: &[Value]) -> Vec<&str> {
    entries
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect()
}

async fn resolve(app: &TestApp, c: &Value, how: Value) -> crate::support::Reply {
    let mut body = how;
    body["conflict_id"] = c["id"].clone();
    app.post("/contradiction/resolve", body).await
}

async fn a_queued_conflict_has_one_queued_entry(app: TestApp) {
    let o = app.node("Deploy region", "us-east-1").await;
    let r = app
        .post(
            "/conflicts",
            json!({"old_node_id": o["id"], "new_content": "eu-west-1", "note": "from the runbook"}),
        )
        .await;
    r.assert_status(StatusCode::CREATED);
    let c = r.json();
    let entries = history(&app, &c).await;
    assert_eq!(kinds(&entries), ["queued"]);
    assert_eq!(entries[0]["at"], c["created_at"]);
    assert_eq!(entries[0]["note"], "from the runbook");
    assert_eq!(entries[0]["by"], Value::Null);
    assert_eq!(entries[0]["resolution"], Value::Null);
    assert_eq!(entries[0]["actions"], json!([]));
    let got = app.get(&format!("/conflicts/{}", id(&c))).await.json();
    assert_eq!(got["latest"], entries[0]);
}

async fn a_detected_conflict_starts_its_history_at_write_time(app: TestApp) {
    app.node_with(json!({"title": "cache ttl", "body": "The cache TTL is 30 seconds."}))
        .await;
    let r = app
        .post(
            "/nodes",
            json!({"title": "cache ttl", "body": "The cache TTL is 60 seconds."}),
        )
        .await;
    r.assert_status(StatusCode::CREATED);
    let found = r.json()["conflicts"].as_array().unwrap().clone();
    assert_eq!(found.len(), 1, "{}", r.text);
    let c = json!({"id": found[0]["conflict_id"]});
    assert_eq!(kinds(&history(&app, &c).await), ["queued"]);
}

async fn a_resolution_appends_who_what_why_and_the_actions(app: TestApp) {
    let (c, _, _) = app.conflict("us-east-1", "eu-west-1").await;
    let r = resolve(
        &app,
        &c,
        json!({"resolution": "new_is_current", "resolved_by": "alice", "note": "moved in May"}),
    )
    .await;
    r.assert_status(StatusCode::OK);
    let outcome = r.json();
    let entries = history(&app, &c).await;
    assert_eq!(kinds(&entries), ["queued", "resolved"]);
    let resolved = &entries[1];
    assert_eq!(resolved["by"], "alice");
    assert_eq!(resolved["resolution"], "new_is_current");
    assert_eq!(resolved["note"], "moved in May");
    assert_eq!(resolved["at"], outcome["resolved_at"]);
    assert_eq!(resolved["actions"], outcome["actions"]);
    let got = app.get(&format!("/conflicts/{}", id(&c))).await.json();
    assert_eq!(&got["latest"], resolved);
    let listed = app.get("/conflicts?status=all").await.json();
    assert!(
        listed["items"][0].get("latest").is_none(),
        "the listing stays one query per page: no history in it"
    );
}

async fn a_failed_resolution_leaves_no_entry(app: TestApp) {
    let (c, _, _) = app.conflict("a", "b").await;
    let cid = uuid::Uuid::parse_str(id(&c)).unwrap();
    concord::store::failpoints::arm(cid, "conflict_resolved");
    resolve(&app, &c, json!({"resolution": "keep_both"}))
        .await
        .assert_status(StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(kinds(&history(&app, &c).await), ["queued"]);
}

async fn a_replayed_resolution_adds_no_entry(app: TestApp) {
    let (c, _, _) = app.conflict("a", "b").await;
    for _ in 0..3 {
        resolve(&app, &c, json!({"resolution": "keep_both"}))
            .await
            .assert_status(StatusCode::OK);
    }
    resolve(&app, &c, json!({"resolution": "merge"}))
        .await
        .assert_status(StatusCode::CONFLICT);
    assert_eq!(kinds(&history(&app, &c).await), ["queued", "resolved"]);
}

async fn the_history_of_an_unknown_conflict_is_404(app: TestApp) {
    app.get("/conflicts/0190d0a0-0000-7000-8000-000000000000/history")
        .await
        .assert_problem(StatusCode::NOT_FOUND, "/problems/not-found");
    app.get("/conflicts/not-a-uuid/history")
        .await
        .assert_problem(StatusCode::NOT_FOUND, "/problems/not-found");
}

async fn the_listing_filters_by_resolver_and_by_automatic(app: TestApp) {
    let (by_alice, _, _) = app.conflict("a", "b").await;
    let (by_bob, _, _) = app.conflict("c", "d").await;
    let (pending, _, _) = app.conflict("e", "f").await;
    resolve(
        &app,
        &by_alice,
        json!({"resolution": "keep_both", "resolved_by": "alice"}),
    )
    .await
    .assert_status(StatusCode::OK);
    resolve(
        &app,
        &by_bob,
        json!({"resolution": "keep_both", "resolved_by": "bob"}),
    )
    .await
    .assert_status(StatusCode::OK);
    let ids = |r: crate::support::Reply| -> Vec<String> {
        r.assert_status(StatusCode::OK);
        r.json()["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        ids(app
            .get("/conflicts?status=resolved&resolved_by=alice")
            .await),
        [id(&by_alice)]
    );
    assert!(ids(app.get("/conflicts?status=all&resolved_by=carol").await).is_empty());
    assert!(ids(app.get("/conflicts?status=resolved&auto=true").await).is_empty());
    assert_eq!(
        ids(app.get("/conflicts?status=resolved&auto=false").await),
        [id(&by_alice), id(&by_bob)]
    );
    assert_eq!(
        ids(app.get("/conflicts?auto=false").await),
        [id(&pending)],
        "a pending conflict was not resolved by a policy"
    );
    assert_eq!(app.get("/conflicts?auto=yes").await.pointers(), ["/auto"]);
}

async fn the_resolver_filter_takes_a_prefix_ending_in_a_star(app: TestApp) {
    // Arrange: two MCP clients and a person.
    let mut by = Vec::new();
    for (n, who) in ["mcp:claude", "mcp:cursor", "mcpherson"].iter().enumerate() {
        let (c, _, _) = app.conflict(&format!("a{n}"), &format!("b{n}")).await;
        resolve(
            &app,
            &c,
            json!({"resolution": "keep_both", "resolved_by": who}),
        )
        .await
        .assert_status(StatusCode::OK);
        by.push(id(&c).to_owned());
    }
    let ids = |r: crate::support::Reply| -> Vec<String> {
        r.assert_status(StatusCode::OK);
        r.json()["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap().to_owned())
            .collect()
    };

    // Act + Assert: `mcp:*` is every MCP client, and only them.
    assert_eq!(
        ids(app
            .get("/conflicts?status=resolved&resolved_by=mcp%3A*")
            .await),
        [by[0].clone(), by[1].clone()]
    );
    assert_eq!(
        ids(app.get("/conflicts?status=all&resolved_by=mcp*").await),
        by
    );
    // A name without a star is still matched exactly.
    assert_eq!(
        ids(app
            .get("/conflicts?status=resolved&resolved_by=mcp:claude")
            .await),
        [by[0].clone()]
    );
    assert!(ids(app.get("/conflicts?status=resolved&resolved_by=mcp:").await).is_empty());
    assert!(
        ids(app
            .get("/conflicts?status=resolved&resolved_by=policy:*")
            .await)
        .is_empty()
    );
}

async fn clients_cannot_resolve_in_the_name_of_a_policy(app: TestApp) {
    let (c, o, _) = app.conflict("a", "b").await;
    let r = resolve(
        &app,
        &c,
        json!({"resolution": "new_is_current", "resolved_by": "policy:newest-wins"}),
    )
    .await;
    assert_eq!(r.pointers(), ["/resolved_by"]);
    assert_eq!(
        app.get(&format!("/nodes/{}", id(&o))).await.json()["state"],
        "active"
    );
    assert_eq!(kinds(&history(&app, &c).await), ["queued"]);
}
