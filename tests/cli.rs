//! The command line as a new user meets it: `check` and `migrate` never create a SQLite file,
//! one `serve` holds a SQLite file at a time, startup says where everything is in one plain
//! line, and failures to open or listen name the path or the address.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

struct Serving {
    child: Child,
    base: String,
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("concord-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Runs concord to its exit; one still running after ten seconds (a `serve` that should
/// have refused to start) is killed, and the test fails.
fn concord(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(args)
        .env("CONCORD_LOG", "info")
        .env("RUST_BACKTRACE", "0")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("concord runs");
    for _ in 0..100 {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    panic!("concord {args:?} did not exit: {}", stderr(&out));
}

fn url(db: &Path) -> String {
    format!("sqlite://{}", db.display())
}

/// Starts `serve` with its log written to `log` (a file, not a terminal).
async fn serve(db: &Path, log: &Path, extra: &[&str]) -> Serving {
    let port = free_port();
    let bind = format!("127.0.0.1:{port}");
    let mut args = vec!["serve", "--bind", &bind];
    let url = url(db);
    args.extend(["--database-url", &url]);
    args.extend(extra);
    let child = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(&args)
        .env("CONCORD_LOG", "info")
        .stdout(std::fs::File::create(log).unwrap())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("concord starts");
    let serving = Serving {
        child,
        base: format!("http://{bind}"),
    };
    let client = reqwest::Client::new();
    for _ in 0..100 {
        let ready = client.get(format!("{}/readyz", serving.base)).send().await;
        if ready.is_ok_and(|r| r.status() == 200) {
            return serving;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("concord did not become ready on {}", serving.base);
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn check_and_migrate_refuse_a_missing_sqlite_file_and_create_nothing() {
    let dir = scratch("missing");
    let db = dir.join("mistyped.db");
    for command in ["check", "migrate"] {
        let out = concord(&[command, "--database-url", &url(&db)]);
        assert_eq!(out.status.code(), Some(2), "{command}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&db.display().to_string()),
            "{command} names the path: {}",
            stderr(&out)
        );
        assert!(!db.exists(), "{command} created {}", db.display());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn a_second_serve_on_one_sqlite_file_is_refused() {
    let dir = scratch("twice");
    let db = dir.join("shared.db");
    let first = serve(&db, &dir.join("first.log"), &[]).await;
    let port = free_port().to_string();
    let bind = format!("127.0.0.1:{port}");
    let second = concord(&["serve", "--database-url", &url(&db), "--bind", &bind]);
    assert_eq!(second.status.code(), Some(2), "{}", stderr(&second));
    assert!(stderr(&second).contains("another `concord serve`"));
    assert!(stderr(&second).contains(&db.display().to_string()));
    // The first one still answers, and once it is gone the file can be served again.
    let ok = reqwest::get(format!("{}/healthz", first.base))
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    // `check` reads a file that `serve` holds: it takes no lock.
    let check = concord(&["check", "--database-url", &url(&db)]);
    assert!(check.status.success(), "{}", stderr(&check));
    drop(first);
    let again = serve(&db, &dir.join("again.log"), &[]).await;
    drop(again);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn startup_says_where_everything_is_in_one_plain_line() {
    let dir = scratch("startup");
    let db = dir.join("concord.db");
    let log = dir.join("serve.log");
    let serving = serve(&db, &log, &["--api-keys", "k1"]).await;
    let text = std::fs::read_to_string(&log).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("concord listening"))
        .unwrap_or_else(|| panic!("no startup line in {text:?}"));
    let addr = serving.base.trim_start_matches("http://");
    for expected in [
        format!("addr={addr}"),
        format!("console={}/review", serving.base),
        format!("database=SQLite {}", db.display()),
        "policy_rules=0".to_owned(),
        "keys_required=true".to_owned(),
    ] {
        assert!(line.contains(&expected), "{expected:?} missing in {line:?}");
    }
    assert!(!text.contains('\u{1b}'), "colour codes in a redirected log");
    drop(serving);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn failures_to_listen_or_to_open_name_the_address_or_the_path() {
    let dir = scratch("fail");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let bind = taken.local_addr().unwrap().to_string();
    let out = concord(&[
        "serve",
        "--database-url",
        &url(&dir.join("a.db")),
        "--bind",
        &bind,
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains(&format!("cannot listen on {bind}")),
        "{}",
        stderr(&out)
    );
    let unreachable = dir.join("no-such-dir").join("b.db");
    let out = concord(&[
        "serve",
        "--database-url",
        &url(&unreachable),
        "--bind",
        "127.0.0.1:0",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&unreachable.display().to_string()),
        "{}",
        stderr(&out)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn mcp_help_leaves_out_the_http_only_flags() {
    let text = |o: Output| String::from_utf8_lossy(&o.stdout).into_owned();
    let mcp = text(concord(&["mcp", "--help"]));
    let serve = text(concord(&["serve", "--help"]));
    for http_only in [
        "--bind",
        "--api-keys",
        "--request-timeout-ms",
        "--max-in-flight",
        "--header-read-timeout-ms",
        "--max-connections",
    ] {
        assert!(!mcp.contains(http_only), "mcp --help lists {http_only}");
        assert!(serve.contains(http_only), "serve --help lists {http_only}");
    }
    assert!(mcp.contains("--database-url") && mcp.contains("--policies"));
}

/// `concord keys`: a key made on the command line opens the running service, alone on the
/// last line of the output; `list` never shows a key; `revoke` closes it within a second;
/// bad input and unknown names exit non-zero naming what is wrong.
#[tokio::test]
async fn keys_made_listed_and_revoked_on_the_command_line_govern_the_running_service() {
    // Arrange: a running service (which creates the database), without keys.
    let dir = scratch("keys");
    let db = dir.join("concord.db");
    let serving = serve(&db, &dir.join("serve.log"), &[]).await;
    let url = url(&db);
    let client = reqwest::Client::new();
    let nodes = format!("{}/nodes", serving.base);

    // Act: make a key.
    let out = concord(&[
        "keys",
        "add",
        "ci-bot",
        "--role",
        "reader",
        "--scope",
        "team-a/*",
        "--scope",
        "shared",
        "--database-url",
        &url,
    ]);

    // Assert: the key is the last line, alone, and it opens the service (which now needs one).
    assert!(out.status.success(), "keys add failed: {}", stderr(&out));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let key = stdout.lines().last().expect("a line").to_owned();
    assert!(
        key.starts_with("concord_") && !key.contains(' '),
        "{stdout:?}"
    );
    let status = |auth: Option<String>| {
        let mut req = client.get(&nodes);
        if let Some(k) = auth {
            req = req.bearer_auth(k);
        }
        async move { req.send().await.unwrap().status().as_u16() }
    };
    let mut without = 0;
    for _ in 0..30 {
        without = status(None).await;
        if without == 401 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(without, 401, "a key in the database makes keys required");
    assert_eq!(status(Some(key.clone())).await, 200);

    // list: the name, role and scopes, never the key.
    let out = concord(&["keys", "list", "--database-url", &url]);
    let listed = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    assert!(
        listed.contains("ci-bot")
            && listed.contains("reader")
            && listed.contains("team-a/*,shared"),
        "{listed}"
    );
    assert!(!listed.contains(&key), "list shows the key: {listed}");

    // A taken name, a bad role and an unknown key to revoke are refused.
    let again = concord(&[
        "keys",
        "add",
        "ci-bot",
        "--role",
        "agent",
        "--scope",
        "x",
        "--database-url",
        &url,
    ]);
    assert!(!again.status.success() && stderr(&again).contains("exists"));
    let bad = concord(&[
        "keys",
        "add",
        "x",
        "--role",
        "owner",
        "--scope",
        "x",
        "--database-url",
        &url,
    ]);
    assert!(!bad.status.success() && stderr(&bad).contains("role"));
    let unknown = concord(&["keys", "revoke", "nobody", "--database-url", &url]);
    assert!(!unknown.status.success() && stderr(&unknown).contains("nobody"));

    // revoke: the running service refuses the key within a second.
    let out = concord(&["keys", "revoke", "ci-bot", "--database-url", &url]);
    assert!(out.status.success(), "revoke failed: {}", stderr(&out));
    let revoked = std::time::Instant::now();
    let mut code = 200;
    while revoked.elapsed() < Duration::from_millis(1000) {
        code = status(Some(key.clone())).await;
        if code == 401 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(code, 401, "a revoked key still works after a second");
    let listed = concord(&["keys", "list", "--database-url", &url]);
    let text = String::from_utf8(listed.stdout).unwrap();
    let row = text.lines().find(|l| l.starts_with("ci-bot")).unwrap();
    assert!(!row.trim_end().ends_with('-'), "no revocation time: {row}");
    drop(serving);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn keys_refuse_a_missing_sqlite_file() {
    let dir = scratch("keys-missing");
    let db = dir.join("nope.db");
    let out = concord(&["keys", "list", "--database-url", &url(&db)]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!db.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
