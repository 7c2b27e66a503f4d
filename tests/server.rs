//! The server loop over real sockets: a connection that sends no request head is closed after
//! the header-read timeout, and at the connection cap the oldest idle connection makes room,
//! so `/healthz` and writes are served however many idle sockets are open.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use concord::config::Settings;
use concord::server::ServerLimits;
use concord::store::Store;
use concord::store::postgres::PgStore;
use concord::store::sqlite::SqliteStore;

/// Far above any timeout the tests configure: only a server that never closes reaches it.
const GUARD: Duration = Duration::from_secs(30);

/// Starts the server on a free loopback port; returns its address.
async fn start(store: Arc<dyn Store>, limits: ServerLimits) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut settings = Settings::for_database("sqlite://test");
    settings.bind = addr;
    let app = concord::app(concord::AppState::new(store, settings));
    tokio::spawn(concord::server::serve(
        listener,
        app,
        limits,
        std::future::pending(),
    ));
    addr
}

/// Reads until the server closes the connection.
async fn closed_by_server(stream: &mut TcpStream) -> bool {
    let mut buf = [0u8; 1024];
    matches!(
        tokio::time::timeout(GUARD, async {
            loop {
                match stream.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
            }
        })
        .await,
        Ok(())
    )
}

/// One request on a fresh connection; returns the status line and the body.
async fn request(addr: std::net::SocketAddr, method: &str, path: &str, body: &str) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(req.as_bytes()).await.unwrap();
    let mut reply = String::new();
    tokio::time::timeout(GUARD, stream.read_to_string(&mut reply))
        .await
        .expect("a reply")
        .unwrap();
    reply
}

async fn a_connection_that_sends_no_request_head_is_closed(store: Arc<dyn Store>) {
    // Arrange
    let addr = start(
        store,
        ServerLimits {
            header_read_timeout: Duration::from_millis(300),
            max_connections: None,
        },
    )
    .await;
    let mut silent = TcpStream::connect(addr).await.unwrap();
    let mut slow = TcpStream::connect(addr).await.unwrap();
    slow.write_all(format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\n").as_bytes())
        .await
        .unwrap();
    let mut kept_alive = TcpStream::connect(addr).await.unwrap();
    kept_alive
        .write_all(format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\n\r\n").as_bytes())
        .await
        .unwrap();

    // Act + Assert: all three are closed by the server (the third after its reply).
    assert!(closed_by_server(&mut silent).await, "silent connection");
    assert!(closed_by_server(&mut slow).await, "slow request head");
    assert!(closed_by_server(&mut kept_alive).await, "idle keep-alive");
    assert!(
        request(addr, "GET", "/healthz", "")
            .await
            .starts_with("HTTP/1.1 200")
    );
}

async fn at_the_connection_cap_idle_sockets_make_room_for_new_requests(store: Arc<dyn Store>) {
    // Arrange: the cap is filled with idle connections that would never time out here.
    let addr = start(
        store,
        ServerLimits {
            header_read_timeout: Duration::from_secs(3_600),
            max_connections: Some(8),
        },
    )
    .await;
    let mut idle = Vec::new();
    for _ in 0..32 {
        idle.push(TcpStream::connect(addr).await.unwrap());
    }

    // Act
    let health = request(addr, "GET", "/healthz", "").await;
    let write = request(addr, "POST", "/nodes", r#"{"title": "still writing"}"#).await;

    // Assert: served, and the oldest idle sockets were closed to make room.
    assert!(health.starts_with("HTTP/1.1 200"), "{health}");
    assert!(write.starts_with("HTTP/1.1 201"), "{write}");
    assert!(closed_by_server(&mut idle[0]).await, "oldest idle socket");
}

/// Sends `head` (a whole request head, bytes as given) and reads the reply until the server
/// closes the connection.
async fn raw(addr: std::net::SocketAddr, head: &[u8]) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    // The server may answer and close before it has read everything.
    let _ = stream.write_all(head).await;
    let mut reply = Vec::new();
    let _ = tokio::time::timeout(GUARD, stream.read_to_end(&mut reply)).await;
    String::from_utf8_lossy(&reply).into_owned()
}

/// The status and problem type of a raw reply, after checking it is problem+json.
fn problem_of(reply: &str) -> (u16, String) {
    let (head, body) = reply.split_once("\r\n\r\n").expect("a reply head");
    let status = head[9..12].parse().unwrap();
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/problem+json"),
        "{reply}"
    );
    let body: serde_json::Value = serde_json::from_str(body).expect("a JSON body");
    assert_eq!(body["status"], status, "{reply}");
    let id = head
        .lines()
        .find_map(|l| l.strip_prefix("x-request-id: "))
        .expect("x-request-id");
    assert_eq!(body["request_id"], id, "{reply}");
    (status, body["type"].as_str().unwrap().to_owned())
}

async fn requests_refused_before_routing_get_problem_details(store: Arc<dyn Store>) {
    // Arrange
    let addr = start(
        store,
        ServerLimits {
            header_read_timeout: Duration::from_secs(30),
            max_connections: None,
        },
    )
    .await;
    let host = format!("Host: {addr}\r\n");
    let long_uri = format!("GET /nodes?q={} HTTP/1.1\r\n{host}\r\n", "a".repeat(70_000));
    let many_headers = format!(
        "GET /healthz HTTP/1.1\r\n{host}{}\r\n",
        (0..120)
            .map(|i| format!("x-h{i}: v\r\n"))
            .collect::<String>()
    );
    let huge_header = format!(
        "GET /healthz HTTP/1.1\r\n{host}x-big: {}\r\n\r\n",
        "b".repeat(500_000)
    );
    let mut del_key = format!(
        "POST /nodes HTTP/1.1\r\n{host}Content-Type: application/json\r\n\
         Content-Length: 13\r\nIdempotency-Key: ab"
    )
    .into_bytes();
    del_key.push(0x7f);
    del_key.extend_from_slice(b"cd\r\n\r\n{\"title\":\"x\"}");

    // Act
    let replies = [
        raw(addr, long_uri.as_bytes()).await,
        raw(addr, many_headers.as_bytes()).await,
        raw(addr, huge_header.as_bytes()).await,
        raw(addr, &del_key).await,
    ];

    // Assert
    let got: Vec<_> = replies.iter().map(|r| problem_of(r)).collect();
    assert_eq!(
        got,
        [
            (414, "/problems/uri-too-long".to_owned()),
            (431, "/problems/headers-too-large".to_owned()),
            (431, "/problems/headers-too-large".to_owned()),
            (400, "/problems/malformed-request".to_owned()),
        ]
    );
    // Nothing was written, and the server still serves.
    let list = request(addr, "GET", "/nodes", "").await;
    assert!(list.contains("\"items\":[]"), "{list}");
}

macro_rules! on_both_databases {
    ($($case:ident),* $(,)?) => {
        mod sqlite { $(
            #[sqlx::test(migrations = "migrations/sqlite")]
            async fn $case(pool: sqlx::SqlitePool) {
                super::$case(std::sync::Arc::new(super::SqliteStore::from_pool(pool))).await
            }
        )* }
        mod postgres { $(
            #[sqlx::test(migrations = "migrations/postgres")]
            #[ignore = "needs PostgreSQL; scripts/test runs it with --include-ignored"]
            async fn $case(pool: sqlx::PgPool) {
                super::$case(std::sync::Arc::new(super::PgStore::from_pool(pool))).await
            }
        )* }
    };
}

on_both_databases!(
    a_connection_that_sends_no_request_head_is_closed,
    at_the_connection_cap_idle_sockets_make_room_for_new_requests,
    requests_refused_before_routing_get_problem_details,
);
