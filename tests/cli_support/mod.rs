//! What the command-line tests share (`tests/import.rs`, `tests/sweep.rs`): a database the
//! child processes reach by URL (SQLite in a scratch folder, or the test's PostgreSQL
//! database), concord run as a child process, and generated memories.
#![allow(dead_code)] // Each test crate uses its own part.

use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

/// A database the child processes reach by URL; the test reads it back with sqlx.
pub struct Db {
    pub url: String,
    pub dir: PathBuf,
}

impl Db {
    pub fn sqlite(name: &str) -> Self {
        let dir = scratch(name);
        Self {
            url: format!("sqlite://{}", dir.join("import.db").display()),
            dir,
        }
    }

    pub async fn postgres(name: &str, pool: &sqlx::PgPool) -> Self {
        let db: String = sqlx::query_scalar("select current_database()")
            .fetch_one(pool)
            .await
            .unwrap();
        let base = std::env::var("DATABASE_URL").expect("DATABASE_URL");
        let server = base.rsplit_once('/').map_or(base.as_str(), |(s, _)| s);
        Self {
            url: format!("{server}/{db}"),
            dir: scratch(name),
        }
    }

    pub async fn scalar(&self, sql: &'static str) -> i64 {
        if self.url.starts_with("sqlite:") {
            let pool = sqlx::SqlitePool::connect(&self.url).await.unwrap();
            let n = sqlx::query_scalar(sql).fetch_one(&pool).await.unwrap();
            pool.close().await;
            n
        } else {
            let pool = sqlx::PgPool::connect(&self.url).await.unwrap();
            let n = sqlx::query_scalar(sql).fetch_one(&pool).await.unwrap();
            pool.close().await;
            n
        }
    }

    /// A node's `observed_at` as RFC 3339 with milliseconds, on either database.
    pub async fn observed_at(&self, source: &str) -> String {
        if self.url.starts_with("sqlite:") {
            let pool = sqlx::SqlitePool::connect(&self.url).await.unwrap();
            sqlx::query_scalar("select observed_at from nodes where source = $1")
                .bind(source)
                .fetch_one(&pool)
                .await
                .unwrap()
        } else {
            let pool = sqlx::PgPool::connect(&self.url).await.unwrap();
            sqlx::query_scalar(
                "select to_char(observed_at at time zone 'UTC', \
                 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') from nodes where source = $1",
            )
            .bind(source)
            .fetch_one(&pool)
            .await
            .unwrap()
        }
    }

    pub async fn nodes(&self) -> i64 {
        self.scalar("select count(*) from nodes").await
    }

    pub async fn conflicts(&self) -> i64 {
        self.scalar("select count(*) from conflict_queue").await
    }

    /// Memories current now.
    pub async fn active(&self) -> i64 {
        self.scalar("select count(*) from nodes where state = 'active'")
            .await
    }

    /// Conflicts a policy resolved (`resolved_by` `policy:<name>`).
    pub async fn resolved_by_policy(&self) -> i64 {
        self.scalar("select count(*) from conflict_queue where resolved_by like 'policy:%'")
            .await
    }

    /// A policy file whose one rule lets the newer value of a number win.
    pub fn newer_number_wins(&self) -> String {
        self.file(
            "policies.toml",
            "[[rules]]\nname = \"newer-number-wins\"\naction = \"new_is_current\"\n\
             [rules.match]\nconflict_types = [\"numeric-mismatch\"]\n",
        )
    }

    /// Pairs queued more than once.
    pub async fn pairs_twice(&self) -> i64 {
        self.scalar(
            "select count(*) from (select old_node_id, new_key from conflict_queue \
             group by old_node_id, new_key having count(*) > 1) twice",
        )
        .await
    }

    pub fn file(&self, name: &str, content: impl AsRef<[u8]>) -> String {
        let path = self.dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        path.display().to_string()
    }

    /// `concord import ARGS… --database-url <this>`, to its exit.
    pub fn import(&self, args: &[&str]) -> Output {
        let mut all = vec!["import"];
        all.extend(args);
        all.extend(["--database-url", &self.url]);
        run(&all)
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("concord-import-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn concord(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_concord"));
    c.args(args)
        .env("CONCORD_LOG", "warn")
        .env_remove("CONCORD_URL")
        .env_remove("CONCORD_DATABASE_URL")
        .env_remove("CONCORD_POLICIES")
        .env_remove("CONCORD_SENSITIVITY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Runs concord to its exit (two minutes at most, then the test fails).
pub fn run(args: &[&str]) -> Output {
    wait(concord(args).spawn().expect("concord runs"), args)
}

pub fn wait(mut child: Child, args: &[&str]) -> Output {
    for _ in 0..1200 {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    panic!("concord {args:?} did not exit: {}", text(&out.stderr));
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// One line per memory; every `contradict_every`th service also gets a changed value later
/// in the file, which contradicts its own first fact and nothing else.
pub fn ttl_lines(n: u32, contradict_every: u32) -> String {
    let fact = |s: u32, v: u32| {
        serde_json::json!({"title": "Cache ttl", "body": format!("The cache ttl for service {s} is {v} units.")})
            .to_string()
    };
    let mut out = String::new();
    for s in 0..n {
        out += &fact(s, 9_000 + s);
        out.push('\n');
    }
    for s in (0..n).step_by(contradict_every as usize) {
        out += &fact(s, 7_000 + s);
        out.push('\n');
    }
    out
}

/// Exit status 0, and `said` in what it printed.
#[track_caller]
pub fn assert_succeeds_saying(out: &Output, said: &str) {
    assert_exit(out, 0);
    let stdout = text(&out.stdout);
    assert!(stdout.contains(said), "{said:?} not in: {stdout}");
}

#[track_caller]
pub fn assert_exit(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

impl Db {
    /// `concord serve` on this database; the server (killed when dropped) and its base URL.
    pub async fn serve(&self) -> (Killed, String) {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let bind = format!("127.0.0.1:{port}");
        let server = concord(&["serve", "--bind", &bind, "--database-url", &self.url])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let server = Killed(server);
        let base = format!("http://{bind}");
        for _ in 0..100 {
            if reqwest::get(format!("{base}/readyz"))
                .await
                .is_ok_and(|r| r.status() == 200)
            {
                return (server, base);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the server did not start");
    }
}

/// A child process killed (and reaped) when dropped.
pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Generates each case twice: on SQLite, and on PostgreSQL (run by scripts/test).
macro_rules! both {
    ($($case:ident),* $(,)?) => {
        mod sqlite { $(
            #[tokio::test]
            async fn $case() { super::$case(super::Db::sqlite(stringify!($case))).await }
        )* }
        mod postgres { $(
            #[sqlx::test(migrations = "migrations/postgres")]
            #[ignore = "needs PostgreSQL; scripts/test runs it with --include-ignored"]
            async fn $case(pool: sqlx::PgPool) {
                super::$case(super::Db::postgres(concat!("pg-", stringify!($case)), &pool).await).await
            }
        )* }
    };
}
pub(crate) use both;
