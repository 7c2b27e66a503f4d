//! `/conflicts`: the review queue. Listing returns both nodes' full content in one query.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use super::auth::Caller;
use super::error::{ApiError, Problem};
use super::extract::{AppJson, AppQuery, IdPath, page_args};
use super::idempotency::Claimed;
use crate::domain::time;
use crate::service::conflicts::{self, ListConflicts};
use crate::service::idempotency::Reply;
use crate::service::queue::{self, ManualConflict};
use crate::service::{replies, scopes};
use crate::state::AppState;
use crate::wire::dto::{ConflictDto, HistoryEntryDto};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_conflicts, create_conflict))
        .routes(routes!(get_conflict))
        .routes(routes!(conflict_history))
        .routes(routes!(conflict_stats))
}

/// `GET /conflicts` parameters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListConflictsQuery {
    /// `pending` (default), `resolved` or `all`.
    #[param(pattern = "^(pending|resolved|all)$")]
    pub status: Option<String>,
    /// Only conflicts of this type.
    #[param(
        pattern = "^(direct-contradiction|numeric-mismatch|temporal-mismatch|scope-mismatch)$"
    )]
    pub conflict_type: Option<String>,
    /// Only conflicts where either node has this label.
    pub label: Option<String>,
    /// Only this scope, 1..200 characters (one the key holds: 403 `/problems/scope-forbidden`
    /// otherwise). Without it, every scope the key holds.
    #[param(min_length = 1, max_length = 200, pattern = r"\S")]
    pub scope: Option<String>,
    /// `oldest` (default) or `newest` first.
    #[param(pattern = "^(oldest|newest)$")]
    pub order: Option<String>,
    /// Only conflicts resolved by exactly this name (`alice`, `policy:<name>`), or, ending in
    /// `*`, by any name that starts with what comes before it (`policy:*`, `mcp:*`).
    pub resolved_by: Option<String>,
    /// `true`: only conflicts a resolution policy resolved; `false`: all others.
    #[param(pattern = "^(true|false)$")]
    pub auto: Option<String>,
    /// Truncate node bodies and `new_content` to this many characters (default: full).
    #[param(minimum = 1)]
    pub max_chars: Option<i64>,
    /// 1..200, default 50.
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// Opaque cursor from `next_cursor` (base64url); never empty.
    #[param(min_length = 1, pattern = "^[A-Za-z0-9_-]+$")]
    pub cursor: Option<String>,
}

/// A page of conflicts.
#[derive(Debug, Serialize, ToSchema)]
pub struct ConflictListResponse {
    pub items: Vec<ConflictDto>,
    /// Null at the end of the list.
    pub next_cursor: Option<String>,
    /// Pending conflicts matching `conflict_type` and `label` (whatever `status` asks for).
    pub pending_total: i64,
}

/// List conflicts with both nodes in full.
#[utoipa::path(
    get, path = "/conflicts", tag = "conflicts",
    params(ListConflictsQuery),
    responses(
        (status = 200, body = ConflictListResponse),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn list_conflicts(
    State(state): State<AppState>,
    caller: Caller,
    AppQuery(q): AppQuery<ListConflictsQuery>,
) -> Result<Json<ConflictListResponse>, ApiError> {
    let (limit, after) = page_args(q.limit, q.cursor.as_deref())?;
    let caller = scopes::narrowed(&caller, q.scope.as_deref())?;
    let max_chars = match q.max_chars {
        Some(n) if n < 1 => return Err(ApiError::validation("/max_chars", "must be at least 1")),
        n => n.map(|n| n as usize),
    };
    let (page, pending_total) = conflicts::list(
        &state.services,
        &caller,
        ListConflicts {
            status: q.status,
            conflict_type: q.conflict_type,
            label: q.label,
            order: q.order,
            resolved_by: q.resolved_by,
            auto: q.auto,
            limit,
            after,
        },
    )
    .await?;
    Ok(Json(ConflictListResponse {
        items: page
            .items
            .into_iter()
            .map(|c| ConflictDto::from_domain(c, max_chars))
            .collect(),
        next_cursor: page.next_cursor.map(|c| c.encode()),
        pending_total,
    }))
}

/// A conflict found elsewhere, to queue for review.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateConflictRequest {
    /// The existing node the new knowledge contradicts.
    pub old_node_id: Uuid,
    /// The new side as a stored node (give this or `new_content`, not both); must differ from
    /// `old_node_id`.
    pub new_node_id: Option<Uuid>,
    /// The new side as text only (give this or `new_node_id`, not both), up to 1 MiB.
    #[schema(min_length = 1, pattern = r"\S")]
    pub new_content: Option<String>,
    /// Default `direct-contradiction`.
    #[schema(
        pattern = "^(direct-contradiction|numeric-mismatch|temporal-mismatch|scope-mismatch)$"
    )]
    pub conflict_type: Option<String>,
    /// A note for the reviewer, up to 10 000 characters.
    #[schema(max_length = 10000)]
    pub note: Option<String>,
}

/// Queue a conflict (`detection.tier = manual`). At most one pending conflict exists per
/// (old, new) pair: queueing it again returns the existing one with 200.
#[utoipa::path(
    post, path = "/conflicts", tag = "conflicts",
    request_body = CreateConflictRequest,
    responses(
        (status = 201, body = ConflictDto, description = "Queued"),
        (status = 200, body = ConflictDto, description = "Already pending for this pair"),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn create_conflict(
    State(state): State<AppState>,
    caller: Caller,
    claim: Claimed,
    AppJson(body): AppJson<CreateConflictRequest>,
) -> Result<Reply, ApiError> {
    let queued = queue::queue(
        &state.services,
        &caller,
        ManualConflict {
            old_node_id: body.old_node_id,
            new_node_id: body.new_node_id,
            new_content: body.new_content,
            conflict_type: body.conflict_type,
            note: body.note,
        },
        claim.get(),
    )
    .await?;
    Ok(replies::conflict_queued(&queued))
}

/// Read one conflict with both nodes in full.
#[utoipa::path(
    get, path = "/conflicts/{id}", tag = "conflicts",
    params(("id" = Uuid, Path, description = "Conflict id")),
    responses(
        (status = 200, body = ConflictDto),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn get_conflict(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> Result<Json<ConflictDto>, ApiError> {
    let (c, latest) = conflicts::get(&state.services, &caller, id).await?;
    Ok(Json(ConflictDto {
        latest: latest.map(HistoryEntryDto::from),
        ..ConflictDto::from_domain(c, None)
    }))
}

/// A conflict's history.
#[derive(Debug, Serialize, ToSchema)]
pub struct HistoryResponse {
    /// Oldest first: queued, then every resolution and revert.
    pub items: Vec<HistoryEntryDto>,
}

/// Every change of a conflict (queued, resolved, reverted, auto-resolved), oldest first, with
/// who made it, the strategy, the note and the actions taken.
#[utoipa::path(
    get, path = "/conflicts/{id}/history", tag = "conflicts",
    params(("id" = Uuid, Path, description = "Conflict id")),
    responses(
        (status = 200, body = HistoryResponse),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn conflict_history(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> Result<Json<HistoryResponse>, ApiError> {
    let items = conflicts::history(&state.services, &caller, id).await?;
    Ok(Json(HistoryResponse {
        items: items.into_iter().map(HistoryEntryDto::from).collect(),
    }))
}

/// Queue counters, cheap enough to poll.
#[derive(Debug, Serialize, ToSchema)]
pub struct ConflictStatsResponse {
    /// Pending conflicts.
    pub pending: i64,
    /// Resolved conflicts.
    pub resolved: i64,
    /// Pending conflicts per type.
    pub by_type: BTreeMap<String, i64>,
    /// Creation time of the oldest pending conflict.
    #[schema(format = DateTime)]
    pub oldest_pending_at: Option<String>,
}

/// Counters of the conflict queue.
#[utoipa::path(
    get, path = "/conflicts/stats", tag = "conflicts",
    responses(
        (status = 200, body = ConflictStatsResponse),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn conflict_stats(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<ConflictStatsResponse>, ApiError> {
    let s = conflicts::stats(&state.services, &caller).await?;
    Ok(Json(ConflictStatsResponse {
        pending: s.pending,
        resolved: s.resolved,
        by_type: s.by_type.into_iter().collect(),
        oldest_pending_at: s.oldest_pending_at.as_ref().map(time::format),
    }))
}
