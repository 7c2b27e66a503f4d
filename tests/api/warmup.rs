//! A process that starts on an existing database fills detection's memo of stored memories'
//! analyses (`service::warmup`), so its first writes judge stored candidates without
//! analysing their text again.

use std::sync::Arc;

use axum::http::StatusCode;
use serde_json::{Value, json};

use concord::AppState;
use concord::config::Settings;
use concord::domain::contradiction::{Memory, analyse};
use concord::service::memo::Memo;
use concord::service::warmup::{self, Warmed};

use crate::support::TestApp;

crate::on_both_databases!(
    a_restarted_service_judges_stored_memories_without_analysing_them_again,
    filling_stops_where_the_memo_is_full_and_keeps_the_newest,
);

const REGIONS: usize = 12;

fn fact(region: usize, seconds: usize) -> Value {
    json!({
        "title": format!("Cache TTL in region r{region}"),
        "body": format!("The cache TTL in region r{region} is {seconds} seconds."),
    })
}

/// The same database, as a process that has just started on it would see it.
fn restarted(app: &TestApp) -> AppState {
    let url = format!("{}://test", app.store.backend());
    AppState::new(app.store.clone(), Settings::for_database(&url))
}

/// Writes an update of `region`'s fact through `state`, expecting one conflict with it.
async fn update(state: &AppState, region: usize) {
    let r = TestApp::of_state(state.clone())
        .post("/nodes", fact(region, 90))
        .await;
    r.assert_status(StatusCode::CREATED);
    let conflicts = r.json()["conflicts"].as_array().expect("conflicts").len();
    assert_eq!(conflicts, 1, "the stored fact was judged: {}", r.text);
}

async fn a_restarted_service_judges_stored_memories_without_analysing_them_again(app: TestApp) {
    for region in 0..REGIONS {
        app.node_with(fact(region, 30 + region)).await;
    }
    let mut dormant = fact(99, 5);
    dormant["state"] = json!("dormant");
    app.node_with(dormant).await;

    // Without the fill, the first write analyses every stored candidate it meets.
    let cold = restarted(&app);
    update(&cold, 3).await;
    assert!(
        cold.detector.analyses().derived() >= REGIONS as u64,
        "the control write analysed its candidates: {}",
        cold.detector.analyses().derived()
    );

    let warm = restarted(&app);
    let memo = warm.detector.analyses();
    assert!(memo.is_empty());
    let filled = warmup::fill(warm.store.as_ref(), memo).await.unwrap();
    assert_eq!(
        filled,
        Warmed {
            analysed: REGIONS + 1,
            kept_already: 0,
            full: false,
        },
        "every active memory, the control write's included; not the dormant one"
    );
    update(&warm, 5).await;
    assert_eq!(memo.derived(), 0, "no stored memory was analysed again");

    let again = warmup::fill(warm.store.as_ref(), memo).await.unwrap();
    assert_eq!(
        (again.analysed, again.kept_already),
        (0, REGIONS + 2),
        "a second fill finds everything kept, the new write's analysis included"
    );
}

async fn filling_stops_where_the_memo_is_full_and_keeps_the_newest(app: TestApp) {
    let mut written = Vec::new();
    for region in 0..5 {
        let body = fact(region, 30);
        let node = app.node_with(body.clone()).await;
        let analysis = analyse(&Memory {
            title: body["title"].as_str().unwrap(),
            body: body["body"].as_str().unwrap(),
            labels: &[],
            confidence: 0.8,
            embedding: None,
        });
        let id = node["id"].as_str().unwrap().parse().unwrap();
        written.push((id, analysis.fingerprint(), analysis.heap_bytes()));
    }
    // Room for the newest three, not for a fourth.
    let newest: Vec<_> = written.iter().rev().collect();
    let budget = newest[..4].iter().map(|(_, _, w)| w).sum::<usize>() - 1;
    let memo = Arc::new(Memo::new(budget));
    let filled = warmup::fill(app.store.as_ref(), &memo).await.unwrap();
    assert_eq!((filled.analysed, filled.full), (3, true));
    for (i, (id, print, _)) in newest.iter().enumerate() {
        assert_eq!(memo.holds(*id, *print), i < 3, "newest first: #{i}");
    }
}
