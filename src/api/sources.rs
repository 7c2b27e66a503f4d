//! `/sources`: what concord has learned about each source from resolved conflicts.

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::Caller;
use super::error::{ApiError, Problem};
use crate::service::sources;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_sources))
}

/// One source and its record.
#[derive(Debug, Serialize, ToSchema)]
pub struct SourceDto {
    /// The `source` string of nodes.
    pub source: String,
    /// The mean of a Beta posterior with four virtual verdicts split as the starting trust
    /// says (`trust`, else 0.5): a source without verdicts is at its starting trust, one
    /// verdict moves a neutral one by 0.1. Recommendations prefer a side whose source is at
    /// least 0.2 more credible (`prefer-authoritative`), and policy rules may require it
    /// (`min_trust`, `max_trust`, `min_credibility_gap`).
    pub credibility: f64,
    /// The starting trust the policy file's `[trust]` table gives this source (the most
    /// specific pattern that names it); absent when none does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trust: Option<f64>,
    /// Resolutions that kept this source's side current, in the scopes the caller's key holds.
    pub upheld: i64,
    /// Resolutions that made this source's side dormant, in the scopes the caller's key holds.
    pub contradicted: i64,
    /// Nodes stored with this source, in the scopes the caller's key holds.
    pub nodes: i64,
}

/// All sources.
#[derive(Debug, Serialize, ToSchema)]
pub struct SourceListResponse {
    pub items: Vec<SourceDto>,
}

/// Sources with their learned credibility (`new_is_current` upholds the new node's source and
/// contradicts the old one's; `old_is_current` the reverse). Credibility is learned within a
/// scope, where the memory bearing the source is, and detection's recommendations in a scope
/// use that scope's alone; this list sums the scopes the caller's key holds.
#[utoipa::path(
    get, path = "/sources", tag = "sources",
    responses(
        (status = 200, body = SourceListResponse),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn list_sources(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<SourceListResponse>, ApiError> {
    let items = sources::list(&state.services, &caller)
        .await?
        .into_iter()
        .map(|r| SourceDto {
            credibility: (r.credibility * 1000.0).round() / 1000.0,
            trust: r.trust,
            source: r.stats.source,
            upheld: r.stats.upheld,
            contradicted: r.stats.contradicted,
            nodes: r.stats.nodes,
        })
        .collect();
    Ok(Json(SourceListResponse { items }))
}
