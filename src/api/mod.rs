//! HTTP only: routing, extraction, DTOs, middleware and failures as problem+json ([`error`],
//! the one mapping of `service::Error` for REST). Each resource module exposes a `router()`;
//! this module merges them into one documented router, so no route can exist without its
//! OpenAPI operation.

pub mod access;
mod audit;
pub mod auth;
mod batch;
mod conflicts;
mod doc;
mod edges;
pub mod error;
mod events;
pub mod extract;
pub mod guard;
mod health;
pub mod idempotency;
mod keys;
pub mod limits;
mod metrics;
mod nodes;
mod policies;
mod recall;
mod reports;
pub mod resolve;
mod revert;
pub mod review;
mod sources;
mod sweeps;
mod throttle;
mod versions;
mod wake;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::response::IntoResponse;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_swagger_ui::SwaggerUi;

use self::error::ApiError;
use crate::config::BODY_LIMIT;
use crate::state::AppState;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "concord",
        description = "Contradiction-aware long-term memory for AI agents. Errors are RFC 9457 \
            `application/problem+json` with a stable `type` (see the README's problem table). \
            Every POST accepts an `Idempotency-Key` header: the first response (2xx or 4xx) is \
            kept for 24 h and replayed with `Idempotency-Replayed: true`. With API keys, each \
            operation lists the key roles that may call it in `x-roles`; another role gets 403 \
            `/problems/role-forbidden`, a missing, wrong or revoked key 401 \
            `/problems/unauthorized`, and an address after 10 failed keys in a minute 429 \
            `/problems/too-many-failed-keys` with `Retry-After`. A key reads and writes only \
            the scopes it holds: lists, searches, reports, the wake feed and the event stream \
            show only those; an id of another scope is 404 exactly as an id that does not \
            exist; a write into another scope (a write without `scope` is in `default`) is 403 \
            `/problems/scope-forbidden`."
    ),
    tags(
        (name = "nodes", description = "Knowledge nodes; writes run contradiction detection"),
        (name = "edges", description = "Typed, weighted links between nodes"),
        (name = "conflicts", description = "The review queue and its resolution"),
        (name = "sources", description = "Learned source credibility"),
        (name = "keys", description = "API keys with roles and scopes (admin only)"),
        (name = "sweeps", description = "Finding the contradictions already stored"),
        (name = "operations", description = "Health, readiness, metrics"),
    )
)]
pub struct ApiDoc;

/// All documented routes and the OpenAPI document they make (refined by [`doc::refine`]).
pub fn routes() -> (Router<AppState>, serde_json::Value) {
    let (router, doc) = OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(nodes::router())
        .merge(batch::router())
        .merge(versions::router())
        .merge(edges::router())
        .merge(conflicts::router())
        .merge(wake::router())
        .merge(events::router())
        .merge(resolve::router())
        .merge(revert::router())
        .merge(recall::router())
        .merge(reports::router())
        .merge(sources::router())
        .merge(policies::router())
        .merge(keys::router())
        .merge(audit::router())
        .merge(sweeps::router())
        .merge(health::router())
        .split_for_parts();
    let mut doc = doc::refine(&doc);
    access::annotate(&mut doc);
    (router, doc)
}

/// The OpenAPI document, as `concord openapi` prints it and `openapi/openapi.json` holds it.
pub fn openapi_json() -> String {
    let (_, doc) = routes();
    // serde_json's default map sorts keys, so the output is stable.
    serde_json::to_string_pretty(&doc).expect("the document serialises") + "\n"
}

/// The REST routes with the API docs and the review console, without middleware: the
/// composition root (`server::app`) merges the MCP route beside them and hands the whole to
/// [`finish`].
pub fn router() -> Router<AppState> {
    let (router, doc) = routes();
    router
        .merge(SwaggerUi::new("/docs").external_url_unchecked("/openapi.json", doc))
        .merge(review::router())
}

/// The HTTP rules every route runs under, REST and MCP alike: problem+json fallbacks,
/// idempotency keys, API keys, the body limit, request limits, metrics and the request
/// context.
pub fn finish(router: Router<AppState>, state: AppState) -> Router {
    metrics::install();
    let limits = limits::Limits::new(
        std::time::Duration::from_millis(state.settings.request_timeout_ms),
        state.settings.max_in_flight as usize,
    );
    router
        .fallback(|| async { ApiError::NoRoute.into_response() })
        .method_not_allowed_fallback(|| async { ApiError::MethodNotAllowed.into_response() })
        .layer(from_fn_with_state(state.clone(), idempotency::idempotent))
        .layer(from_fn_with_state(
            auth::Gate::new(state.services.clone()),
            auth::require_key,
        ))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(from_fn(limits::utf8_query))
        .layer(from_fn_with_state(limits, limits::enforce))
        .layer(from_fn_with_state(
            guard::KnownHosts::new(&state.settings),
            guard::known_host,
        ))
        .layer(from_fn(metrics::track))
        .layer(from_fn(crate::telemetry::request_context))
        .with_state(state)
}
