//! `/nodes/{id}/versions`: every change to a memory is kept, whichever path made it (a write,
//! an edit, a resolution, a revert, a delete), with who made it and in which conflict, and a
//! replaced text is stored once, not copied into every later version.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::support::TestApp;

crate::on_both_databases!(
    every_change_is_a_version_with_who_made_it_and_in_which_conflict,
    a_merge_and_its_revert_keep_each_text_and_versions_page_oldest_first,
    versions_of_unknown_or_malformed_ids_are_404_and_bad_cursors_422,
);

async fn versions(app: &TestApp, id: &str) -> Vec<Value> {
    let r = app.get(&format!("/nodes/{id}/versions?limit=200")).await;
    r.assert_status(StatusCode::OK);
    r.json()["items"].as_array().expect("items").clone()
}

/// `(version, kind, state, changed_by)` of each version.
fn summary(vs: &[Value]) -> Vec<(i64, String, String, Value)> {
    vs.iter()
        .map(|v| {
            (
                v["version"].as_i64().unwrap(),
                v["kind"].as_str().unwrap().to_owned(),
                v["state"].as_str().unwrap().to_owned(),
                v["changed_by"].clone(),
            )
        })
        .collect()
}

async fn every_change_is_a_version_with_who_made_it_and_in_which_conflict(app: TestApp) {
    // Arrange: a memory, edited, then superseded by a reviewer, and the decision undone.
    let old = app.node("Region", "Region is us-east-1").await;
    let id = old["id"].as_str().unwrap();
    app.patch(&format!("/nodes/{id}"), json!({"title": "Deploy region"}))
        .await
        .assert_status(StatusCode::OK);
    // A PATCH that changes nothing is not a version.
    app.patch(&format!("/nodes/{id}"), json!({"title": "Deploy region"}))
        .await
        .assert_status(StatusCode::OK);
    let new = app.node("Deploy region", "Region is eu-west-1").await;
    let r = app
        .post(
            "/conflicts",
            json!({"old_node_id": id, "new_node_id": new["id"]}),
        )
        .await;
    let conflict = r.json()["id"].as_str().unwrap().to_owned();
    app.post(
        &format!("/conflicts/{conflict}/resolve"),
        json!({"resolution": "new_is_current", "resolved_by": "ops-lead"}),
    )
    .await
    .assert_status(StatusCode::OK);
    app.post(
        &format!("/conflicts/{conflict}/revert"),
        json!({"reverted_by": "alice"}),
    )
    .await
    .assert_status(StatusCode::OK);

    // Act
    let vs = versions(&app, id).await;

    // Assert: one version per change, each whole, with its author and conflict.
    assert_eq!(
        summary(&vs),
        vec![
            (1, "created".into(), "active".into(), Value::Null),
            (2, "changed".into(), "active".into(), Value::Null),
            (3, "changed".into(), "dormant".into(), json!("ops-lead")),
            (4, "changed".into(), "active".into(), json!("alice")),
        ],
        "{vs:?}"
    );
    assert_eq!(vs[0]["title"], "Region");
    assert_eq!(vs[1]["title"], "Deploy region");
    assert!(vs.iter().all(|v| v["body"] == "Region is us-east-1"));
    assert!(vs.iter().all(|v| v["node_id"] == old["id"]));
    assert_eq!(vs[0]["conflict_id"], Value::Null);
    assert_eq!(vs[2]["conflict_id"], conflict.as_str());
    assert_eq!(vs[3]["conflict_id"], conflict.as_str());
    let times: Vec<&str> = vs
        .iter()
        .map(|v| v["recorded_at"].as_str().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    let one = app.get(&format!("/nodes/{id}/versions/3")).await;
    one.assert_status(StatusCode::OK);
    assert_eq!(one.json(), vs[2]);

    // A delete keeps the versions, ending in a tombstone with the last text.
    app.delete(&format!("/nodes/{id}"))
        .await
        .assert_status(StatusCode::NO_CONTENT);
    app.get(&format!("/nodes/{id}"))
        .await
        .assert_status(StatusCode::NOT_FOUND);
    let after = versions(&app, id).await;
    assert_eq!(after.len(), 5);
    assert_eq!(&after[..4], &vs[..]);
    assert_eq!(after[4]["kind"], "deleted");
    assert_eq!(after[4]["title"], "Deploy region");
    assert_eq!(after[4]["body"], "Region is us-east-1");
    // The new side's own versions: written, superseded... and back to active by the revert.
    let new_id = new["id"].as_str().unwrap();
    let nv = versions(&app, new_id).await;
    assert_eq!(nv[0]["kind"], "created");
    assert_eq!(nv.last().unwrap()["state"], "active");
}

async fn a_merge_and_its_revert_keep_each_text_and_versions_page_oldest_first(app: TestApp) {
    // Arrange
    let (conflict, old, _) = app
        .conflict("Region is us-east-1", "Region is eu-west-1")
        .await;
    let id = old["id"].as_str().unwrap();
    let cid = conflict["id"].as_str().unwrap();
    app.post(
        &format!("/conflicts/{cid}/resolve"),
        json!({"resolution": "merge", "merged_content": "us-east-1 until March, then eu-west-1",
               "resolved_by": "ops-lead"}),
    )
    .await
    .assert_status(StatusCode::OK);
    app.post(&format!("/conflicts/{cid}/revert"), json!({}))
        .await
        .assert_status(StatusCode::OK);

    // Act
    let vs = versions(&app, id).await;

    // Assert
    let bodies: Vec<&str> = vs.iter().map(|v| v["body"].as_str().unwrap()).collect();
    assert_eq!(
        bodies,
        [
            "Region is us-east-1",
            "us-east-1 until March, then eu-west-1",
            "Region is us-east-1"
        ],
        "{vs:?}"
    );
    assert_eq!(vs[1]["changed_by"], "ops-lead");
    // Pages of one, oldest first, end with a null cursor.
    let mut seen = Vec::new();
    let mut uri = format!("/nodes/{id}/versions?limit=1");
    loop {
        let page = app.get(&uri).await.json();
        seen.extend(page["items"].as_array().unwrap().iter().cloned());
        match page["next_cursor"].as_str() {
            Some(c) => uri = format!("/nodes/{id}/versions?limit=1&cursor={c}"),
            None => break,
        }
    }
    assert_eq!(seen, vs);
}

async fn versions_of_unknown_or_malformed_ids_are_404_and_bad_cursors_422(app: TestApp) {
    let node = app.node("Anchor", "a").await;
    let id = node["id"].as_str().unwrap();
    let other = app.node("Other", "b").await;
    let unknown = "01900000-0000-7000-8000-000000000000";
    for uri in [
        format!("/nodes/{unknown}/versions"),
        format!("/nodes/{unknown}/versions/1"),
        format!("/nodes/{id}/versions/2"),
        format!("/nodes/{id}/versions/0"),
        format!("/nodes/{id}/versions/x"),
        "/nodes/not-a-uuid/versions".to_owned(),
    ] {
        app.get(&uri)
            .await
            .assert_problem(StatusCode::NOT_FOUND, "/problems/not-found");
    }
    // A cursor of another node's versions, or not a cursor at all.
    let page = app
        .get(&format!(
            "/nodes/{}/versions?limit=1",
            other["id"].as_str().unwrap()
        ))
        .await
        .json();
    assert_eq!(page["next_cursor"], Value::Null);
    let foreign = app
        .get(&format!("/nodes/{id}/versions?limit=1&cursor=MXwwMTkwMDAwMC0wMDAwLTcwMDAtODAwMC0wMDAwMDAwMDAwMDA"))
        .await;
    assert_eq!(foreign.pointers(), vec!["/cursor"]);
    let garbage = app.get(&format!("/nodes/{id}/versions?cursor=@@")).await;
    assert_eq!(garbage.pointers(), vec!["/cursor"]);
}
