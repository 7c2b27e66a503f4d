use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::json;
use tower::ServiceExt;

use crate::support::TestApp;

crate::on_both_databases!(
    events_resume_after_the_last_event_id_without_gaps_or_repeats,
    a_live_stream_delivers_new_events,
    a_bad_last_event_id_is_422,
);

/// Reads SSE frames until `want` events arrived; returns `(id, event, data)` triples.
pub(crate) async fn read_events(
    app: &TestApp,
    last_id: Option<&str>,
    want: usize,
    act: impl std::future::Future<Output = ()>,
) -> Vec<(String, String, serde_json::Value)> {
    let mut req = Request::get("/events");
    if let Some(id) = last_id {
        req = req.header("last-event-id", id);
    }
    let res = app
        .router
        .clone()
        .oneshot(req.body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    act.await;
    let mut body = res.into_body();
    let mut text = String::new();
    let mut events = Vec::new();
    while events.len() < want {
        let frame = tokio::time::timeout(Duration::from_secs(10), body.frame())
            .await
            .expect("an event within 10 s")
            .expect("stream open")
            .expect("frame");
        if let Ok(data) = frame.into_data() {
            text.push_str(&String::from_utf8_lossy(&data));
        }
        while let Some(end) = text.find("\n\n") {
            let block: String = text.drain(..end + 2).collect();
            let field = |name: &str| {
                block
                    .lines()
                    .find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_owned()))
            };
            if let (Some(id), Some(ev), Some(data)) =
                (field("id:"), field("event:"), field("data:"))
            {
                events.push((id, ev, serde_json::from_str(&data).unwrap()));
            }
        }
    }
    events
}

async fn events_resume_after_the_last_event_id_without_gaps_or_repeats(app: TestApp) {
    let (c, _, _) = app.conflict("a", "b").await;
    app.post(
        "/contradiction/resolve",
        json!({"conflict_id": c["id"], "resolution": "keep_both"}),
    )
    .await
    .assert_status(StatusCode::OK);
    let all = read_events(&app, Some("0"), 2, async {}).await;
    assert_eq!(all[0].1, "conflict.created");
    assert_eq!(all[1].1, "conflict.resolved");
    assert_eq!(all[0].2["conflict_id"], c["id"]);
    let first: i64 = all[0].0.parse().unwrap();
    let second: i64 = all[1].0.parse().unwrap();
    assert!(second > first, "ids increase");
    let resumed = read_events(&app, Some(&all[0].0), 1, async {}).await;
    assert_eq!(
        resumed[0].0, all[1].0,
        "resumes exactly after the last id seen"
    );
}

async fn a_live_stream_delivers_new_events(app: TestApp) {
    app.conflict("old", "history").await;
    // Without Last-Event-ID the stream starts from now: history is not replayed.
    let live = read_events(&app, None, 1, async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        app.conflict("a", "b").await;
    })
    .await;
    assert_eq!(live.len(), 1);
    assert_eq!(live[0].1, "conflict.created");
    let listed = app.get("/conflicts?order=newest&limit=1").await.json();
    assert_eq!(live[0].2["conflict_id"], listed["items"][0]["id"]);
}

async fn a_bad_last_event_id_is_422(app: TestApp) {
    let req = Request::get("/events")
        .header("last-event-id", "yesterday")
        .body(Body::empty())
        .unwrap();
    let r = app.send(req).await;
    assert_eq!(r.pointers(), vec!["/headers/Last-Event-ID"]);
}
