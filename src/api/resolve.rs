//! Resolving conflicts: `POST /contradiction/resolve` and its alias
//! `POST /conflicts/{id}/resolve`. One transaction per resolution; retries replay.

use axum::extract::State;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use super::auth::Caller;
use super::error::{ApiError, Problem};
use super::extract::{AppJson, IdPath};
use super::idempotency::Claimed;
use crate::service::conflicts::{self, ResolveConflict};
use crate::service::idempotency::Reply;
use crate::service::replies;
use crate::state::AppState;
use crate::wire::dto::ResolveResponse;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(resolve_contradiction))
        .routes(routes!(resolve_conflict))
}

/// How to resolve a conflict.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveRequest {
    /// The conflict to resolve.
    pub conflict_id: Uuid,
    /// `new_is_current`, `old_is_current`, `keep_both` or `merge`.
    #[schema(pattern = "^(new_is_current|old_is_current|keep_both|merge)$")]
    pub resolution: String,
    /// Replaces the old node's body, up to 1 MiB: only with `merge` (422 with another strategy).
    pub merged_content: Option<String>,
    /// Who decided, up to 200 characters.
    #[schema(max_length = 200)]
    pub resolved_by: Option<String>,
    /// Why, up to 10 000 characters.
    #[schema(max_length = 10000)]
    pub note: Option<String>,
    /// Why the losing side stops holding: `update` (it was true until the winner's
    /// `observed_at`) or `correction` (it never held). Only with `new_is_current` and
    /// `old_is_current` (which is always a correction); when absent, concord chooses from
    /// the winner's words and reports its choice.
    #[schema(pattern = "^(update|correction)$")]
    pub reason: Option<String>,
}

/// How to resolve a conflict (the conflict named by the path).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveBody {
    /// `new_is_current`, `old_is_current`, `keep_both` or `merge`.
    #[schema(pattern = "^(new_is_current|old_is_current|keep_both|merge)$")]
    pub resolution: String,
    /// Replaces the old node's body, up to 1 MiB: only with `merge` (422 with another strategy).
    pub merged_content: Option<String>,
    /// Who decided, up to 200 characters.
    #[schema(max_length = 200)]
    pub resolved_by: Option<String>,
    /// Why, up to 10 000 characters.
    #[schema(max_length = 10000)]
    pub note: Option<String>,
    /// Why the losing side stops holding: `update` (it was true until the winner's
    /// `observed_at`) or `correction` (it never held). Only with `new_is_current` and
    /// `old_is_current` (which is always a correction); when absent, concord chooses from
    /// the winner's words and reports its choice.
    #[schema(pattern = "^(update|correction)$")]
    pub reason: Option<String>,
}

async fn answer_resolution(
    state: AppState,
    caller: Caller,
    claim: Claimed,
    id: Uuid,
    body: ResolveBody,
) -> Result<Reply, ApiError> {
    let request = ResolveConflict {
        conflict_id: id,
        resolution: body.resolution,
        merged_content: body.merged_content,
        resolved_by: body.resolved_by,
        note: body.note,
        reason: body.reason,
    };
    let resolution = conflicts::resolve(&state.services, &caller, request, claim.get()).await?;
    Ok(replies::resolved(&resolution))
}

/// Resolve a conflict with one of the four strategies, in one transaction. Repeating the
/// same request replays the stored result (`replayed: true`); another strategy is 409.
#[utoipa::path(
    post, path = "/contradiction/resolve", tag = "conflicts",
    request_body = ResolveRequest,
    responses(
        (status = 200, body = ResolveResponse),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
#[tracing::instrument(skip_all, fields(conflict.id = %body.conflict_id))]
pub async fn resolve_contradiction(
    State(state): State<AppState>,
    caller: Caller,
    claim: Claimed,
    AppJson(body): AppJson<ResolveRequest>,
) -> Result<Reply, ApiError> {
    let how = ResolveBody {
        resolution: body.resolution,
        merged_content: body.merged_content,
        resolved_by: body.resolved_by,
        note: body.note,
        reason: body.reason,
    };
    answer_resolution(state, caller, claim, body.conflict_id, how).await
}

/// Resolve the conflict named by the path (same as `POST /contradiction/resolve`).
#[utoipa::path(
    post, path = "/conflicts/{id}/resolve", tag = "conflicts",
    params(("id" = Uuid, Path, description = "Conflict id")),
    request_body = ResolveBody,
    responses(
        (status = 200, body = ResolveResponse),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
#[tracing::instrument(skip_all, fields(conflict.id = %id))]
pub async fn resolve_conflict(
    State(state): State<AppState>,
    caller: Caller,
    claim: Claimed,
    IdPath(id): IdPath,
    AppJson(body): AppJson<ResolveBody>,
) -> Result<Reply, ApiError> {
    answer_resolution(state, caller, claim, id, body).await
}
