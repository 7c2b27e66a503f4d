//! `concord import` as a user runs it: every format, a dry run, resume after a clean run and
//! after a SIGKILL, bad input reported line by line, and an import through a running server,
//! each on SQLite and on PostgreSQL (`DATABASE_URL`, `--include-ignored`).

mod cli_support;

use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::Duration;

use cli_support::{
    Db, assert_exit, assert_succeeds_saying, both, concord, run, text, ttl_lines, wait,
};

async fn each_format_is_read_with_its_fields(db: Db) {
    // Arrange
    let jsonl = db.file(
        "nodes.jsonl",
        "{\"title\":\"Region\",\"body\":\"We deploy to eu-west-1\",\"labels\":[\"ops\"],\"scope\":\"team\"}\n",
    );
    let txt = db.file(
        "notes.txt",
        "Standup is at 9:30 every day.\n\nLunch is at noon.\n",
    );
    db.file("wiki/ops.md", "# Ops\n## Cache\nThe TTL is 30s.\n");
    db.file("wiki/more/db.md", "# Database\nWe run PostgreSQL 16.\n");
    let wiki = db.dir.join("wiki").display().to_string();
    let mem0 = db.file(
        "mem0.json",
        r#"{"results":[{"id":"m1","memory":"Likes green tea","user_id":"alex","created_at":"2024-07-25T23:57:00.108367-07:00","metadata":{"category":"food"}}]}"#,
    );
    let graphiti = db.file(
        "facts.json",
        r#"{"facts":[{"uuid":"e1","name":"LIVES_IN","fact":"Alice lives in Berlin","valid_at":"2023-01-01T00:00:00+00:00","invalid_at":"2025-01-01T00:00:00+00:00","created_at":"2023-01-02T00:00:00+00:00","expired_at":null}]}"#,
    );

    // Act
    let outs = [
        db.import(&[&jsonl]),
        db.import(&[&txt, "--title-from", "file"]),
        db.import(&[&wiki]),
        db.import(&[&mem0]),
        db.import(&["--format", "graphiti", &graphiti]),
    ];

    // Assert
    for out in &outs {
        assert_exit(out, 0);
        assert!(
            !text(&out.stderr).contains('\r'),
            "no progress line when piped"
        );
    }
    assert!(
        text(&outs[1].stdout).starts_with("written: 2 "),
        "{}",
        text(&outs[1].stdout)
    );
    assert_eq!(db.nodes().await, 7);
    let scalar = |sql| db.scalar(sql);
    assert_eq!(
        scalar("select count(*) from nodes where scope = 'team' and title = 'Region'").await,
        1
    );
    assert_eq!(
        scalar("select count(*) from nodes where title = 'notes'").await,
        2
    );
    assert_eq!(
        scalar("select count(*) from nodes where title in ('Cache', 'Database')").await,
        2
    );
    assert_eq!(
        scalar("select count(*) from nodes where scope = 'alex' and source = 'mem0:m1'").await,
        1
    );
    assert_eq!(db.observed_at("mem0:m1").await, "2024-07-26T06:57:00.108Z");
    assert_eq!(
        scalar("select count(*) from nodes where source = 'graphiti:e1' and state = 'dormant'")
            .await,
        1,
        "an invalidated fact arrives superseded"
    );
}

async fn a_second_run_with_resume_writes_nothing_twice(db: Db) {
    // Arrange
    let file = db.file("ttl.jsonl", ttl_lines(300, 10));
    let first = db.import(&[&file, "--batch-size", "64"]);
    assert_succeeds_saying(&first, "written: 330 ");
    assert!(text(&first.stdout).contains("conflicts queued: 30 (numeric-mismatch 30)"));

    // Act
    let second = db.import(&[&file, "--resume", "--batch-size", "64"]);

    // Assert
    assert_exit(&second, 0);
    assert!(
        text(&second.stdout)
            .starts_with("written: 0  skipped: 330 (330 written before, 0 repeated)"),
        "{}",
        text(&second.stdout)
    );
    assert_eq!(db.nodes().await, 330);
    assert_eq!(db.conflicts().await, 30);
}

async fn bad_lines_are_reported_by_line_and_the_rest_is_imported(db: Db) {
    // Arrange
    let mut content: Vec<u8> = Vec::new();
    content.extend_from_slice(b"{\"title\":\"one\",\"body\":\"first\"}\n");
    content.extend_from_slice(b"{\"title\": oops}\n");
    content.extend_from_slice(b"{\"title\":\"caf\xe9\"}\n");
    content.extend_from_slice(b"{\"title\":\"\",\"body\":\"\"}\n");
    content.extend_from_slice(b"{\"title\":\"big\",\"body\":\"");
    content.extend(std::iter::repeat_n(b'x', 10 * 1024 * 1024));
    content.extend_from_slice(b"\"}\n");
    content.extend_from_slice(b"{\"title\":\"nul\0here\"}\n");
    content.extend_from_slice(b"{\"title\":\"two\",\"body\":\"second\"}\n");
    let file = db.file("bad.jsonl", &content);

    // Act
    let out = db.import(&[&file]);

    // Assert
    assert_exit(&out, 1);
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("written: 2 "), "{stdout}");
    for (line, what) in [
        (2, "malformed JSON"),
        (3, "UTF-8"),
        (4, "title: "),
        (5, "longer than"),
        (6, "NUL"),
    ] {
        let wanted = format!("error: {file}:{line}: ");
        let found = stdout.lines().find(|l| l.starts_with(&wanted));
        assert!(
            found.is_some_and(|l| l.contains(what)),
            "line {line} ({what}):\n{stdout}"
        );
    }
    assert_eq!(db.nodes().await, 2);
}

async fn a_dry_run_writes_nothing_and_names_the_conflicts_it_would_queue(db: Db) {
    // Arrange: one stored fact, and a file that contradicts it and itself.
    let stored = db.file("stored.jsonl", ttl_lines(1, 1).lines().next().unwrap());
    assert_exit(&db.import(&[&stored]), 0);
    let file = db.file(
        "new.jsonl",
        [
            r#"{"title":"Cache ttl","body":"The cache ttl for service 0 is 5000 units."}"#,
            r#"{"title":"Cache ttl","body":"The cache ttl for service 7 is 100 units."}"#,
            r#"{"title":"Cache ttl","body":"The cache ttl for service 7 is 200 units."}"#,
        ]
        .join("\n"),
    );

    // Act
    let out = db.import(&[&file, "--dry-run"]);

    // Assert
    assert_exit(&out, 0);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("would write: 3 "), "{stdout}");
    assert!(
        stdout.contains("conflicts within the input: 1 (numeric-mismatch 1)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("conflicts with stored memories: 1 (numeric-mismatch 1)"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "conflict: {file}:3 numeric-mismatch with {file}:2"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "conflict: {file}:1 numeric-mismatch with stored node"
        )),
        "{stdout}"
    );
    assert_eq!(db.nodes().await, 1);
    assert_eq!(db.conflicts().await, 0);
    assert!(!Path::new(&format!("{file}.import-state")).exists());
}

async fn a_batch_committed_but_not_recorded_is_replayed_not_written_again(db: Db) {
    // Arrange: a finished import whose state lost its last batch, as a crash between that
    // batch's commit and its state line leaves it.
    let file = db.file("ttl.jsonl", ttl_lines(100, 10));
    assert_exit(&db.import(&[&file, "--batch-size", "50"]), 0);
    let state = format!("{file}.import-state");
    let recorded = std::fs::read_to_string(&state).unwrap();
    let kept: Vec<&str> = recorded.lines().take(1 + 100).collect();
    std::fs::write(&state, kept.join("\n") + "\n").unwrap();

    // Act
    let again = db.import(&[&file, "--resume", "--batch-size", "50"]);

    // Assert: the batch's stored reply answers it; nothing is written a second time.
    assert_exit(&again, 0);
    assert!(
        text(&again.stdout).starts_with("written: 10  skipped: 100 (100 written before"),
        "{}",
        text(&again.stdout)
    );
    assert_eq!(db.nodes().await, 110);
    assert_eq!(db.conflicts().await, 10);
    assert_eq!(
        std::fs::read_to_string(&state).unwrap().lines().count(),
        1 + 110
    );
}

async fn an_import_killed_mid_way_resumes_without_writing_anything_twice(db: Db) {
    // Arrange
    let file = db.file("ttl.jsonl", ttl_lines(4_000, 10));
    let state = format!("{file}.import-state");
    let mut child = concord(&[
        "import",
        &file,
        "--batch-size",
        "25",
        "--database-url",
        &db.url,
    ])
    .spawn()
    .unwrap();
    // Killed once a few batches are recorded: mid-way, between or inside a batch's commit.
    for _ in 0..600 {
        let recorded = std::fs::read_to_string(&state).map_or(0, |s| s.lines().count());
        if recorded > 200 || child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: a signal to our own child, which has not been waited for yet.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    let killed = child.wait().unwrap();
    assert!(
        killed.code().is_none(),
        "the import ran to its end before it could be killed"
    );
    let before = db.nodes().await;
    assert!(
        before > 0 && before < 4_400,
        "{before} nodes before the resume"
    );

    // Act
    let resumed = db.import(&[&file, "--resume", "--batch-size", "25"]);

    // Assert
    assert_exit(&resumed, 0);
    assert_eq!(db.nodes().await, 4_400, "every memory once");
    assert_eq!(db.conflicts().await, 400, "every contradiction queued once");
    assert_eq!(db.pairs_twice().await, 0);
    let check = run(&["check", "--database-url", &db.url]);
    assert_exit(&check, 0);
}

async fn an_import_through_a_server_queues_what_a_direct_one_does(db: Db) {
    // Arrange
    let file = db.file("ttl.jsonl", ttl_lines(500, 5));
    let (_server, base) = db.serve().await;
    let direct = Db::sqlite("direct-twin");
    let twin_file = direct.file("ttl.jsonl", ttl_lines(500, 5));

    // Act
    let through = run(&["import", &file, "--url", &base]);
    let alone = direct.import(&[&twin_file]);

    // Assert
    assert_exit(&through, 0);
    assert_exit(&alone, 0);
    let summary = |o: &Output| {
        text(&o.stdout)
            .lines()
            .take(2)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(summary(&through), summary(&alone));
    assert!(summary(&through).contains("conflicts queued: 100 (numeric-mismatch 100)"));
    assert_eq!(db.nodes().await, 600);
    assert_eq!(db.conflicts().await, direct.conflicts().await);
}

async fn a_direct_import_applies_the_policies_a_write_would(db: Db) {
    // Arrange: 100 values each changed once later in the file; the policy file given as
    // `serve` takes it, in its environment variable.
    let file = db.file("ttl.jsonl", ttl_lines(500, 5));
    let policies = db.newer_number_wins();
    let args = ["import", &file, "--database-url", &db.url];

    // Act
    let out = wait(
        concord(&args)
            .env("CONCORD_POLICIES", &policies)
            .spawn()
            .expect("concord runs"),
        &args,
    );

    // Assert: each change replaced the value it contradicts, by the rule.
    assert_succeeds_saying(&out, "conflicts queued: 100 (numeric-mismatch 100)");
    assert_eq!(db.resolved_by_policy().await, 100);
    assert_eq!(db.active().await, 500);
}

#[test]
fn a_missing_input_is_a_usage_error_and_writes_nothing() {
    let db = Db::sqlite("missing");
    let out = db.import(&[&db.dir.join("nope.jsonl").display().to_string()]);
    assert_exit(&out, 2);
    assert!(text(&out.stderr).contains("nope.jsonl"));
}

#[test]
fn stdin_is_read_as_the_input_dash() {
    let db = Db::sqlite("stdin");
    let state = db.dir.join("stdin.state").display().to_string();
    let mut child = concord(&["import", "-", "--state", &state, "--database-url", &db.url])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"The cache TTL is 30 seconds\nDeploys go to eu-west-1\n")
        .unwrap();
    let out = wait(child, &["import", "-"]);
    assert_exit(&out, 0);
    assert!(
        text(&out.stdout).starts_with("written: 2 "),
        "{}",
        text(&out.stdout)
    );
    assert!(Path::new(&state).exists());
}

both!(
    each_format_is_read_with_its_fields,
    a_second_run_with_resume_writes_nothing_twice,
    a_batch_committed_but_not_recorded_is_replayed_not_written_again,
    bad_lines_are_reported_by_line_and_the_rest_is_imported,
    a_dry_run_writes_nothing_and_names_the_conflicts_it_would_queue,
    an_import_killed_mid_way_resumes_without_writing_anything_twice,
    an_import_through_a_server_queues_what_a_direct_one_does,
    a_direct_import_applies_the_policies_a_write_would,
);
