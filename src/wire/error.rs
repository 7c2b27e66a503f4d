//! The problem catalogue both front doors report failures with: each kind has a stable type
//! (`/problems/<code>`), a title and a status, and renders as RFC 9457 problem details. A use
//! case's outcome ([`service::Error`]) converts once, here; handlers and tools only use `?`.
//! A 5xx never shows database text: the cause goes to the log, next to the request id the
//! client also receives.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::domain::FieldError;
use crate::domain::resolution::Resolution;
use crate::domain::revert::Obstacle;
use crate::service;
use crate::telemetry;
use crate::wire::dto::{ActionDto, NodeStateDto};

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    MalformedJson(String),
    #[error("expected a JSON body with `Content-Type: application/json`")]
    UnsupportedMediaType,
    #[error("the request body exceeds {0} bytes")]
    PayloadTooLarge(usize),
    #[error("the request has invalid fields")]
    Validation(Vec<FieldError>),
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("no route for this path")]
    NoRoute,
    #[error("method not allowed")]
    MethodNotAllowed,
    #[error("the conflict was already resolved with another resolution")]
    AlreadyResolved(Box<Resolution>),
    #[error(
        "node {node_id} is {state}: the strategy would leave the conflict without a current fact"
    )]
    Stale { node_id: Uuid, state: String },
    #[error("this Idempotency-Key was used with a different request")]
    IdempotencyKeyReuse,
    #[error("a request with this Idempotency-Key is still running")]
    IdempotencyInFlight,
    #[error("a valid `Authorization: Bearer <key>` header is required")]
    Unauthorized,
    #[error("requests from origin {0} are not accepted")]
    ForeignOrigin(String),
    #[error("the resolution failed at {failed_action} and was rolled back")]
    ResolutionFailed {
        partial_actions: Vec<crate::domain::conflict::Action>,
        failed_action: String,
        unavailable: bool,
        #[source]
        cause: Box<service::Error>,
    },
    #[error("the conflict is pending: there is no resolution to revert")]
    NotResolved,
    #[error("the resolution cannot be reverted: {}", changes_text(.0))]
    RevertConflict(Vec<Obstacle>),
    #[error("the revert failed at {failed_action} and was rolled back")]
    RevertFailed {
        partial_actions: Vec<crate::domain::conflict::Action>,
        failed_action: String,
        unavailable: bool,
        #[source]
        cause: Box<service::Error>,
    },
    #[error("the service is overloaded; retry later")]
    Overloaded,
    #[error("the request did not complete within {0} ms; retry later")]
    Timeout(u64),
    #[error("the database is unreachable; retry later")]
    Unavailable(#[source] service::Error),
    #[error("the database did not answer within {0} ms; retry later")]
    NotReady(u64),
    #[error("the database is busy with another writer; retry later")]
    Busy(#[source] service::Error),
    #[error("the database's storage is full; nothing was written, retry once space is freed")]
    StorageFull(#[source] service::Error),
    #[error("writes are failing: the database's storage is full")]
    NotWritable(#[source] service::Error),
    #[error("internal error")]
    Internal(#[source] anyhow::Error),
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
}

/// A change made after a resolution that a revert would overwrite.
#[derive(Debug, Serialize, ToSchema)]
pub struct ChangeDto {
    /// `node_edited`, `node_deleted`, `resolved_again`, `pair_pending`, `node_linked`,
    /// `edge_changed`, `conflict_changed` or `no_pre_image`.
    pub change: String,
    /// The change, in words.
    pub detail: String,
    /// The node edited, deleted, resolved again or linked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_id: Option<Uuid>,
    /// The conflict that resolved the node again, holds the pair, or changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflict_id: Option<Uuid>,
    /// The edge that changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edge_id: Option<Uuid>,
    /// The edge or conflict linked to a node the resolution created.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub linked_id: Option<Uuid>,
}

impl From<&Obstacle> for ChangeDto {
    fn from(o: &Obstacle) -> Self {
        let mut d = ChangeDto {
            change: o.name().to_owned(),
            detail: o.to_string(),
            node_id: None,
            conflict_id: None,
            edge_id: None,
            linked_id: None,
        };
        match *o {
            Obstacle::NodeEdited { node_id } | Obstacle::NodeDeleted { node_id } => {
                d.node_id = Some(node_id);
            }
            Obstacle::ResolvedAgain {
                node_id,
                conflict_id,
            } => (d.node_id, d.conflict_id) = (Some(node_id), Some(conflict_id)),
            Obstacle::PairPending { conflict_id } | Obstacle::ConflictChanged { conflict_id } => {
                d.conflict_id = Some(conflict_id);
            }
            Obstacle::NodeLinked { node_id, link_id } => {
                (d.node_id, d.linked_id) = (Some(node_id), Some(link_id));
            }
            Obstacle::EdgeChanged { edge_id } => d.edge_id = Some(edge_id),
            Obstacle::NoPreImage => {}
        }
        d
    }
}

fn changes_text(obstacles: &[Obstacle]) -> String {
    let parts: Vec<String> = obstacles.iter().map(ToString::to_string).collect();
    parts.join("; ")
}

/// One invalid field.
#[derive(Debug, Serialize, ToSchema)]
pub struct FieldErrorDto {
    /// JSON Pointer to the field (or `/name` of a query parameter).
    pub pointer: String,
    /// What is wrong with it.
    pub detail: String,
}

/// The resolution a conflict already has.
#[derive(Debug, Serialize, ToSchema)]
pub struct CurrentResolution {
    /// Strategy used.
    pub resolution: String,
    /// When it was resolved.
    pub resolved_at: String,
    /// What it did.
    pub actions: Vec<ActionDto>,
}

impl ApiError {
    pub fn status(&self) -> StatusCode {
        use ApiError::*;
        match self {
            MalformedJson(_) => StatusCode::BAD_REQUEST,
            UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            Validation(_) | IdempotencyKeyReuse => StatusCode::UNPROCESSABLE_ENTITY,
            NotFound(_) | NoRoute => StatusCode::NOT_FOUND,
            MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            AlreadyResolved(_)
            | Stale { .. }
            | IdempotencyInFlight
            | NotResolved
            | RevertConflict(_) => StatusCode::CONFLICT,
            Unauthorized => StatusCode::UNAUTHORIZED,
            ForeignOrigin(_) => StatusCode::FORBIDDEN,
            ResolutionFailed { unavailable, .. } | RevertFailed { unavailable, .. }
                if *unavailable =>
            {
                StatusCode::SERVICE_UNAVAILABLE
            }
            ResolutionFailed { .. } | RevertFailed { .. } | Internal(_) => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
            Overloaded | Timeout(_) | Unavailable(_) | NotReady(_) | Busy(_) | NotWritable(_) => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            StorageFull(_) => StatusCode::INSUFFICIENT_STORAGE,
        }
    }

    /// The stable problem type (its path segment) and title.
    pub fn code(&self) -> (&'static str, &'static str) {
        use ApiError::*;
        match self {
            MalformedJson(_) => ("malformed-json", "Malformed JSON"),
            UnsupportedMediaType => ("unsupported-media-type", "Unsupported media type"),
            PayloadTooLarge(_) => ("payload-too-large", "Payload too large"),
            Validation(_) => ("validation", "Invalid request"),
            NotFound(_) | NoRoute => ("not-found", "Not found"),
            MethodNotAllowed => ("method-not-allowed", "Method not allowed"),
            AlreadyResolved(_) => ("already-resolved", "Conflict already resolved"),
            Stale { .. } => ("stale-conflict", "Conflict is stale"),
            IdempotencyKeyReuse => ("idempotency-key-reuse", "Idempotency key reused"),
            IdempotencyInFlight => ("idempotency-in-flight", "Idempotent request in flight"),
            Unauthorized => ("unauthorized", "Unauthorized"),
            ForeignOrigin(_) => ("foreign-origin", "Foreign origin"),
            ResolutionFailed { .. } => ("resolution-failed", "Resolution failed"),
            NotResolved => ("not-resolved", "Conflict not resolved"),
            RevertConflict(_) => ("revert-conflict", "Later changes in the way"),
            RevertFailed { .. } => ("revert-failed", "Revert failed"),
            Overloaded => ("overloaded", "Service overloaded"),
            Timeout(_) => ("timeout", "Request timed out"),
            Unavailable(_) | NotReady(_) => ("unavailable", "Service unavailable"),
            Busy(_) => ("busy", "Database busy"),
            StorageFull(_) | NotWritable(_) => ("storage-full", "Storage full"),
            Internal(_) => ("internal", "Internal server error"),
        }
    }

    pub fn validation(pointer: &str, detail: impl Into<String>) -> Self {
        Self::Validation(vec![FieldError::new(pointer, detail)])
    }

    /// The problem details this error is rendered as (also the body of a failed MCP tool call).
    pub fn problem(&self) -> Problem {
        let status = self.status();
        let (code, title) = self.code();
        let detail = match self {
            Self::Internal(_) => "internal error".to_owned(),
            other => other.to_string(),
        };
        let mut p = Problem {
            kind: format!("/problems/{code}"),
            title: title.to_owned(),
            status: status.as_u16(),
            detail,
            request_id: telemetry::current_request_id(),
            errors: None,
            current: None,
            node_id: None,
            node_state: None,
            partial_actions: None,
            failed_action: None,
            rolled_back: None,
            retryable: None,
            changes: None,
        };
        match self {
            Self::Validation(errors) => {
                p.errors = Some(
                    errors
                        .iter()
                        .map(|e| FieldErrorDto {
                            pointer: e.pointer.clone(),
                            detail: e.detail.clone(),
                        })
                        .collect(),
                );
            }
            Self::AlreadyResolved(r) => {
                p.current = Some(CurrentResolution {
                    resolution: r.strategy.as_str().to_owned(),
                    resolved_at: crate::domain::time::format(&r.resolved_at),
                    actions: r.actions.iter().map(ActionDto::from).collect(),
                });
            }
            Self::Stale { node_id, state } => {
                p.node_id = Some(*node_id);
                p.node_state = state.parse().ok().map(NodeStateDto::from_domain);
            }
            Self::RevertConflict(found) => {
                p.changes = Some(found.iter().map(ChangeDto::from).collect());
            }
            Self::ResolutionFailed {
                partial_actions,
                failed_action,
                ..
            }
            | Self::RevertFailed {
                partial_actions,
                failed_action,
                ..
            } => {
                p.partial_actions = Some(partial_actions.iter().map(ActionDto::from).collect());
                p.failed_action = Some(failed_action.clone());
                p.rolled_back = Some(true);
                p.retryable = Some(true);
            }
            _ => {}
        }
        p
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
        match self {
            Self::IdempotencyInFlight => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            }
            Self::Overloaded
            | Self::Timeout(_)
            | Self::Unavailable(_)
            | Self::NotReady(_)
            | Self::Busy(_) => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from_static("2"));
            }
            // Space is freed by an operator, not in seconds.
            Self::StorageFull(_) | Self::NotWritable(_) => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from_static("30"));
            }
            Self::Unauthorized => {
                headers.insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static("Bearer realm=\"concord\""),
                );
            }
            _ => {}
        }
        res
    }
}

impl From<service::Error> for ApiError {
    fn from(e: service::Error) -> Self {
        use service::Error as E;
        match e {
            E::Invalid(errors) => Self::Validation(errors),
            E::NotFound(what) => Self::NotFound(what),
            E::Stale { node_id, state } => Self::Stale {
                node_id,
                state: state.to_string(),
            },
            E::AlreadyResolved(r) => Self::AlreadyResolved(r),
            E::NotResolved => Self::NotResolved,
            E::RevertBlocked(found) => Self::RevertConflict(found),
            E::StepFailed {
                revert,
                unavailable,
                partial_actions,
                failed_action,
                cause,
            } => {
                let cause = Box::new(E::Internal(anyhow::Error::from(*cause)));
                if revert {
                    Self::RevertFailed {
                        partial_actions,
                        failed_action,
                        unavailable,
                        cause,
                    }
                } else {
                    Self::ResolutionFailed {
                        partial_actions,
                        failed_action,
                        unavailable,
                        cause,
                    }
                }
            }
            E::Overloaded => Self::Overloaded,
            e @ E::Unavailable(_) => Self::Unavailable(e),
            e @ E::Busy(_) => Self::Busy(e),
            e @ E::StorageFull(_) => Self::StorageFull(e),
            E::Internal(cause) => Self::Internal(cause),
        }
    }
}
