//! Keys and roles (issue 36): `/keys` makes, lists and revokes keys kept in the database; each
//! role may call exactly its operations (403 `/problems/role-forbidden` otherwise), on REST
//! and on MCP; a revoked key is refused by every instance within a second; failed keys from
//! one address get 429 without slowing valid keys; `--api-keys` stay admin keys.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Method, Request, StatusCode, header};
use serde_json::{Value, json};

use crate::support::{Reply, TestApp};

pub(crate) const ROOT: &str = "root-key";

crate::on_both_databases!(
    keys_are_made_listed_and_revoked_by_an_admin,
    each_role_may_call_exactly_its_operations,
    a_role_is_enforced_on_mcp_tools_too,
    a_revoked_key_is_refused_by_every_instance_within_a_second,
    failed_keys_from_one_address_get_429_without_slowing_valid_keys,
    a_key_in_the_database_makes_keys_required,
    each_version_records_the_key_or_mcp_client_that_made_it,
);

/// The same database behind a router with one configured (admin) key.
pub(crate) fn with_root(app: &TestApp) -> TestApp {
    let mut settings = concord::config::Settings::for_database("test");
    settings.api_keys = vec![concord::config::Secret(ROOT.into())];
    app.reconfigured(settings)
}

pub(crate) async fn call(
    app: &TestApp,
    method: Method,
    uri: &str,
    key: Option<&str>,
    body: Option<Value>,
) -> Reply {
    call_from(app, method, uri, key, body, None).await
}

async fn call_from(
    app: &TestApp,
    method: Method,
    uri: &str,
    key: Option<&str>,
    body: Option<Value>,
    from: Option<&str>,
) -> Reply {
    let mut req = Request::builder().method(method).uri(uri);
    if let Some(k) = key {
        req = req.header(header::AUTHORIZATION, format!("Bearer {k}"));
    }
    let mut req = match body {
        Some(v) => req
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(v.to_string())),
        None => req.body(Body::empty()),
    }
    .unwrap();
    if let Some(addr) = from {
        let addr: SocketAddr = addr.parse().unwrap();
        req.extensions_mut().insert(ConnectInfo(addr));
    }
    app.send(req).await
}

/// Makes a key with the root key; returns it.
pub(crate) async fn make_key(app: &TestApp, name: &str, role: &str, scopes: &[&str]) -> String {
    let r = call(
        app,
        Method::POST,
        "/keys",
        Some(ROOT),
        Some(json!({"name": name, "role": role, "scopes": scopes})),
    )
    .await;
    r.assert_status(StatusCode::CREATED);
    r.json()["key"].as_str().unwrap().to_owned()
}

async fn keys_are_made_listed_and_revoked_by_an_admin(app: TestApp) {
    // Arrange
    let app = with_root(&app);

    // Act: make a key.
    let made = call(
        &app,
        Method::POST,
        "/keys",
        Some(ROOT),
        Some(json!({"name": "team-a-agent", "role": "agent", "scopes": ["team-a/*", "shared"]})),
    )
    .await;

    // Assert: shown once, listed without it, and it works.
    made.assert_status(StatusCode::CREATED);
    let body = made.json();
    let key = body["key"].as_str().unwrap().to_owned();
    assert!(key.starts_with("concord_"), "{body}");
    assert_eq!(body["api_key"]["role"], "agent");
    assert_eq!(body["api_key"]["scopes"], json!(["team-a/*", "shared"]));
    assert!(body["api_key"]["revoked_at"].is_null());
    let listed = call(&app, Method::GET, "/keys", Some(ROOT), None).await;
    listed.assert_status(StatusCode::OK);
    assert!(!listed.text.contains(&key), "the list shows the key");
    assert_eq!(listed.json()["items"][0]["name"], "team-a-agent");
    call(&app, Method::GET, "/nodes", Some(&key), None)
        .await
        .assert_status(StatusCode::OK);
    // Its use is recorded (off the request's path).
    let mut used = Value::Null;
    for _ in 0..50 {
        let list = call(&app, Method::GET, "/keys", Some(ROOT), None)
            .await
            .json();
        used = list["items"][0]["last_used_at"].clone();
        if used.is_string() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(used.is_string(), "last_used_at not recorded");

    // A taken name, bad fields and an unknown key are refused as problems.
    call(
        &app,
        Method::POST,
        "/keys",
        Some(ROOT),
        Some(json!({"name": "team-a-agent", "role": "reader", "scopes": ["x"]})),
    )
    .await
    .assert_problem(StatusCode::CONFLICT, "/problems/key-exists");
    let bad = call(
        &app,
        Method::POST,
        "/keys",
        Some(ROOT),
        Some(json!({"name": "no spaces", "role": "owner", "scopes": ["a*b"]})),
    )
    .await;
    assert_eq!(bad.pointers(), ["/name", "/role", "/scopes/0"]);
    call(&app, Method::DELETE, "/keys/nobody", Some(ROOT), None)
        .await
        .assert_problem(StatusCode::NOT_FOUND, "/problems/not-found");
    // Only an admin manages keys.
    call(&app, Method::GET, "/keys", Some(&key), None)
        .await
        .assert_problem(StatusCode::FORBIDDEN, "/problems/role-forbidden");

    // Act: revoke it.
    let revoked = call(&app, Method::DELETE, "/keys/team-a-agent", Some(ROOT), None).await;

    // Assert: refused at once on this instance, and listed as revoked.
    revoked.assert_status(StatusCode::OK);
    assert!(revoked.json()["revoked_at"].is_string());
    call(&app, Method::GET, "/nodes", Some(&key), None)
        .await
        .assert_problem(StatusCode::UNAUTHORIZED, "/problems/unauthorized");
    let listed = call(&app, Method::GET, "/keys", Some(ROOT), None)
        .await
        .json();
    assert!(listed["items"][0]["revoked_at"].is_string());
}

async fn each_role_may_call_exactly_its_operations(app: TestApp) {
    // Arrange: one key per role, a conflict to act on.
    let app = with_root(&app);
    let mut keys = Vec::new();
    for role in ["reader", "agent", "reviewer", "admin"] {
        keys.push((
            role,
            make_key(&app, &format!("k-{role}"), role, &["*"]).await,
        ));
    }
    let node = |title: &str, body: &str| json!({"title": title, "body": body});
    let made = call(
        &app,
        Method::POST,
        "/nodes?detect=false",
        Some(ROOT),
        Some(node("Region", "The region is eu-west-1")),
    )
    .await
    .json();
    let old = made["node"]["id"].as_str().unwrap().to_owned();
    let other = call(
        &app,
        Method::POST,
        "/nodes?detect=false",
        Some(ROOT),
        Some(node("Region", "The region is us-east-1")),
    )
    .await
    .json();
    let new = other["node"]["id"].as_str().unwrap().to_owned();
    // (operation, body, roles that may call it)
    let cases: Vec<(Method, String, Option<Value>, &[&str])> = vec![
        (
            Method::GET,
            "/nodes".into(),
            None,
            &["reader", "agent", "reviewer", "admin"],
        ),
        (
            Method::GET,
            format!("/nodes/{old}"),
            None,
            &["reader", "agent", "reviewer", "admin"],
        ),
        (
            Method::GET,
            "/recall?q=region".into(),
            None,
            &["reader", "agent", "reviewer", "admin"],
        ),
        (
            Method::GET,
            "/conflicts".into(),
            None,
            &["reader", "agent", "reviewer", "admin"],
        ),
        (
            Method::POST,
            "/conflicts/check".into(),
            Some(json!({"topic": "region"})),
            &["reader", "agent", "reviewer", "admin"],
        ),
        (
            Method::POST,
            "/nodes?detect=false".into(),
            Some(node("Cache", "The cache TTL is 30 seconds")),
            &["agent", "admin"],
        ),
        (
            Method::PATCH,
            format!("/nodes/{old}"),
            Some(json!({"confidence": 0.7})),
            &["agent", "admin"],
        ),
        (
            Method::POST,
            format!("/nodes/{old}/check"),
            None,
            &["agent", "admin"],
        ),
        (
            Method::POST,
            "/edges".into(),
            Some(json!({"source_id": old, "target_id": new, "kind": "relates_to"})),
            &["agent", "admin"],
        ),
        (
            Method::POST,
            "/conflicts".into(),
            Some(json!({"old_node_id": old, "new_node_id": new})),
            &["agent", "admin"],
        ),
        (
            Method::POST,
            format!("/conflicts/{}/resolve", uuid::Uuid::now_v7()),
            Some(json!({"resolution": "keep_both"})),
            &["reviewer", "admin"],
        ),
        (
            Method::POST,
            format!("/conflicts/{}/revert", uuid::Uuid::now_v7()),
            Some(json!({})),
            &["reviewer", "admin"],
        ),
        (Method::GET, "/policies".into(), None, &["admin"]),
        (Method::GET, "/keys".into(), None, &["admin"]),
    ];
    let mut checked = 0;
    for (method, uri, body, allowed) in &cases {
        for (role, key) in &keys {
            // Act
            let r = call(&app, method.clone(), uri, Some(key), body.clone()).await;

            // Assert
            if allowed.contains(role) {
                assert!(
                    r.status != StatusCode::FORBIDDEN && r.status != StatusCode::UNAUTHORIZED,
                    "{role} may {method} {uri}, got {}: {}",
                    r.status,
                    r.text
                );
            } else {
                let p = r.assert_problem(StatusCode::FORBIDDEN, "/problems/role-forbidden");
                assert!(
                    p["detail"].as_str().unwrap().contains(role),
                    "the refusal names the role: {p}"
                );
            }
            checked += 1;
        }
    }
    assert_eq!(checked, cases.len() * 4);
    // The configured key is an admin of every scope.
    call(&app, Method::GET, "/policies", Some(ROOT), None)
        .await
        .assert_status(StatusCode::OK);
}

/// A `tools/call` of an initialized MCP session with `key`; the JSON-RPC reply.
pub(crate) async fn mcp_tool(app: &TestApp, key: &str, tool: &str, arguments: Value) -> Value {
    let params = json!({"name": tool, "arguments": arguments});
    mcp_call(app, key, "tools/call", params).await
}

/// A JSON-RPC request `method` of an initialized MCP session with `key`; the reply.
pub(crate) async fn mcp_call(app: &TestApp, key: &str, method: &str, params: Value) -> Value {
    let post = |body: Value, session: Option<&str>| {
        let mut req = Request::post("/mcp")
            .header(header::HOST, "127.0.0.1:8080")
            .header(header::AUTHORIZATION, format!("Bearer {key}"))
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25");
        if let Some(s) = session {
            req = req.header("mcp-session-id", s);
        }
        req.body(Body::from(body.to_string())).unwrap()
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let r = app.send(post(init, None)).await;
    r.assert_status(StatusCode::OK);
    let session = r.headers["mcp-session-id"].to_str().unwrap().to_owned();
    let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    app.send(post(done, Some(&session))).await;
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": method, "params": params});
    let r = app.send(post(call, Some(&session))).await;
    r.assert_status(StatusCode::OK);
    // Closed, so the session does not outlive the test's database.
    let close = Request::delete("/mcp")
        .header(header::HOST, "127.0.0.1:8080")
        .header(header::AUTHORIZATION, format!("Bearer {key}"))
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(Body::empty())
        .unwrap();
    app.send(close).await;
    let data = r
        .text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .find(|d| d.contains("\"id\":2"))
        .map(str::to_owned)
        .unwrap_or_else(|| r.text.clone());
    serde_json::from_str(&data).unwrap_or_else(|e| panic!("{e}: {}", r.text))
}

async fn a_role_is_enforced_on_mcp_tools_too(app: TestApp) {
    // Arrange
    let app = with_root(&app);
    let reader = make_key(&app, "mcp-reader", "reader", &["*"]).await;
    let agent = make_key(&app, "mcp-agent", "agent", &["*"]).await;
    let fact = json!({"title": "Cache TTL", "body": "The cache TTL is 30 seconds"});

    // Act
    let refused = mcp_tool(&app, &reader, "remember", fact.clone()).await;
    let read = mcp_tool(&app, &reader, "recall", json!({"query": "cache"})).await;
    let written = mcp_tool(&app, &agent, "remember", fact).await;

    // Assert
    let result = &refused["result"];
    assert_eq!(result["isError"], true, "{refused}");
    assert_eq!(
        result["structuredContent"]["type"], "/problems/role-forbidden",
        "{refused}"
    );
    assert_eq!(result["structuredContent"]["status"], 403);
    assert!(read["result"]["isError"] != true, "{read}");
    assert!(written["result"]["isError"] != true, "{written}");
}

async fn a_revoked_key_is_refused_by_every_instance_within_a_second(app: TestApp) {
    // Arrange: two instances on one database; the second has just used the key.
    let one = with_root(&app);
    let two = with_root(&app);
    let key = make_key(&one, "short-lived", "reader", &["*"]).await;
    call(&two, Method::GET, "/nodes", Some(&key), None)
        .await
        .assert_status(StatusCode::OK);

    // Act: revoke it on the first.
    call(&one, Method::DELETE, "/keys/short-lived", Some(ROOT), None)
        .await
        .assert_status(StatusCode::OK);
    let revoked = Instant::now();

    // Assert: the second refuses it within a second.
    loop {
        let r = call(&two, Method::GET, "/nodes", Some(&key), None).await;
        if r.status == StatusCode::UNAUTHORIZED {
            break;
        }
        assert!(
            revoked.elapsed() < Duration::from_secs(1),
            "the other instance still accepts a key revoked a second ago"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

async fn failed_keys_from_one_address_get_429_without_slowing_valid_keys(app: TestApp) {
    // Arrange
    let app = with_root(&app);
    let attacker = Some("203.0.113.7:40000");
    for i in 0..10 {
        call_from(
            &app,
            Method::GET,
            "/nodes",
            Some(&format!("guess-{i}")),
            None,
            attacker,
        )
        .await
        .assert_problem(StatusCode::UNAUTHORIZED, "/problems/unauthorized");
    }

    // Act
    let throttled = call_from(
        &app,
        Method::GET,
        "/nodes",
        Some("guess-10"),
        None,
        attacker,
    )
    .await;

    // Assert: 429 with Retry-After for the address; a valid key from it, and a failed one from
    // elsewhere, are served as ever.
    throttled.assert_problem(
        StatusCode::TOO_MANY_REQUESTS,
        "/problems/too-many-failed-keys",
    );
    let wait: u64 = throttled.headers[header::RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait), "Retry-After {wait}");
    let started = Instant::now();
    call_from(&app, Method::GET, "/nodes", Some(ROOT), None, attacker)
        .await
        .assert_status(StatusCode::OK);
    assert!(started.elapsed() < Duration::from_secs(1));
    call_from(
        &app,
        Method::GET,
        "/nodes",
        Some("typo"),
        None,
        Some("198.51.100.1:1"),
    )
    .await
    .assert_status(StatusCode::UNAUTHORIZED);
}

async fn a_key_in_the_database_makes_keys_required(app: TestApp) {
    // Arrange: no configured keys; anyone local is the anonymous admin.
    app.get("/nodes").await.assert_status(StatusCode::OK);

    // Act: the first key is made without one.
    let made = app
        .post(
            "/keys",
            json!({"name": "first", "role": "admin", "scopes": ["*"]}),
        )
        .await;
    made.assert_status(StatusCode::CREATED);
    let key = made.json()["key"].as_str().unwrap().to_owned();

    // Assert: within a second every request needs a key, and this one works.
    let made_at = Instant::now();
    while app.get("/nodes").await.status != StatusCode::UNAUTHORIZED {
        assert!(made_at.elapsed() < Duration::from_secs(1), "still open");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    call(&app, Method::GET, "/keys", Some(&key), None)
        .await
        .assert_status(StatusCode::OK);
}

/// `(kind, changed_by)` of each version of node `id`, read with the root key.
async fn who_changed(app: &TestApp, id: &str) -> Vec<(String, Value)> {
    let r = call(
        app,
        Method::GET,
        &format!("/nodes/{id}/versions"),
        Some(ROOT),
        None,
    )
    .await;
    r.assert_status(StatusCode::OK);
    r.json()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["kind"].as_str().unwrap().to_owned(),
                v["changed_by"].clone(),
            )
        })
        .collect()
}

async fn each_version_records_the_key_or_mcp_client_that_made_it(app: TestApp) {
    // Arrange: an agent key writes, another agent key edits, an admin key deletes.
    let app = with_root(&app);
    let writer = make_key(&app, "ingest-bot", "agent", &["*"]).await;
    let editor = make_key(&app, "editor-bot", "agent", &["*"]).await;
    let body = json!({"title": "Cache TTL", "body": "The cache TTL is 30 seconds"});
    let r = call(&app, Method::POST, "/nodes", Some(&writer), Some(body)).await;
    r.assert_status(StatusCode::CREATED);
    let id = r.json()["node"]["id"].as_str().unwrap().to_owned();
    let patch = json!({"confidence": 0.4});
    let uri = format!("/nodes/{id}");
    call(&app, Method::PATCH, &uri, Some(&editor), Some(patch))
        .await
        .assert_status(StatusCode::OK);
    call(&app, Method::DELETE, &uri, Some(ROOT), None)
        .await
        .assert_status(StatusCode::NO_CONTENT);

    // Assert: each version names who made it.
    assert_eq!(
        who_changed(&app, &id).await,
        vec![
            ("created".to_owned(), json!("ingest-bot")),
            ("changed".to_owned(), json!("editor-bot")),
            ("deleted".to_owned(), json!("config:1")),
        ]
    );
    // An MCP client's write names the client.
    let done = mcp_tool(
        &app,
        &writer,
        "remember",
        json!({"title": "Cache size", "body": "The cache holds 512 entries"}),
    )
    .await;
    let node = &done["result"]["structuredContent"]["node"];
    let id = node["id"].as_str().unwrap_or_else(|| panic!("{done}"));
    assert_eq!(
        who_changed(&app, id).await,
        vec![("created".to_owned(), json!("mcp:t"))]
    );
}
