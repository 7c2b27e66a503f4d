//! The HTTP/1.1 server loop `concord serve` runs (instead of `axum::serve`, which sets neither
//! of the two guards below), so that idle sockets can never take the service down.
//!
//! - **Header-read timeout.** A connection must deliver a complete request head within
//!   `--header-read-timeout-ms` (default 30 s) of starting to wait for one, whether it is new
//!   or idle between keep-alive requests; otherwise it is closed. Slow-header (slowloris) and
//!   silent connections go away on their own.
//! - **Connection cap.** At most `--max-connections` are open (default: what the process's
//!   file-descriptor limit allows, less a reserve for the database and files). A connection
//!   that arrives at the cap evicts the oldest *idle* one (no request in progress, no response
//!   still streaming); only when none is idle is the newcomer closed at once. Either way the
//!   process stays below its descriptor limit and keeps accepting, so `/healthz` answers even
//!   while thousands of idle sockets are open.
//! - **Early refusals as problems.** A request head hyper refuses before any middleware runs
//!   (400 malformed, 414 target too long, 431 head too large) is answered as problem+json
//!   ([`early`]) rather than with hyper's bare status line.
//! - **Graceful shutdown.** On the shutdown signal the listener closes, idle connections close
//!   and requests in flight finish before `serve` returns.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::Request;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{Notify, watch};
use tower::ServiceExt;

use crate::state::AppState;

mod early;

pub use early::{MAX_HEAD_BYTES, MAX_HEADERS};

/// The complete application: the REST routes and the MCP route side by side, under the HTTP
/// rules both share (`api::finish`: fallbacks, keys, limits, idempotency, metrics); the MCP
/// route, whose SDK reads its own body, also behind `api::guard` (origin, declared size).
pub fn app(state: AppState) -> Router {
    let mcp =
        crate::api::guard::guarded(crate::mcp::http::routes(&state), state.mcp_sessions.clone());
    let routes = crate::api::router().merge(mcp);
    crate::api::finish(routes, state).layer(axum::middleware::from_fn(nosniff))
}

/// Every response says its content type is what it declares: a JSON reply (or a problem) is
/// never sniffed into something a browser would run.
async fn nosniff(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let mut res = next.run(req).await;
    res.headers_mut()
        .entry(axum::http::header::X_CONTENT_TYPE_OPTIONS)
        .or_insert(axum::http::HeaderValue::from_static("nosniff"));
    res
}

/// File descriptors kept back from the connection cap: database connections, the SQLite
/// files and their journals, the listener, logs.
const FD_RESERVE: usize = 128;

pub use crate::config::ServerLimits;

impl ServerLimits {
    /// The cap in force: the configured one, never above what the descriptor limit allows.
    pub fn connection_cap(&self) -> usize {
        let allowed = fd_limit()
            .map(|n| n.saturating_sub(FD_RESERVE).max(16))
            .unwrap_or(usize::MAX);
        self.max_connections.unwrap_or(allowed).min(allowed).max(1)
    }
}

/// The soft `RLIMIT_NOFILE`, when there is one.
#[cfg(unix)]
fn fd_limit() -> Option<usize> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes into the struct it is given.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
    (ok && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur as usize)
}

#[cfg(not(unix))]
fn fd_limit() -> Option<usize> {
    None
}

/// One open connection, as the cap sees it.
#[derive(Default)]
struct Conn {
    /// Requests whose response has not been fully sent (or dropped).
    busy: AtomicUsize,
    /// Asks the connection to close once idle.
    close: Notify,
}

/// The open connections, oldest first (ids grow).
#[derive(Default)]
struct Registry {
    conns: Mutex<BTreeMap<u64, Arc<Conn>>>,
}

impl Registry {
    /// Registers a new connection, making room under `cap`: `None` when every open
    /// connection is busy and the newcomer must be refused.
    fn admit(&self, id: u64, cap: usize) -> Option<Arc<Conn>> {
        let mut conns = self.conns.lock().expect("registry lock");
        if conns.len() >= cap {
            let idle = conns
                .iter()
                .find(|(_, c)| c.busy.load(Ordering::Acquire) == 0)
                .map(|(&id, _)| id)?;
            let evicted = conns.remove(&idle).expect("present");
            // The connection closes as soon as it is idle (at once, unless a request races in).
            evicted.close.notify_one();
            metrics::counter!("concord_connections_evicted_total").increment(1);
        }
        let conn = Arc::new(Conn::default());
        conns.insert(id, conn.clone());
        metrics::gauge!("concord_connections_open").set(conns.len() as f64);
        Some(conn)
    }

    fn remove(&self, id: u64) {
        let mut conns = self.conns.lock().expect("registry lock");
        conns.remove(&id);
        metrics::gauge!("concord_connections_open").set(conns.len() as f64);
    }
}

/// Serves `app` on `listener` until `shutdown` resolves, then drains.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ServerLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let cap = limits.connection_cap();
    tracing::info!(
        max_connections = cap,
        header_read_timeout_ms = limits.header_read_timeout.as_millis() as u64,
        "connection limits"
    );
    let registry = Arc::new(Registry::default());
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut shutdown = pin!(shutdown);
    let mut next_id = 0u64;
    loop {
        let (stream, peer) = tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of descriptors or a connection reset before accept: not fatal.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        next_id += 1;
        let Some(conn) = registry.admit(next_id, cap) else {
            metrics::counter!("concord_connections_refused_total").increment(1);
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(serve_connection(
            (stream, peer),
            app.clone(),
            limits.header_read_timeout,
            conn,
            stop_rx.clone(),
            (registry.clone(), next_id),
        ));
    }
    drop(listener);
    drop(stop_rx);
    let _ = stop_tx.send(true);
    // Every connection task holds a receiver; they are all gone once every one has finished.
    stop_tx.closed().await;
    Ok(())
}

async fn serve_connection(
    (stream, peer): (tokio::net::TcpStream, std::net::SocketAddr),
    app: Router,
    header_read_timeout: Duration,
    conn: Arc<Conn>,
    mut stop: watch::Receiver<bool>,
    (registry, id): (Arc<Registry>, u64),
) {
    let tracked = conn.clone();
    let service = tower::service_fn(move |req: Request<Incoming>| {
        let guard = BusyGuard::enter(tracked.clone());
        let app = app.clone();
        let mut req = req.map(Body::new);
        // The peer, for what is counted per client (MCP sessions, failed keys).
        req.extensions_mut()
            .insert(axum::extract::ConnectInfo(peer));
        async move {
            let res = app.oneshot(req).await?;
            Ok::<_, Infallible>(res.map(|body| {
                Body::new(Tracked {
                    body,
                    _guard: guard,
                })
            }))
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout)
        .max_headers(MAX_HEADERS)
        .max_buf_size(MAX_HEAD_BYTES)
        .keep_alive(true);
    let connection = builder.serve_connection(
        early::EarlyProblems::new(TokioIo::new(stream)),
        TowerToHyperService::new(service),
    );
    let mut connection = pin!(connection);
    let mut closing = false;
    loop {
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!(error = %e, "connection ended with an error");
                }
                break;
            }
            _ = conn.close.notified(), if !closing => {
                closing = true;
                connection.as_mut().graceful_shutdown();
            }
            _ = stop.changed(), if !closing => {
                closing = true;
                connection.as_mut().graceful_shutdown();
            }
        }
    }
    registry.remove(id);
}

/// Counts a request as in progress until its response body is finished or dropped.
struct BusyGuard(Arc<Conn>);

impl BusyGuard {
    fn enter(conn: Arc<Conn>) -> Self {
        conn.busy.fetch_add(1, Ordering::AcqRel);
        Self(conn)
    }
}

impl Drop for BusyGuard {
    fn drop(&mut self) {
        self.0.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A response body that keeps its connection busy while it streams (SSE, long replies).
struct Tracked {
    body: Body,
    _guard: BusyGuard,
}

impl hyper::body::Body for Tracked {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_the_cap_the_oldest_idle_connection_makes_room() {
        let registry = Registry::default();
        let first = registry.admit(1, 2).unwrap();
        let second = registry.admit(2, 2).unwrap();
        second.busy.fetch_add(1, Ordering::AcqRel);
        first.busy.fetch_add(1, Ordering::AcqRel);
        // Both busy: the newcomer is refused.
        assert!(registry.admit(3, 2).is_none());
        // One idle: it is evicted (asked to close) for the newcomer.
        second.busy.fetch_sub(1, Ordering::AcqRel);
        assert!(registry.admit(4, 2).is_some());
        let ids: Vec<u64> = registry.conns.lock().unwrap().keys().copied().collect();
        assert_eq!(ids, [1, 4]);
    }

    #[test]
    fn the_cap_never_exceeds_the_descriptor_limit() {
        let limits = ServerLimits {
            header_read_timeout: Duration::from_secs(1),
            max_connections: Some(usize::MAX),
        };
        if let Some(fds) = fd_limit() {
            assert!(limits.connection_cap() < fds);
        }
    }
}
