//! Input rules that are the same on both databases: timestamps outside years 0000..9999 and
//! text containing U+0000 are 422 with a pointer wherever they appear (bodies, query
//! parameters, both resolve routes), nothing is written, and every read keeps working.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};

use crate::support::{Reply, TestApp};

crate::on_both_databases!(
    an_observed_at_outside_years_0_to_9999_is_422_and_reads_keep_working,
    the_first_and_last_representable_instants_are_stored_and_read_back,
    nul_in_any_body_text_is_422_with_its_pointer_and_writes_nothing,
    nul_in_a_query_parameter_is_422_naming_it,
    nul_in_a_resolution_is_422_never_a_retryable_failure,
    an_idempotency_key_with_a_tab_or_space_is_422,
    words_over_2047_bytes_are_searchable_and_the_store_stays_consistent,
    an_unknown_field_in_any_body_is_422_with_its_pointer_and_writes_nothing,
);

/// Every node (in any state) and every conflict, to prove a refused request wrote nothing.
async fn everything(app: &TestApp) -> Vec<Value> {
    let mut all = Vec::new();
    for uri in [
        "/nodes?state=active&limit=200",
        "/nodes?state=dormant&limit=200",
        "/nodes?state=archived&limit=200",
        "/conflicts?status=all&limit=200",
    ] {
        let r = app.get(uri).await;
        r.assert_status(StatusCode::OK);
        all.extend(r.json()["items"].as_array().unwrap().iter().cloned());
    }
    all
}

#[track_caller]
fn assert_422_at(r: &Reply, pointer: &str, case: &str) {
    let pointers = r.pointers();
    assert!(
        pointers.iter().any(|p| p == pointer),
        "{case}: expected an error at {pointer}, got {pointers:?}"
    );
}

const OUT_OF_RANGE: [&str; 4] = [
    "9999-12-31T23:59:59-23:59",
    "9999-12-31T23:59:59.999-00:01",
    "0000-01-01T00:00:00+00:01",
    "0000-01-01T00:00:00+23:59",
];

async fn an_observed_at_outside_years_0_to_9999_is_422_and_reads_keep_working(app: TestApp) {
    // Arrange: a node that overlaps what the refused writes would have been.
    let node = app
        .node("Cache size", "The cache size is 80 MB in production")
        .await;
    let id = node["id"].as_str().unwrap();
    let before = everything(&app).await;

    for t in OUT_OF_RANGE {
        // Act
        let created = app
            .post(
                "/nodes",
                json!({"title": "Cache size", "body": "The cache size is 60 MB in production",
                       "observed_at": t}),
            )
            .await;
        let patched = app
            .patch(&format!("/nodes/{id}"), json!({"observed_at": t}))
            .await;
        let target = app.node("Other", "x").await;
        let edge = app
            .post(
                "/edges",
                json!({"source_id": id, "target_id": target["id"], "kind": "about",
                       "valid_from": t}),
            )
            .await;
        app.delete(&format!("/nodes/{}", target["id"].as_str().unwrap()))
            .await
            .assert_status(StatusCode::NO_CONTENT);

        // Assert
        assert_422_at(&created, "/observed_at", &format!("create {t}"));
        assert_422_at(&patched, "/observed_at", &format!("patch {t}"));
        assert_422_at(&edge, "/valid_from", &format!("edge {t}"));
    }
    assert_eq!(everything(&app).await, before, "nothing was written");
    for uri in [
        format!("/nodes/{id}"),
        "/nodes".to_owned(),
        "/nodes?q=cache".to_owned(),
    ] {
        app.get(&uri).await.assert_status(StatusCode::OK);
    }
    app.post("/conflicts/check", json!({"topic": "cache size"}))
        .await
        .assert_status(StatusCode::OK);
    assert_eq!(app.store.check().await.unwrap(), vec![]);
}

async fn the_first_and_last_representable_instants_are_stored_and_read_back(app: TestApp) {
    for (given, stored) in [
        ("9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"),
        ("9999-12-31T23:59:59.999+00:00", "9999-12-31T23:59:59.999Z"),
        ("0000-01-01T00:00:00Z", "0000-01-01T00:00:00.000Z"),
        ("0000-01-01T23:59:00-00:00", "0000-01-01T23:59:00.000Z"),
        ("2026-01-01T00:30:00+01:00", "2025-12-31T23:30:00.000Z"),
    ] {
        // Act
        let r = app
            .post(
                "/nodes",
                json!({"title": "Edge of time", "body": given, "observed_at": given}),
            )
            .await;

        // Assert: RFC 3339 with four-digit years, on every read.
        r.assert_status(StatusCode::CREATED);
        let node = &r.json()["node"];
        assert_eq!(node["observed_at"], stored, "{given}");
        let read = app
            .get(&format!("/nodes/{}", node["id"].as_str().unwrap()))
            .await;
        assert_eq!(read.json()["observed_at"], stored, "{given}");
    }
    let listed = app.get("/nodes?q=edge+time").await;
    listed.assert_status(StatusCode::OK);
    assert_eq!(listed.json()["items"].as_array().unwrap().len(), 5);
    assert_eq!(app.store.check().await.unwrap(), vec![]);
}

async fn nul_in_any_body_text_is_422_with_its_pointer_and_writes_nothing(app: TestApp) {
    // Arrange
    let (conflict, old, _) = app
        .conflict("Region is us-east-1", "Region is eu-west-1")
        .await;
    let id = old["id"].as_str().unwrap();
    let before = everything(&app).await;
    let nul = "a\u{0}b";
    let base = json!({"title": "t", "body": "b"});
    let with = |field: &str, value: Value| {
        let mut b = base.clone();
        b[field] = value;
        b
    };

    let cases: Vec<(&str, String, Value, &str)> = vec![
        ("POST", "/nodes".into(), with("title", json!(nul)), "/title"),
        ("POST", "/nodes".into(), with("body", json!(nul)), "/body"),
        (
            "POST",
            "/nodes".into(),
            with("labels", json!(["ok", nul])),
            "/labels/1",
        ),
        (
            "POST",
            "/nodes".into(),
            with("source", json!(nul)),
            "/source",
        ),
        ("POST", "/nodes".into(), with("scope", json!(nul)), "/scope"),
        (
            "POST",
            "/nodes?detect=false".into(),
            with("body", json!("\u{0}")),
            "/body",
        ),
        (
            "PATCH",
            format!("/nodes/{id}"),
            json!({"title": nul}),
            "/title",
        ),
        (
            "PATCH",
            format!("/nodes/{id}"),
            json!({"body": nul}),
            "/body",
        ),
        (
            "PATCH",
            format!("/nodes/{id}"),
            json!({"labels": [nul]}),
            "/labels/0",
        ),
        (
            "PATCH",
            format!("/nodes/{id}"),
            json!({"source": nul}),
            "/source",
        ),
        (
            "PATCH",
            format!("/nodes/{id}"),
            json!({"scope": nul}),
            "/scope",
        ),
        (
            "POST",
            "/conflicts".into(),
            json!({"old_node_id": id, "new_content": nul}),
            "/new_content",
        ),
        (
            "POST",
            "/conflicts".into(),
            json!({"old_node_id": id, "new_content": "x", "note": nul}),
            "/note",
        ),
        (
            "POST",
            "/conflicts/check".into(),
            json!({"topic": nul}),
            "/topic",
        ),
        (
            "POST",
            "/conflicts/check".into(),
            json!({"topic": "region", "labels": [nul]}),
            "/labels/0",
        ),
    ];
    for (method, uri, body, pointer) in cases {
        // Act
        let r = app
            .request(method.parse().unwrap(), &uri, Some(body.clone()))
            .await;

        // Assert
        assert_422_at(&r, pointer, &format!("{method} {uri} {body}"));
    }
    assert_eq!(everything(&app).await, before, "nothing was written");
    assert_eq!(
        app.get(&format!("/conflicts/{}", conflict["id"].as_str().unwrap()))
            .await
            .json()["status"],
        "pending"
    );
}

async fn an_unknown_field_in_any_body_is_422_with_its_pointer_and_writes_nothing(app: TestApp) {
    // Arrange: a pending conflict and a resolved one, so that every body has a target.
    let (pending, old, new) = app
        .conflict("Region is us-east-1", "Region is eu-west-1")
        .await;
    let (resolved, _, _) = app.conflict("Port is 8080", "Port is 9090").await;
    let resolved_id = resolved["id"].as_str().unwrap();
    app.post(
        &format!("/conflicts/{resolved_id}/resolve"),
        json!({"resolution": "keep_both"}),
    )
    .await
    .assert_status(StatusCode::OK);
    let (old_id, new_id) = (old["id"].as_str().unwrap(), new["id"].as_str().unwrap());
    let pending_id = pending["id"].as_str().unwrap();
    let before = everything(&app).await;

    // A typo beside valid fields: each body would succeed without it.
    let cases: Vec<(&str, String, Value, &str)> = vec![
        (
            "POST",
            "/nodes".into(),
            json!({"title": "t", "lables": ["x"]}),
            "/lables",
        ),
        (
            "PATCH",
            format!("/nodes/{old_id}"),
            json!({"titel": "x"}),
            "/titel",
        ),
        (
            "POST",
            "/edges".into(),
            json!({"source_id": old_id, "target_id": new_id, "kind": "relates_to", "weight": 1}),
            "/weight",
        ),
        (
            "POST",
            "/conflicts".into(),
            json!({"old_node_id": old_id, "new_content": "x", "notes": "n"}),
            "/notes",
        ),
        (
            "POST",
            "/conflicts/check".into(),
            json!({"topic": "region", "sensitvity": "strict"}),
            "/sensitvity",
        ),
        (
            "POST",
            format!("/conflicts/{pending_id}/resolve"),
            json!({"resolution": "keep_both", "resolvedby": "me"}),
            "/resolvedby",
        ),
        (
            "POST",
            "/contradiction/resolve".into(),
            json!({"conflict_id": pending_id, "resolution": "keep_both", "x/y": 1}),
            "/x~1y",
        ),
        (
            "POST",
            format!("/conflicts/{resolved_id}/revert"),
            json!({"reason": "oops"}),
            "/reason",
        ),
    ];
    for (method, uri, body, pointer) in cases {
        // Act
        let r = app
            .request(method.parse().unwrap(), &uri, Some(body.clone()))
            .await;

        // Assert
        let case = format!("{method} {uri} {body}");
        r.assert_problem(StatusCode::UNPROCESSABLE_ENTITY, "/problems/validation");
        assert_422_at(&r, pointer, &case);
        let errors = r.json()["errors"].to_string();
        assert!(errors.contains("unknown field"), "{case}: {errors}");
    }
    assert_eq!(everything(&app).await, before, "nothing was written");
    assert_eq!(
        app.get(&format!("/conflicts/{pending_id}")).await.json()["status"],
        "pending"
    );
    assert_eq!(
        app.get(&format!("/conflicts/{resolved_id}")).await.json()["status"],
        "resolved"
    );
}

async fn nul_in_a_query_parameter_is_422_naming_it(app: TestApp) {
    let node = app.node("Anchor", "a").await;
    let id = node["id"].as_str().unwrap();
    for (uri, param) in [
        ("/nodes?label=%00".to_owned(), "label"),
        ("/nodes?memory_type=%00".to_owned(), "memory_type"),
        ("/nodes?q=cache%00".to_owned(), "q"),
        ("/conflicts?label=x%00y".to_owned(), "label"),
        (format!("/nodes/{id}/edges?kind=%00"), "kind"),
        ("/conflicts/wake?after=%00".to_owned(), "after"),
        ("/nodes?limit=5&cursor=%00".to_owned(), "cursor"),
    ] {
        let r = app.get(&uri).await;
        assert_422_at(&r, &format!("/{param}"), &uri);
    }
    let r = app
        .post("/nodes?sensitivity=%00", json!({"title": "x"}))
        .await;
    assert_422_at(&r, "/sensitivity", "sensitivity");
    assert_eq!(everything(&app).await.len(), 1, "only the anchor exists");
}

async fn nul_in_a_resolution_is_422_never_a_retryable_failure(app: TestApp) {
    // Arrange
    let (conflict, _, _) = app.conflict("Port is 80", "Port is 8080").await;
    let cid = conflict["id"].as_str().unwrap();
    let before = everything(&app).await;

    for (body, pointer) in [
        (json!({"resolution": "keep_both", "note": "\u{0}"}), "/note"),
        (
            json!({"resolution": "new_is_current", "resolved_by": "me\u{0}"}),
            "/resolved_by",
        ),
        (
            json!({"resolution": "merge", "merged_content": "Port is \u{0}"}),
            "/merged_content",
        ),
    ] {
        // Act: both routes.
        let by_path = app
            .post(&format!("/conflicts/{cid}/resolve"), body.clone())
            .await;
        let mut by_body = body.clone();
        by_body["conflict_id"] = json!(cid);
        let by_body = app.post("/contradiction/resolve", by_body).await;

        // Assert
        assert_422_at(&by_path, pointer, &format!("path {body}"));
        assert_422_at(&by_body, pointer, &format!("body {body}"));
    }
    assert_eq!(everything(&app).await, before, "nothing was written");
    // The conflict still resolves.
    app.post(
        &format!("/conflicts/{cid}/resolve"),
        json!({"resolution": "keep_both", "note": "fine"}),
    )
    .await
    .assert_status(StatusCode::OK);
}

async fn an_idempotency_key_with_a_tab_or_space_is_422(app: TestApp) {
    for key in ["a\tb", "a b", "k\t"] {
        let req = Request::post("/nodes")
            .header("content-type", "application/json")
            .header("idempotency-key", key)
            .body(Body::from(json!({"title": "keyed"}).to_string()))
            .unwrap();
        let r = app.send(req).await;
        assert_422_at(&r, "/headers/Idempotency-Key", &format!("{key:?}"));
    }
    assert!(everything(&app).await.is_empty(), "nothing was written");
}

async fn words_over_2047_bytes_are_searchable_and_the_store_stays_consistent(app: TestApp) {
    // Arrange: PostgreSQL's full-text index drops words over 2 047 bytes.
    let ascii = "w".repeat(3_000);
    let accented = "é".repeat(1_500);
    let node = app
        .node("Long words", &format!("{ascii} and {accented}"))
        .await;

    // Act
    let violations = app.store.check().await.unwrap();

    // Assert: no fts_out_of_step, and each long word finds its node.
    assert_eq!(violations, vec![]);
    for word in [&ascii, &accented] {
        let r = app.get(&format!("/nodes?q={}", urlencode(word))).await;
        r.assert_status(StatusCode::OK);
        let items = r.json()["items"].as_array().unwrap().clone();
        assert_eq!(items.len(), 1, "{}...", &word[..10]);
        assert_eq!(items[0]["id"], node["id"]);
    }
}

fn urlencode(s: &str) -> String {
    s.bytes().map(|b| format!("%{b:02X}")).collect()
}
