//! `POST /conflicts/check` and `GET /reports`: conflict-aware answers about a topic.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::Caller;
use super::error::{ApiError, Problem};
use super::extract::{AppJson, AppQuery, page_args};
use crate::service::report::{self, ReportSource, TopicCheck};
use crate::service::scopes;
use crate::state::AppState;
use uuid::Uuid;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(check_topic))
        .routes(routes!(list_reports))
}

/// A topic to check.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TopicCheckRequest {
    /// Words to search for (full-text, every word must match), 1..500 characters.
    #[schema(min_length = 1, max_length = 500, pattern = r"\S")]
    pub topic: String,
    /// Only nodes with at least one of these labels (up to 32, each 1..64 characters).
    #[schema(max_items = 32)]
    pub labels: Option<Vec<String>>,
    /// Only memories of this scope, 1..200 characters (one the key holds: 403
    /// `/problems/scope-forbidden` otherwise). Without it, every scope the key holds.
    #[schema(min_length = 1, max_length = 200, pattern = r"\S")]
    pub scope: Option<String>,
    /// Nodes to analyse, 2..50 (default 20).
    #[schema(minimum = 2, maximum = 50)]
    #[serde(default, deserialize_with = "super::extract::integral")]
    pub limit: Option<i64>,
    /// `strict` flags any verdict (scope mismatches and vector-only evidence included),
    /// `balanced` (default) needs a text signal, `lenient` only direct contradictions and
    /// numeric mismatches above 0.7.
    #[schema(pattern = "^(strict|balanced|lenient)$")]
    pub sensitivity: Option<String>,
    /// Valid time, RFC 3339: report on what held at this instant (default now).
    #[schema(format = DateTime)]
    pub as_of: Option<String>,
    /// System time, RFC 3339, not in the future: report as concord knew the memories then
    /// (default now).
    #[schema(format = DateTime)]
    pub known_at: Option<String>,
}

/// Two sources that contradict each other.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReportConflict {
    pub conflict_type: String,
    /// `high`, `medium` or `low`.
    #[schema(value_type = String)]
    pub severity: &'static str,
    /// Older source first.
    #[schema(value_type = Vec<Uuid>)]
    pub sources: [Uuid; 2],
    /// Their texts, in the same order.
    #[schema(value_type = Vec<String>)]
    pub claims: [String; 2],
    pub probability: f64,
    pub recommended_resolution: String,
    pub reasoning: String,
}

/// A conflict-aware answer about a topic. `confidence`: `low` when a high-severity conflict
/// exists, `med` with other conflicts or mostly unsure sources, else `high`. Severity: `high`
/// for value-layer labels or probability ≥ 0.85, `medium` from 0.65, else `low`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Report {
    pub id: Uuid,
    pub topic: String,
    pub sources_analyzed: usize,
    pub sources: Vec<ReportSource>,
    /// Absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<ReportConflict>,
    /// `high`, `med` or `low`.
    #[schema(value_type = String)]
    pub confidence: &'static str,
    pub summary: String,
    #[schema(format = DateTime)]
    pub created_at: String,
    /// The valid time asked for; absent for a report about now.
    #[schema(format = DateTime)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub as_of: Option<String>,
    /// The system time asked for; absent for a report about now.
    #[schema(format = DateTime)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub known_at: Option<String>,
}

impl From<report::Report> for Report {
    fn from(r: report::Report) -> Self {
        Self {
            id: r.id,
            topic: r.topic,
            sources_analyzed: r.sources_analyzed,
            sources: r.sources.into_iter().collect(),
            conflicts: r
                .conflicts
                .into_iter()
                .map(|c| ReportConflict {
                    conflict_type: c.conflict_type,
                    severity: c.severity,
                    sources: c.sources,
                    claims: c.claims,
                    probability: c.probability,
                    recommended_resolution: c.recommended_resolution,
                    reasoning: c.reasoning,
                })
                .collect(),
            confidence: r.confidence,
            summary: r.summary,
            created_at: r.created_at,
            as_of: r.as_of,
            known_at: r.known_at,
        }
    }
}

/// Check a topic for conflicts: full-text search finds its nodes, every pair is judged, and
/// the report is stored (see `GET /reports`). Nothing is queued. With `as_of` or `known_at`,
/// the report describes the memories that held at `as_of` as concord knew them at `known_at`.
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
    caller: Caller,
    AppJson(body): AppJson<TopicCheckRequest>,
) -> Result<Json<Report>, ApiError> {
    let at = (body.as_of.as_deref(), body.known_at.as_deref());
    let check = TopicCheck::parse(body.topic, body.labels, body.limit, body.sensitivity, at)
        .map_err(ApiError::Validation)?;
    let caller = scopes::narrowed(&caller, body.scope.as_deref())?;
    let report = report::check_topic(&state.services, &caller, check).await?;
    Ok(Json(report.into()))
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
    caller: Caller,
    AppQuery(q): AppQuery<ListReportsQuery>,
) -> Result<Json<ReportListResponse>, ApiError> {
    let (limit, after) = page_args(q.limit, q.cursor.as_deref())?;
    let page = report::list(&state.services, &caller, limit, after).await?;
    Ok(Json(ReportListResponse {
        items: page.items,
        next_cursor: page.next_cursor.map(|c| c.encode()),
    }))
}
