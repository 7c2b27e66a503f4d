//! A memory through time: `/nodes/{id}/versions` (every change, kept, a deleted memory's
//! too) and `/nodes/{id}/timeline` (the memories that superseded one another).

use axum::Json;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use super::auth::Caller;
use super::error::{ApiError, Problem};
use super::extract::{AppQuery, IdPath, page_args};
use crate::service::{nodes, timeline};
use crate::state::AppState;
use crate::wire::dto::{NodeVersionDto, TimelineResponse};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_versions))
        .routes(routes!(get_version))
        .routes(routes!(get_timeline))
}

/// A memory's timeline: it and the memories it superseded or was superseded by (following
/// `supersedes` edges both ways), ordered by when each held, with the conflict and decision
/// that connected them. A memory nothing superseded is a timeline of one.
#[utoipa::path(
    get, path = "/nodes/{id}/timeline", tag = "nodes",
    params(("id" = Uuid, Path, description = "Node id")),
    responses(
        (status = 200, body = TimelineResponse),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn get_timeline(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> Result<Json<TimelineResponse>, ApiError> {
    let t = timeline::timeline(&state.services, &caller, id).await?;
    Ok(Json(TimelineResponse::from_domain(
        t.node_id, t.summary, t.entries,
    )))
}

/// `GET /nodes/{id}/versions` parameters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct VersionsQuery {
    /// 1..200, default 50.
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// Opaque cursor from `next_cursor` (base64url); never empty.
    #[param(min_length = 1, pattern = "^[A-Za-z0-9_-]+$")]
    pub cursor: Option<String>,
}

/// A page of versions, oldest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct VersionListResponse {
    pub items: Vec<NodeVersionDto>,
    /// Null at the end of the list.
    pub next_cursor: Option<String>,
}

/// A memory's versions, oldest first: one per change (written, edited, resolved, reverted,
/// deleted), each the whole memory as it stood after that change. A deleted memory keeps its
/// versions, the last a `deleted` tombstone; an id that never existed is 404.
#[utoipa::path(
    get, path = "/nodes/{id}/versions", tag = "nodes",
    params(("id" = Uuid, Path, description = "Node id"), VersionsQuery),
    responses(
        (status = 200, body = VersionListResponse),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn list_versions(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    AppQuery(q): AppQuery<VersionsQuery>,
) -> Result<Json<VersionListResponse>, ApiError> {
    let (limit, after) = page_args(q.limit, q.cursor.as_deref())?;
    let page = nodes::versions(&state.services, &caller, id, limit, after).await?;
    Ok(Json(VersionListResponse {
        items: page
            .items
            .into_iter()
            .map(NodeVersionDto::from_domain)
            .collect(),
        next_cursor: page.next_cursor.map(|c| c.encode()),
    }))
}

/// One version of a memory. A deleted memory keeps its versions, so they stay readable after
/// the DELETE (the last is the `deleted` tombstone); an id that never existed is 404.
#[utoipa::path(
    get, path = "/nodes/{id}/versions/{version}", tag = "nodes",
    params(
        ("id" = Uuid, Path, description = "Node id"),
        ("version" = i64, Path, minimum = 1, description = "Version number, from 1"),
    ),
    responses(
        (status = 200, body = NodeVersionDto),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn get_version(
    State(state): State<AppState>,
    caller: Caller,
    Path((id, version)): Path<(String, String)>,
) -> Result<Json<NodeVersionDto>, ApiError> {
    // A malformed id or version names no resource: 404, as for every id in a path.
    let id = Uuid::parse_str(&id).map_err(|_| ApiError::NoRoute)?;
    let version = version
        .parse::<i64>()
        .ok()
        .filter(|v| *v >= 1)
        .ok_or(ApiError::NoRoute)?;
    let v = nodes::version(&state.services, &caller, id, version).await?;
    Ok(Json(NodeVersionDto::from_domain(v)))
}
