//! Detection's verdict does not depend on how many memories the store holds (issue 33).
//!
//! Ten numeric keys of many services are stored as "The <key> for service N is V units.",
//! each titled "<key> of service N"; then every key of service 0 is updated in one of ten
//! shapes agents write ("Actually, the cache ttl for service 0 is now 7001 units.", "…
//! changed to …", "Correction: … not …", …). At 10, 100, 300, 2,000 and 100,000 stored
//! memories each update contradicts its own service's fact of the same key and nothing else
//! (not the service's other keys, not the same key of other services), and a fact of a new
//! service or of a new key contradicts nothing.
//!
//! The stored memories are written through the library's store (`Store::create_node`, as
//! the bench's preload does), so each node's search tokens and postings are those a write
//! keeps. Then a freshly started service fills its analysis memo from the store
//! (`service::warmup::fill`) and receives the updates over HTTP, as a server restarted on
//! that database would.

use std::sync::Arc;
use std::time::Instant;

use axum::http::StatusCode;
use serde_json::{Value, json};
use uuid::Uuid;

use concord::AppState;
use concord::config::Settings;
use concord::domain::node::{NewNode, NodeInput};
use concord::domain::time;
use concord::service::warmup;
use concord::store::Store;

use crate::support::TestApp;

crate::on_both_databases!(
    templated_updates_among_10_memories,
    templated_updates_among_100_memories,
    templated_updates_among_300_memories,
    templated_updates_among_2_000_memories,
    templated_updates_among_100_000_memories,
);

async fn templated_updates_among_10_memories(app: TestApp) {
    updates_among(app, 10, 0).await;
}

async fn templated_updates_among_100_memories(app: TestApp) {
    updates_among(app, 100, 1).await;
}

async fn templated_updates_among_300_memories(app: TestApp) {
    updates_among(app, 300, 2).await;
}

async fn templated_updates_among_2_000_memories(app: TestApp) {
    updates_among(app, 2_000, 3).await;
}

async fn templated_updates_among_100_000_memories(app: TestApp) {
    updates_among(app, 100_000, 4).await;
}

/// Keys whose values are amounts; neighbours share a word ("retry limit", "rate limit";
/// "pool size", "batch size").
const KEYS: [&str; 10] = [
    "cache ttl",
    "build timeout",
    "retry limit",
    "pool size",
    "batch size",
    "rate limit",
    "queue depth",
    "worker count",
    "memory cap",
    "disk quota",
];

/// A key no service has a fact of.
const NEW_KEY: &str = "flush interval";

/// A service with no stored facts.
const NEW_SERVICE: usize = 999_999;

/// How many update shapes [`update_body`] knows.
const SHAPES: usize = 10;

fn title(key: &str, service: usize) -> String {
    format!("{key} of service {service}")
}

/// The stored value of a key of a service: below 1,000, never an update's value.
fn stored_value(service: usize, key: usize) -> usize {
    100 + (service * 7 + key * 31) % 800
}

/// The value an update of a key of service 0 gives it.
fn updated_value(key: usize) -> usize {
    7_001 + key
}

fn stored_body(key: &str, service: usize, value: usize) -> String {
    format!("The {key} for service {service} is {value} units.")
}

/// Update `shape` of `key` of `service`, from `old` to `new` (a rise, as some shapes say).
fn update_body(shape: usize, key: &str, service: usize, old: usize, new: usize) -> String {
    match shape {
        0 => format!("Actually, the {key} for service {service} is now {new} units."),
        1 => format!("The {key} of service {service} changed to {new} units."),
        2 => format!("Update: service {service} {key} is {new} units now."),
        3 => format!(
            "{} for service {service}: {new} units (was {old}).",
            capital(key)
        ),
        4 => format!("We raised the {key} for service {service} to {new} units."),
        5 => format!("Service {service}'s {key} went up to {new} units."),
        6 => format!("The {key} for service {service} was increased to {new} units."),
        7 => format!("As of today the {key} for service {service} is {new} units."),
        8 => format!("Correction: the {key} for service {service} is {new} units, not {old}."),
        9 => format!("From now on the {key} for service {service} is {new} units."),
        _ => unreachable!("{SHAPES} shapes"),
    }
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// Stores `size` facts (`size / 10` services of ten keys each), restarts the service on the
/// store, and writes an update of each key of service 0 (shapes rotated by `turn`, so each
/// size pairs keys and shapes differently), then a fact of a new service and one of a new key.
async fn updates_among(app: TestApp, size: usize, turn: usize) {
    // Arrange
    let started = Instant::now();
    let own = preload(&app.store, size).await;
    let preloaded = started.elapsed();
    let url = format!("{}://test", app.store.backend());
    let state = AppState::new(app.store.clone(), Settings::for_database(&url));
    let warmed = warmup::fill(state.store.as_ref(), state.detector.analyses())
        .await
        .expect("analyses loaded");
    assert!(
        warmed.full || warmed.analysed == size,
        "every stored memory's analysis is kept: {warmed:?}"
    );
    let server = TestApp::of_state(state);
    let warm = started.elapsed() - preloaded;

    // Act and assert
    let mut failures = Vec::new();
    for (k, key) in KEYS.iter().enumerate() {
        let shape = (k + turn) % SHAPES;
        let body = update_body(shape, key, 0, stored_value(0, k), updated_value(k));
        let reply = write(&server, json!({"title": title(key, 0), "body": body})).await;
        let hits = conflicts(&reply);
        let own_only = hits.len() == 1 && hits[0]["old_node_id"] == json!(own[k].to_string());
        if !own_only {
            failures.push(format!(
                "shape {shape} \"{body}\": {} conflict(s), expected one with \"{}\"; {}",
                hits.len(),
                stored_body(key, 0, stored_value(0, k)),
                explained(&server, &hits, key, 0).await
            ));
        }
    }
    for (what, key, service) in [
        ("a new service", KEYS[0], NEW_SERVICE),
        ("a new key", NEW_KEY, 0),
    ] {
        let body = stored_body(key, service, 250);
        let reply = write(&server, json!({"title": title(key, service), "body": body})).await;
        let hits = conflicts(&reply);
        if !hits.is_empty() {
            failures.push(format!(
                "{what} \"{body}\": {} conflict(s), expected none; {}",
                hits.len(),
                explained(&server, &hits, key, service).await
            ));
        }
    }
    let pending = server.get("/conflicts/stats").await.json()["pending"].clone();
    eprintln!(
        "{} at {size}: preload {:.1} s, analyses {:.1} s, writes {:.1} s",
        app.store.backend(),
        preloaded.as_secs_f64(),
        warm.as_secs_f64(),
        (started.elapsed() - preloaded - warm).as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} of {} writes among {size} memories on {} judged wrongly:\n{}",
        failures.len(),
        KEYS.len() + 2,
        app.store.backend(),
        failures.join("\n")
    );
    assert_eq!(pending, json!(KEYS.len()), "one conflict per update write");
}

/// Memories written per transaction by [`preload`].
const BATCH: usize = 2_000;

/// Writes `size` facts through the store in a few large transactions
/// (`Store::create_nodes`), service 0's ten first (the oldest, so the furthest from the
/// newest-first walks of the candidate search). Returns service 0's node ids by key.
async fn preload(store: &Arc<dyn Store>, size: usize) -> Vec<Uuid> {
    assert_eq!(size % KEYS.len(), 0);
    let mut own = Vec::with_capacity(KEYS.len());
    let mut batch = Vec::with_capacity(BATCH);
    for i in 0..size {
        let node = fact(i / KEYS.len(), i % KEYS.len());
        if i < KEYS.len() {
            own.push(node.id);
        }
        batch.push(node);
        if batch.len() == BATCH || i + 1 == size {
            let nodes = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
            store.create_nodes(nodes).await.expect("stored facts");
        }
    }
    own
}

/// The fact of `key` of `service`, as `POST /nodes` would take it.
fn fact(service: usize, key: usize) -> NewNode {
    let input = NodeInput {
        title: Some(title(KEYS[key], service)),
        body: Some(stored_body(KEYS[key], service, stored_value(service, key))),
        ..NodeInput::default()
    };
    NewNode::parse(input, time::now()).expect("a valid node")
}

async fn write(app: &TestApp, body: Value) -> Value {
    let r = app.post("/nodes", body).await;
    r.assert_status(StatusCode::CREATED);
    r.json()
}

fn conflicts(reply: &Value) -> Vec<Value> {
    reply
        .get("conflicts")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// How many conflicts a failure lists in full.
const SHOWN: usize = 12;

/// The conflicts of a write, counted by what their stored memory is (by its title,
/// "<key> of service N"), then the first [`SHOWN`] with the detection's explanation.
async fn explained(app: &TestApp, hits: &[Value], key: &str, service: usize) -> String {
    let (mut own, mut same_service, mut same_key, mut other) = (0, 0, 0, 0);
    let mut lines = Vec::new();
    for (i, hit) in hits.iter().enumerate() {
        let old = hit["old_node_id"].as_str().unwrap_or_default();
        let node = app.get(&format!("/nodes/{old}")).await.json();
        let old_title = node["title"].as_str().unwrap_or_default();
        if old_title == title(key, service) {
            own += 1;
        } else if old_title.ends_with(&format!(" of service {service}")) {
            same_service += 1;
        } else if old_title.starts_with(&format!("{key} of service ")) {
            same_key += 1;
        } else {
            other += 1;
        }
        if i < SHOWN {
            let id = hit["conflict_id"].as_str().unwrap_or_default();
            let conflict = app.get(&format!("/conflicts/{id}")).await.json();
            lines.push(format!(
                "\n    against \"{}\" ({}, {}): {}",
                node["body"].as_str().unwrap_or_default(),
                hit["conflict_type"],
                hit["signals"],
                conflict["detection"]["explanation"]
            ));
        }
    }
    if hits.len() > SHOWN {
        lines.push(format!("\n    … and {} more", hits.len() - SHOWN));
    }
    format!(
        "{own} against the same key of the same service, {same_service} against another key \
         of the same service, {same_key} against the same key of another service, {other} \
         other{}",
        lines.concat()
    )
}
