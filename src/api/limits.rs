//! Overload protection: a deadline on every request and a global cap on requests in flight.
//!
//! - **Timeout.** A request that has not produced its response after
//!   `--request-timeout-ms` (default 30 s) is abandoned (its future is dropped, so an open
//!   transaction rolls back) and answered 503 `/problems/timeout` with `Retry-After`. 503
//!   rather than 408: 408 tells a client that *it* was too slow to send its request, while
//!   here the server could not finish in time and a retry later may succeed.
//! - **Load shedding.** At most `--max-in-flight` requests run at once; one more is refused
//!   at once with 503 `/problems/overloaded` and `Retry-After` instead of waiting in an
//!   unbounded queue (a client that backs off is better served than one that times out).
//! - **Exceptions.** `/healthz` and `/readyz` bypass both, so probes still answer under load.
//!   The long-lived routes (`GET /conflicts/wake`, the long poll, and `GET /events`, the SSE
//!   stream) bypass the timeout and count against a separate cap of the same size, so idle
//!   watchers can neither be cut off nor starve ordinary requests.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tokio::sync::Semaphore;

use super::error::ApiError;
use crate::domain::validate::{NUL_DETAIL, has_nul};

/// The limits' shared state; cheap to clone.
#[derive(Clone)]
pub struct Limits {
    timeout: Duration,
    requests: Arc<Semaphore>,
    watchers: Arc<Semaphore>,
}

impl Limits {
    pub fn new(timeout: Duration, max_in_flight: usize) -> Self {
        Self {
            timeout,
            requests: Arc::new(Semaphore::new(max_in_flight)),
            watchers: Arc::new(Semaphore::new(max_in_flight)),
        }
    }
}

/// Routes that only report whether the process and its database are up.
fn is_probe(path: &str) -> bool {
    matches!(path, "/healthz" | "/readyz")
}

/// Routes that hold their request open by design (long poll, server-sent events).
fn is_long_lived(path: &str) -> bool {
    matches!(path, "/conflicts/wake" | "/events")
}

/// The middleware: sheds load beyond the cap, then runs the request under the deadline.
pub async fn enforce(State(limits): State<Limits>, req: Request, next: Next) -> Response {
    let path = req.uri().path();
    if is_probe(path) {
        return next.run(req).await;
    }
    let long_lived = is_long_lived(path);
    let pool = if long_lived {
        &limits.watchers
    } else {
        &limits.requests
    };
    let Ok(permit) = pool.clone().try_acquire_owned() else {
        metrics::counter!("concord_requests_shed_total").increment(1);
        return ApiError::from(crate::service::Error::Overloaded).into_response();
    };
    let res = if long_lived {
        next.run(req).await
    } else {
        match tokio::time::timeout(limits.timeout, next.run(req)).await {
            Ok(res) => res,
            Err(_) => {
                metrics::counter!("concord_requests_timed_out_total").increment(1);
                ApiError::Timeout(limits.timeout.as_millis() as u64).into_response()
            }
        }
    };
    drop(permit);
    res
}

/// Refuses a query string whose percent-decoding is not UTF-8 with 422 naming the parameter,
/// instead of letting the query extractor replace the bad bytes with U+FFFD and answer a
/// question the client did not ask; and one that decodes to U+0000, by the domain's NUL rule
/// (`domain::validate::has_nul`), so that no filter reaches a database that cannot hold it.
pub async fn utf8_query(req: Request, next: Next) -> Response {
    if let Some(query) = req.uri().query()
        && let Some((name, detail)) = invalid_parameter(query)
    {
        return ApiError::validation(&format!("/{name}"), detail).into_response();
    }
    next.run(req).await
}

/// The (lossily decoded) name of the first `name=value` pair that does not decode to text
/// concord accepts, and what is wrong with it.
fn invalid_parameter(query: &str) -> Option<(String, &'static str)> {
    query.split('&').find_map(|pair| {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let name = percent_decode(name);
        let value = percent_decode(value);
        let detail = match (std::str::from_utf8(&name), std::str::from_utf8(&value)) {
            (Ok(n), Ok(v)) if has_nul(n) || has_nul(v) => NUL_DETAIL,
            (Ok(_), Ok(_)) => return None,
            _ => "must be valid UTF-8 once decoded",
        };
        Some((String::from_utf8_lossy(&name).into_owned(), detail))
    })
}

/// `application/x-www-form-urlencoded` decoding: `+` is a space, `%XX` a byte.
fn percent_decode(s: &str) -> Vec<u8> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_is_checked_after_percent_decoding() {
        let name = |q| invalid_parameter(q).map(|(n, _)| n);
        assert_eq!(name("q=%E7%BC%93&limit=2"), None);
        assert_eq!(name("q=a+b%20c&x"), None);
        assert_eq!(name("q=100%"), None);
        assert_eq!(name("q=%zz"), None);
        assert_eq!(name("limit=1&q=%FF%FE"), Some("q".into()));
        assert_eq!(name("label=%C0%AF"), Some("label".into()));
        assert_eq!(name("%FF=1"), Some("\u{fffd}".into()));
    }

    #[test]
    fn a_parameter_that_decodes_to_nul_is_refused() {
        assert_eq!(
            invalid_parameter("limit=1&label=a%00b"),
            Some(("label".into(), NUL_DETAIL))
        );
        assert_eq!(invalid_parameter("kind=%00").unwrap().0, "kind");
        assert_eq!(invalid_parameter("q=%2500"), None);
    }
}
