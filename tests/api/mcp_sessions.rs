//! MCP sessions (2025-11-25 and earlier revisions) are bounded: past `--mcp-max-sessions` an
//! `initialize` is refused with 503 `/problems/mcp-sessions-full` and `Retry-After`, and a slot
//! is free again once a session is closed (DELETE) or expires idle.

use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::json;

use crate::support::{Reply, TestApp};

const HOST: &str = "127.0.0.1:8080";

async fn initialize(app: &TestApp, revision: &str) -> Reply {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": revision, "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let req = Request::post("/mcp")
        .header("host", HOST)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(Body::from(body.to_string()))
        .unwrap();
    app.send(req).await
}

fn session_of(r: &Reply) -> String {
    r.assert_status(StatusCode::OK);
    r.headers["mcp-session-id"].to_str().unwrap().to_owned()
}

async fn close(app: &TestApp, session: &str) -> Reply {
    let req = Request::delete("/mcp")
        .header("host", HOST)
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(Body::empty())
        .unwrap();
    app.send(req).await
}

async fn sessions_past_the_cap_are_refused_until_one_closes_or_expires(app: TestApp) {
    // Arrange: two sessions at most, idle ones expire after a second.
    let mut settings = concord::config::Settings::for_database("sqlite://test");
    settings.bind = HOST.parse().unwrap();
    settings.mcp_max_sessions = 2;
    settings.mcp_session_idle_secs = 1;
    let app = app.reconfigured(settings);
    let first = session_of(&initialize(&app, "2025-11-25").await);
    let _second = session_of(&initialize(&app, "2025-03-26").await);

    // Act + Assert: a third is refused (503, never a 500 from the SDK).
    let refused = initialize(&app, "2025-11-25").await;
    refused.assert_problem(
        StatusCode::SERVICE_UNAVAILABLE,
        "/problems/mcp-sessions-full",
    );
    assert!(refused.headers.contains_key("retry-after"));
    // An initialize naming the stateless revision still gets a session from the SDK.
    initialize(&app, "2026-07-28").await.assert_problem(
        StatusCode::SERVICE_UNAVAILABLE,
        "/problems/mcp-sessions-full",
    );

    // A closed session frees its slot at once.
    close(&app, &first)
        .await
        .assert_status(StatusCode::NO_CONTENT);
    let third = session_of(&initialize(&app, "2025-11-25").await);
    initialize(&app, "2025-11-25").await.assert_problem(
        StatusCode::SERVICE_UNAVAILABLE,
        "/problems/mcp-sessions-full",
    );

    // Idle sessions expire and free theirs.
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    let a = session_of(&initialize(&app, "2025-11-25").await);
    let b = session_of(&initialize(&app, "2025-11-25").await);
    assert!(a != third && b != third);
}

crate::on_both_databases!(sessions_past_the_cap_are_refused_until_one_closes_or_expires);
