//! `/edges` and `/nodes/{id}/edges`: typed, weighted links between nodes.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use super::auth::Caller;
use super::error::{ApiError, Problem};
use super::extract::{AppJson, AppQuery, IdPath, page_args};
use super::idempotency::Claimed;
use crate::domain::edge::{Direction, EdgeInput};
use crate::service::edges::{self, EdgeQuery};
use crate::service::idempotency::Reply;
use crate::service::replies;
use crate::state::AppState;
use crate::wire::dto::EdgeDto;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_edge))
        .routes(routes!(list_edges))
}

/// An edge to create.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateEdgeRequest {
    /// The node the edge starts at (must exist).
    pub source_id: Uuid,
    /// The node the edge points to (must exist, and differ from `source_id`: an edge from a
    /// node to itself is 422).
    pub target_id: Uuid,
    /// `[a-z_]{1,40}`, e.g. `depends_on`.
    #[schema(pattern = "^[a-z_]{1,40}$")]
    pub kind: String,
    /// 0..1, default 0.5.
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub neural_weight: Option<f64>,
    /// 0..1, default 0.5.
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub strength: Option<f64>,
    /// 0..1, default 1.0.
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub confidence: Option<f64>,
    /// RFC 3339, UTC once its offset is applied between years 0000 and 9999; default now.
    #[schema(format = DateTime)]
    pub valid_from: Option<String>,
}

/// Create an edge between two existing nodes.
#[utoipa::path(
    post, path = "/edges", tag = "edges",
    request_body = CreateEdgeRequest,
    responses(
        (status = 201, body = EdgeDto),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn create_edge(
    State(state): State<AppState>,
    caller: Caller,
    claim: Claimed,
    AppJson(body): AppJson<CreateEdgeRequest>,
) -> Result<Reply, ApiError> {
    let edge = EdgeInput {
        source_id: Some(body.source_id),
        target_id: Some(body.target_id),
        kind: Some(body.kind),
        neural_weight: body.neural_weight,
        strength: body.strength,
        confidence: body.confidence,
        valid_from: body.valid_from,
    }
    .parse()
    .map_err(ApiError::Validation)?;
    let created = edges::create(&state.services, &caller, edge, claim.get()).await?;
    Ok(replies::edge_created(&created))
}

/// Which edges of a node to list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListEdgesQuery {
    /// `out`, `in` or `both` (default).
    #[param(pattern = "^(out|in|both)$")]
    pub direction: Option<String>,
    /// Only edges of this kind.
    pub kind: Option<String>,
    /// 1..200, default 50.
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// Opaque cursor from `next_cursor` (base64url); never empty.
    #[param(min_length = 1, pattern = "^[A-Za-z0-9_-]+$")]
    pub cursor: Option<String>,
}

/// A page of edges, oldest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct EdgeListResponse {
    pub items: Vec<EdgeDto>,
    /// Null at the end of the list.
    pub next_cursor: Option<String>,
}

/// List a node's edges.
#[utoipa::path(
    get, path = "/nodes/{id}/edges", tag = "edges",
    params(("id" = Uuid, Path, description = "Node id"), ListEdgesQuery),
    responses(
        (status = 200, body = EdgeListResponse),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn list_edges(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    AppQuery(q): AppQuery<ListEdgesQuery>,
) -> Result<Json<EdgeListResponse>, ApiError> {
    let direction: Direction = q
        .direction
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(|d: String| ApiError::validation("/direction", d))?
        .unwrap_or_default();
    let (limit, after) = page_args(q.limit, q.cursor.as_deref())?;
    let page = edges::list(
        &state.services,
        &caller,
        id,
        EdgeQuery {
            direction,
            kind: q.kind,
            limit,
            after,
            scopes: None,
        },
    )
    .await?;
    Ok(Json(EdgeListResponse {
        items: page.items.into_iter().map(Into::into).collect(),
        next_cursor: page.next_cursor.map(|c| c.encode()),
    }))
}
