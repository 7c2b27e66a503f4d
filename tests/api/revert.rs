//! `POST /conflicts/{id}/revert` (contract section 9) over HTTP: the reply, replay, the
//! problems (not resolved, later changes in the way, unknown, invalid, a failed step), the
//! history entry and the `conflict.reverted` event, and resolving again afterwards. The exact
//! row-by-row round trips are in the store contract.

use axum::http::StatusCode;
use serde_json::{Value, json};

use concord::config::{DetectionArgs, Settings};
use concord::domain::policy::{Format, RuleSet};

use crate::support::{Reply, TestApp};

crate::on_both_databases!(
    a_revert_replies_with_its_actions_and_the_conflict_is_pending_again,
    a_retried_revert_replays_the_stored_reply,
    a_reverted_conflict_can_be_resolved_again_with_any_strategy,
    reverting_a_pending_conflict_is_409_not_resolved,
    reverting_an_unknown_conflict_is_404_and_bad_input_is_422,
    a_body_edited_since_is_409_revert_conflict_naming_the_node,
    a_patch_that_changes_nothing_does_not_block_the_revert,
    a_failed_revert_step_is_500_and_leaves_the_resolution_in_place,
    a_policy_auto_resolution_can_be_reverted,
);

fn id(v: &Value) -> &str {
    v["id"].as_str().unwrap()
}

async fn resolve(app: &TestApp, c: &Value, how: &str) -> Reply {
    app.post(
        &format!("/conflicts/{}/resolve", id(c)),
        json!({"resolution": how}),
    )
    .await
}

async fn revert(app: &TestApp, c: &Value, body: Value) -> Reply {
    app.post(&format!("/conflicts/{}/revert", id(c)), body)
        .await
}

fn names(actions: &Value) -> Vec<&str> {
    actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["action"].as_str().unwrap())
        .collect()
}

async fn a_revert_replies_with_its_actions_and_the_conflict_is_pending_again(app: TestApp) {
    // Arrange
    let (c, old, new) = app.conflict("us-east-1", "eu-west-1").await;
    resolve(&app, &c, "new_is_current")
        .await
        .assert_status(StatusCode::OK);

    // Act
    let r = revert(
        &app,
        &c,
        json!({"reverted_by": "Grace", "note": "wrong call"}),
    )
    .await;

    // Assert
    r.assert_status(StatusCode::OK);
    let body = r.json();
    assert_eq!(body["ok"], true);
    assert_eq!(body["conflict_id"], c["id"]);
    assert_eq!(body["reverted"], "new_is_current");
    assert_eq!(body["replayed"], false);
    assert!(body["reverted_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(
        names(&body["actions"]),
        ["edge_deleted", "node_state_changed"]
    );
    assert_eq!(body["actions"][0]["kind"], "supersedes");
    assert_eq!(body["actions"][1]["node_id"], old["id"]);
    assert_eq!(
        (&body["actions"][1]["from"], &body["actions"][1]["to"]),
        (&json!("dormant"), &json!("active"))
    );
    let got = app.get(&format!("/conflicts/{}", id(&c))).await.json();
    assert_eq!(got["status"], "pending");
    for field in ["resolution", "resolved_at", "resolved_by", "actions"] {
        assert_eq!(got[field], Value::Null, "{field}");
    }
    assert_eq!(got["old_node"]["state"], "active");
    assert_eq!(got["new_node"]["id"], new["id"]);
    let latest = &got["latest"];
    assert_eq!(
        (&latest["kind"], &latest["by"], &latest["note"]),
        (&json!("reverted"), &json!("Grace"), &json!("wrong call"))
    );
    assert_eq!(latest["resolution"], "new_is_current");
    assert_eq!(latest["actions"], body["actions"]);
    assert_eq!(latest["at"], body["reverted_at"]);
    let edges = app
        .get(&format!("/nodes/{}/edges?kind=supersedes", id(&old)))
        .await
        .json();
    assert_eq!(edges["items"], json!([]));
    let events = app.store.events_after(0, 100, None).await.unwrap();
    let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(
        kinds,
        ["conflict.created", "conflict.resolved", "conflict.reverted"]
    );
}

async fn a_retried_revert_replays_the_stored_reply(app: TestApp) {
    let (c, _, _) = app.conflict("30 seconds", "60 seconds").await;
    resolve(&app, &c, "merge")
        .await
        .assert_status(StatusCode::OK);
    let first = revert(&app, &c, json!({})).await;
    first.assert_status(StatusCode::OK);

    let again = revert(&app, &c, json!({"reverted_by": "someone else"})).await;

    again.assert_status(StatusCode::OK);
    let (mut first, again) = (first.json(), again.json());
    assert_eq!(again["replayed"], true);
    first["replayed"] = json!(true);
    assert_eq!(again, first);
    let history = app
        .get(&format!("/conflicts/{}/history", id(&c)))
        .await
        .json();
    let kinds: Vec<&str> = history["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["queued", "resolved", "reverted"]);
}

async fn a_reverted_conflict_can_be_resolved_again_with_any_strategy(app: TestApp) {
    let (c, old, new) = app.conflict("5 GB", "10 GB").await;
    let strategies = [
        "merge",
        "new_is_current",
        "old_is_current",
        "keep_both",
        "merge",
    ];
    for pair in strategies.windows(2) {
        resolve(&app, &c, pair[0])
            .await
            .assert_status(StatusCode::OK);
        let r = revert(&app, &c, json!({})).await;
        r.assert_status(StatusCode::OK);
        assert_eq!(r.json()["reverted"], pair[0]);
        let r = resolve(&app, &c, pair[1]).await;
        r.assert_status(StatusCode::OK);
        assert_eq!(r.json()["resolution"], pair[1]);
        revert(&app, &c, json!({}))
            .await
            .assert_status(StatusCode::OK);
    }
    let got = app.get(&format!("/conflicts/{}", id(&c))).await.json();
    assert_eq!(got["status"], "pending");
    assert_eq!(got["old_node"]["body"], old["body"]);
    assert_eq!(got["new_node"], {
        let mut n = new.clone();
        n.as_object_mut().unwrap().remove("conflict_ids");
        n
    });
}

async fn reverting_a_pending_conflict_is_409_not_resolved(app: TestApp) {
    let (c, _, _) = app.conflict("a", "b").await;
    let p = revert(&app, &c, json!({}))
        .await
        .assert_problem(StatusCode::CONFLICT, "/problems/not-resolved");
    assert!(p["detail"].as_str().unwrap().contains("pending"));
}

async fn reverting_an_unknown_conflict_is_404_and_bad_input_is_422(app: TestApp) {
    app.post(
        "/conflicts/0190d0a0-0000-7000-8000-000000000000/revert",
        json!({}),
    )
    .await
    .assert_problem(StatusCode::NOT_FOUND, "/problems/not-found");
    app.post("/conflicts/not-a-uuid/revert", json!({}))
        .await
        .assert_problem(StatusCode::NOT_FOUND, "/problems/not-found");
    let (c, _, _) = app.conflict("a", "b").await;
    resolve(&app, &c, "keep_both")
        .await
        .assert_status(StatusCode::OK);
    let r = revert(
        &app,
        &c,
        json!({"reverted_by": "x".repeat(201), "note": "a\u{0}b"}),
    )
    .await;
    assert_eq!(r.pointers(), ["/note", "/reverted_by"]);
    let got = app.get(&format!("/conflicts/{}", id(&c))).await.json();
    assert_eq!(got["status"], "resolved", "a 422 changes nothing");
}

async fn a_body_edited_since_is_409_revert_conflict_naming_the_node(app: TestApp) {
    // Arrange
    let (c, old, _) = app.conflict("5 GB", "10 GB").await;
    resolve(&app, &c, "merge")
        .await
        .assert_status(StatusCode::OK);
    app.patch(
        &format!("/nodes/{}", id(&old)),
        json!({"body": "7 GB, edited"}),
    )
    .await
    .assert_status(StatusCode::OK);

    // Act
    let p = revert(&app, &c, json!({}))
        .await
        .assert_problem(StatusCode::CONFLICT, "/problems/revert-conflict");

    // Assert
    assert_eq!(
        p["changes"],
        json!([{
            "change": "node_edited",
            "node_id": old["id"],
            "detail": format!("node {} was edited since", id(&old)),
        }])
    );
    assert!(p["detail"].as_str().unwrap().contains(id(&old)));
    let got = app.get(&format!("/conflicts/{}", id(&c))).await.json();
    assert_eq!(got["status"], "resolved");
    assert_eq!(got["old_node"]["body"], "7 GB, edited");
    assert_eq!(got["latest"]["kind"], "resolved");
}

async fn a_patch_that_changes_nothing_does_not_block_the_revert(app: TestApp) {
    // Arrange: resolved, then patched with nothing and with every value it already has.
    let (c, old, _) = app.conflict("us-east-1", "eu-west-1").await;
    resolve(&app, &c, "new_is_current")
        .await
        .assert_status(StatusCode::OK);
    let url = format!("/nodes/{}", id(&old));
    let before = app.get(&url).await.json();
    for same in [
        json!({}),
        json!({"title": before["title"], "body": before["body"], "state": before["state"]}),
    ] {
        let after = app.patch(&url, same).await;
        after.assert_status(StatusCode::OK);
        assert_eq!(
            after.json()["updated_at"],
            before["updated_at"],
            "not an edit"
        );
    }

    // Act
    let r = revert(&app, &c, json!({})).await;

    // Assert
    r.assert_status(StatusCode::OK);
    assert_eq!(app.get(&url).await.json()["state"], "active");
}

async fn a_failed_revert_step_is_500_and_leaves_the_resolution_in_place(app: TestApp) {
    let (c, old, _) = app.conflict("a", "b").await;
    resolve(&app, &c, "new_is_current")
        .await
        .assert_status(StatusCode::OK);
    let cid = uuid::Uuid::parse_str(id(&c)).unwrap();
    concord::store::failpoints::arm(cid, "node_state_changed");

    let p = revert(&app, &c, json!({}))
        .await
        .assert_problem(StatusCode::INTERNAL_SERVER_ERROR, "/problems/revert-failed");

    assert_eq!(p["failed_action"], "node_state_changed");
    assert_eq!(names(&p["partial_actions"]), ["edge_deleted"]);
    assert_eq!(
        (&p["rolled_back"], &p["retryable"]),
        (&json!(true), &json!(true))
    );
    let got = app.get(&format!("/conflicts/{}", id(&c))).await.json();
    assert_eq!(got["status"], "resolved");
    let node = app.get(&format!("/nodes/{}", id(&old))).await.json();
    assert_eq!(node["state"], "dormant");
    revert(&app, &c, json!({}))
        .await
        .assert_status(StatusCode::OK);
}

async fn a_policy_auto_resolution_can_be_reverted(app: TestApp) {
    // Arrange: a rule resolves the detected conflict in the write.
    let rules = "[[rules]]\nname = \"newer-wins\"\naction = \"new_is_current\"\n\
                 [rules.match]\nconflict_types = [\"numeric-mismatch\"]\n";
    let app = app.reconfigured(Settings {
        detection: DetectionArgs {
            policies: Some(RuleSet::parse(rules, Format::Toml).expect("valid rules")),
            ..DetectionArgs::default()
        },
        ..Settings::for_database("test://policies")
    });
    let old = app
        .node_with(json!({"title": "cache ttl", "body": "The cache TTL is 30 seconds."}))
        .await;
    let r = app
        .post(
            "/nodes",
            json!({"title": "cache ttl", "body": "The cache TTL is 60 seconds."}),
        )
        .await;
    r.assert_status(StatusCode::CREATED);
    let c = json!({"id": r.json()["conflicts"][0]["conflict_id"]});
    let got = app.get(&format!("/conflicts/{}", id(&c))).await.json();
    assert_eq!(got["latest"]["kind"], "auto_resolved", "{}", r.text);

    // Act
    let r = revert(&app, &c, json!({"reverted_by": "Grace"})).await;

    // Assert
    r.assert_status(StatusCode::OK);
    assert_eq!(r.json()["reverted"], "new_is_current");
    let got = app.get(&format!("/conflicts/{}", id(&c))).await.json();
    assert_eq!(got["status"], "pending");
    assert_eq!(got["old_node"]["state"], "active");
    assert_eq!(got["old_node"]["id"], old["id"]);
    let history = app
        .get(&format!("/conflicts/{}/history", id(&c)))
        .await
        .json();
    let kinds: Vec<&str> = history["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["queued", "auto_resolved", "reverted"]);
}
