//! Property: whatever Unicode a client puts in any text field (U+0000, lone combining marks,
//! bidi controls, 4-byte characters, long runs) and whatever timestamp (year 0000 and 9999,
//! offsets of up to ±23:59), a write either succeeds and reads back equal, or is a 4xx
//! problem and writes nothing, on both databases. Cases come from proptest strategies with a
//! fixed seed (`PROPTEST_CASES` sets how many; default 96), and a failure prints its case.

use axum::http::StatusCode;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use serde_json::{Value, json};

use concord::domain::time;

use crate::support::{Reply, TestApp};

crate::on_both_databases!(
    node_writes_succeed_and_read_back_equal_or_are_4xx_and_write_nothing,
    conflict_and_resolution_texts_succeed_or_are_4xx_and_write_nothing,
);

/// Characters that break naive text handling, mixed with ordinary ones.
fn hostile_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => proptest::char::range(' ', '~'),
        1 => Just('\u{0}'),
        1 => proptest::char::range('\u{300}', '\u{36f}'),
        1 => prop::sample::select(vec![
            '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}', '\u{202e}',
            '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}', '\u{feff}', '\u{200b}',
        ]),
        1 => proptest::char::range('\u{1f300}', '\u{1faff}'),
        1 => prop::sample::select(vec!['\t', '\n', '\r', '\u{a0}', '\u{3000}', '\u{85}']),
        2 => any::<char>(),
    ]
}

/// Short hostile text, or a long run of one character.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::collection::vec(hostile_char(), 0..24).prop_map(|c| c.into_iter().collect()),
        1 => (hostile_char(), 100usize..3_000).prop_map(|(c, n)| c.to_string().repeat(n)),
    ]
}

/// RFC 3339 timestamps at the edges of the representable range, and a few that are not.
fn timestamp() -> impl Strategy<Value = String> {
    let stamp = (
        prop::sample::select(vec![0u32, 1, 1969, 1970, 2026, 9998, 9999]),
        prop::sample::select(vec![(1u32, 1u32), (12, 31), (2, 28), (6, 15)]),
        (0u32..24, 0u32..60, 0u32..60),
        prop::sample::select(vec!["", ".999", ".000001", ".5"]),
        prop_oneof![
            Just("Z".to_owned()),
            Just("+00:00".to_owned()),
            Just("-00:00".to_owned()),
            (0u32..24, 0u32..60, any::<bool>()).prop_map(|(h, m, minus)| {
                format!("{}{h:02}:{m:02}", if minus { '-' } else { '+' })
            }),
        ],
    )
        .prop_map(|(y, (mo, d), (h, mi, s), frac, off)| {
            format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}{frac}{off}")
        });
    prop_oneof![8 => stamp, 1 => text()]
}

#[derive(Debug, Clone)]
struct NodeCase {
    title: String,
    body: Option<String>,
    labels: Option<Vec<String>>,
    scope: Option<String>,
    source: Option<String>,
    observed_at: Option<String>,
    patch_title: String,
    patch_body: String,
    patch_observed_at: String,
    query: String,
}

fn node_case() -> impl Strategy<Value = NodeCase> {
    (
        (
            text(),
            prop::option::of(text()),
            prop::option::of(prop::collection::vec(text(), 0..4)),
            prop::option::of(text()),
            prop::option::of(text()),
        ),
        (
            prop::option::of(timestamp()),
            text(),
            text(),
            timestamp(),
            text(),
        ),
    )
        .prop_map(
            |(
                (title, body, labels, scope, source),
                (observed_at, patch_title, patch_body, patch_observed_at, query),
            )| NodeCase {
                title,
                body,
                labels,
                scope,
                source,
                observed_at,
                patch_title,
                patch_body,
                patch_observed_at,
                query,
            },
        )
}

/// `n` cases from a fixed seed.
fn cases<S: Strategy>(strategy: S) -> Vec<S::Value> {
    let n = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(96);
    let mut runner = TestRunner::deterministic();
    (0..n)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect()
}

/// Every node, whatever its state.
async fn all_nodes(app: &TestApp) -> Vec<Value> {
    let mut all = Vec::new();
    for state in ["active", "dormant", "archived"] {
        let mut cursor = String::new();
        loop {
            let r = app
                .get(&format!("/nodes?state={state}&limit=200{cursor}"))
                .await;
            r.assert_status(StatusCode::OK);
            let page = r.json();
            all.extend(page["items"].as_array().unwrap().iter().cloned());
            match page["next_cursor"].as_str() {
                Some(next) => cursor = format!("&cursor={next}"),
                None => break,
            }
        }
    }
    all
}

#[track_caller]
fn assert_success_or_4xx(r: &Reply, case: &dyn std::fmt::Debug) {
    assert!(
        r.status.is_success() || (r.status.is_client_error() && r.text.contains("/problems/")),
        "{} for {case:?}: {}",
        r.status,
        r.text
    );
}

/// What the service stores for a label list: trimmed, lowercased, deduplicated.
fn stored_labels(labels: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in labels {
        let l = l.trim().to_lowercase();
        if !out.contains(&l) {
            out.push(l);
        }
    }
    out
}

fn stored_time(t: &str) -> String {
    time::format(&time::parse(t).expect("accepted, so parsed"))
}

async fn node_writes_succeed_and_read_back_equal_or_are_4xx_and_write_nothing(app: TestApp) {
    let anchor = app.node("Anchor", "patched below").await;
    let anchor_id = anchor["id"].as_str().unwrap().to_owned();
    for case in cases(node_case()) {
        let before = all_nodes(&app).await;
        let mut body = json!({"title": case.title});
        for (field, value) in [
            ("body", case.body.clone()),
            ("scope", case.scope.clone()),
            ("source", case.source.clone()),
            ("observed_at", case.observed_at.clone()),
        ] {
            if let Some(v) = value {
                body[field] = json!(v);
            }
        }
        if let Some(labels) = &case.labels {
            body["labels"] = json!(labels);
        }

        // Create (with detection, which reads the text back through the candidate search).
        let created = app.post("/nodes", body).await;
        assert_success_or_4xx(&created, &case);
        if created.status.is_success() {
            let node = created.json()["node"].clone();
            let read = app
                .get(&format!("/nodes/{}", node["id"].as_str().unwrap()))
                .await;
            read.assert_status(StatusCode::OK);
            let mut read = read.json();
            read.as_object_mut().unwrap().remove("conflict_ids");
            assert_eq!(read, node, "read back differs for {case:?}");
            assert_eq!(node["title"], case.title.trim(), "{case:?}");
            assert_eq!(
                node["body"],
                case.body.clone().unwrap_or_default(),
                "{case:?}"
            );
            let scope = case.scope.as_deref().unwrap_or("default").trim();
            assert_eq!(node["scope"], scope, "{case:?}");
            let source = case
                .source
                .as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty());
            assert_eq!(node["source"], json!(source), "{case:?}");
            let labels = stored_labels(case.labels.as_deref().unwrap_or_default());
            assert_eq!(node["labels"], json!(labels), "{case:?}");
            if let Some(t) = &case.observed_at {
                assert_eq!(node["observed_at"], stored_time(t), "{case:?}");
            }
        } else {
            // Detection may have queued nothing either: the whole store is unchanged.
            assert_eq!(all_nodes(&app).await, before, "a 4xx wrote: {case:?}");
        }

        // Patch the anchor.
        let anchor_before = app.get(&format!("/nodes/{anchor_id}")).await.json();
        let patched = app
            .patch(
                &format!("/nodes/{anchor_id}"),
                json!({"title": case.patch_title, "body": case.patch_body,
                       "observed_at": case.patch_observed_at}),
            )
            .await;
        assert_success_or_4xx(&patched, &case);
        let anchor_after = app.get(&format!("/nodes/{anchor_id}")).await.json();
        if patched.status.is_success() {
            assert_eq!(anchor_after, patched.json(), "{case:?}");
            assert_eq!(anchor_after["title"], case.patch_title.trim(), "{case:?}");
            assert_eq!(anchor_after["body"], case.patch_body, "{case:?}");
            assert_eq!(
                anchor_after["observed_at"],
                stored_time(&case.patch_observed_at),
                "{case:?}"
            );
        } else {
            assert_eq!(anchor_after, anchor_before, "a 4xx patch wrote: {case:?}");
        }

        // Reads and filters with the same text: never a 5xx.
        let q = urlencode(&case.query);
        for uri in [
            format!("/nodes?q={q}"),
            format!("/nodes?label={q}"),
            format!("/nodes?memory_type={q}"),
            format!("/conflicts?label={q}&status=all"),
            format!("/nodes/{anchor_id}/edges?kind={q}"),
        ] {
            assert_success_or_4xx(&app.get(&uri).await, &(&uri, &case));
        }
        let check = app
            .post("/conflicts/check", json!({"topic": case.query}))
            .await;
        assert_success_or_4xx(&check, &case);
    }
    assert_eq!(app.store.check().await.unwrap(), vec![]);
}

#[derive(Debug, Clone)]
struct ResolutionCase {
    new_content: String,
    queue_note: Option<String>,
    strategy: &'static str,
    merged_content: Option<String>,
    resolved_by: Option<String>,
    note: Option<String>,
}

fn resolution_case() -> impl Strategy<Value = ResolutionCase> {
    (
        text(),
        prop::option::of(text()),
        prop::sample::select(vec![
            "new_is_current",
            "old_is_current",
            "keep_both",
            "merge",
        ]),
        prop::option::of(text()),
        prop::option::of(text()),
        prop::option::of(text()),
    )
        .prop_map(
            |(new_content, queue_note, strategy, merged_content, resolved_by, note)| {
                ResolutionCase {
                    new_content,
                    queue_note,
                    merged_content: merged_content.filter(|_| strategy == "merge"),
                    strategy,
                    resolved_by,
                    note,
                }
            },
        )
}

async fn conflict_and_resolution_texts_succeed_or_are_4xx_and_write_nothing(app: TestApp) {
    for case in cases(resolution_case()) {
        let old = app.node("Deploy region", "us-east-1").await;
        let before = all_nodes(&app).await;

        // Queue a conflict whose new side is only text.
        let queued = app
            .post(
                "/conflicts",
                json!({"old_node_id": old["id"], "new_content": case.new_content,
                       "note": case.queue_note}),
            )
            .await;
        assert_success_or_4xx(&queued, &case);
        if !queued.status.is_success() {
            assert_eq!(all_nodes(&app).await, before, "a 4xx wrote: {case:?}");
            continue;
        }
        let conflict = queued.json();
        assert_eq!(conflict["new_content"], case.new_content, "{case:?}");
        assert_eq!(conflict["note"], json!(case.queue_note), "{case:?}");
        let id = conflict["id"].as_str().unwrap();

        // Resolve it with hostile texts.
        let resolved = app
            .post(
                &format!("/conflicts/{id}/resolve"),
                json!({"resolution": case.strategy, "merged_content": case.merged_content,
                       "resolved_by": case.resolved_by, "note": case.note}),
            )
            .await;
        assert_success_or_4xx(&resolved, &case);
        let mut stored = app.get(&format!("/conflicts/{id}")).await.json();
        // Only the single read carries the latest history entry.
        stored.as_object_mut().unwrap().remove("latest");
        if resolved.status.is_success() {
            assert_eq!(stored["status"], "resolved", "{case:?}");
            assert_eq!(stored["resolved_by"], json!(case.resolved_by), "{case:?}");
            // A resolution without a note keeps the note the conflict was queued with.
            let note = case.note.clone().or(case.queue_note.clone());
            assert_eq!(stored["note"], json!(note), "{case:?}");
            if let Some(m) = &case.merged_content {
                let kept = app
                    .get(&format!("/nodes/{}", old["id"].as_str().unwrap()))
                    .await
                    .json();
                assert_eq!(&kept["body"], m, "{case:?}");
            }
        } else {
            assert_eq!(stored["status"], "pending", "a 4xx resolved: {case:?}");
            assert_eq!(stored, conflict, "a 4xx wrote: {case:?}");
        }
    }
    assert_eq!(app.store.check().await.unwrap(), vec![]);
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
