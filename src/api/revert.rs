//! Undoing a resolution: `POST /conflicts/{id}/revert`. One transaction; a retry replays.

use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use super::error::{ApiError, Problem};
use super::extract::{AppJson, IdPath};
use super::idempotency::{self, JsonAnswer};
use crate::domain::revert::Reverted;
use crate::domain::time;
use crate::service::conflicts::{self, RevertConflict};
use crate::state::AppState;
use crate::wire::dto::ActionDto;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(revert_conflict))
}

/// Who reverts, and why.
#[derive(Debug, Deserialize, ToSchema)]
pub struct RevertBody {
    /// Who decided to undo, up to 200 characters.
    #[schema(max_length = 200)]
    pub reverted_by: Option<String>,
    /// Why, up to 10 000 characters.
    #[schema(max_length = 10000)]
    pub note: Option<String>,
}

/// What the revert did.
#[derive(Debug, Serialize, ToSchema)]
pub struct RevertResponse {
    /// Always true.
    pub ok: bool,
    pub conflict_id: Uuid,
    /// The strategy undone.
    #[schema(pattern = "^(new_is_current|old_is_current|keep_both|merge)$")]
    pub reverted: String,
    /// Every change undone, in order (`edge_deleted`, `node_restored`, `node_body_restored`,
    /// `node_state_changed`, `edges_moved`, `node_deleted`); empty when the resolution changed
    /// no node or edge (`old_is_current` of text only). The conflict is `pending` again.
    pub actions: Vec<ActionDto>,
    #[schema(format = DateTime)]
    pub reverted_at: String,
    /// True when this reply is the stored result of an earlier revert.
    pub replayed: bool,
}

impl From<Reverted> for RevertResponse {
    fn from(r: Reverted) -> Self {
        Self {
            ok: true,
            conflict_id: r.conflict_id,
            reverted: r.strategy.as_str().to_owned(),
            actions: r.actions.iter().map(ActionDto::from).collect(),
            reverted_at: time::format(&r.reverted_at),
            replayed: r.replayed,
        }
    }
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
    IdPath(id): IdPath,
    AppJson(body): AppJson<RevertBody>,
) -> Result<JsonAnswer, ApiError> {
    let request = RevertConflict {
        conflict_id: id,
        reverted_by: body.reverted_by,
        note: body.note,
    };
    idempotency::answer(reverted, conflicts::revert(&state.services, request)).await
}

fn reverted(r: &Reverted) -> JsonAnswer {
    JsonAnswer::new(StatusCode::OK, None, &RevertResponse::from(r.clone()))
}
