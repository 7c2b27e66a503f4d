//! Reads at a point in time: `as_of` (valid time: what held then) and `known_at` (system
//! time: what concord held then), alone or together, on `GET /nodes/{id}`, `GET /nodes`,
//! `GET /recall` and the topic report (`POST /conflicts/check`).

use std::time::Duration;

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::support::TestApp;

crate::on_both_databases!(
    as_of_and_known_at_read_what_held_and_what_concord_believed,
    bad_instants_and_future_system_times_are_422_and_before_anything_is_empty,
    recall_as_of_answers_with_what_held_and_the_conflicts_pending_then,
    a_timeline_chains_the_memories_that_superseded_one_another,
    a_topic_report_as_of_describes_what_held_and_what_concord_knew_then,
);

/// An instant strictly between the writes before and after it.
async fn instant() -> String {
    tokio::time::sleep(Duration::from_millis(5)).await;
    let t = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    tokio::time::sleep(Duration::from_millis(5)).await;
    t
}

async fn ids_bodies(app: &TestApp, query: &str) -> Vec<(String, String)> {
    let r = app.get(&format!("/nodes?{query}")).await;
    r.assert_status(StatusCode::OK);
    r.json()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["id"].as_str().unwrap().to_owned(),
                n["body"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

async fn as_of_and_known_at_read_what_held_and_what_concord_believed(app: TestApp) {
    // Arrange: York from January; Leeds from March; the move decided as an update; York's
    // text edited afterwards; Leeds deleted at the end.
    let before_all = instant().await;
    let york = app
        .node_with(json!({"title": "Bob's home", "body": "Bob lives in York",
                          "observed_at": "2026-01-01T00:00:00Z"}))
        .await;
    let leeds = app
        .node_with(json!({"title": "Bob's home", "body": "Bob moved to Leeds",
                          "observed_at": "2026-03-01T00:00:00Z"}))
        .await;
    let (y, l) = (york["id"].as_str().unwrap(), leeds["id"].as_str().unwrap());
    let c = app
        .post("/conflicts", json!({"old_node_id": y, "new_node_id": l}))
        .await
        .json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let before_decision = instant().await;
    app.post(
        &format!("/conflicts/{c}/resolve"),
        json!({"resolution": "new_is_current", "reason": "update"}),
    )
    .await
    .assert_status(StatusCode::OK);
    let after_decision = instant().await;
    app.patch(
        &format!("/nodes/{y}"),
        json!({"body": "Bob lived in York (Clifton)"}),
    )
    .await
    .assert_status(StatusCode::OK);
    let before_delete = instant().await;
    app.delete(&format!("/nodes/{l}"))
        .await
        .assert_status(StatusCode::NO_CONTENT);

    let (feb, apr) = ("2026-02-01T00:00:00Z", "2026-04-01T00:00:00Z");

    // Valid time alone: February is York, April is nothing (Leeds is deleted now).
    let feb_now = ids_bodies(&app, &format!("as_of={feb}")).await;
    assert_eq!(
        feb_now,
        vec![(y.to_owned(), "Bob lived in York (Clifton)".to_owned())]
    );
    assert_eq!(ids_bodies(&app, &format!("as_of={apr}")).await, vec![]);
    let r = app.get(&format!("/nodes/{y}?as_of={feb}")).await;
    r.assert_status(StatusCode::OK);
    assert_eq!(r.json()["valid_until"], "2026-03-01T00:00:00.000Z");
    assert_eq!(r.json()["state"], "dormant");
    app.get(&format!("/nodes/{y}?as_of={apr}"))
        .await
        .assert_problem(StatusCode::NOT_FOUND, "/problems/not-found");

    // Both axes: before the decision concord believed York still held in April, beside
    // Leeds, with the text it had then.
    let believed = ids_bodies(&app, &format!("as_of={apr}&known_at={before_decision}")).await;
    assert_eq!(
        believed,
        vec![
            (l.to_owned(), "Bob moved to Leeds".to_owned()),
            (y.to_owned(), "Bob lives in York".to_owned()),
        ]
    );
    let then = app
        .get(&format!("/nodes/{y}?known_at={before_decision}"))
        .await
        .json();
    assert_eq!(
        (then["state"].clone(), then["valid_until"].clone()),
        (json!("active"), Value::Null)
    );
    assert_eq!(then["body"], "Bob lives in York");
    // After the decision and before the delete: April is Leeds alone.
    let after = ids_bodies(&app, &format!("as_of={apr}&known_at={after_decision}")).await;
    assert_eq!(after, vec![(l.to_owned(), "Bob moved to Leeds".to_owned())]);
    let deleted_then = app
        .get(&format!("/nodes/{l}?known_at={before_delete}"))
        .await;
    deleted_then.assert_status(StatusCode::OK);
    app.get(&format!("/nodes/{l}?known_at={before_all}"))
        .await
        .assert_problem(StatusCode::NOT_FOUND, "/problems/not-found");
    // known_at alone keeps valid time at now: Leeds held, York did not.
    let known = ids_bodies(&app, &format!("known_at={before_delete}")).await;
    assert_eq!(known, vec![(l.to_owned(), "Bob moved to Leeds".to_owned())]);
    // `state` filters the version then; pages of one walk the same list.
    let dormant = ids_bodies(&app, &format!("as_of={feb}&state=dormant")).await;
    assert_eq!(dormant.len(), 1);
    assert_eq!(
        ids_bodies(&app, &format!("as_of={feb}&state=active")).await,
        vec![]
    );
    let first = app
        .get(&format!(
            "/nodes?as_of={apr}&known_at={before_decision}&limit=1"
        ))
        .await
        .json();
    assert_eq!(first["items"][0]["id"], l);
    let cursor = first["next_cursor"].as_str().expect("a second page");
    let second = app
        .get(&format!(
            "/nodes?as_of={apr}&known_at={before_decision}&limit=1&cursor={cursor}"
        ))
        .await
        .json();
    assert_eq!(second["items"][0]["id"], y);
    assert_eq!(second["next_cursor"], Value::Null);
}

async fn bad_instants_and_future_system_times_are_422_and_before_anything_is_empty(app: TestApp) {
    let node = app.node("Anchor", "a").await;
    let id = node["id"].as_str().unwrap();
    for (query, pointer) in [
        ("as_of=yesterday", "/as_of"),
        ("known_at=2026-13-01T00:00:00Z", "/known_at"),
        ("known_at=2999-01-01T00:00:00Z", "/known_at"),
        ("as_of=2026-01-01T00:00:00Z&q=anchor", "/q"),
    ] {
        for uri in [format!("/nodes?{query}"), format!("/nodes/{id}?{query}")] {
            if uri.contains("q=") && uri.starts_with("/nodes/") {
                continue;
            }
            let r = app.get(&uri).await;
            assert_eq!(r.pointers(), vec![pointer], "{uri}");
        }
    }
    // A current cursor is not a cursor of a point-in-time list.
    app.node("Second", "b").await;
    let page = app.get("/nodes?limit=1").await.json();
    let cursor = page["next_cursor"].as_str().unwrap();
    let r = app
        .get(&format!(
            "/nodes?as_of=2026-01-01T00:00:00Z&cursor={cursor}"
        ))
        .await;
    assert_eq!(r.pointers(), vec!["/cursor"]);
    // Before any memory existed: empty, not an error; far in the future: what holds now.
    let empty = app.get("/nodes?as_of=1999-01-01T00:00:00Z").await;
    empty.assert_status(StatusCode::OK);
    assert_eq!(empty.json()["items"], json!([]));
    let later = app.get("/nodes?as_of=2999-01-01T00:00:00Z").await.json();
    assert_eq!(later["items"].as_array().unwrap().len(), 2);
}

/// `(source ids, conflict ids)` of a recall.
async fn recalled(app: &TestApp, query: &str) -> (Vec<String>, Vec<Value>) {
    let r = app.get(&format!("/recall?q=bob&{query}")).await;
    r.assert_status(StatusCode::OK);
    let body = r.json();
    let ids = body["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_owned())
        .collect();
    let conflicts = body["conflicts"]
        .as_array()
        .map(|c| c.iter().map(|c| c["conflict_id"].clone()).collect())
        .unwrap_or_default();
    (ids, conflicts)
}

async fn recall_as_of_answers_with_what_held_and_the_conflicts_pending_then(app: TestApp) {
    // Arrange: York from January, Leeds from March, queued, then decided as an update.
    let york = app
        .node_with(json!({"title": "Bob's home", "body": "Bob lives in York",
                          "observed_at": "2026-01-01T00:00:00Z"}))
        .await;
    let leeds = app
        .node_with(json!({"title": "Bob's home", "body": "Bob moved to Leeds",
                          "observed_at": "2026-03-01T00:00:00Z"}))
        .await;
    let (y, l) = (york["id"].as_str().unwrap(), leeds["id"].as_str().unwrap());
    let c = app
        .post("/conflicts", json!({"old_node_id": y, "new_node_id": l}))
        .await
        .json()["id"]
        .clone();
    let pending_then = instant().await;
    app.post(
        &format!("/conflicts/{}/resolve", c.as_str().unwrap()),
        json!({"resolution": "new_is_current"}),
    )
    .await
    .assert_status(StatusCode::OK);

    // Act / Assert: now, February is York alone and April Leeds alone, undisputed.
    let feb = "as_of=2026-02-01T00:00:00Z";
    let apr = "as_of=2026-04-01T00:00:00Z";
    assert_eq!(recalled(&app, feb).await, (vec![y.to_owned()], vec![]));
    assert_eq!(recalled(&app, apr).await, (vec![l.to_owned()], vec![]));
    // As concord knew it while the conflict waited: both held in April, disputed.
    let (ids, conflicts) = recalled(&app, &format!("{apr}&known_at={pending_then}")).await;
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert!(ids.contains(&y.to_owned()) && ids.contains(&l.to_owned()));
    assert_eq!(conflicts, vec![c]);
    // Bad instants are 422 naming the parameter, as on /nodes.
    let r = app.get("/recall?q=bob&known_at=2999-01-01T00:00:00Z").await;
    assert_eq!(r.pointers(), vec!["/known_at"]);
}

async fn a_timeline_chains_the_memories_that_superseded_one_another(app: TestApp) {
    // Arrange: us-east-1 (January) → eu-west-1 (March) → eu-central-1 (May).
    let mut ids = Vec::new();
    for (body, at) in [
        ("Region is us-east-1", "2026-01-01T00:00:00Z"),
        ("We moved the region to eu-west-1", "2026-03-01T00:00:00Z"),
        (
            "We moved the region to eu-central-1",
            "2026-05-01T00:00:00Z",
        ),
    ] {
        let n = app
            .node_with(json!({"title": "Deploy region", "body": body, "observed_at": at}))
            .await;
        ids.push(n["id"].as_str().unwrap().to_owned());
    }
    let mut conflicts = Vec::new();
    for (pair, by) in [((0, 1), "ops-lead"), ((1, 2), "alice")] {
        let c = app
            .post(
                "/conflicts",
                json!({"old_node_id": ids[pair.0], "new_node_id": ids[pair.1]}),
            )
            .await
            .json()["id"]
            .as_str()
            .unwrap()
            .to_owned();
        app.post(
            &format!("/conflicts/{c}/resolve"),
            json!({"resolution": "new_is_current", "resolved_by": by}),
        )
        .await
        .assert_status(StatusCode::OK);
        conflicts.push(c);
    }

    // Act: from the middle of the chain.
    let r = app.get(&format!("/nodes/{}/timeline", ids[1])).await;

    // Assert
    r.assert_status(StatusCode::OK);
    let t = r.json();
    let entries = t["entries"].as_array().unwrap();
    let order: Vec<&str> = entries
        .iter()
        .map(|e| e["node"]["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        order,
        ids.iter().map(String::as_str).collect::<Vec<_>>(),
        "{t}"
    );
    assert_eq!(
        entries[0]["node"]["valid_until"],
        "2026-03-01T00:00:00.000Z"
    );
    assert_eq!(entries[0]["replaced_by"]["node_id"], ids[1].as_str());
    assert_eq!(
        entries[0]["replaced_by"]["conflict_id"],
        conflicts[0].as_str()
    );
    assert_eq!(entries[0]["replaced_by"]["resolved_by"], "ops-lead");
    assert_eq!(entries[1]["replaced_by"]["resolved_by"], "alice");
    assert_eq!(entries[2]["replaced_by"], Value::Null);
    let summary = t["summary"].as_str().unwrap();
    assert_eq!(
        summary,
        "\u{201c}Region is us-east-1\u{201d} until 2026-03-01, replaced as decided by ops-lead; \
         then \u{201c}We moved the region to eu-west-1\u{201d} until 2026-05-01, replaced as \
         decided by alice; then \u{201c}We moved the region to eu-central-1\u{201d}."
    );

    // Undoing the second decision cuts the chain there; a lone memory is a timeline of one.
    app.post(&format!("/conflicts/{}/revert", conflicts[1]), json!({}))
        .await
        .assert_status(StatusCode::OK);
    let t = app.get(&format!("/nodes/{}/timeline", ids[0])).await.json();
    assert_eq!(t["entries"].as_array().unwrap().len(), 2, "{t}");
    let lone = app.get(&format!("/nodes/{}/timeline", ids[2])).await.json();
    assert_eq!(lone["entries"].as_array().unwrap().len(), 1);
    assert!(
        lone["summary"]
            .as_str()
            .unwrap()
            .ends_with("nothing replaced it.")
    );
    app.get("/nodes/01900000-0000-7000-8000-000000000000/timeline")
        .await
        .assert_problem(StatusCode::NOT_FOUND, "/problems/not-found");
}

/// A topic report request about Bob, with the instants in `at`.
fn about_bob(at: Value) -> Value {
    let mut body = json!({"topic": "Bob"});
    body.as_object_mut()
        .unwrap()
        .extend(at.as_object().unwrap().clone());
    body
}

/// `(source ids, as_of, known_at)` of a topic report about Bob.
async fn reported(app: &TestApp, at: Value) -> (Vec<String>, Value, Value) {
    let r = app.post("/conflicts/check", about_bob(at)).await;
    r.assert_status(StatusCode::OK);
    let report = r.json();
    let ids = report["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        report["sources_analyzed"].as_u64().unwrap() as usize,
        report["sources"].as_array().unwrap().len()
    );
    (ids, report["as_of"].clone(), report["known_at"].clone())
}

async fn a_topic_report_as_of_describes_what_held_and_what_concord_knew_then(app: TestApp) {
    // Arrange: York from January, then (later in system time) Leeds from March.
    let york = app
        .node_with(json!({"title": "Bob's home", "body": "Bob lives in York",
                          "observed_at": "2026-01-01T00:00:00Z"}))
        .await;
    let before_leeds = instant().await;
    let leeds = app
        .node_with(json!({"title": "Bob's home", "body": "Bob moved to Leeds",
                          "observed_at": "2026-03-01T00:00:00Z"}))
        .await;
    let (y, l) = (york["id"].as_str().unwrap(), leeds["id"].as_str().unwrap());

    // Act / Assert: now, both are sources and the report names no instant.
    let (mut now, as_of, known_at) = reported(&app, json!({})).await;
    now.sort();
    let mut both = vec![y.to_owned(), l.to_owned()];
    both.sort();
    assert_eq!(now, both);
    assert_eq!((as_of, known_at), (Value::Null, Value::Null));
    // Before Leeds was written, concord knew York alone.
    let (ids, _, known_at) = reported(&app, json!({"known_at": before_leeds})).await;
    assert_eq!(ids, vec![y.to_owned()]);
    assert_eq!(known_at, json!(before_leeds));
    // In February only York held; before anything, nothing did (a report, not an error).
    let feb = "2026-02-01T00:00:00.000Z";
    let (ids, as_of, _) = reported(&app, json!({"as_of": feb})).await;
    assert_eq!((ids, as_of), (vec![y.to_owned()], json!(feb)));
    let (ids, _, _) = reported(&app, json!({"as_of": "1999-01-01T00:00:00Z"})).await;
    assert!(ids.is_empty());
    // The stored report keeps the instants it described.
    let stored = app.get("/reports?limit=1").await.json();
    assert_eq!(
        stored["items"][0]["as_of"],
        json!("1999-01-01T00:00:00.000Z")
    );
    // Bad instants are 422 naming the field, and store no report.
    let reports = app.get("/reports?limit=200").await.json()["items"]
        .as_array()
        .unwrap()
        .len();
    for (at, pointer) in [
        (json!({"as_of": "yesterday"}), "/as_of"),
        (json!({"known_at": "2999-01-01T00:00:00Z"}), "/known_at"),
    ] {
        let r = app.post("/conflicts/check", about_bob(at)).await;
        assert_eq!(r.pointers(), vec![pointer]);
    }
    let after = app.get("/reports?limit=200").await.json()["items"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(after, reports);
}
