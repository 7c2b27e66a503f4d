//! `/audit`: who did what, for admins of every scope.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use super::auth::Caller;
use super::error::{ApiError, Problem};
use super::extract::AppQuery;
use crate::domain::audit::{AuditEntry, AuditQuery};
use crate::domain::time;
use crate::service::audit;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_audit))
}

/// `GET /audit` parameters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuditParams {
    /// Only what this key did (its name, as `GET /keys` lists it; `config:N` for a key of
    /// `--api-keys`).
    #[param(min_length = 1, max_length = 200)]
    pub key: Option<String>,
    /// Only what happened at or after this instant (RFC 3339).
    #[param(format = DateTime)]
    pub since: Option<String>,
    /// 1..500, default 100.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    /// Opaque cursor from `next_cursor` (base64url); never empty.
    #[param(min_length = 1, pattern = "^[A-Za-z0-9_-]+$")]
    pub cursor: Option<String>,
}

/// One change and who made it.
#[derive(Debug, Serialize, ToSchema)]
pub struct AuditEntryDto {
    #[schema(format = DateTime)]
    pub at: String,
    /// The name of the API key that made it; null when the service ran without keys, for a
    /// key made on the command line, and for conflicts a sweep queued.
    pub key: Option<String>,
    /// `node.created`, `node.changed`, `node.deleted`, `conflict.queued`,
    /// `conflict.resolved`, `conflict.auto_resolved`, `conflict.reverted`, `key.created`,
    /// `key.revoked` or `sweep.started`.
    #[schema(example = "conflict.resolved")]
    pub action: String,
    /// What it changed: a memory's or conflict's id, a key's name, a sweep's id.
    pub target: String,
    /// For `node.*`, the version the change made (`GET /nodes/{id}/versions/{version}`).
    pub version: Option<i64>,
    /// What the writer called itself (`resolved_by`, `reverted_by`, `policy:<name>`,
    /// `mcp:<client>`), where it said.
    pub by: Option<String>,
    /// The conflict: the one changed, or whose resolution or revert changed the memory.
    pub conflict_id: Option<Uuid>,
}

impl From<AuditEntry> for AuditEntryDto {
    fn from(e: AuditEntry) -> Self {
        Self {
            at: time::format(&e.at),
            version: e.action.starts_with("node.").then_some(e.seq),
            key: e.key,
            action: e.action,
            target: e.target,
            by: e.by,
            conflict_id: e.conflict_id,
        }
    }
}

/// A page of the audit, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct AuditListResponse {
    pub items: Vec<AuditEntryDto>,
    /// Null at the end of the list.
    pub next_cursor: Option<String>,
}

/// Who did what, newest first (admin of every scope): every change of a memory (each of its
/// versions), every change of a conflict (each entry of its history), keys made and revoked,
/// sweeps started, each with the name of the key that made it. `key` and `since` narrow it.
#[utoipa::path(
    get, path = "/audit", tag = "keys",
    params(AuditParams),
    responses(
        (status = 200, body = AuditListResponse),
        (status = 403, description = "The caller's role is not `admin` (`/problems/role-forbidden`), or its key does not hold every scope (`/problems/scope-forbidden`)",
         body = Problem, content_type = "application/problem+json"),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn list_audit(
    State(state): State<AppState>,
    caller: Caller,
    AppQuery(p): AppQuery<AuditParams>,
) -> Result<Json<AuditListResponse>, ApiError> {
    let q = AuditQuery::parse(
        p.key.as_deref(),
        p.since.as_deref(),
        p.limit,
        p.cursor.as_deref(),
    )
    .map_err(ApiError::Validation)?;
    let page = audit::list(&state.services, &caller, q).await?;
    Ok(Json(AuditListResponse {
        items: page.items.into_iter().map(Into::into).collect(),
        next_cursor: page.next_cursor.map(|c| c.encode()),
    }))
}
