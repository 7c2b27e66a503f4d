//! Liveness, readiness and Prometheus metrics.

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{ApiError, Problem};
use crate::service::{self, health};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(healthz))
        .routes(routes!(readyz))
        .routes(routes!(metrics))
}

/// Health status.
#[derive(Debug, Serialize, ToSchema)]
pub struct HealthResponse {
    /// `ok`.
    pub status: String,
    /// `sqlite` or `postgres` (readiness only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub database: Option<String>,
}

/// The process is up.
#[utoipa::path(get, path = "/healthz", tag = "operations", responses((status = 200, body = HealthResponse)))]
pub async fn healthz() -> Json<HealthResponse> {
    Json(HealthResponse {
        status: "ok".into(),
        database: None,
    })
}

/// How long `/readyz` waits for the database: a probe must answer promptly even when the
/// database does not (an unreachable PostgreSQL would otherwise hold it for the pool's 5 s
/// acquire timeout).
pub const READY_DEADLINE: std::time::Duration = std::time::Duration::from_millis(900);

/// The database is reachable and takes writes (else 503 within a second: `unavailable`, or
/// `storage-full` while writes fail for a full disk).
#[utoipa::path(
    get, path = "/readyz", tag = "operations",
    responses(
        (status = 200, body = HealthResponse),
        (status = 503, body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn readyz(State(state): State<AppState>) -> Result<Json<HealthResponse>, ApiError> {
    tokio::time::timeout(READY_DEADLINE, health::ready(&state.services))
        .await
        .map_err(|_| ApiError::NotReady(READY_DEADLINE.as_millis() as u64))?
        .map_err(|e| match e {
            e @ service::Error::StorageFull(_) => ApiError::NotWritable(e),
            e => ApiError::from(e),
        })?;
    Ok(Json(HealthResponse {
        status: "ok".into(),
        database: Some(state.services.backend().into()),
    }))
}

/// Prometheus text exposition: request counts and latencies by route and status.
#[utoipa::path(
    get, path = "/metrics", tag = "operations",
    responses(
        (status = 200, content_type = "text/plain", body = String),
        (status = "4XX", body = Problem, content_type = "application/problem+json", description = "401 without a valid key when keys are set; 429 after repeated failures"),
    )
)]
pub async fn metrics() -> impl IntoResponse {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        super::metrics::render(),
    )
}
