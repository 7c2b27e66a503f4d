//! `POST /conflicts/check` and `GET /reports`: conflict-aware answers about a topic.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::{AppJson, AppQuery, page_args};
use crate::api::error::{ApiError, Problem};
use crate::domain::contradiction::Sensitivity;
use crate::domain::validate::{Errors, check_text};
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
    /// Only nodes with at least one of these labels (up to 32, each 1..64 characters).
    #[schema(max_items = 32)]
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

impl TopicCheckRequest {
    fn parse(self) -> Result<TopicCheck, ApiError> {
        let mut e = Errors::default();
        let topic = self.topic.trim().to_owned();
        if topic.is_empty() || topic.chars().count() > 500 {
            e.add("/topic", "must be 1..500 characters");
        }
        check_text(&mut e, "/topic", &topic);
        let limit = self.limit.unwrap_or(20);
        if !(2..=50).contains(&limit) {
            e.add("/limit", "must be between 2 and 50");
        }
        let sensitivity = match self.sensitivity.as_deref() {
            None => Sensitivity::Balanced,
            Some(s) => s.parse().unwrap_or_else(|_| {
                e.add("/sensitivity", "must be strict, balanced or lenient");
                Sensitivity::Balanced
            }),
        };
        let labels = crate::domain::node::normalize_labels(self.labels.unwrap_or_default(), &mut e);
        e.finish(TopicCheck {
            topic,
            labels,
            limit: limit as usize,
            sensitivity,
        })
        .map_err(ApiError::Validation)
    }
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
    let check = body.parse()?;
    let report = report::check_topic(&*state.store, state.detector.config(), check).await?;
    Ok(Json(report))
}

/// `GET /reports` parameters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListReportsQuery {
    /// 1..200, default 50.
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// Opaque cursor from `next_cursor` (base64url); never empty.
    #[param(min_length = 1, pattern = "^[A-Za-z0-9_-]+$")]
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
