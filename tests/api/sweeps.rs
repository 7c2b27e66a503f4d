//! `/sweeps`: the contradictions already stored are found as writes with detection would have
//! found them, none is queued twice, and a sweep can be followed, filtered and cancelled.

use std::time::{Duration, Instant};

use axum::http::{Method, StatusCode};
use concord::config::{DetectionArgs, Settings};
use concord::domain::policy::{Format, RuleSet};
use serde_json::{Value, json};

use crate::events::read_events;
use crate::support::TestApp;

crate::on_both_databases!(
    a_sweep_queues_what_writes_with_detection_would_have_queued,
    a_sweep_of_one_scope_compares_only_its_memories,
    a_sweep_passes_over_pairs_a_reviewer_decided,
    one_sweep_runs_at_a_time_and_a_cancelled_one_stops,
    a_sweep_is_announced_on_the_event_stream,
    bad_sweep_requests_are_refused_and_start_nothing,
    a_policy_resolves_what_a_sweep_finds_as_it_would_at_write_time,
    a_sweep_quarantines_a_stored_weak_claim_as_a_write_would,
);

fn sweeping(app: &TestApp) -> TestApp {
    app.with_sweeper(Settings::for_database(&format!(
        "{}://test",
        app.store.backend()
    )))
}

/// About 2,000 memories as agents write them: settings of 200 services, each stated two or
/// three times with different values, and a few people's employers and rents that change.
fn memories() -> Vec<Value> {
    let areas = [
        "ledger", "billing", "search", "auth", "cart", "mail", "feed", "media", "report", "audit",
        "pricing", "stock", "refund", "invoice", "promo", "survey", "chat", "upload", "export",
        "geo",
    ];
    let parts = [
        "api", "worker", "cache", "gateway", "database", "queue", "cron", "proxy", "index", "store",
    ];
    let keys = ["timeout", "pool size", "retry limit", "port"];
    let mut out: Vec<Value> = (0..1960usize)
        .map(|i| {
            let service = format!("{} {}", areas[i % 20], parts[i / 20 % 10]);
            let key = keys[i / 200 % 4];
            let value = [5, 10, 30, 60, 8080, 90, 120][(i / 800 + i * 3) % 7];
            json!({
                "title": format!("{service} {key}"),
                "body": format!("The {key} of the {service} service is {value}"),
            })
        })
        .collect();
    let people = ["Alice", "Bruno", "Chen", "Dana", "Emeka"];
    let employers = [
        ("Initech", "Globex"),
        ("Umbrella", "Hooli"),
        ("Acme", "Vandelay"),
    ];
    for (i, p) in people.iter().enumerate() {
        let (from, to) = employers[i % 3];
        out.insert(
            i * 300,
            json!({"title": format!("{p}'s employer"),
            "body": format!("{p} works at {from} as an engineer.")}),
        );
        out.insert(
            i * 300 + 150,
            json!({"title": format!("{p}'s employer"),
            "body": format!("{p} left {from} and joined {to}.")}),
        );
        out.insert(
            i * 300 + 50,
            json!({"title": format!("{p}'s rent"),
            "body": format!("{p}'s rent is {} a month.", 1000 + 100 * i)}),
        );
        out.insert(
            i * 300 + 250,
            json!({"title": format!("{p}'s rent"),
            "body": format!("{p}'s rent went up to {}.", 1500 + 100 * i)}),
        );
    }
    out
}

/// `memories` in scope `scope`, written in batches with detection or without; their ids.
async fn write_all(app: &TestApp, memories: &[Value], scope: &str, detect: bool) -> Vec<String> {
    let mut ids = Vec::new();
    for chunk in memories.chunks(500) {
        let nodes: Vec<Value> = (chunk.iter())
            .map(|m| {
                let mut m = m.clone();
                m["scope"] = json!(scope);
                m
            })
            .collect();
        let r = app
            .post(
                &format!("/nodes/batch?detect={detect}"),
                json!({"nodes": nodes}),
            )
            .await;
        r.assert_status(StatusCode::CREATED);
        ids.extend(
            (r.json()["nodes"].as_array().unwrap().iter())
                .map(|n| n["node"]["id"].as_str().unwrap().to_owned()),
        );
    }
    ids
}

/// Every conflict (any status) as (old's index, new's index, type) among `ids`, sorted.
async fn conflict_pairs(app: &TestApp, ids: &[String]) -> Vec<(usize, usize, String)> {
    let index: std::collections::HashMap<&str, usize> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    let mut pairs = Vec::new();
    let mut uri = "/conflicts?status=all&limit=200".to_owned();
    loop {
        let r = app.get(&uri).await;
        r.assert_status(StatusCode::OK);
        let page = r.json();
        for c in page["items"].as_array().unwrap() {
            let (Some(old), Some(new)) = (
                c["old_node"]["id"].as_str().and_then(|id| index.get(id)),
                c["new_node"]["id"].as_str().and_then(|id| index.get(id)),
            ) else {
                continue;
            };
            pairs.push((*old, *new, c["conflict_type"].as_str().unwrap().to_owned()));
        }
        match page["next_cursor"].as_str() {
            Some(c) => uri = format!("/conflicts?status=all&limit=200&cursor={c}"),
            None => break,
        }
    }
    pairs.sort();
    pairs
}

/// Starts a sweep with `body`; its JSON.
async fn start(app: &TestApp, body: Value) -> Value {
    let r = app.post("/sweeps", body).await;
    r.assert_status(StatusCode::ACCEPTED);
    let s = r.json();
    assert_eq!(
        r.headers["location"].to_str().unwrap(),
        format!("/sweeps/{}", s["id"].as_str().unwrap())
    );
    s
}

/// The sweep once it ended (within two minutes).
async fn ended(app: &TestApp, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let r = app.get(&format!("/sweeps/{id}")).await;
        r.assert_status(StatusCode::OK);
        let s = r.json();
        if s["status"] != "running" {
            return s;
        }
        assert!(Instant::now() < deadline, "the sweep is still running: {s}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn a_sweep_queues_what_writes_with_detection_would_have_queued(app: TestApp) {
    // Arrange: the same memories written with detection in one scope and without it in
    // another.
    let app = sweeping(&app);
    let memories = memories();
    let detected = write_all(&app, &memories, "written", true).await;
    let undetected = write_all(&app, &memories, "swept", false).await;
    let expected = conflict_pairs(&app, &detected).await;
    assert!(expected.len() > 500, "the memories hold contradictions");
    assert!(conflict_pairs(&app, &undetected).await.is_empty());

    // Act
    let started = start(&app, json!({})).await;
    let done = ended(&app, started["id"].as_str().unwrap()).await;

    // Assert: what writing them with detection queued, and nothing again where it had.
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(done["total"], json!(2 * memories.len()), "{done}");
    assert_eq!(done["compared"], done["total"], "{done}");
    let found = conflict_pairs(&app, &undetected).await;
    assert_eq!(found.len(), expected.len());
    assert_eq!(found, expected);
    assert_eq!(done["conflicts_queued"], json!(expected.len()), "{done}");
    assert_eq!(conflict_pairs(&app, &detected).await, expected);
    let again = start(&app, json!({})).await;
    let again = ended(&app, again["id"].as_str().unwrap()).await;
    assert_eq!(
        (again["status"].as_str(), again["conflicts_queued"].as_i64()),
        (Some("done"), Some(0)),
        "a second sweep queues no pair twice: {again}"
    );
}

async fn a_sweep_of_one_scope_compares_only_its_memories(app: TestApp) {
    // Arrange
    let app = sweeping(&app);
    for scope in ["a", "b"] {
        for body in ["The cache TTL is 30 seconds", "The cache TTL is 90 seconds"] {
            let r = app
                .post(
                    "/nodes?detect=false",
                    json!({"title": "Cache TTL", "body": body, "scope": scope}),
                )
                .await;
            r.assert_status(StatusCode::CREATED);
        }
    }

    // Act
    let started = start(&app, json!({"scope": " a "})).await;
    let done = ended(&app, started["id"].as_str().unwrap()).await;

    // Assert
    assert_eq!(done["scope"], "a");
    assert_eq!(
        (done["total"].as_i64(), done["conflicts_queued"].as_i64()),
        (Some(2), Some(1)),
        "{done}"
    );
    let queued = app.get("/conflicts?status=pending").await.json();
    let items = queued["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{queued}");
    assert_eq!(items[0]["old_node"]["scope"], "a");
    assert_eq!(items[0]["old_node"]["body"], "The cache TTL is 30 seconds");
    assert_eq!(items[0]["new_node"]["body"], "The cache TTL is 90 seconds");
    start(&app, json!({"label": "none"})).await;
    let listed = app.get("/sweeps?limit=1").await.json();
    assert_eq!(listed["items"].as_array().unwrap().len(), 1, "{listed}");
    let all = app.get("/sweeps").await.json();
    assert_eq!(all["items"][1]["id"], started["id"], "newest first: {all}");
}

async fn a_sweep_passes_over_pairs_a_reviewer_decided(app: TestApp) {
    // Arrange: a pair queued at write time and kept both by a reviewer, and a pair written
    // without detection.
    let app = sweeping(&app);
    let mut ids = Vec::new();
    for (title, body, detect) in [
        ("Cache TTL", "The cache TTL is 30 seconds", true),
        ("Cache TTL", "The cache TTL is 90 seconds", true),
        ("Retry limit", "The retry limit is 3 attempts", false),
        ("Retry limit", "The retry limit is 7 attempts", false),
    ] {
        let r = app
            .post(
                &format!("/nodes?detect={detect}"),
                json!({"title": title, "body": body}),
            )
            .await;
        r.assert_status(StatusCode::CREATED);
        ids.push(r.json()["node"]["id"].as_str().unwrap().to_owned());
    }
    let decided = app.get("/conflicts?status=pending").await.json();
    let decided = decided["items"][0]["id"].as_str().unwrap().to_owned();
    app.post(
        &format!("/conflicts/{decided}/resolve"),
        json!({"resolution": "keep_both"}),
    )
    .await
    .assert_status(StatusCode::OK);

    // Act
    let started = start(&app, json!({})).await;
    let done = ended(&app, started["id"].as_str().unwrap()).await;

    // Assert: only the undecided pair is queued.
    assert_eq!(
        (done["compared"].as_i64(), done["conflicts_queued"].as_i64()),
        (Some(4), Some(1)),
        "{done}"
    );
    let pending = app.get("/conflicts?status=pending").await.json();
    let items = pending["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{pending}");
    assert_eq!(items[0]["old_node"]["id"], ids[2].as_str());
    assert_eq!(items[0]["new_node"]["id"], ids[3].as_str());
    let resolved = app.get("/conflicts?status=resolved").await.json();
    assert_eq!(resolved["items"].as_array().unwrap().len(), 1, "{resolved}");
    assert_eq!(resolved["items"][0]["id"], decided.as_str());
}

async fn one_sweep_runs_at_a_time_and_a_cancelled_one_stops(app: TestApp) {
    // Arrange: no sweeper runs, so the sweep stays where it started.
    write_all(&app, &memories()[..50], "default", false).await;
    let first = start(&app, json!({})).await;
    let id = first["id"].as_str().unwrap();
    assert_eq!(first["status"], "running");
    assert_eq!(first["compared"], 0);

    // Act
    let second = app.post("/sweeps", json!({"label": "other"})).await;
    let cancelled = app.delete(&format!("/sweeps/{id}")).await;
    let again = app.delete(&format!("/sweeps/{id}")).await;
    let third = app.request(Method::POST, "/sweeps", None).await;

    // Assert
    let problem = second.assert_problem(StatusCode::CONFLICT, "/problems/sweep-running");
    assert_eq!(problem["sweep_id"], first["id"]);
    cancelled.assert_status(StatusCode::OK);
    assert_eq!(cancelled.json()["status"], "cancelled");
    assert!(cancelled.json()["finished_at"].is_string());
    again.assert_status(StatusCode::OK);
    assert_eq!(again.json()["finished_at"], cancelled.json()["finished_at"]);
    third.assert_status(StatusCode::ACCEPTED);
    assert_eq!(third.json()["total"], 50, "no body sweeps everything");
    // The runner of a cancelled sweep records nothing more.
    let s = app.get(&format!("/sweeps/{id}")).await.json();
    assert_eq!(
        (s["status"].as_str(), s["compared"].as_i64()),
        (Some("cancelled"), Some(0))
    );
}

async fn a_sweep_is_announced_on_the_event_stream(app: TestApp) {
    // Arrange
    let app = sweeping(&app);
    for body in ["We deploy with Docker", "We no longer deploy with Docker"] {
        app.node("Deploy", body).await;
    }

    // Act
    let events = read_events(&app, None, 3, async {
        start(&app, json!({})).await;
    })
    .await;

    // Assert
    let kinds: Vec<&str> = events.iter().map(|(_, kind, _)| kind.as_str()).collect();
    assert_eq!(
        kinds,
        ["sweep.started", "conflict.created", "sweep.done"],
        "{events:?}"
    );
    let sweep = &events[0].2["sweep_id"];
    assert!(sweep.is_string() && events[0].2.get("conflict_id").is_none());
    assert_eq!(&events[2].2["sweep_id"], sweep);
    assert!(events[1].2["conflict_id"].is_string());
}

async fn a_policy_resolves_what_a_sweep_finds_as_it_would_at_write_time(app: TestApp) {
    // Arrange: a rule that lets the newer number win; the same four values written with
    // detection in one scope and without it in another.
    let rules = "[[rules]]\nname = \"newer-number-wins\"\naction = \"new_is_current\"\n\
                 [rules.match]\nconflict_types = [\"numeric-mismatch\"]\n";
    let app = app.with_sweeper(Settings {
        detection: DetectionArgs {
            policies: Some(RuleSet::parse(rules, Format::Toml).expect("valid rules")),
            ..DetectionArgs::default()
        },
        ..Settings::for_database(&format!("{}://test", app.store.backend()))
    });
    for (scope, detect) in [("written", true), ("swept", false)] {
        for v in [30, 60, 90, 120] {
            let body = json!({"title": "cache ttl", "body": format!("The cache TTL is {v} seconds."), "scope": scope});
            let r = app.post(&format!("/nodes?detect={detect}"), body).await;
            r.assert_status(StatusCode::CREATED);
        }
    }

    // Act
    let started = start(&app, json!({"scope": "swept"})).await;
    let done = ended(&app, started["id"].as_str().unwrap()).await;

    // Assert: the same memories current, through the same resolutions.
    assert_eq!(done["status"], "done", "{done}");
    let nodes = app.get("/nodes?state=active&limit=50").await.json();
    let active = |scope: &str| -> Vec<String> {
        (nodes["items"].as_array().unwrap().iter())
            .filter(|n| n["scope"] == scope)
            .map(|n| n["body"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(active("swept"), active("written"));
    assert_eq!(active("swept"), ["The cache TTL is 120 seconds."]);
    let resolved = app.get("/conflicts?status=resolved&limit=50").await.json();
    let by_policy = |scope: &str| {
        (resolved["items"].as_array().unwrap().iter())
            .filter(|c| {
                c["old_node"]["scope"] == scope && c["resolved_by"] == "policy:newer-number-wins"
            })
            .count()
    };
    assert_eq!(
        (by_policy("written"), by_policy("swept")),
        (3, 3),
        "{resolved}"
    );
    assert_eq!(done["conflicts_queued"], 3);
}

async fn a_sweep_quarantines_a_stored_weak_claim_as_a_write_would(app: TestApp) {
    // Arrange: a signed fact and a rumour against it, stored without detection.
    let rules = "[[rules]]\nname = \"weak-claim-waits\"\naction = \"quarantine\"\n\
                 [rules.match.new]\nmax_evidence = 0.35\n";
    let app = app.with_sweeper(Settings {
        detection: DetectionArgs {
            policies: Some(RuleSet::parse(rules, Format::Toml).expect("valid rules")),
            ..DetectionArgs::default()
        },
        ..Settings::for_database(&format!("{}://test", app.store.backend()))
    });
    let mut ids = Vec::new();
    for (body, source) in [
        (
            "Per the signed prescription, the dose is 5 mg daily.",
            "signed:dr-lee",
        ),
        ("Unverified message: the dose is 50 mg daily.", "anonymous"),
    ] {
        let r = app
            .post(
                "/nodes?detect=false",
                json!({"title": "Dose", "body": body, "source": source}),
            )
            .await;
        r.assert_status(StatusCode::CREATED);
        ids.push(r.json()["node"]["id"].as_str().unwrap().to_owned());
    }

    // Act
    let started = start(&app, json!({})).await;
    let done = ended(&app, started["id"].as_str().unwrap()).await;

    // Assert
    assert_eq!(done["conflicts_queued"], 1, "{done}");
    let state = |id: &str| format!("/nodes/{id}");
    assert_eq!(app.get(&state(&ids[0])).await.json()["state"], "active");
    let rumour = app.get(&state(&ids[1])).await.json();
    assert_eq!(rumour["state"], "quarantined", "{rumour}");
    assert_eq!(rumour["conflict_ids"].as_array().map(Vec::len), Some(1));
}

async fn bad_sweep_requests_are_refused_and_start_nothing(app: TestApp) {
    // Act
    let bad = app
        .post(
            "/sweeps",
            json!({"scope": "", "since": "last week", "label": "x\u{0}"}),
        )
        .await;
    let unknown = app.post("/sweeps", json!({"scopes": ["a"]})).await;
    let missing = app
        .get("/sweeps/0190a0b1-0000-7000-8000-000000000000")
        .await;
    let not_an_id = app.get("/sweeps/nope").await;
    let bad_limit = app.get("/sweeps?limit=0").await;

    // Assert
    assert_eq!(bad.pointers(), ["/scope", "/label", "/since"]);
    unknown.assert_problem(StatusCode::UNPROCESSABLE_ENTITY, "/problems/validation");
    missing.assert_problem(StatusCode::NOT_FOUND, "/problems/not-found");
    assert!(not_an_id.status.is_client_error());
    assert_eq!(bad_limit.pointers(), ["/limit"]);
    let listed = app.get("/sweeps").await.json();
    assert_eq!(listed["items"], json!([]));
}
