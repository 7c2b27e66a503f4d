//! Who did what (issue 36): every write records the name of the key that made it, in the
//! memory's versions and the conflict's history, and `GET /audit` lists it for admins,
//! newest first, by key and since an instant, paged.

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::keys::{ROOT, call, make_key, mcp_tool, with_root};
use crate::support::TestApp;

crate::on_both_databases!(
    every_write_is_audited_under_the_key_that_made_it,
    the_audit_pages_newest_first_without_gaps_and_narrows_by_since,
    only_an_admin_of_every_scope_reads_the_audit,
);

async fn audit(app: &TestApp, query: &str) -> Value {
    let r = call(
        app,
        Method::GET,
        &format!("/audit{query}"),
        Some(ROOT),
        None,
    )
    .await;
    r.assert_status(StatusCode::OK);
    r.json()
}

/// `(action, target)` of each entry, newest first.
fn actions(page: &Value) -> Vec<(String, String)> {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or_default().to_owned();
            (s("action"), s("target"))
        })
        .collect()
}

async fn every_write_is_audited_under_the_key_that_made_it(app: TestApp) {
    // Arrange: an admin makes an agent key and a reviewer key; the agent writes a fact and
    // its contradiction (once through MCP), the reviewer resolves and reverts.
    let app = with_root(&app);
    let agent = make_key(&app, "ingest-bot", "agent", &["*"]).await;
    let judge = make_key(&app, "judge", "reviewer", &["*"]).await;
    let old = json!({"title": "Cache TTL", "body": "The cache TTL is 30 seconds"});
    let r = call(&app, Method::POST, "/nodes", Some(&agent), Some(old)).await;
    r.assert_status(StatusCode::CREATED);
    let old_id = r.json()["node"]["id"].as_str().unwrap().to_owned();
    let done = mcp_tool(
        &app,
        &agent,
        "remember",
        json!({"title": "Cache TTL", "body": "The cache TTL is 90 seconds"}),
    )
    .await;
    let written = &done["result"]["structuredContent"];
    let new_id = written["node"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{done}"));
    let conflict = written["conflicts"][0]["conflict_id"]
        .as_str()
        .unwrap_or_else(|| panic!("a conflict is queued: {done}"))
        .to_owned();
    let resolve = json!({"resolution": "new_is_current", "resolved_by": "alice"});
    let uri = format!("/conflicts/{conflict}/resolve");
    call(&app, Method::POST, &uri, Some(&judge), Some(resolve))
        .await
        .assert_status(StatusCode::OK);
    let uri = format!("/conflicts/{conflict}/revert");
    call(&app, Method::POST, &uri, Some(&judge), Some(json!({})))
        .await
        .assert_status(StatusCode::OK);
    call(&app, Method::DELETE, "/keys/ingest-bot", Some(ROOT), None)
        .await
        .assert_status(StatusCode::OK);

    // Act
    let by_agent = audit(&app, "?key=ingest-bot").await;
    let by_judge = audit(&app, "?key=judge").await;
    let by_root = audit(&app, "?key=config:1").await;

    // Assert: each key's own changes and nothing else, newest first (a write and the
    // conflict it queued may share their instant).
    let mut agent_did = actions(&by_agent);
    assert_eq!(
        agent_did.pop(),
        Some(("node.created".into(), old_id.clone()))
    );
    agent_did.sort();
    assert_eq!(
        agent_did,
        [
            ("conflict.queued".into(), conflict.clone()),
            ("node.created".into(), new_id.to_owned()),
        ],
        "{by_agent}"
    );
    let mcp_write = by_agent["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["target"] == new_id)
        .unwrap();
    assert_eq!(
        mcp_write["by"], "mcp:t",
        "the MCP client is named beside the key"
    );
    assert_eq!(mcp_write["version"], 1);
    let judged = actions(&by_judge);
    assert!(judged.contains(&("conflict.reverted".into(), conflict.clone())));
    let resolved = judged
        .iter()
        .position(|a| a == &("conflict.resolved".into(), conflict.clone()))
        .expect("the resolution is audited");
    assert!(
        judged.iter().all(|(action, _)| {
            ["node.changed", "conflict.resolved", "conflict.reverted"].contains(&action.as_str())
        }),
        "{judged:?}"
    );
    assert!(judged.contains(&("node.changed".into(), old_id.clone())));
    let entry = &by_judge["items"][resolved];
    assert_eq!(
        (&entry["by"], &entry["key"]),
        (&json!("alice"), &json!("judge"))
    );
    assert_eq!(
        actions(&by_root),
        [
            ("key.revoked".into(), "ingest-bot".into()),
            ("key.created".into(), "judge".into()),
            ("key.created".into(), "ingest-bot".into()),
        ]
    );
    // The same keys are in the memory's versions and the conflict's history.
    let r = call(
        &app,
        Method::GET,
        &format!("/nodes/{old_id}/versions"),
        Some(ROOT),
        None,
    )
    .await;
    let keys: Vec<Value> = r.json()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["key"].clone())
        .collect();
    assert_eq!(keys, [json!("ingest-bot"), json!("judge"), json!("judge")]);
    let r = call(
        &app,
        Method::GET,
        &format!("/conflicts/{conflict}/history"),
        Some(ROOT),
        None,
    )
    .await;
    let keys: Vec<(Value, Value)> = r.json()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["kind"].clone(), h["key"].clone()))
        .collect();
    assert_eq!(
        keys,
        [
            (json!("queued"), json!("ingest-bot")),
            (json!("resolved"), json!("judge")),
            (json!("reverted"), json!("judge")),
        ]
    );
}

async fn the_audit_pages_newest_first_without_gaps_and_narrows_by_since(app: TestApp) {
    // Arrange: seven unrelated writes, the last three after an instant taken between them.
    let app = with_root(&app);
    let agent = make_key(&app, "pager", "agent", &["*"]).await;
    let facts = [
        ("Office", "The office is in Leeds"),
        ("Editor", "Dana writes in Helix"),
        ("Lunch", "Lunch is served at noon"),
        ("Backups", "Backups run every night"),
        ("Mascot", "The team mascot is a heron"),
        ("Printer", "The printer is on floor two"),
        ("Standup", "Standup happens on Mondays"),
    ];
    let write = |n: usize| {
        let body = json!({"title": facts[n].0, "body": facts[n].1});
        let app = &app;
        let agent = &agent;
        async move {
            call(app, Method::POST, "/nodes", Some(agent), Some(body))
                .await
                .assert_status(StatusCode::CREATED);
        }
    };
    for n in 0..4 {
        write(n).await;
    }
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let since = concord::domain::time::format(&concord::domain::time::now());
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    for n in 4..7 {
        write(n).await;
    }

    // Act: the whole list, and the same in pages of two.
    let whole = actions(&audit(&app, "?key=pager").await);
    let mut paged = Vec::new();
    let mut query = "?key=pager&limit=2".to_owned();
    loop {
        let page = audit(&app, &query).await;
        paged.extend(actions(&page));
        match page["next_cursor"].as_str() {
            Some(c) => query = format!("?key=pager&limit=2&cursor={c}"),
            None => break,
        }
    }
    let recent = actions(&audit(&app, &format!("?key=pager&since={since}")).await);

    // Assert
    assert_eq!(whole.len(), 7, "{whole:?}");
    assert_eq!(paged, whole, "pages neither skip nor repeat an entry");
    assert_eq!(recent, whole[..3], "since keeps the three later writes");
    let all = audit(&app, "").await;
    let mut times: Vec<&str> = all["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["at"].as_str().unwrap())
        .collect();
    let newest_first = times.clone();
    times.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(newest_first, times, "newest first");
}

async fn only_an_admin_of_every_scope_reads_the_audit(app: TestApp) {
    // Arrange
    let app = with_root(&app);
    let reviewer = make_key(&app, "rev", "reviewer", &["*"]).await;
    let team_admin = make_key(&app, "team-admin", "admin", &["team-a/*"]).await;

    // Act + Assert
    let r = call(&app, Method::GET, "/audit", Some(&reviewer), None).await;
    r.assert_status(StatusCode::FORBIDDEN);
    assert_eq!(r.json()["type"], "/problems/role-forbidden");
    let r = call(&app, Method::GET, "/audit", Some(&team_admin), None).await;
    r.assert_status(StatusCode::FORBIDDEN);
    assert_eq!(r.json()["type"], "/problems/scope-forbidden");
    for bad in [
        "?since=yesterday",
        "?limit=0",
        "?limit=501",
        "?cursor=bm9wZQ",
        "?key=",
    ] {
        let r = call(&app, Method::GET, &format!("/audit{bad}"), Some(ROOT), None).await;
        r.assert_status(StatusCode::UNPROCESSABLE_ENTITY);
    }
}
