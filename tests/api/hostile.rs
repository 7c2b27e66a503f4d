//! Hostile input: SQL-looking text, full-text operators, malformed ids and cursors, absurd
//! numbers, huge arrays, deep nesting and invalid UTF-8. Every case is a 4xx problem (or, for
//! text that is merely odd, a normal answer that treats it literally), never a 5xx, and the
//! service keeps working afterwards.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};

use crate::support::{Reply, TestApp};

/// A client error rendered as a problem, with the case named on failure.
#[track_caller]
fn assert_4xx(r: &Reply, case: &str) {
    assert!(
        r.status.is_client_error(),
        "{case}: expected a 4xx, got {}: {}",
        r.status,
        r.text
    );
    assert_eq!(
        r.headers["content-type"], "application/problem+json",
        "{case}: {}",
        r.text
    );
}

#[track_caller]
fn assert_not_5xx(r: &Reply, case: &str) {
    assert!(
        !r.status.is_server_error(),
        "{case}: server error {}: {}",
        r.status,
        r.text
    );
}

async fn raw_post(app: &TestApp, uri: &str, body: impl Into<Body>) -> Reply {
    let req = Request::post(uri)
        .header("content-type", "application/json")
        .body(body.into())
        .unwrap();
    app.send(req).await
}

const SQLISH: [&str; 6] = [
    "'; drop table nodes; --",
    "x' or '1'='1",
    "\"); delete from edges; --",
    "$1",
    "\\' union select * from nodes --",
    "%' or node_id like '%",
];

async fn sql_looking_text_is_stored_and_searched_literally(app: TestApp) {
    for text in SQLISH {
        // Arrange + Act: text in every free-form field, and as a label.
        let r = app
            .post(
                "/nodes?detect=false",
                json!({"title": text, "body": text, "source": text, "scope": text,
                       "labels": [text]}),
            )
            .await;

        // Assert: stored verbatim (labels are lowercased).
        r.assert_status(StatusCode::CREATED);
        let node = &r.json()["node"];
        assert_eq!(node["title"], text.trim());
        assert_eq!(node["body"], text);
        assert_eq!(node["source"], text);
        let enc = urlencode(text);
        for uri in [
            format!("/nodes?q={enc}"),
            format!("/nodes?label={enc}"),
            format!("/conflicts?label={enc}"),
            format!("/conflicts?conflict_type={enc}"),
        ] {
            let r = app.get(&uri).await;
            assert_not_5xx(&r, &uri);
        }
        let r = app
            .get(&format!("/nodes?label={}", urlencode(&text.to_lowercase())))
            .await;
        r.assert_status(StatusCode::OK);
        assert!(
            r.json()["items"]
                .as_array()
                .unwrap()
                .iter()
                .any(|n| n["id"] == node["id"]),
            "label filter {text:?} finds its node: {}",
            r.text
        );
    }
    // Every node is still there: nothing was executed.
    let all = app.get("/nodes?limit=200").await;
    all.assert_status(StatusCode::OK);
    assert_eq!(all.json()["items"].as_array().unwrap().len(), SQLISH.len());
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

async fn full_text_operators_and_unbalanced_syntax_never_fail(app: TestApp) {
    // Arrange
    app.node("Redis cache", "The cache is redis near the database")
        .await;
    let long = "redis ".repeat(3_000);
    let cases = [
        "\"",
        "\"\"",
        "'",
        "(",
        ")",
        "((",
        "NEAR(",
        "NEAR(redis cache",
        "NEAR(redis, 2)",
        "AND",
        "OR",
        "NOT",
        "redis AND",
        "NOT redis",
        "redis OR OR",
        "-redis",
        "+redis",
        "^redis",
        "redis*",
        "*",
        "title:redis",
        "search_tokens:redis",
        "{redis cache}",
        "redis:*",
        "redis & cache",
        "redis | cache",
        "!redis",
        "redis <-> cache",
        "redis:* & !",
        "\\",
        "%",
        "_",
        ";",
        "--",
        "/* */",
        "\u{0}",
        "\u{200b}",
        "🦀",
        "缓存 OR",
        long.as_str(),
    ];
    for q in cases {
        // Act
        let uri = format!("/nodes?q={}", urlencode(q));
        let r = app.get(&uri).await;

        // Assert: an answer (possibly empty, possibly 422 for an empty query), never a 5xx.
        assert_not_5xx(&r, &format!("q={q:?}"));
        if r.status.is_client_error() {
            assert_4xx(&r, &format!("q={q:?}"));
        }
    }
}

async fn malformed_ids_in_paths_and_bodies_are_client_errors(app: TestApp) {
    let node = app.node("Anchor", "a").await;
    let id = node["id"].as_str().unwrap().to_owned();
    for bad in [
        "not-a-uuid",
        "123",
        "%00",
        "%FF",
        "{01900000-0000-7000-8000-000000000000}",
        "01900000-0000-7000-8000-00000000000g",
        "..%2F..%2Fetc%2Fpasswd",
        "%27%20or%201%3D1",
    ] {
        for uri in [
            format!("/nodes/{bad}"),
            format!("/nodes/{bad}/edges"),
            format!("/conflicts/{bad}"),
        ] {
            let r = app.get(&uri).await;
            assert_4xx(&r, &uri);
        }
        let r = app
            .post(
                &format!("/conflicts/{bad}/resolve"),
                json!({"resolution": "keep_both"}),
            )
            .await;
        assert_4xx(&r, &format!("resolve {bad}"));
    }
    for body in [
        json!({"source_id": "x", "target_id": id, "kind": "about"}),
        json!({"source_id": id, "target_id": 42, "kind": "about"}),
        json!({"source_id": id, "target_id": null, "kind": "about"}),
        json!({"source_id": [id], "target_id": id, "kind": "about"}),
    ] {
        let r = app.post("/edges", body.clone()).await;
        assert_4xx(&r, &format!("edge {body}"));
    }
    for body in [
        json!({"old_node_id": "' or 1=1 --", "new_content": "x"}),
        json!({"old_node_id": id, "new_node_id": "nope"}),
        json!({"conflict_id": "nope", "resolution": "keep_both"}),
    ] {
        let uri = if body.get("conflict_id").is_some() {
            "/contradiction/resolve"
        } else {
            "/conflicts"
        };
        let r = app.post(uri, body.clone()).await;
        assert_4xx(&r, &format!("{uri} {body}"));
    }
}

async fn limits_and_cursors_out_of_range_or_forged_are_422(app: TestApp) {
    let node = app.node("Anchor", "a").await;
    let id = node["id"].as_str().unwrap();
    let long = "x".repeat(5_000);
    let forged = [
        "%%%",
        "AAAA",
        "eyJhIjoxfQ",
        "bm90IGEgY3Vyc29y",
        long.as_str(),
        "..",
        "%00",
        "%27%20or%201%3D1",
    ];
    let bases = [
        "/nodes".to_owned(),
        "/nodes?q=anchor".to_owned(),
        "/conflicts".to_owned(),
        "/reports".to_owned(),
        format!("/nodes/{id}/edges"),
    ];
    for base in &bases {
        let sep = if base.contains('?') { '&' } else { '?' };
        for limit in [
            "0",
            "201",
            "-1",
            "1e3",
            "1.5",
            "99999999999999999999999",
            "NaN",
            "",
        ] {
            let uri = format!("{base}{sep}limit={limit}");
            let r = app.get(&uri).await;
            assert_4xx(&r, &uri);
        }
        for cursor in forged {
            let uri = format!("{base}{sep}cursor={cursor}");
            let r = app.get(&uri).await;
            assert_4xx(&r, &uri);
        }
        for ok in ["1", "200"] {
            let uri = format!("{base}{sep}limit={ok}");
            app.get(&uri).await.assert_status(StatusCode::OK);
        }
    }
}

async fn absurd_numbers_huge_arrays_and_deep_nesting_are_client_errors(app: TestApp) {
    let cases: Vec<(&str, String)> = vec![
        (
            "confidence 1e400",
            r#"{"title":"t","confidence":1e400}"#.into(),
        ),
        (
            "confidence -1e400",
            r#"{"title":"t","confidence":-1e400}"#.into(),
        ),
        (
            "confidence NaN string",
            r#"{"title":"t","confidence":"NaN"}"#.into(),
        ),
        (
            "confidence Infinity",
            r#"{"title":"t","confidence":Infinity}"#.into(),
        ),
        (
            "confidence -0.5",
            r#"{"title":"t","confidence":-0.5}"#.into(),
        ),
        (
            "confidence 1.0000001",
            r#"{"title":"t","confidence":1.0000001}"#.into(),
        ),
        (
            "embedding 1e400",
            r#"{"title":"t","embedding":[1e400]}"#.into(),
        ),
        ("embedding NaN", r#"{"title":"t","embedding":[NaN]}"#.into()),
        ("embedding empty", r#"{"title":"t","embedding":[]}"#.into()),
        (
            "embedding of 9000",
            json!({"title": "t", "embedding": vec![0.5; 9000]}).to_string(),
        ),
        (
            "100k labels",
            json!({"title": "t", "labels": vec!["a"; 100_000]}).to_string(),
        ),
        (
            "33 labels",
            json!({"title": "t", "labels": (0..33).map(|i| i.to_string()).collect::<Vec<_>>()})
                .to_string(),
        ),
        (
            "label too long",
            json!({"title": "t", "labels": ["x".repeat(65)]}).to_string(),
        ),
        (
            "title too long",
            json!({"title": "x".repeat(501)}).to_string(),
        ),
        ("title blank", json!({"title": " \t\n "}).to_string()),
        ("title number", r#"{"title":12}"#.into()),
        ("title object", r#"{"title":{"$ne":null}}"#.into()),
        (
            "deep objects",
            format!(
                r#"{}"title":"t"{}"#,
                "{\"a\":".repeat(3_000),
                "}".repeat(3_000)
            ),
        ),
        (
            "observed_at garbage",
            r#"{"title":"t","observed_at":"yesterday"}"#.into(),
        ),
        (
            "observed_at year 99999",
            r#"{"title":"t","observed_at":"99999-01-01T00:00:00Z"}"#.into(),
        ),
        ("duplicate keys", r#"{"title":"t","title":"u"}"#.into()),
        ("top-level array", r#"[{"title":"t"}]"#.into()),
        ("top-level string", r#""title""#.into()),
        ("lone surrogate", r#"{"title":"\ud800"}"#.into()),
    ];
    for (case, body) in cases {
        let r = raw_post(&app, "/nodes?detect=false", body).await;
        assert_4xx(&r, case);
    }
    for (case, bytes) in [
        (
            "invalid UTF-8 in a string",
            b"{\"title\":\"\xff\xfe\"}".to_vec(),
        ),
        ("overlong UTF-8", b"{\"title\":\"\xc0\xaf\"}".to_vec()),
        (
            "UTF-16 body",
            "{\"title\":\"t\"}"
                .encode_utf16()
                .flat_map(u16::to_le_bytes)
                .collect(),
        ),
    ] {
        let r = raw_post(&app, "/nodes", bytes).await;
        assert_4xx(&r, case);
    }
    // Invalid UTF-8 in the query string and in the path.
    for uri in ["/nodes?q=%FF%FE", "/nodes?label=%C0%AF", "/nodes/%FF"] {
        let r = app.get(uri).await;
        assert_4xx(&r, uri);
    }
    // Still serving, and nothing was written.
    let r = app.get("/nodes").await;
    r.assert_status(StatusCode::OK);
    assert_eq!(r.json()["items"], Value::Array(vec![]));
    // Nesting inside an unknown field is refused without recursion (serde_json skips values
    // iteratively): a client error, even a million levels deep, and the process survives it.
    let depth = 1_000_000;
    let deep = format!(
        r#"{{"title":"t","x":{}1{}}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let r = raw_post(&app, "/nodes?detect=false", deep).await;
    assert_not_5xx(&r, "a million levels in an unknown field");
    app.get("/healthz").await.assert_status(StatusCode::OK);
}

crate::on_both_databases!(
    sql_looking_text_is_stored_and_searched_literally,
    full_text_operators_and_unbalanced_syntax_never_fail,
    malformed_ids_in_paths_and_bodies_are_client_errors,
    limits_and_cursors_out_of_range_or_forged_are_422,
    absurd_numbers_huge_arrays_and_deep_nesting_are_client_errors,
    every_response_forbids_content_sniffing,
    without_keys_a_foreign_host_is_refused_on_rest_and_mcp,
    with_keys_any_host_is_served,
);

async fn every_response_forbids_content_sniffing(app: TestApp) {
    let node = app.node("Sniff", "A memory").await;
    let replies = [
        app.get("/nodes").await,
        app.get(&format!("/nodes/{}", node["id"].as_str().unwrap()))
            .await,
        app.get("/no-such-route").await,
        app.post("/nodes", json!({"title": ""})).await,
        app.get("/healthz").await,
        app.get("/openapi.json").await,
    ];
    for r in &replies {
        assert_eq!(
            r.headers
                .get("x-content-type-options")
                .map(|v| v.to_str().unwrap()),
            Some("nosniff"),
            "{} {}",
            r.status,
            r.text
        );
    }
}

/// A request to `uri` with these headers (an MCP `initialize` when it is `/mcp`).
async fn with_headers(app: &TestApp, method: &str, uri: &str, headers: &[(&str, &str)]) -> Reply {
    let mut req = Request::builder().method(method).uri(uri);
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    let body = if uri == "/mcp" {
        req = req
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}})
        .to_string()
    } else if method == "POST" {
        req = req.header("content-type", "application/json");
        json!({"title": "rebound"}).to_string()
    } else {
        String::new()
    };
    app.send(req.body(Body::from(body)).unwrap()).await
}

async fn without_keys_a_foreign_host_is_refused_on_rest_and_mcp(app: TestApp) {
    // Arrange: a key-less service bound to 127.0.0.1:8080, also known as memory.local.
    let mut settings = concord::config::Settings::for_database("sqlite://test");
    settings.bind = "127.0.0.1:8080".parse().unwrap();
    settings.allowed_hosts = vec!["memory.local".into()];
    let app = app.reconfigured(settings);
    let rebound = [
        ("host", "evil.example:8080"),
        ("origin", "http://evil.example:8080"),
    ];

    // Act + Assert: a page rebinding evil.example to loopback reads and writes nothing.
    for (method, uri) in [("GET", "/nodes"), ("POST", "/nodes"), ("POST", "/mcp")] {
        let r = with_headers(&app, method, uri, &rebound).await;
        let body = r.assert_problem(StatusCode::MISDIRECTED_REQUEST, "/problems/foreign-host");
        assert!(body["detail"].as_str().unwrap().contains("evil.example"));
    }
    for host in ["localhost:8081", "127.0.0.1", "127.0.0.1.nip.io:8080"] {
        with_headers(&app, "GET", "/nodes", &[("host", host)])
            .await
            .assert_problem(StatusCode::MISDIRECTED_REQUEST, "/problems/foreign-host");
    }
    assert_eq!(app.get("/nodes").await.json()["items"], json!([]));
    // The service's own names are served, on REST and MCP alike.
    for host in [
        "127.0.0.1:8080",
        "localhost:8080",
        "[::1]:8080",
        "memory.local",
    ] {
        with_headers(&app, "GET", "/nodes", &[("host", host)])
            .await
            .assert_status(StatusCode::OK);
        with_headers(&app, "POST", "/mcp", &[("host", host)])
            .await
            .assert_status(StatusCode::OK);
    }
    // An https page on the same host and port is another origin than this http server.
    with_headers(
        &app,
        "POST",
        "/mcp",
        &[
            ("host", "127.0.0.1:8080"),
            ("origin", "https://127.0.0.1:8080"),
        ],
    )
    .await
    .assert_problem(StatusCode::FORBIDDEN, "/problems/foreign-origin");
    with_headers(
        &app,
        "POST",
        "/mcp",
        &[
            ("host", "127.0.0.1:8080"),
            ("origin", "http://127.0.0.1:8080"),
        ],
    )
    .await
    .assert_status(StatusCode::OK);
}

async fn with_keys_any_host_is_served(app: TestApp) {
    let mut settings = concord::config::Settings::for_database("sqlite://test");
    settings.bind = "0.0.0.0:8080".parse().unwrap();
    settings.api_keys = vec![concord::config::Secret("k1".into())];
    let app = app.reconfigured(settings);
    let headers = [
        ("host", "memory.example.com"),
        ("authorization", "Bearer k1"),
    ];
    with_headers(&app, "GET", "/nodes", &headers)
        .await
        .assert_status(StatusCode::OK);
    with_headers(&app, "POST", "/nodes", &headers)
        .await
        .assert_status(StatusCode::CREATED);
    with_headers(&app, "POST", "/mcp", &headers)
        .await
        .assert_status(StatusCode::OK);
}
