//! `/nodes`: write (with detection), read, patch, delete, list and check nodes.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use super::auth::Caller;
use super::error::{ApiError, Problem};
use super::extract::{AppJson, AppQuery, IdPath, page_args};
use super::idempotency::Claimed;
use crate::domain::contradiction::{Sensitivity, index_tokens};
use crate::domain::node::{NodeInput, NodePatch, PatchInput};
use crate::domain::time;
use crate::domain::valid_time::PointInTime;
use crate::service::idempotency::Reply;
use crate::service::nodes::{Hit, KnownQuery, NodeQuery, WriteOptions};
use crate::service::{nodes, replies, scopes};
use crate::state::AppState;
use crate::wire::dto::{
    ConflictHitDto, NodeDto, NodeRestatedResponse, NodeStateDto, NodeWriteResponse, ProvenanceDto,
    present,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_node, list_nodes))
        .routes(routes!(get_node, patch_node, delete_node))
        .routes(routes!(check_node))
}

/// A node to store.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateNodeRequest {
    /// 1..500 characters after trimming.
    #[schema(min_length = 1, max_length = 500, pattern = r"\S")]
    pub title: String,
    /// Up to 1 MiB. Default empty.
    #[serde(default)]
    pub body: Option<String>,
    /// `[a-z0-9_-]{1,40}`, default `fact`.
    #[serde(default)]
    #[schema(pattern = "^[a-z0-9_-]{1,40}$")]
    pub memory_type: Option<String>,
    /// Up to 32 labels of 1..64 characters; stored trimmed, lowercased, deduplicated.
    #[serde(default)]
    #[schema(max_items = 32)]
    pub labels: Option<Vec<String>>,
    /// Default `default`. Detection compares nodes of one scope only. 1..200 characters.
    #[serde(default)]
    #[schema(min_length = 1, max_length = 200, pattern = r"\S")]
    pub scope: Option<String>,
    /// Up to 500 characters.
    #[serde(default)]
    #[schema(max_length = 500)]
    pub source: Option<String>,
    /// 0..1, default 0.8.
    #[serde(default)]
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub confidence: Option<f64>,
    /// Default `active`.
    #[serde(default)]
    pub state: Option<NodeStateDto>,
    /// RFC 3339, UTC once its offset is applied between years 0000 and 9999; default: now.
    #[serde(default)]
    #[schema(format = DateTime)]
    pub observed_at: Option<String>,
    /// Write-only, 1..8192 numbers. Every embedding in one store has the same dimension
    /// (else 422).
    #[serde(default)]
    #[schema(min_items = 1, max_items = 8192)]
    pub embedding: Option<Vec<f64>>,
    /// How the memory was obtained; its evidence strength reads it.
    #[serde(default, deserialize_with = "super::extract::object")]
    pub provenance: Option<ProvenanceDto>,
}

/// Detection options of a write or a check.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DetectQuery {
    /// `false` skips detection. Default `true`.
    pub detect: Option<bool>,
    /// `strict`, `balanced` or `lenient`; default from `CONCORD_SENSITIVITY`.
    #[param(pattern = "^(strict|balanced|lenient)$")]
    pub sensitivity: Option<String>,
}

pub(super) fn sensitivity(q: &DetectQuery) -> Result<Option<Sensitivity>, ApiError> {
    parse_sensitivity(q.sensitivity.as_deref())
}

fn parse_sensitivity(s: Option<&str>) -> Result<Option<Sensitivity>, ApiError> {
    s.map(|s| {
        s.parse().map_err(|_| {
            ApiError::validation("/sensitivity", "must be strict, balanced or lenient")
        })
    })
    .transpose()
}

/// Options of `POST /nodes`: detection's, and whether a restatement is stored as a copy.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct WriteQuery {
    /// `false` skips detection. Default `true`.
    pub detect: Option<bool>,
    /// `strict`, `balanced` or `lenient`; default from `CONCORD_SENSITIVITY`.
    #[param(pattern = "^(strict|balanced|lenient)$")]
    pub sensitivity: Option<String>,
    /// `true` stores a restatement of an active memory as a new memory. Default `false`: the
    /// write answers 200 with the stored memory and `"restated": true`.
    pub allow_duplicate: Option<bool>,
}

/// Store a node; detection runs unless `detect=false`. A node whose title and text equal an
/// active memory's of the same scope (whitespace and case aside) is not stored again: the
/// reply is 200 with that memory, `"restated": true`, and the sources that restated it
/// (`?allow_duplicate=true` stores a copy).
#[utoipa::path(
    post, path = "/nodes", tag = "nodes",
    params(WriteQuery),
    request_body = CreateNodeRequest,
    responses(
        (status = 201, body = NodeWriteResponse, headers(("Location" = String, description = "The node's URL"))),
        (status = 200, description = "A restatement: the stored memory it repeats", body = NodeRestatedResponse, headers(("Location" = String, description = "The stored memory's URL"))),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn create_node(
    State(state): State<AppState>,
    caller: Caller,
    claim: Claimed,
    AppQuery(q): AppQuery<WriteQuery>,
    AppJson(body): AppJson<CreateNodeRequest>,
) -> Result<Reply, ApiError> {
    let options = WriteOptions {
        detect: q.detect.unwrap_or(true),
        sensitivity: parse_sensitivity(q.sensitivity.as_deref())?,
        allow_duplicate: q.allow_duplicate.unwrap_or(false),
    };
    let written = nodes::remember(
        &state.services,
        &caller,
        body.into_input(),
        caller.writer(),
        options,
        claim.get(),
    )
    .await?;
    Ok(replies::remembered(written))
}

impl CreateNodeRequest {
    pub(super) fn into_input(self) -> NodeInput {
        NodeInput {
            title: Some(self.title),
            body: self.body,
            memory_type: self.memory_type,
            labels: self.labels,
            scope: self.scope,
            source: self.source,
            confidence: self.confidence,
            state: self.state.map(state_str),
            observed_at: self.observed_at,
            embedding: self.embedding,
            provenance: self.provenance.map(ProvenanceDto::into_domain),
        }
    }
}

fn state_str(s: NodeStateDto) -> String {
    match s {
        NodeStateDto::Active => "active",
        NodeStateDto::Dormant => "dormant",
        NodeStateDto::Archived => "archived",
        NodeStateDto::Quarantined => "quarantined",
    }
    .to_owned()
}

/// A point in time to read at: both instants default to now.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AsOfQuery {
    /// Valid time, RFC 3339: what held at this instant (a memory holds from its
    /// `observed_at` until its `valid_until`, and a `corrected` one never held).
    #[param(format = DateTime)]
    pub as_of: Option<String>,
    /// System time, RFC 3339, not in the future: what concord held at this instant (each
    /// memory as its version then).
    #[param(format = DateTime)]
    pub known_at: Option<String>,
}

fn point_in_time(
    as_of: Option<&str>,
    known_at: Option<&str>,
) -> Result<Option<PointInTime>, ApiError> {
    PointInTime::parse(as_of, known_at, time::now()).map_err(ApiError::Validation)
}

/// Read a node (with `conflict_ids` when it has pending conflicts). With `as_of` or
/// `known_at`, the node as it stood then (`updated_at` is when concord recorded that
/// version); 404 when it did not hold at `as_of` or concord did not know it at `known_at`.
#[utoipa::path(
    get, path = "/nodes/{id}", tag = "nodes",
    params(("id" = Uuid, Path, description = "Node id"), AsOfQuery),
    responses(
        (status = 200, body = NodeDto),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn get_node(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    AppQuery(at): AppQuery<AsOfQuery>,
) -> Result<Json<NodeDto>, ApiError> {
    let node = match point_in_time(at.as_of.as_deref(), at.known_at.as_deref())? {
        None => nodes::get(&state.services, &caller, id).await?,
        Some(when) => nodes::get_at(&state.services, &caller, id, when).await?,
    };
    Ok(Json(NodeDto::from_domain(node)))
}

/// Fields to change; absent fields stay as they are, `source: null` clears the source.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PatchNodeRequest {
    #[schema(min_length = 1, max_length = 500, pattern = r"\S")]
    pub title: Option<String>,
    pub body: Option<String>,
    #[schema(max_items = 32)]
    pub labels: Option<Vec<String>>,
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub confidence: Option<f64>,
    pub state: Option<NodeStateDto>,
    #[serde(default, deserialize_with = "present")]
    #[schema(max_length = 500)]
    pub source: Option<Option<String>>,
    #[schema(min_length = 1, max_length = 200, pattern = r"\S")]
    pub scope: Option<String>,
    #[schema(format = DateTime)]
    pub observed_at: Option<String>,
}

/// Change a node.
#[utoipa::path(
    patch, path = "/nodes/{id}", tag = "nodes",
    params(("id" = Uuid, Path, description = "Node id")),
    request_body = PatchNodeRequest,
    responses(
        (status = 200, body = NodeDto),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn patch_node(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    AppJson(body): AppJson<PatchNodeRequest>,
) -> Result<Json<NodeDto>, ApiError> {
    let patch = NodePatch::parse(PatchInput {
        title: body.title,
        body: body.body,
        labels: body.labels,
        confidence: body.confidence,
        state: body.state.map(state_str),
        source: body.source,
        scope: body.scope,
        observed_at: body.observed_at,
    })
    .map_err(ApiError::Validation)?;
    let node = nodes::update(&state.services, &caller, id, patch, caller.writer()).await?;
    Ok(Json(NodeDto::from_domain(node)))
}

/// Delete a node: its edges go, pending conflicts where it is the old node go, and conflicts
/// where it is the new node keep its text as `new_content`.
#[utoipa::path(
    delete, path = "/nodes/{id}", tag = "nodes",
    params(("id" = Uuid, Path, description = "Node id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn delete_node(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> Result<StatusCode, ApiError> {
    nodes::delete(&state.services, &caller, id, caller.writer().as_deref()).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /nodes` parameters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListNodesQuery {
    /// Full-text search over title and body (every word must match), ranked best first.
    pub q: Option<String>,
    /// Only nodes with this label.
    pub label: Option<String>,
    /// Only nodes of this memory type.
    pub memory_type: Option<String>,
    /// Only this scope, 1..200 characters (one the key holds: 403 `/problems/scope-forbidden`
    /// otherwise). Without it, every scope the key holds.
    #[param(min_length = 1, max_length = 200, pattern = r"\S")]
    pub scope: Option<String>,
    /// Default `active`.
    pub state: Option<NodeStateDto>,
    /// 1..200, default 50.
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// Opaque cursor from `next_cursor` (base64url); never empty.
    #[param(min_length = 1, pattern = "^[A-Za-z0-9_-]+$")]
    pub cursor: Option<String>,
    /// Valid time, RFC 3339: only memories that held then (any state unless `state` is
    /// given), newest first. Not with `q`.
    #[param(format = DateTime)]
    pub as_of: Option<String>,
    /// System time, RFC 3339, not in the future: each memory as concord held it then.
    /// Not with `q`.
    #[param(format = DateTime)]
    pub known_at: Option<String>,
}

/// A page of nodes.
#[derive(Debug, Serialize, ToSchema)]
pub struct NodeListResponse {
    pub items: Vec<NodeDto>,
    /// Null at the end of the list.
    pub next_cursor: Option<String>,
}

/// List nodes, newest first, or ranked by a full-text query.
#[utoipa::path(
    get, path = "/nodes", tag = "nodes",
    params(ListNodesQuery),
    responses(
        (status = 200, body = NodeListResponse),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn list_nodes(
    State(state): State<AppState>,
    caller: Caller,
    AppQuery(q): AppQuery<ListNodesQuery>,
) -> Result<Json<NodeListResponse>, ApiError> {
    let (limit, after) = page_args(q.limit, q.cursor.as_deref())?;
    let caller = scopes::narrowed(&caller, q.scope.as_deref())?;
    let state_filter = q.state.map(|s| state_str(s).parse().expect("valid state"));
    if let Some(at) = point_in_time(q.as_of.as_deref(), q.known_at.as_deref())? {
        if q.q.is_some() {
            return Err(ApiError::validation(
                "/q",
                "cannot be combined with as_of or known_at (use GET /recall)",
            ));
        }
        let after = match after {
            Some(c) if c.key == "known" => Some(c.id),
            Some(_) => {
                return Err(ApiError::validation(
                    "/cursor",
                    "is not a cursor of this list",
                ));
            }
            None => None,
        };
        let query = KnownQuery {
            at,
            label: q.label.map(|l| l.trim().to_lowercase()),
            memory_type: q.memory_type,
            state: state_filter,
            limit,
            after,
            // The use case filters by the caller's scopes.
            scopes: None,
        };
        let page = nodes::list_at(&state.services, &caller, query).await?;
        return Ok(Json(NodeListResponse {
            items: page.items.into_iter().map(NodeDto::from_domain).collect(),
            next_cursor: page.next_cursor.map(|c| c.encode()),
        }));
    }
    let tokens = q.q.as_deref().map(|text| index_tokens("", text));
    let page = nodes::list(
        &state.services,
        &caller,
        NodeQuery {
            tokens,
            label: q.label.map(|l| l.trim().to_lowercase()),
            memory_type: q.memory_type,
            state: state_filter,
            limit,
            after,
            scopes: None,
        },
    )
    .await?;
    Ok(Json(NodeListResponse {
        items: page.items.into_iter().map(NodeDto::from_domain).collect(),
        next_cursor: page.next_cursor.map(|c| c.encode()),
    }))
}

/// What a stored node contradicts now.
#[derive(Debug, Serialize, ToSchema)]
pub struct CheckResponse {
    pub node_id: Uuid,
    /// Contradictions found (not queued: a check writes nothing); absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflicts: Option<Vec<ConflictHitDto>>,
}

/// Run detection for a stored node against the active set, without writing anything.
#[utoipa::path(
    post, path = "/nodes/{id}/check", tag = "nodes",
    params(("id" = Uuid, Path, description = "Node id"), DetectQuery),
    responses(
        (status = 200, body = CheckResponse),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn check_node(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
    AppQuery(q): AppQuery<DetectQuery>,
) -> Result<Json<CheckResponse>, ApiError> {
    let sens = sensitivity(&q)?;
    let hits: Vec<ConflictHitDto> = nodes::check_node(&state.services, &caller, id, sens)
        .await?
        .into_iter()
        .map(hit_dto)
        .collect();
    Ok(Json(CheckResponse {
        node_id: id,
        conflicts: (!hits.is_empty()).then_some(hits),
    }))
}

/// A check's finding: the conflict id only of a conflict that already stands for the pair (a
/// check queues nothing), with `resolution: keep_both` when a reviewer decided both hold.
fn hit_dto(h: Hit) -> ConflictHitDto {
    ConflictHitDto {
        conflict_id: h.conflict_id,
        old_node_id: h.old.id,
        conflict_type: h.conflict_type,
        probability: h.detection.probability,
        signals: h.detection.signals,
        recommendation: h.recommendation.into(),
        resolution: h.kept_both.then(|| "keep_both".to_owned()),
        resolved_by: h.resolved_by,
        policy: None,
    }
}
