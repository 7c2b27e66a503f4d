//! `concord sweep` as a user runs it: against the database and through a running server, and
//! killed mid-way then run again; each on SQLite and on PostgreSQL (`DATABASE_URL`,
//! `--include-ignored`).

mod cli_support;

use std::time::Duration;

use cli_support::{Db, assert_exit, assert_succeeds_saying, both, concord, run, text, ttl_lines};

/// The memories of `ttl_lines(n, every)`, imported without detection.
fn stored_without_detection(db: &Db, n: u32, every: u32) {
    let file = db.file("ttl.jsonl", ttl_lines(n, every));
    let out = db.import(&[&file, "--no-detect"]);
    assert_exit(&out, 0);
}

fn sweep(db: &Db, args: &[&str]) -> std::process::Output {
    let mut all = vec!["sweep"];
    all.extend(args);
    all.extend(["--database-url", &db.url]);
    run(&all)
}

async fn a_sweep_queues_the_stored_contradictions_once(db: Db) {
    // Arrange
    stored_without_detection(&db, 500, 5);
    assert_eq!(db.conflicts().await, 0);

    // Act
    let first = sweep(&db, &[]);
    let second = sweep(&db, &[]);

    // Assert
    assert_exit(&first, 0);
    let summary = text(&first.stdout);
    assert!(
        summary.contains("done: 600 memories compared, 100 conflicts queued"),
        "{summary}"
    );
    assert_eq!(db.conflicts().await, 100);
    assert_succeeds_saying(&second, "done: 600 memories compared, 0 conflicts queued");
    assert_eq!(db.pairs_twice().await, 0);
    assert_exit(&run(&["check", "--database-url", &db.url]), 0);
}

async fn a_sweep_through_a_server_is_followed_to_its_end(db: Db) {
    // Arrange
    stored_without_detection(&db, 300, 3);
    let (_server, base) = db.serve().await;

    // Act
    let through = run(&["sweep", "--url", &base, "--scope", "default"]);

    // Assert
    assert_succeeds_saying(
        &through,
        "done: 400 memories compared, 100 conflicts queued",
    );
    assert_eq!(db.conflicts().await, 100);
}

async fn a_sweep_killed_mid_way_goes_on_where_it_stopped(db: Db) {
    // Arrange
    stored_without_detection(&db, 4_000, 10);
    let mut child = concord(&["sweep", "--database-url", &db.url])
        .spawn()
        .unwrap();
    // Killed once some stretches are recorded.
    for _ in 0..1500 {
        let compared = db
            .scalar("select coalesce(max(compared), 0) from sweeps")
            .await;
        if compared > 500 || child.try_wait().unwrap().is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // SAFETY: a signal to our own child, which has not been waited for yet.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    let killed = child.wait().unwrap();
    assert!(
        killed.code().is_none(),
        "the sweep ran to its end before it could be killed"
    );
    let compared = db.scalar("select compared from sweeps").await;
    assert!(compared > 0 && compared < 4_400, "{compared} compared");

    // Act
    let again = sweep(&db, &[]);

    // Assert: the same sweep went on, and every contradiction is queued once.
    assert_exit(&again, 0);
    assert!(
        text(&again.stderr).contains("going on with sweep"),
        "{}",
        text(&again.stderr)
    );
    assert_eq!(db.scalar("select count(*) from sweeps").await, 1);
    assert_eq!(db.scalar("select compared from sweeps").await, 4_400);
    assert_eq!(db.conflicts().await, 400, "every contradiction queued once");
    assert_eq!(
        db.scalar("select queued from sweeps").await,
        400,
        "the count survives the kill"
    );
    assert_eq!(db.pairs_twice().await, 0);
    assert_exit(&run(&["check", "--database-url", &db.url]), 0);
}

async fn a_sweep_goes_on_when_its_server_restarts(db: Db) {
    // Arrange: a server killed while its sweeper is mid-way.
    stored_without_detection(&db, 4_000, 10);
    let (server, base) = db.serve().await;
    let client = reqwest::Client::new();
    let started: serde_json::Value = client
        .post(format!("{base}/sweeps"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = started["id"].as_str().unwrap().to_owned();
    for _ in 0..1500 {
        if db.scalar("select compared from sweeps").await > 500 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    drop(server);
    let compared = db.scalar("select compared from sweeps").await;
    assert!(compared > 0 && compared < 4_400, "{compared} compared");

    // Act: a new server takes the sweep over (on PostgreSQL once the lease ran out).
    let (_server, base) = db.serve().await;
    let mut ended = serde_json::Value::Null;
    for _ in 0..1200 {
        ended = client
            .get(format!("{base}/sweeps/{id}"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if ended["status"] != "running" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // Assert
    assert_eq!(ended["status"], "done", "{ended}");
    assert_eq!(
        (
            ended["compared"].as_i64(),
            ended["conflicts_queued"].as_i64()
        ),
        (Some(4_400), Some(400))
    );
    assert_eq!(db.conflicts().await, 400);
    assert_eq!(db.pairs_twice().await, 0);
}

async fn a_direct_sweep_applies_the_policies_a_write_would(db: Db) {
    // Arrange: 100 values each changed once, stored without detection.
    stored_without_detection(&db, 300, 3);
    let policies = db.newer_number_wins();

    // Act: the sweep is given the policy file as `serve` is.
    let out = sweep(&db, &["--policies", &policies]);

    // Assert: each conflict it found was resolved by the rule, as at write time.
    assert_succeeds_saying(&out, "done: 400 memories compared, 100 conflicts queued");
    assert_eq!(db.resolved_by_policy().await, 100);
    assert_eq!(db.active().await, 300);
    assert_exit(&run(&["check", "--database-url", &db.url]), 0);
}

#[test]
fn a_bad_filter_is_a_usage_error() {
    let db = Db::sqlite("sweep-bad-filter");
    let out = run(&["sweep", "--since", "yesterday", "--database-url", &db.url]);
    assert_exit(&out, 2);
    assert!(
        text(&out.stderr).contains("--since"),
        "{}",
        text(&out.stderr)
    );
}

both!(
    a_sweep_queues_the_stored_contradictions_once,
    a_sweep_through_a_server_is_followed_to_its_end,
    a_sweep_killed_mid_way_goes_on_where_it_stopped,
    a_sweep_goes_on_when_its_server_restarts,
    a_direct_sweep_applies_the_policies_a_write_would,
);
