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

/// With the server's deadlock retries off, so that any deadlock PostgreSQL breaks would be a
/// 503, writes that share nodes and conflicts race for many rounds: deleting a node while its
/// conflict resolves, a merge racing a PATCH of either side and of a neighbour, a merge racing
/// edge inserts in both directions, and a conflict queued on a node that a resolution holds.
/// None is answered 5xx: every unit of work takes its locks in the one order of `store`.
async fn writes_sharing_nodes_never_deadlock(app: TestApp) {
    let app = Arc::new(app);
    let strategies = [
        "merge",
        "new_is_current",
        "merge",
        "old_is_current",
        "keep_both",
    ];
    for round in 0..ROUNDS {
        // Arrange: a conflict whose new node has a neighbour on each side of it in id order.
        let (conflict, old, new) = app.conflict("Port is 80", "Port is 8080").await;
        let before = app.node("Neighbour", "a").await;
        let after = app.node("Neighbour", "b").await;
        let (cid, o, n) = (id(&conflict), id(&old), id(&new));
        let (t1, t2) = (id(&before), id(&after));
        for (s, t) in [(&n, &t1), (&t2, &n)] {
            let r = app
                .post(
                    "/edges",
                    json!({"source_id": s, "target_id": t, "kind": "about"}),
                )
                .await;
            r.assert_status(axum::http::StatusCode::CREATED);
        }
        let strategy = strategies[round % strategies.len()];
        let doomed = if round % 2 == 0 { &o } else { &n };

        // Act: all at once.
        let mut racing = vec![(
            format!("resolve {strategy}"),
            spawn_post(
                &app,
                format!("/conflicts/{cid}/resolve"),
                json!({"resolution": strategy}),
            ),
        )];
        for (s, t) in [(&t1, &n), (&n, &t2), (&o, &n), (&t1, &o)] {
            let body = json!({"source_id": s, "target_id": t, "kind": "raced"});
            racing.push(("edge".into(), spawn_post(&app, "/edges".into(), body)));
        }
        let queued = json!({"old_node_id": o, "new_content": "Port is 443"});
        racing.push((
            "queue".into(),
            spawn_post(&app, "/conflicts".into(), queued),
        ));
        for node in [&o, &n, &t1, &t2] {
            let (app, node) = (app.clone(), node.clone());
            let patch = tokio::spawn(async move {
                app.patch(&format!("/nodes/{node}"), json!({"labels": ["raced"]}))
                    .await
            });
            racing.push(("patch".into(), patch));
        }
        let delete = {
            let (app, doomed) = (app.clone(), doomed.clone());
            tokio::spawn(async move { app.delete(&format!("/nodes/{doomed}")).await })
        };
        racing.push(("delete".into(), delete));

        // Assert
        for (what, task) in racing {
            assert_answered(&task.await.unwrap(), &format!("round {round}: {what}"));
        }
    }
    assert_eq!(app.store.check().await.unwrap(), vec![]);
}

fn id(v: &serde_json::Value) -> String {
    v["id"].as_str().unwrap().to_owned()
}

fn spawn_post(
    app: &Arc<TestApp>,
    uri: String,
    body: serde_json::Value,
) -> tokio::task::JoinHandle<Reply> {
    let app = app.clone();
    tokio::spawn(async move { app.post(&uri, body).await })
}

#[sqlx::test(migrations = "migrations/sqlite")]
async fn sqlite_writes_sharing_nodes_never_deadlock(pool: sqlx::SqlitePool) {
    writes_sharing_nodes_never_deadlock(TestApp::sqlite(pool)).await;
}

#[sqlx::test(migrations = "migrations/postgres")]
#[ignore = "needs PostgreSQL; scripts/test runs it with --include-ignored"]
async fn postgres_writes_sharing_nodes_never_deadlock(pool: sqlx::PgPool) {
    let store = concord::store::postgres::PgStore::from_pool(pool).with_deadlock_retries(0);
    let app = TestApp::with_store(
        Arc::new(store),
        concord::config::Settings::for_database("postgres://test"),
    );
    writes_sharing_nodes_never_deadlock(app).await;
}
