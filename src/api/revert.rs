//! Undoing a resolution: `POST /conflicts/{id}/revert`. One transaction; a retry replays.

use axum::extract::State;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::Caller;
use super::error::{ApiError, Problem};
use super::extract::{AppJson, IdPath};
use super::idempotency::Claimed;
use crate::service::conflicts::{self, RevertConflict};
use crate::service::idempotency::Reply;
use crate::service::replies;
use crate::state::AppState;
use crate::wire::dto::RevertResponse;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(revert_conflict))
}

/// Who reverts, and why.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RevertBody {
    /// Who decided to undo, up to 200 characters.
    #[schema(max_length = 200)]
    pub reverted_by: Option<String>,
    /// Why, up to 10 000 characters.
    #[schema(max_length = 10000)]
    pub note: Option<String>,
}

/// Undo a conflict's resolution, whatever its strategy, in one transaction: nodes, edges,
/// bodies, labels and credibility counters return to their state before it, and the conflict
/// is pending again. A retry replays (`replayed: true`); a pending conflict is 409
/// `/problems/not-resolved`; later changes in the way are 409 `/problems/revert-conflict`
/// naming them (`changes`), and nothing is written.
#[utoipa::path(
    post, path = "/conflicts/{id}/revert", tag = "conflicts",
    params(("id" = Uuid, Path, description = "Conflict id")),
    request_body = RevertBody,
    responses(
        (status = 200, body = RevertResponse),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
#[tracing::instrument(skip_all, fields(conflict.id = %id))]
pub async fn revert_conflict(
    State(state): State<AppState>,
    caller: Caller,
    claim: Claimed,
    IdPath(id): IdPath,
    AppJson(body): AppJson<RevertBody>,
) -> Result<Reply, ApiError> {
    let request = RevertConflict {
        conflict_id: id,
        reverted_by: body.reverted_by,
        note: body.note,
    };
    let reverted = conflicts::revert(&state.services, &caller, request, claim.get()).await?;
    Ok(replies::reverted(&reverted))
}
