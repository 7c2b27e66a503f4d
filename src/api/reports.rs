//! `POST /conflicts/check` and `GET /reports`: conflict-aware answers about a topic.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::{AppJson, AppQuery, page_args};
use crate::api::error::{ApiError, Problem};
use crate::service::report::{self, Report, TopicCheck};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(check_topic))
        .routes(routes!(list_reports))
}

/// A topic to check.
#[derive(Debug, Deserialize, ToSchema)]
pub struct TopicCheckRequest {
    /// Words to search for (full-text, every word must match), 1..500 characters.
    #[schema(min_length = 1, max_length = 500, pattern = r"\S")]
    pub topic: String,
    /// Only nodes with at least one of these labels.
    pub labels: Option<Vec<String>>,
    /// Nodes to analyse, 2..50 (default 20).
    #[schema(minimum = 2, maximum = 50)]
    pub limit: Option<i64>,
    /// `strict` flags any verdict (scope mismatches and vector-only evidence included),
    /// `balanced` (default) needs a text signal, `lenient` only direct contradictions and
    /// numeric mismatches above 0.7.
    #[schema(pattern = "^(strict|balanced|lenient)$")]
    pub sensitivity: Option<String>,
}

/// Check a topic for conflicts: full-text search finds its nodes, every pair is judged, and
/// the report is stored (see `GET /reports`). Nothing is queued.
#[utoipa::path(
    post, path = "/conflicts/check", tag = "conflicts",
    request_body = TopicCheckRequest,
    responses(
        (status = 200, body = Report),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn check_topic(
    State(state): State<AppState>,
    AppJson(body): AppJson<TopicCheckRequest>,
) -> Result<Json<Report>, ApiError> {
    let check = TopicCheck::parse(body.topic, body.labels, body.limit, body.sensitivity)
        .map_err(ApiError::Validation)?;
    let report = report::check_topic(&*state.store, state.detector.config(), check).await?;
    Ok(Json(report))
}

/// `GET /reports` parameters.
#[derive(Debug, Deserialize, IntoParams)]
pub struct ListReportsQuery {
    /// 1..200, default 50.
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// Opaque cursor from `next_cursor`.
    pub cursor: Option<String>,
}

/// Stored reports, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReportListResponse {
    #[schema(value_type = Vec<Report>)]
    pub items: Vec<serde_json::Value>,
    /// Null at the end of the list.
    pub next_cursor: Option<String>,
}

/// List stored topic reports, newest first.
#[utoipa::path(
    get, path = "/reports", tag = "conflicts",
    params(ListReportsQuery),
    responses(
        (status = 200, body = ReportListResponse),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn list_reports(
    State(state): State<AppState>,
    AppQuery(q): AppQuery<ListReportsQuery>,
) -> Result<Json<ReportListResponse>, ApiError> {
    let (limit, after) = page_args(q.limit, q.cursor.as_deref())?;
    let page = state.store.list_reports(limit, after).await?;
    Ok(Json(ReportListResponse {
        items: page.items.into_iter().map(|r| r.report).collect(),
        next_cursor: page.next_cursor.map(|c| c.encode()),
    }))
}
