//! Failures as REST reports them: RFC 9457 problem details (`application/problem+json`), each
//! with a stable type (`/problems/<code>`), a title and a status. A use case's outcome
//! ([`service::Error`]) converts once, here, reading its code, title and status from
//! [`service::Kind`]; the failures only HTTP has (malformed JSON, no route, keys, origins,
//! deadlines) are listed below. Handlers only use `?`. A 5xx never shows database text: the
//! cause goes to the log, next to the request id the client also receives.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::domain::FieldError;
use crate::service::{self, Kind};
use crate::telemetry;
use crate::wire::dto::{ActionDto, ChangeDto, CurrentResolution, NodeStateDto, ProblemMembers};

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// A use case's outcome, or one the HTTP layer reaches by itself (a path id that names no
    /// resource, the in-flight cap, a failure of its own).
    #[error(transparent)]
    Service(service::Error),
    /// Invalid input, found by an extractor or a handler's parsing, or by the use case.
    #[error("the request has invalid fields")]
    Validation(Vec<FieldError>),
    #[error("{0}")]
    MalformedJson(String),
    #[error("expected a JSON body with `Content-Type: application/json`")]
    UnsupportedMediaType,
    #[error("the request body exceeds {0} bytes")]
    PayloadTooLarge(usize),
    #[error("no route for this path")]
    NoRoute,
    #[error("method not allowed")]
    MethodNotAllowed,
    #[error("this Idempotency-Key was used with a different request")]
    IdempotencyKeyReuse,
    #[error("a request with this Idempotency-Key is still running")]
    IdempotencyInFlight,
    #[error("a valid `Authorization: Bearer <key>` header is required")]
    Unauthorized,
    /// Too many failed keys from the client's address; the seconds until it may try again.
    #[error("too many failed keys from this address; retry in {0} s")]
    TooManyFailedKeys(u64),
    #[error("requests from origin {0} are not accepted")]
    ForeignOrigin(String),
    /// A request head hyper refused before routing (400, 414 or 431; `server::early`).
    #[error("{}", head_detail(*.0))]
    RequestHead(u16),
    #[error(
        "{0} MCP sessions are open, the most this server keeps; close one (DELETE) or retry once idle ones expire"
    )]
    McpSessionsFull(usize),
    #[error(
        "this client holds {0} MCP sessions, its share of this server's; close one (DELETE) or retry once idle ones expire"
    )]
    McpClientSessionsFull(usize),
    #[error("this service does not answer to the host name {0:?}")]
    ForeignHost(String),
    #[error("the request did not complete within {0} ms; retry later")]
    Timeout(u64),
    /// `/readyz`: the database did not answer in time.
    #[error("the database did not answer within {0} ms; retry later")]
    NotReady(u64),
    /// `/readyz`: the last write failed for a full disk, and so did the probe.
    #[error("writes are failing: the database's storage is full")]
    NotWritable(#[source] service::Error),
}

/// RFC 9457 problem details, with concord's extension members.
#[derive(Debug, Serialize, ToSchema)]
pub struct Problem {
    /// Stable problem type, e.g. `/problems/not-found`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Short summary, the same for every occurrence of the type.
    pub title: String,
    /// HTTP status code.
    pub status: u16,
    /// What went wrong this time.
    pub detail: String,
    /// The request id, also sent as the `x-request-id` header.
    pub request_id: String,
    /// Invalid fields (422).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<FieldErrorDto>>,
    /// The resolution already recorded (`/problems/already-resolved`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current: Option<CurrentResolution>,
    /// The node that is no longer active (`/problems/stale-conflict`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_id: Option<Uuid>,
    /// Its state (`/problems/stale-conflict`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_state: Option<NodeStateDto>,
    /// Steps done before the failure, now rolled back (`/problems/resolution-failed`,
    /// `/problems/revert-failed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial_actions: Option<Vec<ActionDto>>,
    /// The step that failed (`/problems/resolution-failed`, `/problems/revert-failed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_action: Option<String>,
    /// Always true on `/problems/resolution-failed` and `/problems/revert-failed`: nothing was
    /// written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rolled_back: Option<bool>,
    /// Whether repeating the request may succeed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
    /// The later changes in the way of a revert (`/problems/revert-conflict`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<Vec<ChangeDto>>,
    /// The sweep that is running (`/problems/sweep-running`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sweep_id: Option<uuid::Uuid>,
}

/// One invalid field.
#[derive(Debug, Serialize, ToSchema)]
pub struct FieldErrorDto {
    /// JSON Pointer to the field (or `/name` of a query parameter).
    pub pointer: String,
    /// What is wrong with it.
    pub detail: String,
}

fn head_detail(status: u16) -> String {
    use crate::config::{MAX_HEAD_BYTES, MAX_HEADERS};
    match status {
        414 => "the request target exceeds 65534 bytes".to_owned(),
        431 => format!(
            "the request head exceeds {MAX_HEAD_BYTES} bytes or {MAX_HEADERS} header fields"
        ),
        _ => "the request head is not valid HTTP/1.1: a malformed request line, or a header \
              name or value with a character HTTP does not allow (a control character such \
              as DEL)"
            .to_owned(),
    }
}

impl From<service::Error> for ApiError {
    fn from(e: service::Error) -> Self {
        match e {
            service::Error::Invalid(errors) => Self::Validation(errors),
            e => Self::Service(e),
        }
    }
}

impl ApiError {
    pub fn validation(pointer: &str, detail: impl Into<String>) -> Self {
        Self::Validation(vec![FieldError::new(pointer, detail)])
    }

    /// A failure of the HTTP layer itself: logged, answered as `/problems/internal`.
    pub fn internal(cause: anyhow::Error) -> Self {
        Self::Service(service::Error::Internal(cause))
    }

    pub fn status(&self) -> StatusCode {
        let (_, _, status) = self.facts();
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    /// Code, title and status: a use case's from its [`Kind`], HTTP's own from this table.
    fn facts(&self) -> (&'static str, &'static str, u16) {
        use ApiError::*;
        let of = |k: Kind| (k.code(), k.title(), k.status());
        match self {
            Service(e) => of(e.kind()),
            Validation(_) => of(Kind::Invalid),
            NoRoute => of(Kind::NotFound),
            NotReady(_) => of(Kind::Unavailable),
            // Not ready rather than out of space this moment: 503, as for any probe.
            NotWritable(_) => (Kind::StorageFull.code(), Kind::StorageFull.title(), 503),
            MalformedJson(_) => ("malformed-json", "Malformed JSON", 400),
            UnsupportedMediaType => ("unsupported-media-type", "Unsupported media type", 415),
            PayloadTooLarge(_) => ("payload-too-large", "Payload too large", 413),
            MethodNotAllowed => ("method-not-allowed", "Method not allowed", 405),
            IdempotencyKeyReuse => ("idempotency-key-reuse", "Idempotency key reused", 422),
            IdempotencyInFlight => ("idempotency-in-flight", "Idempotent request in flight", 409),
            Unauthorized => ("unauthorized", "Unauthorized", 401),
            TooManyFailedKeys(_) => ("too-many-failed-keys", "Too many failed keys", 429),
            ForeignOrigin(_) => ("foreign-origin", "Foreign origin", 403),
            McpSessionsFull(_) => ("mcp-sessions-full", "Too many MCP sessions", 503),
            McpClientSessionsFull(_) => (
                "mcp-client-sessions-full",
                "Too many MCP sessions for this client",
                503,
            ),
            RequestHead(414) => ("uri-too-long", "URI too long", 414),
            RequestHead(431) => ("headers-too-large", "Request headers too large", 431),
            RequestHead(_) => ("malformed-request", "Malformed request", 400),
            // 421: the request reached a server that does not serve that authority.
            ForeignHost(_) => ("foreign-host", "Foreign host", 421),
            Timeout(_) => ("timeout", "Request timed out", 503),
        }
    }

    /// The problem details this error is rendered as.
    pub fn problem(&self) -> Problem {
        let (code, title, status) = self.facts();
        let errors = match self {
            Self::Validation(errors) => Some(
                errors
                    .iter()
                    .map(|e| FieldErrorDto {
                        pointer: e.pointer.clone(),
                        detail: e.detail.clone(),
                    })
                    .collect(),
            ),
            _ => None,
        };
        let members = match self {
            Self::Service(e) => e.members(),
            _ => ProblemMembers::default(),
        };
        // Listed member by member: the OpenAPI document describes each one.
        let ProblemMembers {
            current,
            node_id,
            node_state,
            partial_actions,
            failed_action,
            rolled_back,
            retryable,
            changes,
            sweep_id,
        } = members;
        Problem {
            kind: format!("/problems/{code}"),
            title: title.to_owned(),
            status,
            detail: self.to_string(),
            request_id: telemetry::current_request_id(),
            errors,
            current,
            node_id,
            node_state,
            partial_actions,
            failed_action,
            rolled_back,
            retryable,
            changes,
            sweep_id,
        }
    }

    /// `Retry-After` seconds, for the failures a retry later may get past.
    fn retry_after(&self) -> Option<&'static str> {
        use service::Error as E;
        match self {
            Self::IdempotencyInFlight => Some("1"),
            // Slots free as sessions end: by DELETE at any moment, by expiry within minutes.
            Self::McpSessionsFull(_) | Self::McpClientSessionsFull(_) => Some("10"),
            Self::Timeout(_)
            | Self::NotReady(_)
            | Self::Service(E::Overloaded | E::Unavailable(_) | E::Busy(_)) => Some("2"),
            // Space is freed by an operator, not in seconds.
            Self::NotWritable(_) | Self::Service(E::StorageFull(_)) => Some("30"),
            _ => None,
        }
    }
}

impl ApiError {
    /// The whole HTTP/1.1 response, bytes on the wire, for a refusal written below the router
    /// (`server::early`), where no middleware adds the request id or `nosniff`; the connection
    /// closes after it.
    pub fn raw_response(&self, reason: &str) -> Vec<u8> {
        let id = uuid::Uuid::now_v7().to_string();
        let mut problem = self.problem();
        problem.request_id = id.clone();
        tracing::info!(status = problem.status, request_id = %id, "request head refused");
        let json = serde_json::to_vec(&problem).unwrap_or_default();
        let mut out = format!(
            "HTTP/1.1 {} {reason}\r\ncontent-type: application/problem+json\r\n\
             content-length: {}\r\nx-request-id: {id}\r\nx-content-type-options: nosniff\r\n\
             connection: close\r\n\r\n",
            problem.status,
            json.len()
        )
        .into_bytes();
        out.extend_from_slice(&json);
        out
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        if status.is_server_error() {
            // The full cause chain goes to the log only.
            tracing::error!(error = ?self, "request failed");
        }
        let body = serde_json::to_vec(&self.problem()).unwrap_or_default();
        let mut res = (status, body).into_response();
        let headers = res.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        if let Some(seconds) = self.retry_after() {
            headers.insert(header::RETRY_AFTER, HeaderValue::from_static(seconds));
        }
        if let Self::TooManyFailedKeys(seconds) = self {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if let Self::Unauthorized = self {
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"concord\""),
            );
        }
        res
    }
}
