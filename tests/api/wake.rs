use std::time::{Duration, Instant};

use axum::http::StatusCode;
use serde_json::json;

use crate::support::TestApp;

crate::on_both_databases!(
    pending_conflicts_answer_at_once_with_previews_and_a_message,
    the_cursor_walks_every_conflict_exactly_once,
    a_waiting_poll_is_woken_by_a_new_conflict,
    an_empty_wait_ends_in_204,
    text_format_returns_only_the_message,
    invalid_wake_parameters_are_422,
    shutdown_ends_a_wait,
);

async fn pending_conflicts_answer_at_once_with_previews_and_a_message(app: TestApp) {
    let (c, o, n) = app.conflict(&"a".repeat(80), "eu-west-1").await;
    app.conflict("b", "c").await;
    let r = app.get("/conflicts/wake?max=1&preview_chars=50").await;
    r.assert_status(StatusCode::OK);
    let body = r.json();
    assert_eq!(body["pending_total"], 2);
    assert_eq!(body["more"], 1);
    let first = &body["conflicts"][0];
    assert_eq!(first["id"], c["id"]);
    assert_eq!(first["old"]["id"], o["id"]);
    assert_eq!(first["new"]["id"], n["id"]);
    assert_eq!(
        first["old"]["preview"].as_str().unwrap().chars().count(),
        50
    );
    assert!(first["recommendation"]["resolution"].is_string());
    let msg = body["message"].as_str().unwrap();
    assert!(
        msg.contains("OLD: Deploy region") && msg.contains("NEW: Deploy region — eu-west-1"),
        "{msg}"
    );
    assert!(msg.contains("... and 1 more"), "{msg}");
}

async fn the_cursor_walks_every_conflict_exactly_once(app: TestApp) {
    let mut ids = Vec::new();
    for i in 0..5 {
        ids.push(
            app.conflict(&format!("old {i}"), &format!("new {i}"))
                .await
                .0["id"]
                .clone(),
        );
    }
    let mut seen = Vec::new();
    let mut url = "/conflicts/wake?max=2".to_owned();
    loop {
        let r = app.get(&url).await;
        if r.status == StatusCode::NO_CONTENT {
            break;
        }
        let body = r.json();
        seen.extend(
            body["conflicts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["id"].clone()),
        );
        url = format!(
            "/conflicts/wake?max=2&after={}",
            body["cursor"].as_str().unwrap()
        );
    }
    assert_eq!(seen, ids);
}

async fn a_waiting_poll_is_woken_by_a_new_conflict(app: TestApp) {
    // Arrange: a poller waiting with nothing pending.
    let router = app.router.clone();
    let started = Instant::now();
    let poll = tokio::spawn(async move {
        use tower::ServiceExt;
        let req = axum::http::Request::get("/conflicts/wake?wait=20")
            .body(axum::body::Body::empty())
            .unwrap();
        let res = router.oneshot(req).await.unwrap();
        let status = res.status();
        let bytes = http_body_util::BodyExt::collect(res.into_body())
            .await
            .unwrap()
            .to_bytes();
        (
            status,
            serde_json::from_slice::<serde_json::Value>(&bytes).ok(),
            started.elapsed(),
        )
    });
    tokio::time::sleep(Duration::from_millis(300)).await;

    // Act
    let (c, _, _) = app.conflict("us-east-1", "eu-west-1").await;

    // Assert: woken by the conflict, not by the end of the wait.
    let (status, body, elapsed) = poll.await.unwrap();
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body.unwrap()["conflicts"][0]["id"], c["id"]);
    assert!(
        elapsed < Duration::from_secs(20),
        "the poll timed out instead of waking"
    );
}

async fn an_empty_wait_ends_in_204(app: TestApp) {
    let r = app.get("/conflicts/wake?wait=1").await;
    r.assert_status(StatusCode::NO_CONTENT);
    assert!(r.text.is_empty());
    let (c, _, _) = app.conflict("a", "b").await;
    let cursor = app.get("/conflicts/wake").await.json()["cursor"]
        .as_str()
        .unwrap()
        .to_owned();
    app.get(&format!("/conflicts/wake?after={cursor}"))
        .await
        .assert_status(StatusCode::NO_CONTENT);
    // A resolved conflict no longer wakes anyone.
    app.post(
        "/contradiction/resolve",
        json!({"conflict_id": c["id"], "resolution": "keep_both"}),
    )
    .await
    .assert_status(StatusCode::OK);
    app.get("/conflicts/wake")
        .await
        .assert_status(StatusCode::NO_CONTENT);
}

async fn text_format_returns_only_the_message(app: TestApp) {
    app.conflict("us-east-1", "eu-west-1").await;
    let r = app.get("/conflicts/wake?format=text").await;
    r.assert_status(StatusCode::OK);
    assert!(
        r.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    assert!(
        r.text.starts_with("1 conflict waiting for review."),
        "{}",
        r.text
    );
    assert!(r.text.contains("OLD: ") && r.text.contains("NEW: "));
    // A client generated from the OpenAPI document knows this reply.
    let doc: serde_json::Value = serde_json::from_str(&concord::api::openapi_json()).unwrap();
    let served = &doc["paths"]["/conflicts/wake"]["get"]["responses"]["200"]["content"];
    assert!(served.get("text/plain").is_some(), "{served}");
    assert!(served.get("application/json").is_some(), "{served}");
}

async fn invalid_wake_parameters_are_422(app: TestApp) {
    for (q, p) in [
        ("wait=61", "/wait"),
        ("wait=-1", "/wait"),
        ("max=0", "/max"),
        ("max=21", "/max"),
        ("preview_chars=49", "/preview_chars"),
        ("preview_chars=5001", "/preview_chars"),
        ("format=xml", "/format"),
        ("after=garbage", "/after"),
    ] {
        assert_eq!(
            app.get(&format!("/conflicts/wake?{q}")).await.pointers(),
            vec![p],
            "{q}"
        );
    }
}

async fn shutdown_ends_a_wait(app: TestApp) {
    // Arrange
    let notifier = {
        let state = concord::AppState::new(
            app.store.clone(),
            concord::config::Settings::for_database("x"),
        );
        let n = state.notifier.clone();
        (concord::app(state), n)
    };
    let (router, notifier) = notifier;
    let poll = tokio::spawn(async move {
        use tower::ServiceExt;
        let req = axum::http::Request::get("/conflicts/wake?wait=60")
            .body(axum::body::Body::empty())
            .unwrap();
        router.oneshot(req).await.unwrap().status()
    });
    tokio::time::sleep(Duration::from_millis(200)).await;

    // Act
    notifier.shut_down();

    // Assert
    let status = tokio::time::timeout(Duration::from_secs(10), poll)
        .await
        .expect("the wait ended")
        .unwrap();
    assert_eq!(status, StatusCode::NO_CONTENT);
}
