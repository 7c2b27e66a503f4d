//! `POST /nodes/batch`: many memories and edges among them in one request and one
//! transaction, detected against the store and among themselves as though written one at a
//! time, all or nothing.

use axum::http::{Request, StatusCode};
use serde_json::{Value, json};

use crate::support::{Reply, TestApp};

crate::on_both_databases!(
    a_batch_is_written_in_input_order_with_its_references_and_edges,
    a_batch_finds_the_conflicts_one_write_at_a_time_would,
    one_bad_item_is_named_by_its_pointer_and_nothing_is_written,
    an_edge_to_a_missing_node_rolls_the_whole_batch_back,
    a_keyed_batch_is_written_once_and_replayed,
    a_batch_holds_one_to_a_thousand_nodes_and_more_than_one_request_body,
    without_detection_a_batch_queues_nothing,
);

/// Batches as a bulk import writes them on SQLite: ranking their searches from postings kept
/// in memory, which must find what the store's index finds, whatever was written between them.
mod sqlite_with_batch_postings {
    use crate::support::TestApp;

    #[sqlx::test(migrations = "migrations/sqlite")]
    async fn a_batch_finds_the_conflicts_one_write_at_a_time_would(pool: sqlx::SqlitePool) {
        super::a_batch_finds_the_conflicts_one_write_at_a_time_would(
            TestApp::sqlite_with_batch_postings(pool),
        )
        .await
    }

    #[sqlx::test(migrations = "migrations/sqlite")]
    async fn memories_written_or_changed_between_batches_are_found(pool: sqlx::SqlitePool) {
        super::memories_written_or_changed_between_batches_are_found(
            TestApp::sqlite_with_batch_postings(pool),
        )
        .await
    }
}

/// Memories as agents write them: several contradict an earlier one (the TTL twice, the
/// deploy, the standup, the employer, the rent), in two scopes and two types, with unrelated
/// ones between; then many settings.
fn memories() -> Vec<Value> {
    let m = |title: &str, body: &str| json!({"title": title, "body": body});
    vec![
        m("Cache TTL", "The cache TTL is 30 seconds"),
        m("Deploy", "We deploy with Docker"),
        m("Standup", "Standup is at 9:30 every day."),
        m("Employer", "Alice works at Initech as a backend engineer."),
        m("Rent", "My rent is 1500 a month."),
        m("Lunch", "Lunch is in the big room."),
        m("Cache TTL", "The cache TTL is 60 seconds"),
        json!({"title": "Cache TTL", "body": "The cache TTL is 5 seconds", "scope": "staging"}),
        json!({"title": "Cache TTL", "body": "The cache TTL is 90 seconds", "memory_type": "goal"}),
        m("Deploy", "We no longer deploy with Docker"),
        m("Standup", "Standup moved to 10:00."),
        m("Employer", "Alice left Initech and joined Globex."),
        m("Rent", "My rent went up to 1800."),
        m("Sessions", "The service uses Redis for caching"),
        m("Cache TTL", "The cache TTL is 90 seconds"),
        json!({"title": "Cache TTL", "body": "The cache TTL is 10 seconds", "scope": "staging"}),
    ]
    .into_iter()
    .chain(settings())
    .collect()
}

/// Many settings of a few services, so that each write has more candidates than detection
/// judges (the index's best 50): which ones it judges must not change in a batch.
fn settings() -> impl Iterator<Item = Value> {
    let services = ["ledger", "billing", "search"];
    let keys = ["timeout", "pool size", "retry limit", "port"];
    (0..120u32).map(move |i| {
        let (service, key) = (services[i as usize % 3], keys[i as usize / 3 % 4]);
        let value = [5, 10, 30, 60, 8080][(i as usize * 7) % 5];
        json!({
            "title": format!("{service} {key}"),
            "body": format!("The {key} of the {service} service is {value} (setting {i})"),
        })
    })
}

/// Each conflict as (old's index, new's index, type) among `ids`, sorted.
async fn conflict_pairs(app: &TestApp, ids: &[String]) -> Vec<(usize, usize, String)> {
    let mut items = Vec::new();
    let mut uri = "/conflicts?status=pending&limit=200".to_owned();
    loop {
        let r = app.get(&uri).await;
        r.assert_status(StatusCode::OK);
        let page = r.json();
        items.extend(page["items"].as_array().unwrap().iter().cloned());
        match page["next_cursor"].as_str() {
            Some(c) => uri = format!("/conflicts?status=pending&limit=200&cursor={c}"),
            None => break,
        }
    }
    let index = |v: &Value| ids.iter().position(|id| v.as_str() == Some(id));
    let mut pairs: Vec<_> = (items.iter())
        .filter_map(|c| {
            let old = index(&c["old_node"]["id"])?;
            let new = index(&c["new_node"]["id"])?;
            Some((old, new, c["conflict_type"].as_str().unwrap().to_owned()))
        })
        .collect();
    pairs.sort();
    pairs
}

async fn count_nodes(app: &TestApp) -> usize {
    let r = app.get("/nodes?limit=200&state=active").await;
    r.assert_status(StatusCode::OK);
    r.json()["items"].as_array().unwrap().len()
}

async fn a_batch_is_written_in_input_order_with_its_references_and_edges(app: TestApp) {
    // Arrange
    let stored = app.node("Database", "Orders live in PostgreSQL").await;

    // Act
    let r = app
        .post(
            "/nodes/batch",
            json!({
                "nodes": [
                    {"ref": "svc", "title": "Order service", "labels": ["Orders"]},
                    {"title": "Order retention", "body": "Orders are kept for 7 years", "scope": "legal"},
                    {"ref": "queue", "title": "Order queue", "source": "file:queue.rs:1"},
                ],
                "edges": [
                    {"source": "svc", "target": "queue", "kind": "depends_on"},
                    {"source": "svc", "target": stored["id"], "kind": "depends_on", "strength": 0.9},
                ],
            }),
        )
        .await;

    // Assert
    r.assert_status(StatusCode::CREATED);
    let body = r.json();
    let nodes = body["nodes"].as_array().unwrap();
    let titles: Vec<_> = nodes.iter().map(|n| n["node"]["title"].clone()).collect();
    assert_eq!(
        titles,
        ["Order service", "Order retention", "Order queue"],
        "{body}"
    );
    assert_eq!(nodes[0]["ref"], "svc");
    assert!(nodes[1].get("ref").is_none(), "{body}");
    assert!(nodes.iter().all(|n| n.get("conflicts").is_none()), "{body}");
    assert_eq!(nodes[0]["node"]["labels"], json!(["orders"]));
    assert_eq!(nodes[1]["node"]["scope"], "legal");
    let (svc, queue) = (&nodes[0]["node"]["id"], &nodes[2]["node"]["id"]);
    let edges = body["edges"].as_array().unwrap();
    assert_eq!(edges.len(), 2);
    assert_eq!(
        (&edges[0]["source_id"], &edges[0]["target_id"]),
        (svc, queue)
    );
    assert_eq!(edges[1]["target_id"], stored["id"]);
    assert_eq!(edges[1]["strength"], 0.9);
    for n in nodes {
        let id = n["node"]["id"].as_str().unwrap();
        let read = app.get(&format!("/nodes/{id}")).await;
        read.assert_status(StatusCode::OK);
        assert_eq!(read.json()["title"], n["node"]["title"]);
    }
    let out = app
        .get(&format!(
            "/nodes/{}/edges?direction=out",
            svc.as_str().unwrap()
        ))
        .await
        .json();
    assert_eq!(out["items"].as_array().unwrap().len(), 2, "{out}");
}

async fn a_batch_finds_the_conflicts_one_write_at_a_time_would(app: TestApp) {
    // Arrange: the same memories, one POST /nodes at a time in one scope family, in one
    // batch in another (the scopes are prefixed so the two runs never meet).
    let with_scope = |m: &Value, run: &str| {
        let mut m = m.clone();
        let scope = m["scope"].as_str().unwrap_or("default").to_owned();
        m["scope"] = json!(format!("{run}-{scope}"));
        m
    };
    let mut one_by_one = Vec::new();
    for m in memories() {
        // A batch stores every item; a single write would answer a repeated one as a
        // restatement.
        let r = app
            .post("/nodes?allow_duplicate=true", with_scope(&m, "single"))
            .await;
        r.assert_status(StatusCode::CREATED);
        one_by_one.push(r.json()["node"]["id"].as_str().unwrap().to_owned());
    }

    // Act
    let nodes: Vec<_> = memories().iter().map(|m| with_scope(m, "batch")).collect();
    let r = app.post("/nodes/batch", json!({"nodes": nodes})).await;

    // Assert
    r.assert_status(StatusCode::CREATED);
    let body = r.json();
    let batched: Vec<String> = (body["nodes"].as_array().unwrap().iter())
        .map(|n| n["node"]["id"].as_str().unwrap().to_owned())
        .collect();
    let expected = conflict_pairs(&app, &one_by_one).await;
    let found = conflict_pairs(&app, &batched).await;
    assert!(
        expected.len() >= 5,
        "the memories hold contradictions: {expected:?}"
    );
    assert_eq!(found, expected);
    // The reply lists each node's conflicts, and the nodes carry them as pending.
    let listed: usize = (body["nodes"].as_array().unwrap().iter())
        .map(|n| n["conflicts"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(listed, found.len(), "{body}");
    let (_, new, _) = &found[0];
    let node = app.get(&format!("/nodes/{}", batched[*new])).await.json();
    assert!(node["conflict_ids"].as_array().is_some(), "{node}");
}

async fn one_bad_item_is_named_by_its_pointer_and_nothing_is_written(app: TestApp) {
    // Arrange
    let before = count_nodes(&app).await;

    // Act
    let r = app
        .post(
            "/nodes/batch",
            json!({
                "nodes": [
                    {"ref": "a", "title": "Fine"},
                    {"title": "   "},
                    {"ref": "a", "title": "Fine too", "confidence": 2},
                    {"title": "Also fine", "memory_type": "Fact"},
                ],
                "edges": [{"source": "a", "target": "nowhere", "kind": "depends_on"}],
            }),
        )
        .await;
    let wrong_shape = app
        .post(
            "/nodes/batch",
            json!({"nodes": [{"title": "Fine"}, {"title": 7}]}),
        )
        .await;
    let unknown_field = app
        .post(
            "/nodes/batch",
            json!({"nodes": [{"title": "x"}], "extra": 1}),
        )
        .await;

    // Assert
    r.assert_problem(StatusCode::UNPROCESSABLE_ENTITY, "/problems/validation");
    assert_eq!(
        r.pointers(),
        [
            "/nodes/1/title",
            "/nodes/2/confidence",
            "/nodes/3/memory_type",
            "/edges/0/target",
        ]
    );
    wrong_shape.assert_problem(StatusCode::UNPROCESSABLE_ENTITY, "/problems/validation");
    assert_eq!(wrong_shape.pointers(), ["/nodes/1/title"]);
    unknown_field.assert_problem(StatusCode::UNPROCESSABLE_ENTITY, "/problems/validation");
    assert_eq!(count_nodes(&app).await, before);
}

async fn an_edge_to_a_missing_node_rolls_the_whole_batch_back(app: TestApp) {
    // Arrange: the first node contradicts a stored one, so the batch would queue a conflict.
    app.post(
        "/nodes",
        json!({"title": "Cache TTL", "body": "The cache TTL is 30 seconds"}),
    )
    .await
    .assert_status(StatusCode::CREATED);
    let missing = uuid::Uuid::now_v7();

    // Act
    let r = app
        .post(
            "/nodes/batch",
            json!({
                "nodes": [
                    {"ref": "ttl", "title": "Cache TTL", "body": "The cache TTL is 60 seconds"},
                    {"title": "Unrelated"},
                ],
                "edges": [
                    {"source": "ttl", "target": missing.to_string(), "kind": "depends_on"},
                ],
            }),
        )
        .await;

    // Assert
    r.assert_problem(StatusCode::UNPROCESSABLE_ENTITY, "/problems/validation");
    assert_eq!(r.pointers(), ["/edges/0/target"]);
    assert_eq!(count_nodes(&app).await, 1);
    let queue = app.get("/conflicts?status=pending").await.json();
    assert_eq!(queue["items"].as_array().unwrap().len(), 0, "{queue}");
}

async fn keyed(app: &TestApp, key: &str, body: &Value) -> Reply {
    let req = Request::post("/nodes/batch")
        .header("content-type", "application/json")
        .header("idempotency-key", key)
        .body(axum::body::Body::from(body.to_string()))
        .unwrap();
    app.send(req).await
}

async fn a_keyed_batch_is_written_once_and_replayed(app: TestApp) {
    // Arrange
    let body = json!({"nodes": [
        {"title": "Cache TTL", "body": "The cache TTL is 30 seconds"},
        {"title": "Cache TTL", "body": "The cache TTL is 60 seconds"},
    ]});

    // Act
    let first = keyed(&app, "import-1", &body).await;
    let again = keyed(&app, "import-1", &body).await;
    let other_body = keyed(&app, "import-1", &json!({"nodes": [{"title": "x"}]})).await;

    // Assert
    first.assert_status(StatusCode::CREATED);
    again.assert_status(StatusCode::CREATED);
    assert_eq!(again.headers["idempotency-replayed"], "true");
    assert_eq!(again.json(), first.json());
    assert_eq!(
        first.json()["nodes"][1]["conflicts"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    other_body.assert_problem(
        StatusCode::UNPROCESSABLE_ENTITY,
        "/problems/idempotency-key-reuse",
    );
    assert_eq!(count_nodes(&app).await, 2);
    let queue = app.get("/conflicts?status=pending").await.json();
    assert_eq!(queue["items"].as_array().unwrap().len(), 1, "{queue}");
}

async fn a_batch_holds_one_to_a_thousand_nodes_and_more_than_one_request_body(app: TestApp) {
    // Act
    let empty = app.post("/nodes/batch", json!({"nodes": []})).await;
    let too_many: Vec<_> = (0..1001)
        .map(|i| json!({"title": format!("m{i}")}))
        .collect();
    let too_many = app.post("/nodes/batch", json!({"nodes": too_many})).await;
    let full: Vec<_> = (0..1000)
        .map(|i| json!({"title": format!("Memory {i}"), "body": format!("Fact number {i}")}))
        .collect();
    // Without detection: a thousand judged writes take seconds in the unoptimised build.
    let full = app
        .post("/nodes/batch?detect=false", json!({"nodes": full}))
        .await;
    // Four bodies of 900 KiB: past the 2 MiB of a single request, within the batch's 32 MiB.
    let big: Vec<_> = (0..4)
        .map(|i| json!({"title": format!("Big {i}"), "body": "x ".repeat(450 * 1024)}))
        .collect();
    let big = app
        .post("/nodes/batch?detect=false", json!({"nodes": big}))
        .await;

    // Assert
    empty.assert_problem(StatusCode::UNPROCESSABLE_ENTITY, "/problems/validation");
    assert_eq!(empty.pointers(), ["/nodes"]);
    too_many.assert_problem(StatusCode::UNPROCESSABLE_ENTITY, "/problems/validation");
    assert_eq!(too_many.pointers(), ["/nodes"]);
    full.assert_status(StatusCode::CREATED);
    assert_eq!(full.json()["nodes"].as_array().unwrap().len(), 1000);
    big.assert_status(StatusCode::CREATED);
    assert_eq!(big.json()["nodes"].as_array().unwrap().len(), 4);
}

async fn without_detection_a_batch_queues_nothing(app: TestApp) {
    let r = app
        .post(
            "/nodes/batch?detect=false",
            json!({"nodes": [
                {"title": "Cache TTL", "body": "The cache TTL is 30 seconds"},
                {"title": "Cache TTL", "body": "The cache TTL is 60 seconds"},
            ]}),
        )
        .await;
    let bad = app
        .post(
            "/nodes/batch?sensitivity=loud",
            json!({"nodes": [{"title": "x"}]}),
        )
        .await;

    r.assert_status(StatusCode::CREATED);
    assert!(r.json()["nodes"][1].get("conflicts").is_none());
    bad.assert_problem(StatusCode::UNPROCESSABLE_ENTITY, "/problems/validation");
    let queue = app.get("/conflicts?status=pending").await.json();
    assert_eq!(queue["items"].as_array().unwrap().len(), 0, "{queue}");
}

/// Writes `bodies` in one batch; the conflicts each node queued, by their old node's id.
async fn batch_of(app: &TestApp, bodies: &[String]) -> Vec<Vec<String>> {
    let nodes: Vec<Value> = (bodies.iter())
        .map(|b| json!({"title": "Note", "body": b}))
        .collect();
    let r = app.post("/nodes/batch", json!({"nodes": nodes})).await;
    r.assert_status(StatusCode::CREATED);
    (r.json()["nodes"].as_array().unwrap().iter())
        .map(|n| {
            let conflicts = n["conflicts"].as_array().cloned().unwrap_or_default();
            (conflicts.iter())
                .map(|c| c["old_node_id"].as_str().unwrap().to_owned())
                .collect()
        })
        .collect()
}

/// Memories about other things, enough that a short memory's newest candidates are all theirs.
fn unrelated(run: &str) -> Vec<String> {
    let rooms = ["north", "south", "east", "west", "upper", "lower"];
    (0..12)
        .map(|i| {
            format!(
                "The {} {run} archive shelf holds ledger box {i}",
                rooms[i % 6]
            )
        })
        .collect()
}

async fn memories_written_or_changed_between_batches_are_found(app: TestApp) {
    // Arrange: a batch, then a single write, then a batch of unrelated memories.
    batch_of(&app, &unrelated("first")).await;
    let single = app
        .node(
            "Timeout",
            "The timeout of the billing service is 30 seconds",
        )
        .await;
    let id = single["id"].as_str().unwrap().to_owned();
    batch_of(&app, &unrelated("second")).await;

    // Act
    let after_write = batch_of(
        &app,
        &["The timeout of the billing service is 60 seconds".into()],
    )
    .await;
    let patched = app
        .patch(
            &format!("/nodes/{id}"),
            json!({"body": "The pool size of the ledger service is 8"}),
        )
        .await;
    batch_of(&app, &unrelated("third")).await;
    let after_change = batch_of(&app, &["The pool size of the ledger service is 16".into()]).await;

    // Assert
    patched.assert_status(StatusCode::OK);
    assert_eq!(
        after_write,
        vec![vec![id.clone()]],
        "the single write is found"
    );
    assert_eq!(after_change, vec![vec![id]], "its new text is found");
}
