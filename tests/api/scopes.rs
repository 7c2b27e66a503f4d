//! Scopes (issue 36): a key reads and changes only the scopes it holds. The isolation test is
//! generated from the OpenAPI document and MCP's tool table: every operation and every tool is
//! called with a key of each role holding scope A, on data seeded in scope A and in scope B,
//! and no response (body or header) or event of a scope-A key may carry anything of scope B:
//! its texts (each carries a canary word) or its ids. Calls a role may not make are 403
//! `role-forbidden`; an id of scope B answers exactly as an id that does not exist; a write
//! into scope B is 403 `scope-forbidden`. An operation without a case here fails the test.

use std::collections::BTreeSet;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use concord::domain::access::Role;
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::keys::{ROOT, call, make_key, mcp_call, with_root};
use crate::support::{Reply, TestApp};

crate::on_both_databases!(
    no_operation_or_tool_shows_a_key_anything_of_a_scope_it_does_not_hold,
    the_same_contradiction_in_two_scopes_queues_no_conflict_across_them,
    a_write_without_a_scope_is_in_default_and_me_names_the_key,
    a_read_narrowed_to_one_of_the_keys_scopes_shows_only_that_scope,
    a_key_of_one_scope_pages_through_its_memories_among_others,
    a_writes_own_older_fact_is_found_however_many_other_scopes_mention_its_words,
    a_conflict_across_scopes_is_seen_only_by_a_key_of_both,
);

const A: &str = "team-a";
const B: &str = "team-b";
const A_CANARY: &str = "zuluhotelalpha";
const B_CANARY: &str = "zuluhotelbravo";

/// What one scope holds: memories, a pending and a resolved conflict, a report and a sweep.
struct Seeded {
    node: String,
    other: String,
    pending: String,
    resolved: String,
    /// The memory that won the resolved conflict (it has a timeline).
    winner: String,
    sweep: String,
    /// Every id of the scope and its canary: none may reach a key of another scope.
    marks: Vec<String>,
}

/// A call with the root key (admin of every scope) that must succeed; its JSON.
async fn root(app: &TestApp, method: Method, uri: &str, body: Option<Value>) -> Value {
    let r = call(app, method.clone(), uri, Some(ROOT), body).await;
    assert!(
        r.status.is_success(),
        "{method} {uri}: {} {}",
        r.status,
        r.text
    );
    r.json()
}

async fn node_in(app: &TestApp, scope: &str, canary: &str, text: &str) -> String {
    let n = root(
        app,
        Method::POST,
        "/nodes?detect=false&allow_duplicate=true",
        Some(
            json!({"title": format!("Region {canary}"), "body": format!("{text} ({canary})"),
            "scope": scope, "source": format!("src-{canary}"), "labels": [canary]}),
        ),
    )
    .await;
    n["node"]["id"].as_str().unwrap().to_owned()
}

/// A pending conflict between two new memories of `scope`: (conflict, old, new).
async fn pending_in(app: &TestApp, scope: &str, canary: &str) -> (String, String, String) {
    let old = node_in(app, scope, canary, "The region is eu-west-1").await;
    let new = node_in(app, scope, canary, "The region is us-east-1").await;
    let c = root(
        app,
        Method::POST,
        "/conflicts",
        Some(json!({"old_node_id": old, "new_node_id": new})),
    )
    .await;
    (c["id"].as_str().unwrap().to_owned(), old, new)
}

/// A conflict of `scope` resolved with `new_is_current`: (conflict, old, new).
async fn resolved_in(app: &TestApp, scope: &str, canary: &str) -> (String, String, String) {
    let (c, old, new) = pending_in(app, scope, canary).await;
    root(
        app,
        Method::POST,
        &format!("/conflicts/{c}/resolve"),
        Some(json!({"resolution": "new_is_current"})),
    )
    .await;
    (c, old, new)
}

async fn seed(app: &TestApp, sweeping: &TestApp, scope: &str, canary: &str) -> Seeded {
    let node = node_in(app, scope, canary, "The cache TTL is 30 seconds").await;
    let other = node_in(app, scope, canary, "The cache lives in Redis").await;
    let edge = root(
        app,
        Method::POST,
        "/edges",
        Some(json!({"source_id": node, "target_id": other, "kind": "relates_to"})),
    )
    .await;
    let (pending, p_old, p_new) = pending_in(app, scope, canary).await;
    let (resolved, r_old, winner) = resolved_in(app, scope, canary).await;
    let report = root(
        app,
        Method::POST,
        "/conflicts/check",
        Some(json!({"topic": canary})),
    )
    .await;
    let sweep = root(
        sweeping,
        Method::POST,
        "/sweeps",
        Some(json!({"scope": scope})),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for _ in 0..500 {
        let s = root(sweeping, Method::GET, &format!("/sweeps/{sweep}"), None).await;
        if s["status"] != "running" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut marks = vec![canary.to_owned(), report["id"].as_str().unwrap().to_owned()];
    marks.extend(
        [
            &node, &other, &pending, &p_old, &p_new, &resolved, &r_old, &winner, &sweep,
        ]
        .map(|s| s.to_string()),
    );
    marks.push(edge["id"].as_str().unwrap().to_owned());
    Seeded {
        node,
        other,
        pending,
        resolved,
        winner,
        sweep,
        marks,
    }
}

/// What a call must answer.
#[derive(Debug, Clone)]
enum Expect {
    Success,
    Problem(StatusCode, &'static str),
}

/// One call of an operation. `hidden`: the id of scope B it names, whose answer must be the
/// same as for an id that does not exist.
struct Case {
    uri: String,
    body: Option<Value>,
    expect: Expect,
    hidden: Option<String>,
}

fn own(uri: impl Into<String>, body: Option<Value>) -> Case {
    Case {
        uri: uri.into(),
        body,
        expect: Expect::Success,
        hidden: None,
    }
}

fn unseen(uri: impl Into<String>, body: Option<Value>, id: &str, status: StatusCode) -> Case {
    let kind = if status == StatusCode::NOT_FOUND {
        "/problems/not-found"
    } else {
        "/problems/validation"
    };
    Case {
        uri: uri.into(),
        body,
        expect: Expect::Problem(status, kind),
        hidden: Some(id.to_owned()),
    }
}

fn forbidden_scope(uri: impl Into<String>, body: Option<Value>) -> Case {
    Case {
        uri: uri.into(),
        body,
        expect: Expect::Problem(StatusCode::FORBIDDEN, "/problems/scope-forbidden"),
        hidden: None,
    }
}

/// The calls that exercise `method path` for a scope-A key; fresh memories and conflicts of
/// scope A for the calls that change them.
async fn cases(app: &TestApp, method: &str, path: &str, a: &Seeded, b: &Seeded) -> Vec<Case> {
    let fact = |scope: Option<&str>| {
        let mut v = json!({"title": "Port", "body": "The port is 8080"});
        if let Some(s) = scope {
            v["scope"] = json!(s);
        }
        Some(v)
    };
    let fresh = || node_in(app, A, A_CANARY, "The queue holds 10 jobs");
    match (method, path) {
        ("GET", "/healthz") | ("GET", "/readyz") | ("GET", "/metrics") => vec![own(path, None)],
        ("GET", "/nodes") => vec![
            own("/nodes", None),
            own("/nodes?q=region", None),
            own(format!("/nodes?q={B_CANARY}"), None),
            own(format!("/nodes?scope={A}"), None),
            forbidden_scope(format!("/nodes?scope={B}"), None),
            own("/nodes?state=dormant", None),
            own(format!("/nodes?known_at={}", chrono_now(app).await), None),
        ],
        ("POST", "/nodes") => vec![
            own("/nodes", fact(Some(A))),
            forbidden_scope("/nodes", fact(None)),
            forbidden_scope("/nodes", fact(Some(B))),
        ],
        ("POST", "/nodes/batch") => vec![
            own("/nodes/batch", Some(json!({"nodes": [fact(Some(A))]}))),
            forbidden_scope("/nodes/batch", Some(json!({"nodes": [fact(Some(B))]}))),
            unseen(
                "/nodes/batch",
                Some(
                    json!({"nodes": [{"ref": "x", "title": "Port", "body": "The port is 80", "scope": A}],
                    "edges": [{"source": "x", "target": b.node, "kind": "relates_to"}]}),
                ),
                &b.node,
                StatusCode::UNPROCESSABLE_ENTITY,
            ),
        ],
        ("GET", "/nodes/{id}") => vec![
            own(format!("/nodes/{}", a.node), None),
            unseen(
                format!("/nodes/{}", b.node),
                None,
                &b.node,
                StatusCode::NOT_FOUND,
            ),
            unseen(
                format!("/nodes/{}?known_at={}", b.node, chrono_now(app).await),
                None,
                &b.node,
                StatusCode::NOT_FOUND,
            ),
        ],
        ("PATCH", "/nodes/{id}") => vec![
            own(
                format!("/nodes/{}", fresh().await),
                Some(json!({"confidence": 0.7})),
            ),
            unseen(
                format!("/nodes/{}", b.node),
                Some(json!({"confidence": 0.7})),
                &b.node,
                StatusCode::NOT_FOUND,
            ),
            forbidden_scope(
                format!("/nodes/{}", fresh().await),
                Some(json!({"scope": B})),
            ),
        ],
        ("DELETE", "/nodes/{id}") => vec![
            own(format!("/nodes/{}", fresh().await), None),
            unseen(
                format!("/nodes/{}", b.other),
                None,
                &b.other,
                StatusCode::NOT_FOUND,
            ),
        ],
        ("POST", "/nodes/{id}/check") => vec![
            own(format!("/nodes/{}/check", a.node), None),
            unseen(
                format!("/nodes/{}/check", b.node),
                None,
                &b.node,
                StatusCode::NOT_FOUND,
            ),
        ],
        ("GET", "/nodes/{id}/edges") => vec![
            own(format!("/nodes/{}/edges", a.node), None),
            unseen(
                format!("/nodes/{}/edges", b.node),
                None,
                &b.node,
                StatusCode::NOT_FOUND,
            ),
        ],
        ("GET", "/nodes/{id}/timeline") => vec![
            own(format!("/nodes/{}/timeline", a.winner), None),
            unseen(
                format!("/nodes/{}/timeline", b.winner),
                None,
                &b.winner,
                StatusCode::NOT_FOUND,
            ),
        ],
        ("GET", "/nodes/{id}/versions") => vec![
            own(format!("/nodes/{}/versions", a.node), None),
            unseen(
                format!("/nodes/{}/versions", b.node),
                None,
                &b.node,
                StatusCode::NOT_FOUND,
            ),
        ],
        ("GET", "/nodes/{id}/versions/{version}") => vec![
            own(format!("/nodes/{}/versions/1", a.node), None),
            unseen(
                format!("/nodes/{}/versions/1", b.node),
                None,
                &b.node,
                StatusCode::NOT_FOUND,
            ),
        ],
        ("POST", "/edges") => vec![
            own(
                "/edges",
                Some(
                    json!({"source_id": a.node, "target_id": fresh().await, "kind": "relates_to"}),
                ),
            ),
            unseen(
                "/edges",
                Some(json!({"source_id": a.node, "target_id": b.node, "kind": "relates_to"})),
                &b.node,
                StatusCode::UNPROCESSABLE_ENTITY,
            ),
        ],
        ("GET", "/conflicts") => vec![
            own("/conflicts?status=all", None),
            own("/conflicts?status=all&order=newest", None),
            own("/conflicts?status=resolved&resolved_by=*", None),
            own(format!("/conflicts?status=all&scope={A}"), None),
            forbidden_scope(format!("/conflicts?scope={B}"), None),
        ],
        ("POST", "/conflicts") => vec![
            own(
                "/conflicts",
                Some(json!({"old_node_id": fresh().await, "new_node_id": fresh().await})),
            ),
            unseen(
                "/conflicts",
                Some(json!({"old_node_id": a.node, "new_node_id": b.node})),
                &b.node,
                StatusCode::UNPROCESSABLE_ENTITY,
            ),
            unseen(
                "/conflicts",
                Some(json!({"old_node_id": b.node, "new_content": "The port is 81"})),
                &b.node,
                StatusCode::UNPROCESSABLE_ENTITY,
            ),
        ],
        ("POST", "/conflicts/check") => vec![
            own(path, Some(json!({"topic": "region"}))),
            own(path, Some(json!({"topic": "region", "scope": A}))),
            forbidden_scope(path, Some(json!({"topic": "region", "scope": B}))),
        ],
        ("GET", "/conflicts/stats") => vec![own("/conflicts/stats", None)],
        ("GET", "/conflicts/wake") => vec![
            own("/conflicts/wake?wait=0&max=20", None),
            own(format!("/conflicts/wake?wait=0&scope={A}"), None),
            forbidden_scope(format!("/conflicts/wake?wait=0&scope={B}"), None),
        ],
        ("GET", "/conflicts/{id}") | ("GET", "/conflicts/{id}/history") => {
            let tail = path.strip_prefix("/conflicts/{id}").unwrap();
            vec![
                own(format!("/conflicts/{}{tail}", a.pending), None),
                unseen(
                    format!("/conflicts/{}{tail}", b.pending),
                    None,
                    &b.pending,
                    StatusCode::NOT_FOUND,
                ),
                unseen(
                    format!("/conflicts/{}{tail}", b.resolved),
                    None,
                    &b.resolved,
                    StatusCode::NOT_FOUND,
                ),
            ]
        }
        ("POST", "/conflicts/{id}/resolve") => {
            let (c, _, _) = pending_in(app, A, A_CANARY).await;
            let how = Some(json!({"resolution": "keep_both"}));
            vec![
                own(format!("/conflicts/{c}/resolve"), how.clone()),
                unseen(
                    format!("/conflicts/{}/resolve", b.pending),
                    how,
                    &b.pending,
                    StatusCode::NOT_FOUND,
                ),
            ]
        }
        ("POST", "/conflicts/{id}/revert") => {
            let (c, _, _) = resolved_in(app, A, A_CANARY).await;
            vec![
                own(format!("/conflicts/{c}/revert"), Some(json!({}))),
                unseen(
                    format!("/conflicts/{}/revert", b.resolved),
                    Some(json!({})),
                    &b.resolved,
                    StatusCode::NOT_FOUND,
                ),
            ]
        }
        ("POST", "/contradiction/resolve") => {
            let (c, _, _) = pending_in(app, A, A_CANARY).await;
            vec![
                own(
                    path,
                    Some(json!({"conflict_id": c, "resolution": "keep_both"})),
                ),
                unseen(
                    path,
                    Some(json!({"conflict_id": b.pending, "resolution": "keep_both"})),
                    &b.pending,
                    StatusCode::NOT_FOUND,
                ),
            ]
        }
        ("GET", "/events") => vec![own(path, None)],
        ("GET", "/recall") => vec![
            own("/recall?q=region", None),
            forbidden_scope(format!("/recall?q=region&scope={B}"), None),
            own(
                format!("/recall?q=region&as_of={}", chrono_now(app).await),
                None,
            ),
        ],
        ("GET", "/reports") | ("GET", "/sources") | ("GET", "/sweeps") => vec![own(path, None)],
        // Keys and policies span every scope: an admin of scope A does not manage them.
        ("GET", "/keys") | ("GET", "/policies") => vec![forbidden_scope(path, None)],
        ("GET", "/audit") => vec![
            forbidden_scope("/audit", None),
            forbidden_scope(format!("/audit?key={B}-writer"), None),
        ],
        ("POST", "/keys") => vec![forbidden_scope(
            path,
            Some(json!({"name": "made-by-a", "role": "reader", "scopes": [A]})),
        )],
        ("DELETE", "/keys/{name}") => vec![forbidden_scope("/keys/a-reader", None)],
        ("GET", "/me") => vec![own(path, None)],
        ("POST", "/sweeps") => vec![
            own(path, Some(json!({"scope": A}))),
            forbidden_scope(path, Some(json!({"scope": B}))),
            forbidden_scope(path, Some(json!({}))),
        ],
        ("GET", "/sweeps/{id}") | ("DELETE", "/sweeps/{id}") => vec![
            own(format!("/sweeps/{}", a.sweep), None),
            unseen(
                format!("/sweeps/{}", b.sweep),
                None,
                &b.sweep,
                StatusCode::NOT_FOUND,
            ),
        ],
        _ => panic!("{method} {path} has no isolation case: add one to tests/api/scopes.rs"),
    }
}

/// Now, as the service writes times (a memory's `created_at` just written).
async fn chrono_now(app: &TestApp) -> String {
    let v = root(app, Method::GET, "/nodes?limit=1", None).await;
    v["items"][0]["updated_at"].as_str().unwrap().to_owned()
}

/// The event stream from its start (`Last-Event-ID: 0`) until it is quiet for 300 ms.
async fn events_of(app: &TestApp, key: &str) -> Reply {
    let req = Request::get("/events")
        .header(header::AUTHORIZATION, format!("Bearer {key}"))
        .header("last-event-id", "0")
        .body(Body::empty())
        .unwrap();
    let res = app.router.clone().oneshot(req).await.unwrap();
    let (status, headers) = (res.status(), res.headers().clone());
    let mut body = res.into_body();
    let mut text = String::new();
    while let Ok(Some(Ok(frame))) =
        tokio::time::timeout(Duration::from_millis(300), body.frame()).await
    {
        if let Ok(data) = frame.into_data() {
            text.push_str(&String::from_utf8_lossy(&data));
        }
    }
    Reply {
        status,
        headers,
        text,
    }
}

/// Panics when the reply carries a mark of scope B the request did not carry itself.
fn assert_nothing_of(marks: &[String], sent: &str, r: &Reply, what: &str) {
    let headers: String = r
        .headers
        .iter()
        .map(|(k, v)| format!("{k}: {}\n", v.to_str().unwrap_or_default()))
        .collect();
    for m in marks.iter().filter(|m| !sent.contains(m.as_str())) {
        assert!(
            !r.text.contains(m.as_str()) && !headers.contains(m.as_str()),
            "{what} shows {m} of scope {B}: {} {}",
            r.status,
            r.text
        );
    }
}

fn check_expected(r: &Reply, expect: &Expect, what: &str) {
    match expect {
        Expect::Success => assert!(
            r.status.is_success(),
            "{what}: expected success, got {} {}",
            r.status,
            r.text
        ),
        Expect::Problem(status, kind) => {
            assert_eq!(r.status, *status, "{what}: {}", r.text);
            r.assert_problem(*status, kind);
        }
    }
}

/// A problem's answer without what differs between two requests: the id named and the
/// request id.
fn answer(r: &Reply, id: &str) -> (StatusCode, String) {
    let mut v: Value = serde_json::from_str(&r.text).unwrap_or(Value::Null);
    v["request_id"] = Value::Null;
    (r.status, v.to_string().replace(id, "{id}"))
}

async fn no_operation_or_tool_shows_a_key_anything_of_a_scope_it_does_not_hold(app: TestApp) {
    // Arrange: the same kinds of data in scopes A and B, and a key of each role for A.
    let app = with_root(&app);
    let mut settings = concord::config::Settings::for_database("test");
    settings.api_keys = vec![concord::config::Secret(ROOT.into())];
    let sweeping = app.with_sweeper(settings);
    let a = seed(&app, &sweeping, A, A_CANARY).await;
    let mut b = seed(&app, &sweeping, B, B_CANARY).await;
    // An edge across the scopes (a key of every scope may make one): a key of A does not see
    // it from its own end.
    let across = root(
        &app,
        Method::POST,
        "/edges",
        Some(json!({"source_id": a.node, "target_id": b.node, "kind": "relates_to"})),
    )
    .await;
    b.marks.push(across["id"].as_str().unwrap().to_owned());
    let mut keys = Vec::new();
    for role in Role::ALL {
        let key = make_key(&app, &format!("a-{role}"), role.as_str(), &[A]).await;
        keys.push((role, key));
    }
    let doc = root(&app, Method::GET, "/openapi.json", None).await;
    let mut operations: Vec<(String, String)> = Vec::new();
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for method in ops.as_object().unwrap().keys() {
            operations.push((method.to_uppercase(), path.clone()));
        }
    }
    let (mut calls, mut roles_seen) = (0, BTreeSet::new());

    // Act and assert: every operation, with every role's key.
    for (method, path) in &operations {
        let needs = concord::api::access::OPERATIONS
            .iter()
            .find(|(m, p, _)| m == method && p == path)
            .map(|&(_, _, n)| n)
            .unwrap_or_else(|| panic!("{method} {path} is not in the access table"));
        let open = matches!(path.as_str(), "/healthz" | "/readyz");
        for (role, key) in &keys {
            for case in cases(&app, method, path, &a, &b).await {
                let what = format!("{role} {method} {}", case.uri);
                let m = Method::from_bytes(method.as_bytes()).unwrap();
                let r = if path == "/events" {
                    events_of(&app, key).await
                } else {
                    call(&app, m.clone(), &case.uri, Some(key), case.body.clone()).await
                };
                let sent = format!("{} {}", case.uri, case.body.clone().unwrap_or_default());
                assert_nothing_of(&b.marks, &sent, &r, &what);
                if !open && !role.allows(needs) {
                    r.assert_problem(StatusCode::FORBIDDEN, "/problems/role-forbidden");
                } else {
                    check_expected(&r, &case.expect, &what);
                    if let Some(id) = &case.hidden {
                        // Exactly the answer for an id that does not exist.
                        let missing = uuid::Uuid::now_v7().to_string();
                        let uri = case.uri.replace(id.as_str(), &missing);
                        let body = case.body.as_ref().map(|v| {
                            serde_json::from_str(&v.to_string().replace(id.as_str(), &missing))
                                .unwrap()
                        });
                        let other = call(&app, m.clone(), &uri, Some(key), body).await;
                        assert_eq!(answer(&r, id), answer(&other, &missing), "{what}");
                    }
                    if path == "/events" {
                        assert!(
                            r.text.contains(&a.pending),
                            "{what}: scope A's events missing"
                        );
                    }
                    if method == "POST" && path == "/sweeps" && r.status.is_success() {
                        let id = r.json()["id"].as_str().unwrap().to_owned();
                        root(&app, Method::DELETE, &format!("/sweeps/{id}"), None).await;
                    }
                }
                roles_seen.insert(role.as_str());
                calls += 1;
            }
        }
    }

    // MCP: every tool, with every role's key.
    let mut tool_calls = 0;
    for &(tool, needs) in concord::mcp::access::TOOLS {
        for (role, key) in &keys {
            let args: Vec<(Value, bool)> = match tool {
                "remember" => vec![
                    (
                        json!({"title": "Port", "body": "The port is 8080", "scope": A}),
                        true,
                    ),
                    (
                        json!({"title": "Port", "body": "The port is 8080", "scope": B}),
                        false,
                    ),
                ],
                "recall" => vec![
                    (json!({"query": "region"}), true),
                    (json!({"query": "region", "scope": B}), false),
                ],
                "check_contradictions" => vec![
                    (json!({"node_id": a.node}), true),
                    (json!({"node_id": b.node}), false),
                    (
                        json!({"text": "The region is ap-south-1", "title": "Region", "scope": B}),
                        false,
                    ),
                ],
                "list_conflicts" => vec![(json!({}), true), (json!({"scope": B}), false)],
                "resolve_conflict" => {
                    let (c, _, _) = pending_in(&app, A, A_CANARY).await;
                    vec![
                        (json!({"conflict_id": c, "resolution": "keep_both"}), true),
                        (
                            json!({"conflict_id": b.pending, "resolution": "keep_both"}),
                            false,
                        ),
                    ]
                }
                "memory_timeline" => vec![
                    (json!({"node_id": a.winner}), true),
                    (json!({"node_id": b.winner}), false),
                ],
                "conflict_report" => vec![
                    (json!({"topic": "region"}), true),
                    (json!({"topic": "region", "scope": B}), false),
                ],
                other => panic!("the tool {other} has no isolation case"),
            };
            for (arguments, allowed) in args {
                let reply = mcp_call(
                    &app,
                    key,
                    "tools/call",
                    json!({"name": tool, "arguments": arguments}),
                )
                .await;
                let text = reply.to_string();
                for m in b
                    .marks
                    .iter()
                    .filter(|m| !arguments.to_string().contains(m.as_str()))
                {
                    assert!(
                        !text.contains(m.as_str()),
                        "{role} {tool} shows {m}: {text}"
                    );
                }
                let result = &reply["result"];
                if !role.allows(needs) {
                    assert_eq!(
                        result["structuredContent"]["type"], "/problems/role-forbidden",
                        "{role} {tool}: {text}"
                    );
                } else if allowed {
                    assert!(
                        result["isError"] != true,
                        "{role} {tool} {arguments}: {text}"
                    );
                } else {
                    assert_eq!(result["isError"], true, "{role} {tool} {arguments}: {text}");
                    let kind = result["structuredContent"]["type"]
                        .as_str()
                        .unwrap_or_default();
                    assert!(
                        ["/problems/not-found", "/problems/scope-forbidden"].contains(&kind),
                        "{role} {tool} {arguments}: {text}"
                    );
                }
                tool_calls += 1;
            }
        }
    }
    // The resource and the prompt show the pending conflicts of scope A only.
    for (role, key) in &keys {
        for (method, params) in [
            (
                "resources/read",
                json!({"uri": "concord://conflicts/pending"}),
            ),
            (
                "prompts/get",
                json!({"name": "review_conflicts", "arguments": {}}),
            ),
        ] {
            let reply = mcp_call(&app, key, method, params).await.to_string();
            assert!(reply.contains(&a.pending), "{role} {method}: {reply}");
            for m in &b.marks {
                assert!(
                    !reply.contains(m.as_str()),
                    "{role} {method} shows {m}: {reply}"
                );
            }
            tool_calls += 1;
        }
    }

    assert_eq!(roles_seen.len(), 4);
    eprintln!(
        "isolation: {} operations x 4 roles, {calls} REST calls; {} tools x 4 roles and the \
         resource and prompt, {tool_calls} MCP calls",
        operations.len(),
        concord::mcp::access::TOOLS.len()
    );
}

async fn the_same_contradiction_in_two_scopes_queues_no_conflict_across_them(app: TestApp) {
    // Arrange: a fact in scope A.
    let app = with_root(&app);
    let fact =
        |scope: &str, body: &str| json!({"title": "Cache TTL", "body": body, "scope": scope});
    root(
        &app,
        Method::POST,
        "/nodes",
        Some(fact(A, "The cache TTL is 30 seconds")),
    )
    .await;

    // Act: the same contradicting memory written into scope B, then into scope A.
    let in_b = root(
        &app,
        Method::POST,
        "/nodes",
        Some(fact(B, "The cache TTL is 60 seconds")),
    )
    .await;
    let in_a = root(
        &app,
        Method::POST,
        "/nodes",
        Some(fact(A, "The cache TTL is 60 seconds")),
    )
    .await;

    // Assert: only scope A's own pair is queued.
    assert!(
        in_b.get("conflicts").is_none_or(|c| c == &json!([])),
        "{in_b}"
    );
    assert_eq!(in_a["conflicts"].as_array().unwrap().len(), 1, "{in_a}");
    let all = root(&app, Method::GET, "/conflicts?status=all", None).await;
    for c in all["items"].as_array().unwrap() {
        assert_eq!(c["old_node"]["scope"], c["new_node"]["scope"], "{c}");
    }
    assert_eq!(all["items"].as_array().unwrap().len(), 1);
}

async fn a_write_without_a_scope_is_in_default_and_me_names_the_key(app: TestApp) {
    // Arrange
    let app = with_root(&app);
    let agent = make_key(&app, "a-agent", "agent", &[A]).await;
    let wide = make_key(&app, "ab-agent", "agent", &[A, "team-b/*"]).await;
    let fact = json!({"title": "Port", "body": "The port is 8080"});

    // Act
    let one = call(
        &app,
        Method::POST,
        "/nodes",
        Some(&agent),
        Some(fact.clone()),
    )
    .await;
    let two = call(
        &app,
        Method::POST,
        "/nodes",
        Some(&wide),
        Some(fact.clone()),
    )
    .await;
    let nested = call(
        &app,
        Method::POST,
        "/nodes",
        Some(&wide),
        Some(json!({"title": "Port", "body": "The port is 8080", "scope": "team-b/x"})),
    )
    .await;

    // Assert: a write without `scope` is in `default` (the contract's default), which these
    // keys do not hold; a key writes into a scope it holds when it names it.
    let p = one.assert_problem(StatusCode::FORBIDDEN, "/problems/scope-forbidden");
    assert!(p["detail"].as_str().unwrap().contains("default"), "{p}");
    let p = two.assert_problem(StatusCode::FORBIDDEN, "/problems/scope-forbidden");
    assert!(p["detail"].as_str().unwrap().contains("default"), "{p}");
    nested.assert_status(StatusCode::CREATED);
    let me = call(&app, Method::GET, "/me", Some(&wide), None).await;
    me.assert_status(StatusCode::OK);
    assert_eq!(
        me.json(),
        json!({"name": "ab-agent", "role": "agent", "scopes": [A, "team-b/*"],
            "permissions": ["read", "write"]})
    );
}

async fn a_read_narrowed_to_one_of_the_keys_scopes_shows_only_that_scope(app: TestApp) {
    // Arrange: a key of scopes A and C, a memory in each.
    let app = with_root(&app);
    let key = make_key(&app, "ac-reader", "reader", &[A, "team-c"]).await;
    let in_a = node_in(&app, A, A_CANARY, "The region is eu-west-1").await;
    let in_c = node_in(
        &app,
        "team-c",
        "zuluhotelcharlie",
        "The region is us-east-1",
    )
    .await;

    // Act
    let mut got = Vec::new();
    for uri in [
        "/nodes".to_owned(),
        "/nodes?scope=team-c".to_owned(),
        "/recall?q=region&scope=team-c".to_owned(),
        format!("/nodes?scope={B}"),
        "/nodes?scope=%20".to_owned(),
    ] {
        got.push(call(&app, Method::GET, &uri, Some(&key), None).await);
    }
    let [both, only_c, recall_c, not_held, blank] = <[Reply; 5]>::try_from(got).unwrap();

    // Assert
    let ids = |r: &Reply| -> Vec<String> {
        let v = r.json();
        let items = v
            .get("items")
            .or(v.get("sources"))
            .unwrap()
            .as_array()
            .unwrap()
            .clone();
        items
            .iter()
            .map(|n| n["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let mut all = ids(&both);
    all.sort();
    let mut want = vec![in_a.clone(), in_c.clone()];
    want.sort();
    assert_eq!(all, want);
    assert_eq!(ids(&only_c), std::slice::from_ref(&in_c));
    assert_eq!(ids(&recall_c), [in_c]);
    not_held.assert_problem(StatusCode::FORBIDDEN, "/problems/scope-forbidden");
    assert_eq!(blank.pointers(), ["/scope"]);
}

/// A key of one exact scope lists from the index that leads with scope (a query of its own):
/// its pages hold its scope's memories, newest first, none skipped or repeated, however the
/// other scope's writes interleave.
async fn a_key_of_one_scope_pages_through_its_memories_among_others(app: TestApp) {
    // Arrange: five memories in A and B each, written alternately.
    let app = with_root(&app);
    let reader = make_key(&app, "a-reader", "reader", &[A]).await;
    let subjects = ["harbour", "glacier", "orchard", "lantern", "meadow"];
    let mut written = Vec::new();
    for s in subjects {
        for scope in [B, A] {
            let body = json!({"title": format!("The {s}"), "body": format!("The {s} is in {scope}"), "scope": scope});
            let r = call(&app, Method::POST, "/nodes", Some(ROOT), Some(body)).await;
            r.assert_status(StatusCode::CREATED);
            if scope == A {
                written.push(r.json()["node"]["id"].as_str().unwrap().to_owned());
            }
        }
    }
    written.reverse();

    // Act: pages of two, with the key and narrowed by `?scope=` with the root key.
    for (key, first) in [
        (&reader[..], "/nodes?limit=2".to_owned()),
        (ROOT, format!("/nodes?limit=2&scope={A}")),
    ] {
        let mut seen = Vec::new();
        let mut uri = first.clone();
        loop {
            let r = call(&app, Method::GET, &uri, Some(key), None).await;
            r.assert_status(StatusCode::OK);
            let page = r.json();
            for n in page["items"].as_array().unwrap() {
                seen.push(n["id"].as_str().unwrap().to_owned());
            }
            match page["next_cursor"].as_str() {
                Some(c) => uri = format!("{first}&cursor={c}"),
                None => break,
            }
        }

        // Assert
        assert_eq!(seen, written, "{first}");
    }
}

/// Detection walks a bounded number of the newest postings per word (2,000). They are kept per
/// scope, so another tenant's memories of the same words never push a write's own older
/// fact out of its walk.
async fn a_writes_own_older_fact_is_found_however_many_other_scopes_mention_its_words(
    app: TestApp,
) {
    // Arrange: a fact in A, a dozen newer ones of other things (so that it is not among the
    // scope's newest, which a short write is compared with anyway), then 2,100 newer memories
    // in B with the same words.
    let old = app
        .node_with(json!({"title": "Rent", "body": "The rent is 1500 dollars", "scope": A}))
        .await;
    let others: Vec<Value> = (0..12)
        .map(|i| json!({"title": format!("Plant {i}"), "body": format!("Plant {i} sits by the window"), "scope": A}))
        .collect();
    app.post("/nodes/batch?detect=false", json!({ "nodes": others }))
        .await
        .assert_status(StatusCode::CREATED);
    for batch in 0..3 {
        let nodes: Vec<Value> = (0..700)
            .map(|i| {
                let n = batch * 700 + i;
                json!({"title": "Rent", "body": format!("The rent of flat {n} is {} dollars", 400 + n), "scope": B})
            })
            .collect();
        app.post("/nodes/batch?detect=false", json!({ "nodes": nodes }))
            .await
            .assert_status(StatusCode::CREATED);
    }

    // Act
    let r = app
        .post(
            "/nodes",
            json!({"title": "Rent", "body": "The rent is 1800 dollars", "scope": A}),
        )
        .await;

    // Assert
    r.assert_status(StatusCode::CREATED);
    let written = r.json();
    let olds: Vec<&Value> = written["conflicts"]
        .as_array()
        .map(|c| c.iter().map(|c| &c["old_node_id"]).collect())
        .unwrap_or_default();
    assert_eq!(olds, [&old["id"]], "{written}");
}

/// A conflict is filed under the scopes of its memories (what a key of one scope reads its
/// queue, wake feed and stats by, from an index that leads with scope). One queued by hand
/// between memories of A and B is seen by a key of both only; one of A by keys holding A.
async fn a_conflict_across_scopes_is_seen_only_by_a_key_of_both(app: TestApp) {
    // Arrange: reviewers of A, of B, of both and of `team-*`; a conflict in A, one across.
    let app = with_root(&app);
    let keys = [
        make_key(&app, "a-reviewer", "reviewer", &[A]).await,
        make_key(&app, "b-reviewer", "reviewer", &[B]).await,
        make_key(&app, "ab-reviewer", "reviewer", &[A, B]).await,
        make_key(&app, "team-reviewer", "reviewer", &["team-*"]).await,
    ];
    let (in_a, _, _) = pending_in(&app, A, A_CANARY).await;
    let old = node_in(&app, A, A_CANARY, "The port is 80").await;
    let new = node_in(&app, B, B_CANARY, "The port is 8080").await;
    let across = root(
        &app,
        Method::POST,
        "/conflicts",
        Some(json!({"old_node_id": old, "new_node_id": new})),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_owned();

    // Act: each key's queue, wake feed and stats, as sets of ids and a pending count.
    let mut seen = Vec::new();
    for key in &keys {
        let list = call(
            &app,
            Method::GET,
            "/conflicts?status=pending",
            Some(key),
            None,
        )
        .await;
        let wake = call(
            &app,
            Method::GET,
            "/conflicts/wake?wait=0&max=20",
            Some(key),
            None,
        )
        .await;
        let stats = call(&app, Method::GET, "/conflicts/stats", Some(key), None).await;
        let ids = |v: Value, field: &str| -> BTreeSet<String> {
            v[field]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["id"].as_str().unwrap().to_owned())
                .collect()
        };
        let listed = ids(list.json(), "items");
        assert_eq!(
            list.json()["pending_total"],
            json!(listed.len()),
            "{}",
            list.text
        );
        let woken = match wake.status {
            StatusCode::NO_CONTENT => BTreeSet::new(),
            _ => ids(wake.json(), "conflicts"),
        };
        assert_eq!(listed, woken, "the wake feed shows what the queue lists");
        let pending = stats.json()["pending"].as_u64().unwrap();
        assert_eq!(pending, listed.len() as u64, "{}", stats.text);
        seen.push(listed);
    }

    // Assert
    let set = |ids: &[&String]| ids.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(seen[0], set(&[&in_a]), "a key of A");
    assert_eq!(seen[1], set(&[]), "a key of B");
    assert_eq!(seen[2], set(&[&in_a, &across]), "a key of A and B");
    assert_eq!(seen[3], set(&[&in_a, &across]), "a key of team-*");
}
