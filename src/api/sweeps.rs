//! `/sweeps`: find the contradictions the store already holds. An admin starts a sweep
//! (`POST /sweeps`), anyone who may read follows it (`GET /sweeps/{id}`, the event stream's
//! `sweep.*` events, the console's banner), an admin cancels it (`DELETE /sweeps/{id}`). The
//! server's sweeper runs it in the background (`service::sweep`).

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use super::auth::Caller;
use super::error::{ApiError, Problem};
use super::extract::{AppQuery, IdPath, is_json, parse_json};
use crate::domain::sweep::{Sweep, SweepFilter};
use crate::domain::time;
use crate::service::sweep;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(start_sweep, list_sweeps))
        .routes(routes!(get_sweep, cancel_sweep))
}

/// Which memories to compare; every field is optional, and so is the body.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SweepRequest {
    /// Only memories of this scope (each compared with its candidates, which are always of
    /// its own scope). 1..200 characters.
    #[schema(example = "default", min_length = 1, max_length = 200, pattern = r"\S")]
    pub scope: Option<String>,
    /// Only memories with this label. 1..64 characters.
    #[schema(min_length = 1, max_length = 64, pattern = r"\S")]
    pub label: Option<String>,
    /// Only memories created at or after this time (RFC 3339); they are compared with older
    /// memories too.
    #[schema(format = DateTime)]
    pub since: Option<String>,
}

/// A sweep and how far it got.
#[derive(Debug, Serialize, ToSchema)]
pub struct SweepDto {
    pub id: Uuid,
    /// `running`, `done`, `cancelled` or `failed`.
    #[schema(example = "running")]
    pub status: String,
    pub scope: Option<String>,
    pub label: Option<String>,
    #[schema(format = DateTime)]
    pub since: Option<String>,
    /// Active memories it compares: those that existed when it started (later writes are
    /// checked as they are written).
    pub total: i64,
    /// Memories compared so far.
    pub compared: i64,
    /// Conflicts it queued (pairs queued before, or with a remembered verdict, are not queued
    /// again).
    pub conflicts_queued: i64,
    /// Memories compared per second by its current run; null before a second of it passed.
    pub rate: Option<f64>,
    /// Seconds left at that rate, while it runs.
    pub eta_s: Option<f64>,
    /// Why it failed.
    pub error: Option<String>,
    /// The key that started it; null without keys.
    pub created_by: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
    #[schema(format = DateTime)]
    pub finished_at: Option<String>,
}

impl From<Sweep> for SweepDto {
    fn from(s: Sweep) -> Self {
        let now = time::now();
        Self {
            id: s.id,
            status: s.status.as_str().to_owned(),
            rate: s.rate(now).map(|r| (r * 10.0).round() / 10.0),
            eta_s: s.eta_s(now),
            scope: s.filter.scope,
            label: s.filter.label,
            since: s.filter.since.as_ref().map(time::format),
            total: s.total,
            compared: s.compared,
            conflicts_queued: s.queued,
            error: s.error,
            created_by: s.created_by,
            created_at: time::format(&s.created_at),
            updated_at: time::format(&s.updated_at),
            finished_at: s.finished_at.as_ref().map(time::format),
        }
    }
}

/// The newest sweeps.
#[derive(Debug, Serialize, ToSchema)]
pub struct SweepListResponse {
    /// Newest first.
    pub items: Vec<SweepDto>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SweepListQuery {
    /// 1..100, default 20.
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
}

/// Start a sweep (admin only): every active memory stored now (or those of `scope`, `label`,
/// `since`) is compared with the candidates a write of it would have found, and the
/// contradictions not yet queued are queued, as detection at write time would have queued
/// them. Pairs queued before or with a remembered verdict are passed over. It runs in the
/// background, and goes on after a restart where it stopped; follow it with
/// `GET /sweeps/{id}` or the event stream. The body may be omitted.
#[utoipa::path(
    post, path = "/sweeps", tag = "sweeps",
    request_body(content = Option<SweepRequest>, description = "Optional; `{}` or no body sweeps everything"),
    responses(
        (status = 202, body = SweepDto, description = "Started; `Location` names it",
         headers(("Location" = String, description = "`/sweeps/{id}`"))),
        (status = 403, description = "The caller's role is not `admin` (`/problems/role-forbidden`), or its key does not hold the sweep's scope (every scope, for a sweep without one: `/problems/scope-forbidden`)",
         body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A sweep is running (`/problems/sweep-running`, its id in `sweep_id`)",
         body = Problem, content_type = "application/problem+json"),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn start_sweep(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    body: Bytes,
) -> Result<(StatusCode, HeaderMap, Json<SweepDto>), ApiError> {
    let request = request_of(&headers, &body)?;
    let filter = SweepFilter::parse(
        request.scope.as_deref(),
        request.label.as_deref(),
        request.since.as_deref(),
    )
    .map_err(ApiError::Validation)?;
    let started = sweep::start(&state.services, &caller, filter).await?;
    let mut reply = HeaderMap::new();
    let location = format!("/sweeps/{}", started.id);
    reply.insert(
        header::LOCATION,
        location.parse().expect("a path is a header value"),
    );
    Ok((StatusCode::ACCEPTED, reply, Json(started.into())))
}

/// The body of `POST /sweeps`: none (only whitespace) or `null` is every memory; else JSON.
fn request_of(headers: &HeaderMap, body: &Bytes) -> Result<SweepRequest, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(SweepRequest::default());
    }
    if !is_json(headers.get(header::CONTENT_TYPE)) {
        return Err(ApiError::UnsupportedMediaType);
    }
    // `null` is the document's "no body" too.
    parse_json::<Option<SweepRequest>>(body).map(Option::unwrap_or_default)
}

/// The newest sweeps, running or ended.
#[utoipa::path(
    get, path = "/sweeps", tag = "sweeps",
    params(SweepListQuery),
    responses(
        (status = 200, body = SweepListResponse),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn list_sweeps(
    State(state): State<AppState>,
    caller: Caller,
    AppQuery(q): AppQuery<SweepListQuery>,
) -> Result<Json<SweepListResponse>, ApiError> {
    let limit = match q.limit {
        None => 20,
        Some(n @ 1..=100) => n as usize,
        Some(_) => return Err(ApiError::validation("/limit", "must be 1..100")),
    };
    let items = sweep::list(&state.services, &caller, limit).await?;
    Ok(Json(SweepListResponse {
        items: items.into_iter().map(Into::into).collect(),
    }))
}

/// A sweep's progress: compared, conflicts queued, rate and time left.
#[utoipa::path(
    get, path = "/sweeps/{id}", tag = "sweeps",
    params(("id" = Uuid, Path, description = "Sweep id")),
    responses(
        (status = 200, body = SweepDto),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn get_sweep(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> Result<Json<SweepDto>, ApiError> {
    Ok(Json(sweep::get(&state.services, &caller, id).await?.into()))
}

/// Cancel a sweep (admin only): it stops within a moment; what it queued stays queued. A
/// sweep that had ended is returned as it is.
#[utoipa::path(
    delete, path = "/sweeps/{id}", tag = "sweeps",
    params(("id" = Uuid, Path, description = "Sweep id")),
    responses(
        (status = 200, body = SweepDto, description = "The sweep, now `cancelled` (or as it ended)"),
        (status = 403, description = "The caller's role is not `admin` (`/problems/role-forbidden`)",
         body = Problem, content_type = "application/problem+json"),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn cancel_sweep(
    State(state): State<AppState>,
    caller: Caller,
    IdPath(id): IdPath,
) -> Result<Json<SweepDto>, ApiError> {
    Ok(Json(
        sweep::cancel(&state.services, &caller, id).await?.into(),
    ))
}
