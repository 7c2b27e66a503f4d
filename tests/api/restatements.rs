//! Restatements (contract section 14): a write equal to an active memory of its scope and
//! title, whitespace and case aside, answers 200 with that memory and `"restated": true`,
//! records its source as corroboration, and stores nothing new; `?allow_duplicate=true`
//! stores a copy.

use axum::http::{Method, StatusCode, header};
use serde_json::{Value, json};

use crate::keys::{ROOT, call, make_key, mcp_tool, with_root};
use crate::support::TestApp;

crate::on_both_databases!(
    a_restatement_answers_with_the_stored_memory_and_records_its_source,
    a_changed_word_another_scope_or_an_archived_memory_is_written_anew,
    allow_duplicate_stores_a_copy,
    mcp_remember_says_the_memory_was_already_there,
);

fn memory(title: &str, body: &str, source: &str) -> Value {
    json!({"title": title, "body": body, "source": source, "scope": "home"})
}

async fn ids_titled(app: &TestApp, title: &str) -> Vec<String> {
    let r = call(app, Method::GET, "/nodes?limit=100", Some(ROOT), None).await;
    r.json()["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["title"] == title)
        .map(|n| n["id"].as_str().unwrap().to_owned())
        .collect()
}

async fn a_restatement_answers_with_the_stored_memory_and_records_its_source(app: TestApp) {
    // Arrange
    let app = with_root(&app);
    let agent = make_key(&app, "home-agent", "agent", &["home"]).await;
    let first = call(
        &app,
        Method::POST,
        "/nodes",
        Some(&agent),
        Some(memory("Rent", "My rent is 1800 EUR a month.", "doc:lease")),
    )
    .await;
    first.assert_status(StatusCode::CREATED);
    let id = first.json()["node"]["id"].as_str().unwrap().to_owned();

    // Act: the same text from the user (other spacing and case), twice, then from the lease.
    let again = memory("  rent ", "my RENT is 1800 eur\n a month.", "user:ana");
    let by_user = call(
        &app,
        Method::POST,
        "/nodes",
        Some(&agent),
        Some(again.clone()),
    )
    .await;
    let once_more = call(&app, Method::POST, "/nodes", Some(&agent), Some(again)).await;
    let by_lease = call(
        &app,
        Method::POST,
        "/nodes",
        Some(&agent),
        Some(memory("Rent", "My rent is 1800 EUR a month.", "doc:lease")),
    )
    .await;

    // Assert
    for r in [&by_user, &once_more, &by_lease] {
        r.assert_status(StatusCode::OK);
        let body = r.json();
        assert_eq!(body["restated"], true, "{body}");
        assert_eq!(body["node"]["id"], id.as_str());
        assert_eq!(
            body["node"]["source"], "doc:lease",
            "the memory is unchanged"
        );
        assert_eq!(body["corroborated_by"], json!(["user:ana"]), "{body}");
        assert!(body.get("conflicts").is_none());
        assert_eq!(r.headers[header::LOCATION], format!("/nodes/{id}").as_str());
    }
    let stored = ids_titled(&app, "Rent").await;
    assert_eq!(stored, std::slice::from_ref(&id), "one memory stored");
    let versions = call(
        &app,
        Method::GET,
        &format!("/nodes/{id}/versions"),
        Some(ROOT),
        None,
    )
    .await;
    assert_eq!(versions.json()["items"].as_array().unwrap().len(), 1);
}

async fn a_changed_word_another_scope_or_an_archived_memory_is_written_anew(app: TestApp) {
    // Arrange
    let app = with_root(&app);
    let stored = call(
        &app,
        Method::POST,
        "/nodes",
        Some(ROOT),
        Some(memory("Sport", "I play tennis on Sundays.", "user:ana")),
    )
    .await;
    let id = stored.json()["node"]["id"].as_str().unwrap().to_owned();
    let other_scope =
        json!({"title": "Sport", "body": "I play tennis on Sundays.", "scope": "work"});
    let other_title = memory("Sports", "I play tennis on Sundays.", "user:ana");

    // Act
    let changed = call(
        &app,
        Method::POST,
        "/nodes?detect=false",
        Some(ROOT),
        Some(memory("Sport", "I play tennis on Saturdays.", "user:ana")),
    )
    .await;
    let elsewhere = call(&app, Method::POST, "/nodes", Some(ROOT), Some(other_scope)).await;
    let retitled = call(&app, Method::POST, "/nodes", Some(ROOT), Some(other_title)).await;
    let archive = json!({"state": "archived"});
    call(
        &app,
        Method::PATCH,
        &format!("/nodes/{id}"),
        Some(ROOT),
        Some(archive),
    )
    .await
    .assert_status(StatusCode::OK);
    let after_archive = call(
        &app,
        Method::POST,
        "/nodes",
        Some(ROOT),
        Some(memory("Sport", "I play tennis on Sundays.", "user:ana")),
    )
    .await;

    // Assert
    for r in [&changed, &elsewhere, &retitled, &after_archive] {
        r.assert_status(StatusCode::CREATED);
        assert!(r.json().get("restated").is_none(), "{}", r.text);
        assert_ne!(r.json()["node"]["id"], id.as_str());
    }
}

async fn allow_duplicate_stores_a_copy(app: TestApp) {
    // Arrange
    let app = with_root(&app);
    let text = memory("Employer", "I work at Initech.", "user:ana");
    call(&app, Method::POST, "/nodes", Some(ROOT), Some(text.clone()))
        .await
        .assert_status(StatusCode::CREATED);

    // Act
    let copy = call(
        &app,
        Method::POST,
        "/nodes?allow_duplicate=true",
        Some(ROOT),
        Some(text),
    )
    .await;
    let bad = call(
        &app,
        Method::POST,
        "/nodes?allow_duplicate=maybe",
        Some(ROOT),
        Some(memory("Employer", "x", "y")),
    )
    .await;

    // Assert
    copy.assert_status(StatusCode::CREATED);
    assert_eq!(ids_titled(&app, "Employer").await.len(), 2);
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", bad.text);
}

async fn mcp_remember_says_the_memory_was_already_there(app: TestApp) {
    // Arrange
    let app = with_root(&app);
    let agent = make_key(&app, "home-agent", "agent", &["home"]).await;
    let args = json!({"title": "Pet", "body": "Our cat is called Miso.", "scope": "home",
        "source": "user:ana"});
    let first = mcp_tool(&app, &agent, "remember", args.clone()).await;
    let id = first["result"]["structuredContent"]["node"]["id"].clone();

    // Act
    let mut again = args;
    again["source"] = json!("user:ben");
    let second = mcp_tool(&app, &agent, "remember", again).await;

    // Assert
    let result = &second["result"];
    assert_eq!(result["structuredContent"]["restated"], true, "{second}");
    assert_eq!(result["structuredContent"]["node"]["id"], id);
    assert_eq!(
        result["structuredContent"]["corroborated_by"],
        json!(["user:ben"])
    );
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Already remembered"),
        "{second}"
    );
    assert_eq!(ids_titled(&app, "Pet").await.len(), 1);
}
