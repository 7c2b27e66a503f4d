//! Writes racing on the same conflict and nodes: deleting a node while its conflict resolves,
//! a merge racing a patch or an edge insert. Whatever order the database picks, each request
//! is answered with a success or a 4xx (never a 5xx: lost deadlocks are retried inside the
//! server), and the store stays consistent.

use std::sync::Arc;

use serde_json::json;

use crate::support::{Reply, TestApp};

crate::on_both_databases!(deleting_and_patching_nodes_while_their_conflict_resolves_never_fails);

const ROUNDS: usize = 40;

#[track_caller]
fn assert_answered(r: &Reply, what: &str) {
    assert!(
        !r.status.is_server_error(),
        "{what}: {} {}",
        r.status,
        r.text
    );
}

async fn deleting_and_patching_nodes_while_their_conflict_resolves_never_fails(app: TestApp) {
    let app = Arc::new(app);
    let strategies = ["new_is_current", "merge", "keep_both", "old_is_current"];
    for round in 0..ROUNDS {
        // Arrange
        let (conflict, old, new) = app.conflict("Port is 80", "Port is 8080").await;
        let cid = conflict["id"].as_str().unwrap().to_owned();
        let old_id = old["id"].as_str().unwrap().to_owned();
        let new_id = new["id"].as_str().unwrap().to_owned();
        let other = app.node("Other", "x").await["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let strategy = strategies[round % strategies.len()];

        // Act: resolve, delete one side, patch the other, link an edge, all at once.
        let resolve = {
            let (app, cid) = (app.clone(), cid.clone());
            tokio::spawn(async move {
                app.post(
                    &format!("/conflicts/{cid}/resolve"),
                    json!({"resolution": strategy}),
                )
                .await
            })
        };
        let (doomed, kept) = if round % 2 == 0 {
            (old_id.clone(), new_id.clone())
        } else {
            (new_id.clone(), old_id.clone())
        };
        let delete = {
            let app = app.clone();
            tokio::spawn(async move { app.delete(&format!("/nodes/{doomed}")).await })
        };
        let patch = {
            let (app, kept) = (app.clone(), kept.clone());
            tokio::spawn(async move {
                app.patch(&format!("/nodes/{kept}"), json!({"labels": ["raced"]}))
                    .await
            })
        };
        let edge = {
            let app = app.clone();
            tokio::spawn(async move {
                app.post(
                    "/edges",
                    json!({"source_id": new_id, "target_id": other, "kind": "about"}),
                )
                .await
            })
        };

        // Assert
        assert_answered(&resolve.await.unwrap(), &format!("resolve {strategy}"));
        assert_answered(&delete.await.unwrap(), "delete");
        assert_answered(&patch.await.unwrap(), "patch");
        assert_answered(&edge.await.unwrap(), "edge");
    }
    assert_eq!(app.store.check().await.unwrap(), vec![]);
}
