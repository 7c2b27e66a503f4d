//! MCP sessions (2025-11-25 and earlier revisions) are bounded: past `--mcp-max-sessions` an
//! `initialize` is refused with 503 `/problems/mcp-sessions-full` and `Retry-After`, and a slot
//! is free again once a session is closed (DELETE) or expires idle. One client (a peer address)
//! holds at most `--mcp-client-share` percent of the cap: past it its `initialize` is 503
//! `/problems/mcp-client-sessions-full` while other clients still get sessions.

use std::net::SocketAddr;
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, StatusCode};
use serde_json::json;

use crate::support::{Reply, TestApp};

const HOST: &str = "127.0.0.1:8080";

async fn initialize(app: &TestApp, revision: &str) -> Reply {
    initialize_from(app, revision, None).await
}

/// An `initialize` as the server loop hands it over: with the peer's address, when given.
async fn initialize_from(app: &TestApp, revision: &str, peer: Option<&str>) -> Reply {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": revision, "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let req = Request::post("/mcp")
        .header("host", HOST)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(Body::from(body.to_string()))
        .unwrap();
    let mut req = req;
    if let Some(peer) = peer {
        let peer: SocketAddr = peer.parse().unwrap();
        req.extensions_mut().insert(ConnectInfo(peer));
    }
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

async fn one_client_holds_at_most_its_share_while_others_still_get_sessions(app: TestApp) {
    // Arrange: four sessions at most, half of them for any one client.
    let mut settings = concord::config::Settings::for_database("sqlite://test");
    settings.bind = HOST.parse().unwrap();
    settings.mcp_max_sessions = 4;
    settings.mcp_client_share = 50;
    let app = app.reconfigured(settings);
    const A: &str = "10.0.0.1:40001";
    const A_OTHER_PORT: &str = "10.0.0.1:40002";
    let first = session_of(&initialize_from(&app, "2025-11-25", Some(A)).await);
    session_of(&initialize_from(&app, "2025-03-26", Some(A_OTHER_PORT)).await);

    // Act: the same address asks for a third, from any port.
    let refused = initialize_from(&app, "2025-11-25", Some(A)).await;

    // Assert: refused for its share, with Retry-After, while other clients still get theirs.
    refused.assert_problem(
        StatusCode::SERVICE_UNAVAILABLE,
        "/problems/mcp-client-sessions-full",
    );
    assert!(
        refused.headers.contains_key("retry-after"),
        "a refusal past the client's share says when to retry"
    );
    session_of(&initialize_from(&app, "2025-11-25", Some("10.0.0.2:5000")).await);
    session_of(&initialize_from(&app, "2025-11-25", Some("[2001:db8::1]:5000")).await);
    // The whole cap is taken now: a new client gets the overall refusal.
    initialize_from(&app, "2025-11-25", Some("10.0.0.3:5000"))
        .await
        .assert_problem(
            StatusCode::SERVICE_UNAVAILABLE,
            "/problems/mcp-sessions-full",
        );

    // A closed session gives its client the slot back.
    close(&app, &first)
        .await
        .assert_status(StatusCode::NO_CONTENT);
    session_of(&initialize_from(&app, "2025-11-25", Some(A)).await);
}

crate::on_both_databases!(
    sessions_past_the_cap_are_refused_until_one_closes_or_expires,
    one_client_holds_at_most_its_share_while_others_still_get_sessions
);
