use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::support::TestApp;

crate::on_both_databases!(
    a_contradicting_write_queues_a_conflict_with_an_edge,
    detect_false_and_other_scopes_write_no_conflict,
    additive_information_is_not_a_contradiction,
    dormant_nodes_are_not_contradicted,
    check_reports_without_writing_and_verdicts_are_remembered,
    chinese_negation_is_detected,
    value_layer_labels_escalate_to_a_human,
    a_numbered_subject_is_contradicted_only_by_its_own_fact,
    a_state_change_contradicts_the_stored_state,
    a_replaced_slot_contradicts_the_stored_value,
    an_edited_memory_is_judged_by_its_new_text,
    a_short_update_sharing_no_indexed_word_is_judged,
    everyday_updates_queue_one_conflict_and_additions_none,
);

async fn write(app: &TestApp, uri: &str, body: Value) -> Value {
    let r = app.post(uri, body).await;
    r.assert_status(StatusCode::CREATED);
    r.json()
}

async fn a_contradicting_write_queues_a_conflict_with_an_edge(app: TestApp) {
    let old = write(&app, "/nodes", json!({"title": "Cache TTL", "body": "The cache TTL is 30 seconds", "observed_at": "2026-01-01T00:00:00Z"})).await;
    let new = write(
        &app,
        "/nodes",
        json!({"title": "Cache TTL", "body": "The cache TTL is 60 seconds"}),
    )
    .await;
    let hits = new["conflicts"].as_array().expect("conflicts listed");
    assert_eq!(hits.len(), 1);
    let hit = &hits[0];
    assert_eq!(hit["old_node_id"], old["node"]["id"]);
    assert_eq!(hit["conflict_type"], "numeric-mismatch");
    assert!(hit["probability"].as_f64().unwrap() > 0.5);
    assert_eq!(hit["signals"], json!(["value_change"]));
    assert_eq!(hit["recommendation"]["resolution"], "prefer-recent");
    assert_eq!(hit["recommendation"]["strategy"], "new_is_current");
    let conflict = app
        .get(&format!(
            "/conflicts/{}",
            hit["conflict_id"].as_str().unwrap()
        ))
        .await
        .json();
    assert_eq!(conflict["detection"]["tier"], "heuristic");
    assert!(
        conflict["detection"]["explanation"]
            .as_str()
            .unwrap()
            .contains("30")
    );
    let new_id = new["node"]["id"].as_str().unwrap();
    let edges = app
        .get(&format!(
            "/nodes/{new_id}/edges?direction=out&kind=contradicts"
        ))
        .await
        .json();
    let e = &edges["items"][0];
    assert_eq!(e["target_id"], old["node"]["id"]);
    assert_eq!(e["confidence"], hit["probability"]);
    assert_eq!(new["node"]["conflict_ids"], json!([hit["conflict_id"]]));
}

async fn detect_false_and_other_scopes_write_no_conflict(app: TestApp) {
    write(
        &app,
        "/nodes",
        json!({"title": "Cache TTL", "body": "The cache TTL is 30 seconds"}),
    )
    .await;
    let skipped = write(
        &app,
        "/nodes?detect=false",
        json!({"title": "Cache TTL", "body": "The cache TTL is 60 seconds"}),
    )
    .await;
    assert!(skipped.get("conflicts").is_none());
    let other_scope = write(
        &app,
        "/nodes",
        json!({"title": "Cache TTL", "body": "The cache TTL is 90 seconds", "scope": "staging"}),
    )
    .await;
    assert!(other_scope.get("conflicts").is_none());
    let other_type = write(
        &app,
        "/nodes",
        json!({"title": "Cache TTL", "body": "The cache TTL is 90 seconds", "memory_type": "goal"}),
    )
    .await;
    assert!(other_type.get("conflicts").is_none());
}

async fn additive_information_is_not_a_contradiction(app: TestApp) {
    write(
        &app,
        "/nodes",
        json!({"title": "Sessions", "body": "The service uses Redis for caching"}),
    )
    .await;
    let r = write(
        &app,
        "/nodes",
        json!({"title": "Sessions", "body": "The service uses Redis for caching sessions too"}),
    )
    .await;
    assert!(r.get("conflicts").is_none(), "{r}");
}

async fn dormant_nodes_are_not_contradicted(app: TestApp) {
    write(
        &app,
        "/nodes",
        json!({"title": "Cache TTL", "body": "The cache TTL is 30 seconds", "state": "dormant"}),
    )
    .await;
    let r = write(
        &app,
        "/nodes",
        json!({"title": "Cache TTL", "body": "The cache TTL is 60 seconds"}),
    )
    .await;
    assert!(r.get("conflicts").is_none());
}

async fn check_reports_without_writing_and_verdicts_are_remembered(app: TestApp) {
    let a = write(
        &app,
        "/nodes?detect=false",
        json!({"title": "Deploy", "body": "We deploy with Docker"}),
    )
    .await;
    let b = write(
        &app,
        "/nodes?detect=false",
        json!({"title": "Deploy", "body": "We no longer deploy with Docker"}),
    )
    .await;
    let b_id = b["node"]["id"].as_str().unwrap();
    let check = app.post(&format!("/nodes/{b_id}/check"), json!({})).await;
    check.assert_status(StatusCode::OK);
    let body = check.json();
    assert_eq!(body["node_id"], b["node"]["id"]);
    let hits = body["conflicts"].as_array().expect("hits");
    assert_eq!(hits[0]["old_node_id"], a["node"]["id"]);
    assert_eq!(hits[0]["conflict_id"], Value::Null);
    assert_eq!(
        app.get("/conflicts/stats").await.json()["pending"],
        0,
        "a check writes nothing"
    );
    // Once a conflict is queued for the pair, a check from either side reports that conflict
    // (with its id) instead of a new finding, and queues nothing more.
    let queued = app
        .post(
            "/conflicts",
            json!({"old_node_id": a["node"]["id"], "new_node_id": b_id}),
        )
        .await;
    queued.assert_status(StatusCode::CREATED);
    let conflict_id = queued.json()["id"].clone();
    for (checked, other) in [(&b, &a), (&a, &b)] {
        let id = checked["node"]["id"].as_str().unwrap();
        let again = app
            .post(&format!("/nodes/{id}/check"), json!({}))
            .await
            .json();
        let hits = again["conflicts"].as_array().expect("the queued conflict");
        assert_eq!(hits.len(), 1, "{again}");
        assert_eq!(hits[0]["conflict_id"], conflict_id);
        assert_eq!(hits[0]["old_node_id"], other["node"]["id"]);
    }
    assert_eq!(app.get("/conflicts/stats").await.json()["pending"], 1);
    // Resolved with keep_both, the verdict is remembered: the pair is not raised as a new
    // finding, and a check from either side reports the verdict as such.
    app.post(
        &format!("/conflicts/{}/resolve", conflict_id.as_str().unwrap()),
        json!({"resolution": "keep_both", "resolved_by": "ops-lead"}),
    )
    .await
    .assert_status(StatusCode::OK);
    for (checked, other) in [(&b, &a), (&a, &b)] {
        let id = checked["node"]["id"].as_str().unwrap();
        let again = app
            .post(&format!("/nodes/{id}/check?sensitivity=strict"), json!({}))
            .await
            .json();
        let hits = again["conflicts"].as_array().expect("the verdict");
        assert_eq!(hits.len(), 1, "{again}");
        assert_eq!(hits[0]["conflict_id"], conflict_id);
        assert_eq!(hits[0]["old_node_id"], other["node"]["id"]);
        assert_eq!(hits[0]["resolution"], "keep_both");
        assert_eq!(hits[0]["resolved_by"], "ops-lead");
    }
    assert_eq!(app.get("/conflicts/stats").await.json()["pending"], 0);
    app.post(
        "/nodes/01900000-0000-7000-8000-000000000000/check",
        json!({}),
    )
    .await
    .assert_problem(StatusCode::NOT_FOUND, "/problems/not-found");
}

async fn chinese_negation_is_detected(app: TestApp) {
    write(
        &app,
        "/nodes",
        json!({"title": "缓存", "body": "服务使用 Redis 作为缓存"}),
    )
    .await;
    let r = write(
        &app,
        "/nodes",
        json!({"title": "缓存", "body": "服务不再使用 Redis 作为缓存"}),
    )
    .await;
    let hits = r["conflicts"].as_array().expect("a conflict");
    assert_eq!(hits[0]["conflict_type"], "direct-contradiction");
}

async fn value_layer_labels_escalate_to_a_human(app: TestApp) {
    write(&app, "/nodes", json!({"title": "TLS", "body": "TLS verification is enabled in production", "labels": ["security"], "confidence": 0.5})).await;
    let r = write(&app, "/nodes", json!({"title": "TLS", "body": "TLS verification is not enabled in production", "confidence": 0.95})).await;
    let rec = &r["conflicts"][0]["recommendation"];
    assert_eq!(rec["resolution"], "escalate-to-user");
    assert_eq!(rec["strategy"], Value::Null);
}

fn ttl_fact(service: u32, value: u32) -> Value {
    json!({"title": "Cache ttl", "body": format!("The cache ttl for service {service} is {value} units.")})
}

/// The number in "service 3" names the subject: among 2,000 facts that differ only in it, a
/// changed value contradicts its own service's fact and no other.
async fn a_numbered_subject_is_contradicted_only_by_its_own_fact(app: TestApp) {
    // Arrange
    let mut ids = Vec::new();
    for n in 0..2_000 {
        let stored = write(&app, "/nodes?detect=false", ttl_fact(n, 9_000 + n)).await;
        ids.push(stored["node"]["id"].clone());
    }

    // Act
    let changed = write(&app, "/nodes", ttl_fact(3, 7_777)).await;
    let new_service = write(&app, "/nodes", ttl_fact(2_500, 11_500)).await;

    // Assert
    let hits = changed["conflicts"]
        .as_array()
        .expect("the changed fact conflicts");
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["old_node_id"], ids[3]);
    assert_eq!(hits[0]["conflict_type"], "numeric-mismatch");
    assert!(new_service.get("conflicts").is_none(), "{new_service}");
}

/// "moved to" says the stored time stopped being true, though the two share one word.
async fn a_state_change_contradicts_the_stored_state(app: TestApp) {
    // Arrange
    let old = write(
        &app,
        "/nodes",
        json!({"title": "Standup", "body": "Standup is at 9:30 every day."}),
    )
    .await;

    // Act
    let new = write(
        &app,
        "/nodes",
        json!({"title": "Standup", "body": "Standup moved to 10:00."}),
    )
    .await;
    let unrelated = write(
        &app,
        "/nodes",
        json!({"title": "Standup", "body": "Lunch moved to the big room."}),
    )
    .await;

    // Assert
    let hits = new["conflicts"].as_array().expect("a conflict");
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["old_node_id"], old["node"]["id"]);
    assert_eq!(hits[0]["conflict_type"], "direct-contradiction");
    assert_eq!(hits[0]["signals"], json!(["replacement"]));
    assert!(unrelated.get("conflicts").is_none(), "{unrelated}");
}

/// The same relation in the other voice with another owner, and a Chinese replacement whose
/// short texts only share the replaced term and the title.
async fn a_replaced_slot_contradicts_the_stored_value(app: TestApp) {
    // Arrange
    let owner = write(
        &app,
        "/nodes",
        json!({"title": "Billing", "body": "The payments team owns the billing service."}),
    )
    .await;
    let framework = write(
        &app,
        "/nodes",
        json!({"title": "frontend", "body": "默认用 React"}),
    )
    .await;

    // Act
    let moved = write(
        &app,
        "/nodes",
        json!({"title": "Billing", "body": "The billing service is owned by the platform team."}),
    )
    .await;
    let replaced = write(
        &app,
        "/nodes",
        json!({"title": "frontend", "body": "决定用 Vue 替代 React"}),
    )
    .await;
    let added = write(
        &app,
        "/nodes",
        json!({"title": "Billing", "body": "The payments team also owns the invoicing service."}),
    )
    .await;

    // Assert
    let hit = |r: &Value| {
        r["conflicts"]
            .as_array()
            .map(|a| a[0]["old_node_id"].clone())
    };
    assert_eq!(hit(&moved), Some(owner["node"]["id"].clone()), "{moved}");
    assert_eq!(
        hit(&replaced),
        Some(framework["node"]["id"].clone()),
        "{replaced}"
    );
    assert!(added.get("conflicts").is_none(), "{added}");
}

/// Detection keeps each stored memory's analysis between writes; an edit must not leave the
/// old text's analysis in use.
async fn an_edited_memory_is_judged_by_its_new_text(app: TestApp) {
    // Arrange: the stored memory is judged once as a candidate (a check of an agreeing
    // probe, deleted afterwards), then edited.
    let stored = write(
        &app,
        "/nodes",
        json!({"title": "Cache TTL", "body": "The cache TTL is 30 seconds"}),
    )
    .await;
    let id = stored["node"]["id"].as_str().unwrap();
    let probe = write(
        &app,
        "/nodes?detect=false&allow_duplicate=true",
        json!({"title": "Cache TTL", "body": "The cache TTL is 30 seconds"}),
    )
    .await;
    let probe_id = probe["node"]["id"].as_str().unwrap();
    app.post(&format!("/nodes/{probe_id}/check"), json!({}))
        .await
        .assert_status(StatusCode::OK);
    app.delete(&format!("/nodes/{probe_id}"))
        .await
        .assert_status(StatusCode::NO_CONTENT);
    app.patch(
        &format!("/nodes/{id}"),
        json!({"body": "The cache TTL is 60 seconds"}),
    )
    .await
    .assert_status(StatusCode::OK);

    // Act: a write that agrees with the edited text, then one that contradicts it.
    let agreeing = write(
        &app,
        "/nodes?allow_duplicate=true",
        json!({"title": "Cache TTL", "body": "The cache TTL is 60 seconds"}),
    )
    .await;
    let contradicting = write(
        &app,
        "/nodes",
        json!({"title": "Cache TTL", "body": "The cache TTL is 90 seconds"}),
    )
    .await;

    // Assert
    assert!(
        agreeing.get("conflicts").is_none(),
        "judged by the old text: {agreeing}"
    );
    let hits = contradicting["conflicts"].as_array().unwrap();
    let hit = hits
        .iter()
        .find(|h| h["old_node_id"] == stored["node"]["id"])
        .expect("the edited memory is contradicted");
    let conflict = app
        .get(&format!(
            "/conflicts/{}",
            hit["conflict_id"].as_str().unwrap()
        ))
        .await
        .json();
    let explanation = conflict["detection"]["explanation"].as_str().unwrap();
    assert!(
        explanation.contains("60") && !explanation.contains("30"),
        "explained with the edited text: {explanation}"
    );
}

/// Short updates often share no indexed word with what they update: pronouns are not indexed
/// and Chinese bigrams differ. The scope's newest memories are judged as well.
async fn a_short_update_sharing_no_indexed_word_is_judged(app: TestApp) {
    // Arrange
    let home = write(
        &app,
        "/nodes",
        json!({"title": "我住在北京", "body": "我住在北京"}),
    )
    .await;
    let city = write(
        &app,
        "/nodes",
        json!({"title": "Lives in Berlin", "body": "Lives in Berlin", "scope": "en"}),
    )
    .await;

    // Act
    let moved = write(
        &app,
        "/nodes",
        json!({"title": "我搬到上海了", "body": "我搬到上海了"}),
    )
    .await;
    let relocated = write(
        &app,
        "/nodes",
        json!({"title": "Moved to Lisbon", "body": "Moved to Lisbon", "scope": "en"}),
    )
    .await;
    let other_scope = write(
        &app,
        "/nodes",
        json!({"title": "Moved to Porto", "body": "Moved to Porto", "scope": "elsewhere"}),
    )
    .await;

    // Assert
    let old_ids = |r: &Value| -> Vec<Value> {
        r["conflicts"]
            .as_array()
            .map(|a| a.iter().map(|c| c["old_node_id"].clone()).collect())
            .unwrap_or_default()
    };
    assert_eq!(old_ids(&moved), vec![home["node"]["id"].clone()], "{moved}");
    assert_eq!(
        old_ids(&relocated),
        vec![city["node"]["id"].clone()],
        "{relocated}"
    );
    assert!(other_scope.get("conflicts").is_none(), "{other_scope}");
}

/// The everyday updates issue 33 named, each written through the API under one title in a
/// fresh scope: every one queues exactly one conflict against the stored memory.
const EVERYDAY_UPDATES: &[(&str, &str)] = &[
    ("Prefers aisle seats", "Dislikes aisle seats"),
    ("My rent is 1500", "My rent went up to 1800"),
    ("We host on Azure westeurope", "We host on AWS eu-central-1"),
    ("We release every two weeks", "We now release weekly"),
    (
        "Ana is the release manager",
        "Ben replaced Ana as release manager",
    ),
    (
        "Tom leads the mobile team",
        "Priya took over the mobile team from Tom",
    ),
    ("I play squash", "I switched to badminton"),
    ("My favourite editor is Vim", "I've switched to Helix"),
    ("I commute by train", "I now drive to work"),
    ("The office is in Leeds", "We relocated the office to York"),
    ("I use a Kindle for reading", "I went back to paper books"),
    ("I'm a night owl", "I've become an early riser"),
    ("I work at Initech", "I left Initech in June"),
    ("I run a bakery", "I closed the bakery to teach"),
    ("I drink coffee every morning", "I quit caffeine"),
    ("Our cat Miso is healthy", "Miso died last week"),
    ("I'm allergic to cats", "I outgrew my cat allergy"),
    (
        "The printer is on floor 2",
        "The signed asset register lists the printer on floor 4",
    ),
    (
        "Someone said billing uses Stripe",
        "The billing ADR says Adyen since May; the earlier note was wrong",
    ),
    (
        "Dave is vegetarian",
        "Turns out Dave eats fish; he is pescatarian.",
    ),
];

/// Additions, refinements, other subjects, other aspects, plans and questions: none of these
/// queues a conflict, written the same way.
const NOT_UPDATES: &[(&str, &str)] = &[
    ("Bob lives in Berlin.", "Bob's sister lives in Munich."),
    (
        "The billing service uses PostgreSQL 16.",
        "The billing service uses Redis for caching.",
    ),
    (
        "The public API rate limit is 100 requests per minute.",
        "The public API rate limit is enforced per API key.",
    ),
    ("I use Python", "I use Python 3.12"),
    ("I play squash", "I'm going to switch to badminton"),
    ("I speak English", "I also speak Spanish"),
    ("I like jazz", "Do I like jazz?"),
    (
        "I work at Initech",
        "If Initech closes I would work at Globex",
    ),
    ("My rent is 1500", "My salary is 4000"),
];

async fn queued(app: &TestApp, scope: &str, old: &str, new: &str) -> usize {
    let node = |body: &str| json!({"title": "Everyday", "body": body, "scope": scope});
    write(app, "/nodes", node(old)).await;
    let written = write(app, "/nodes", node(new)).await;
    // A write that queued nothing lists no conflicts.
    written["conflicts"].as_array().map_or(0, Vec::len)
}

async fn everyday_updates_queue_one_conflict_and_additions_none(app: TestApp) {
    for (i, (old, new)) in EVERYDAY_UPDATES.iter().enumerate() {
        let n = queued(&app, &format!("update-{i}"), old, new).await;
        assert_eq!(n, 1, "{old:?} / {new:?} queued {n}");
    }
    for (i, (old, new)) in NOT_UPDATES.iter().enumerate() {
        let n = queued(&app, &format!("other-{i}"), old, new).await;
        assert_eq!(n, 0, "{old:?} / {new:?} queued {n}");
    }
}
