//! Two concord processes sharing one PostgreSQL database: a conflict queued through one wakes
//! a poller waiting on the other (LISTEN/NOTIFY), and concurrent resolutions spread across
//! both execute exactly once; a key revoked on one is refused by the other within a second.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

struct Instance {
    child: Child,
    base: String,
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

async fn start(database_url: &str) -> Instance {
    start_with(database_url, &[]).await
}

async fn start_with(database_url: &str, extra: &[&str]) -> Instance {
    let port = free_port();
    let child = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args([
            "serve",
            "--database-url",
            database_url,
            "--bind",
            &format!("127.0.0.1:{port}"),
        ])
        .args(extra)
        .env("CONCORD_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("concord starts");
    // Owned by an Instance from here on, so it is killed and reaped whatever happens.
    let instance = Instance {
        child,
        base: format!("http://127.0.0.1:{port}"),
    };
    let client = reqwest::Client::new();
    for _ in 0..100 {
        let ready = client.get(format!("{}/readyz", instance.base)).send().await;
        if ready.is_ok_and(|r| r.status() == 200) {
            return instance;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("concord did not become ready on {}", instance.base);
}

/// The URL of the pool's database, for the child processes.
async fn url_of(pool: &sqlx::PgPool) -> String {
    let db: String = sqlx::query_scalar("select current_database()")
        .fetch_one(pool)
        .await
        .unwrap();
    let base = std::env::var("DATABASE_URL").expect("DATABASE_URL");
    let server = base.rsplit_once('/').map_or(base.as_str(), |(s, _)| s);
    format!("{server}/{db}")
}

async fn post(c: &reqwest::Client, url: String, body: Value) -> (u16, Value) {
    let r = c.post(url).json(&body).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

#[sqlx::test(migrations = "migrations/postgres")]
#[ignore = "needs PostgreSQL; scripts/test runs it with --include-ignored"]
async fn a_conflict_queued_on_one_instance_wakes_a_poller_on_the_other(pool: sqlx::PgPool) {
    // Arrange
    let url = url_of(&pool).await;
    let (a, b) = (start(&url).await, start(&url).await);
    let client = reqwest::Client::new();
    let poll_url = format!("{}/conflicts/wake?wait=30", b.base);
    let started = Instant::now();
    let poll = tokio::spawn({
        let client = client.clone();
        async move {
            let r = client.get(poll_url).send().await.unwrap();
            (
                r.status().as_u16(),
                r.json::<Value>().await.ok(),
                started.elapsed(),
            )
        }
    });
    tokio::time::sleep(Duration::from_millis(500)).await;

    // Act: queue through instance A.
    let (_, old) = post(
        &client,
        format!("{}/nodes?detect=false", a.base),
        json!({"title": "Region", "body": "us-east-1"}),
    )
    .await;
    let (status, conflict) = post(
        &client,
        format!("{}/conflicts", a.base),
        json!({"old_node_id": old["node"]["id"], "new_content": "eu-west-1"}),
    )
    .await;
    assert_eq!(status, 201);

    // Assert: B's poller was woken (not timed out) with that conflict.
    let (status, body, elapsed) = poll.await.unwrap();
    assert_eq!(status, 200, "woken, not timed out");
    assert_eq!(body.unwrap()["conflicts"][0]["id"], conflict["id"]);
    assert!(elapsed < Duration::from_secs(30));
}

#[sqlx::test(migrations = "migrations/postgres")]
#[ignore = "needs PostgreSQL; scripts/test runs it with --include-ignored"]
async fn concurrent_resolutions_across_two_instances_execute_once(pool: sqlx::PgPool) {
    let url = url_of(&pool).await;
    let instances = [start(&url).await, start(&url).await];
    let client = reqwest::Client::new();
    let (_, old) = post(
        &client,
        format!("{}/nodes?detect=false", instances[0].base),
        json!({"title": "Region", "body": "us-east-1"}),
    )
    .await;
    let (_, new) = post(
        &client,
        format!("{}/nodes?detect=false", instances[1].base),
        json!({"title": "Region", "body": "eu-west-1"}),
    )
    .await;
    let (_, conflict) = post(
        &client,
        format!("{}/conflicts", instances[0].base),
        json!({"old_node_id": old["node"]["id"], "new_node_id": new["node"]["id"]}),
    )
    .await;
    let strategies = ["new_is_current", "old_is_current", "keep_both", "merge"];
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..32 {
        let url = format!("{}/contradiction/resolve", instances[i % 2].base);
        let body = json!({"conflict_id": conflict["id"], "resolution": strategies[(i / 2) % 4]});
        let client = client.clone();
        tasks.spawn(async move { post(&client, url, body).await });
    }
    let replies = tasks.join_all().await;
    let executed = replies
        .iter()
        .filter(|(s, b)| *s == 200 && b["replayed"] == false)
        .count();
    assert_eq!(executed, 1, "{replies:?}");
    assert!(
        replies.iter().all(|(s, _)| *s == 200 || *s == 409),
        "{replies:?}"
    );
    let edges: i64 =
        sqlx::query_scalar("select count(*) from edges where kind in ('supersedes', 'relates_to')")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert!(edges <= 1, "one set of edges, got {edges}");
}

#[sqlx::test(migrations = "migrations/postgres")]
#[ignore = "needs PostgreSQL; scripts/test runs it with --include-ignored"]
async fn a_key_revoked_on_one_instance_is_refused_by_the_other_within_a_second(pool: sqlx::PgPool) {
    // Arrange: a key made on A, just used on B.
    let url = url_of(&pool).await;
    let root = ["--api-keys", "root"];
    let (a, b) = (start_with(&url, &root).await, start_with(&url, &root).await);
    let client = reqwest::Client::new();
    let made = client
        .post(format!("{}/keys", a.base))
        .bearer_auth("root")
        .json(&json!({"name": "agent-1", "role": "agent", "scopes": ["team-a/*"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), 201);
    let key = made.json::<Value>().await.unwrap()["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let on_b = || {
        client
            .get(format!("{}/nodes", b.base))
            .bearer_auth(&key)
            .send()
    };
    assert_eq!(on_b().await.unwrap().status(), 200);

    // Act: revoke it on A.
    let revoked = client
        .delete(format!("{}/keys/agent-1", a.base))
        .bearer_auth("root")
        .send()
        .await
        .unwrap();
    assert_eq!(revoked.status(), 200);
    let at = Instant::now();

    // Assert: B refuses it within a second.
    while on_b().await.unwrap().status() != 401 {
        assert!(
            at.elapsed() < Duration::from_secs(1),
            "instance B still accepts a key revoked on A a second ago"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}
