//! Valid time: a resolution says why the losing memory stops holding. An update ends it when
//! the winner was observed (`valid_until`); a correction says it never held (`corrected`).
//! The request may say which (`reason`); otherwise the winner's words choose, and the reply
//! says so. A revert puts valid time back exactly.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::support::TestApp;

crate::on_both_databases!(
    an_update_ends_the_old_memory_when_the_new_one_was_observed_and_a_revert_reopens_it,
    a_correction_is_read_from_the_words_or_given_and_old_is_current_corrects_the_new,
    a_reason_that_does_not_fit_the_strategy_is_422_and_changes_nothing,
);

/// Two memories observed at the given instants, and a pending conflict between them.
async fn pair(app: &TestApp, old: (&str, &str), new: (&str, &str)) -> (String, String, String) {
    let o = app
        .node_with(json!({"title": "Bob's home", "body": old.0, "observed_at": old.1}))
        .await;
    let n = app
        .node_with(json!({"title": "Bob's home", "body": new.0, "observed_at": new.1}))
        .await;
    let r = app
        .post(
            "/conflicts",
            json!({"old_node_id": o["id"], "new_node_id": n["id"]}),
        )
        .await;
    let c = r.json()["id"].as_str().unwrap().to_owned();
    (
        c,
        o["id"].as_str().unwrap().to_owned(),
        n["id"].as_str().unwrap().to_owned(),
    )
}

async fn node(app: &TestApp, id: &str) -> Value {
    let r = app.get(&format!("/nodes/{id}")).await;
    r.assert_status(StatusCode::OK);
    r.json()
}

async fn an_update_ends_the_old_memory_when_the_new_one_was_observed_and_a_revert_reopens_it(
    app: TestApp,
) {
    // Arrange
    let (c, old, new) = pair(
        &app,
        ("Bob lives in York", "2026-01-01T00:00:00Z"),
        ("Bob moved to Leeds", "2026-03-01T00:00:00Z"),
    )
    .await;
    assert_eq!(node(&app, &old).await["valid_until"], Value::Null);

    // Act
    let r = app
        .post(
            &format!("/conflicts/{c}/resolve"),
            json!({"resolution": "new_is_current"}),
        )
        .await;

    // Assert
    r.assert_status(StatusCode::OK);
    let reply = r.json();
    assert_eq!(reply["reason"], "update", "{reply}");
    assert_eq!(reply["reason_inferred"], true);
    let o = node(&app, &old).await;
    assert_eq!(o["valid_until"], "2026-03-01T00:00:00.000Z");
    assert_eq!(o["corrected"], false);
    assert_eq!(o["state"], "dormant");
    let n = node(&app, &new).await;
    assert_eq!(
        (n["valid_until"].clone(), n["corrected"].clone()),
        (Value::Null, json!(false))
    );
    let summary = reply["actions"][0]["summary"].as_str().unwrap();
    assert!(summary.contains("held until 2026-03-01"), "{summary}");
    let versions = app.get(&format!("/nodes/{old}/versions")).await.json();
    let last = versions["items"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["valid_until"], "2026-03-01T00:00:00.000Z");
    assert_eq!(last["conflict_id"], c.as_str());

    // A retry replays the same reason; a revert reopens the old memory exactly.
    let again = app
        .post(
            &format!("/conflicts/{c}/resolve"),
            json!({"resolution": "new_is_current"}),
        )
        .await
        .json();
    assert_eq!(
        (again["replayed"].clone(), again["reason"].clone()),
        (json!(true), json!("update"))
    );
    app.post(&format!("/conflicts/{c}/revert"), json!({}))
        .await
        .assert_status(StatusCode::OK);
    let o = node(&app, &old).await;
    assert_eq!(
        (o["valid_until"].clone(), o["state"].clone()),
        (Value::Null, json!("active"))
    );
}

async fn a_correction_is_read_from_the_words_or_given_and_old_is_current_corrects_the_new(
    app: TestApp,
) {
    // Words that say the old memory was wrong make a correction.
    let (c, old, _) = pair(
        &app,
        ("Bob lives in York", "2026-01-01T00:00:00Z"),
        (
            "Actually, Bob lives in Leeds; York was a mistake",
            "2026-03-01T00:00:00Z",
        ),
    )
    .await;
    let reply = app
        .post(
            &format!("/conflicts/{c}/resolve"),
            json!({"resolution": "new_is_current"}),
        )
        .await
        .json();
    assert_eq!(
        (reply["reason"].clone(), reply["reason_inferred"].clone()),
        (json!("correction"), json!(true))
    );
    let o = node(&app, &old).await;
    assert_eq!(
        (o["corrected"].clone(), o["valid_until"].clone()),
        (json!(true), Value::Null)
    );
    let summary = reply["actions"][0]["summary"].as_str().unwrap();
    assert!(summary.contains("never held"), "{summary}");

    // A reason in the request wins over the words.
    let (c, old, _) = pair(
        &app,
        ("Ann's rent is 1500", "2026-01-01T00:00:00Z"),
        ("Ann's rent went up to 1800", "2026-04-01T00:00:00Z"),
    )
    .await;
    let reply = app
        .post(
            &format!("/conflicts/{c}/resolve"),
            json!({"resolution": "new_is_current", "reason": "correction"}),
        )
        .await
        .json();
    assert_eq!(
        (reply["reason"].clone(), reply["reason_inferred"].clone()),
        (json!("correction"), json!(false))
    );
    assert_eq!(node(&app, &old).await["corrected"], true);

    // old_is_current: the new memory never held.
    let (c, old, new) = pair(
        &app,
        ("Cara plays tennis", "2026-01-01T00:00:00Z"),
        ("Cara switched to badminton", "2026-05-01T00:00:00Z"),
    )
    .await;
    let reply = app
        .post(
            "/contradiction/resolve",
            json!({"conflict_id": c, "resolution": "old_is_current"}),
        )
        .await
        .json();
    assert_eq!(reply["reason"], "correction", "{reply}");
    let n = node(&app, &new).await;
    assert_eq!(
        (n["corrected"].clone(), n["state"].clone()),
        (json!(true), json!("dormant"))
    );
    assert_eq!(node(&app, &old).await["corrected"], false);

    // keep_both and merge end nothing, and say no reason.
    let (c, old, new) = pair(
        &app,
        ("Dan works at Initech", "2026-01-01T00:00:00Z"),
        ("Dan works at Globex", "2026-02-01T00:00:00Z"),
    )
    .await;
    let reply = app
        .post(
            &format!("/conflicts/{c}/resolve"),
            json!({"resolution": "keep_both"}),
        )
        .await
        .json();
    assert!(
        reply.get("reason").is_none() && reply.get("reason_inferred").is_none(),
        "{reply}"
    );
    for id in [&old, &new] {
        let n = node(&app, id).await;
        assert_eq!(
            (n["corrected"].clone(), n["valid_until"].clone()),
            (json!(false), Value::Null)
        );
    }
}

async fn a_reason_that_does_not_fit_the_strategy_is_422_and_changes_nothing(app: TestApp) {
    let (c, old, _) = pair(
        &app,
        ("Bob lives in York", "2026-01-01T00:00:00Z"),
        ("Bob moved to Leeds", "2026-03-01T00:00:00Z"),
    )
    .await;
    for body in [
        json!({"resolution": "old_is_current", "reason": "update"}),
        json!({"resolution": "keep_both", "reason": "update"}),
        json!({"resolution": "merge", "reason": "correction"}),
        json!({"resolution": "new_is_current", "reason": "sideways"}),
    ] {
        let r = app
            .post(&format!("/conflicts/{c}/resolve"), body.clone())
            .await;
        assert_eq!(r.pointers(), vec!["/reason"], "{body}");
    }
    assert_eq!(
        app.get(&format!("/conflicts/{c}")).await.json()["status"],
        "pending"
    );
    let o = node(&app, &old).await;
    assert_eq!(
        (o["state"].clone(), o["valid_until"].clone()),
        (json!("active"), Value::Null)
    );
}
