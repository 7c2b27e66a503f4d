//! `GET /recall`: what concord remembers about a query, in the conflict-aware envelope.

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::Caller;
use super::error::{ApiError, Problem};
use super::extract::AppQuery;
use crate::service::recall::{self, Recall, RecallQuery};
use crate::service::scopes;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(recall_memories))
}

/// `GET /recall` parameters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RecallParams {
    /// Words to search for (full-text, every word must match), 1..500 characters.
    #[param(required = true, min_length = 1, max_length = 500, pattern = r"\S")]
    pub q: Option<String>,
    /// Only memories with this label, 1..64 characters, not only spaces.
    #[param(
        min_length = 1,
        max_length = 64,
        pattern = r"^[^\u0000]*[^\s\u0000][^\u0000]*$"
    )]
    pub label: Option<String>,
    /// Only this scope, 1..200 characters (one the key holds: 403 `/problems/scope-forbidden`
    /// otherwise). Without it, every scope the key holds.
    #[param(min_length = 1, max_length = 200, pattern = r"\S")]
    pub scope: Option<String>,
    /// Memories to return, 1..50 (default 10).
    #[param(minimum = 1, maximum = 50)]
    pub limit: Option<i64>,
    /// Valid time, RFC 3339: recall what held at this instant.
    #[param(format = DateTime)]
    pub as_of: Option<String>,
    /// System time, RFC 3339, not in the future: recall as concord would have then, with
    /// the memories' texts and the conflicts pending at that instant.
    #[param(format = DateTime)]
    pub known_at: Option<String>,
}

/// Recall active memories matching a query. `sources` are the memories, best match first;
/// `conflicts` lists pending conflicts that touch them and disagreements detection finds
/// between them, and is absent when they agree. Nothing is written.
#[utoipa::path(
    get, path = "/recall", tag = "nodes",
    params(RecallParams),
    responses(
        (status = 200, body = Recall),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn recall_memories(
    State(state): State<AppState>,
    caller: Caller,
    AppQuery(q): AppQuery<RecallParams>,
) -> Result<Json<Recall>, ApiError> {
    let at = (q.as_of.as_deref(), q.known_at.as_deref());
    let query = RecallQuery::parse("/q", q.q, q.label.into_iter().collect(), q.limit, at).map_err(
        |errors| {
            // The one `label` parameter is the service's label list.
            let renamed = errors.into_iter().map(|mut e| {
                if e.pointer.starts_with("/labels") {
                    e.pointer = "/label".into();
                }
                e
            });
            ApiError::Validation(renamed.collect())
        },
    )?;
    let caller = scopes::narrowed(&caller, q.scope.as_deref())?;
    Ok(Json(recall::recall(&state.services, &caller, query).await?))
}
