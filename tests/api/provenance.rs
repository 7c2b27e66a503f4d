//! Provenance on writes (contract section 14): how a memory was obtained, stored with it,
//! returned by every read, read by its evidence strength, and by the policies on both sides
//! of a conflict.

use axum::http::StatusCode;
use serde_json::{Value, json};

use concord::config::{DetectionArgs, Settings};
use concord::domain::policy::{Format, RuleSet};

use crate::support::TestApp;

crate::on_both_databases!(
    provenance_is_stored_returned_and_read_by_the_evidence,
    a_bad_provenance_is_422_with_its_pointer_and_writes_nothing,
    policies_read_the_provenance_of_both_sides,
);

async fn provenance_is_stored_returned_and_read_by_the_evidence(app: TestApp) {
    // Arrange
    let hearsay = json!({"method": "hearsay"});

    // Act
    let written = app
        .post(
            "/nodes",
            json!({"title": "Rent", "body": "The rent is 1800 EUR.", "provenance": hearsay}),
        )
        .await;
    let id = written.json()["node"]["id"].as_str().unwrap().to_owned();
    let read = app.get(&format!("/nodes/{id}")).await.json();
    let listed = app.get("/nodes").await.json()["items"][0].clone();
    let plain = app
        .post(
            "/nodes",
            json!({"title": "Lease", "body": "The lease ends in May."}),
        )
        .await
        .json()["node"]
        .clone();
    let batch = app
        .post(
            "/nodes/batch",
            json!({"nodes": [{"title": "Deposit", "body": "The deposit is 2 months.",
                "provenance": {"method": "read_from_document", "verified": true}}]}),
        )
        .await;

    // Assert
    written.assert_status(StatusCode::CREATED);
    for node in [&written.json()["node"], &read, &listed] {
        assert_eq!(node["provenance"], hearsay, "{node}");
        assert_eq!(node["evidence"]["strength"], 0.35, "{node}");
        assert_eq!(node["evidence"]["reasons"], json!(["provenance: hearsay"]));
    }
    assert!(plain.get("provenance").is_none(), "{plain}");
    batch.assert_status(StatusCode::CREATED);
    let deposit = &batch.json()["nodes"][0]["node"];
    assert_eq!(deposit["provenance"]["verified"], true);
    assert_eq!(deposit["evidence"]["strength"], 0.65);
}

async fn a_bad_provenance_is_422_with_its_pointer_and_writes_nothing(app: TestApp) {
    // Act
    let unknown_method = app
        .post(
            "/nodes",
            json!({"title": "Rent", "provenance": {"method": "telepathy"}}),
        )
        .await;
    let unknown_field = app
        .post(
            "/nodes",
            json!({"title": "Rent", "provenance": {"signed_by": "me"}}),
        )
        .await;
    // serde alone would read a struct from an array of its fields.
    let array = app
        .post(
            "/nodes",
            json!({"title": "Rent", "provenance": [null, null]}),
        )
        .await;
    let array_in_batch = app
        .post(
            "/nodes/batch",
            json!({"nodes": [{"title": "Rent", "provenance": [null, null]}]}),
        )
        .await;

    // Assert
    assert_eq!(
        array.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        array.text
    );
    assert_eq!(array.pointers(), ["/provenance"]);
    assert_eq!(array_in_batch.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(array_in_batch.pointers(), ["/nodes/0/provenance"]);
    assert_eq!(unknown_method.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(unknown_method.pointers(), ["/provenance/method"]);
    assert_eq!(
        unknown_field.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        unknown_field.text
    );
    assert_eq!(app.get("/nodes").await.json()["items"], json!([]));
}

/// The stored side's provenance reaches the rules through detection's candidates, the new
/// side's through the write.
async fn policies_read_the_provenance_of_both_sides(app: TestApp) {
    // Arrange
    let rules = r#"
[[rules]]
name = "weakly-held-fact-gives-way"
action = "new_is_current"
[rules.match.new]
min_evidence = 0.5
[rules.match.old]
max_evidence = 0.6
"#;
    let app = app.reconfigured(Settings {
        detection: DetectionArgs {
            policies: Some(RuleSet::parse(rules, Format::Toml).expect("valid rules")),
            ..DetectionArgs::default()
        },
        ..Settings::for_database("test://provenance")
    });
    let write = |title: &str, body: &str, provenance: Value| {
        let mut node = json!({"title": title, "body": body});
        if !provenance.is_null() {
            node["provenance"] = provenance;
        }
        app.post("/nodes", node)
    };
    let verified = write("Dose", "The dose is 5 mg daily.", json!({"verified": true}))
        .await
        .json()["node"]
        .clone();
    let plain = write("Port", "The port is 80.", Value::Null).await.json()["node"].clone();

    // Act
    let against_verified = write("Dose", "The dose is 10 mg daily.", Value::Null).await;
    let hearsay = write("Port", "The port is 8080.", json!({"method": "hearsay"})).await;
    let update = write("Port", "The port is 9090.", Value::Null).await;

    // Assert
    let hit_on = |r: &crate::support::Reply, old: &Value| -> Value {
        r.json()["conflicts"]
            .as_array()
            .unwrap_or_else(|| panic!("a conflict: {}", r.text))
            .iter()
            .find(|h| h["old_node_id"] == old["id"])
            .cloned()
            .unwrap_or_else(|| panic!("a conflict with {}: {}", old["id"], r.text))
    };
    assert!(
        hit_on(&against_verified, &verified)
            .get("resolved_by")
            .is_none()
    );
    assert!(hit_on(&hearsay, &plain).get("resolved_by").is_none());
    assert_eq!(
        hit_on(&update, &plain)["resolved_by"],
        "policy:weakly-held-fact-gives-way"
    );
}
