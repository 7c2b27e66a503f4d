//! `/keys`: API keys kept in the database, for admins (`concord keys` does the same from the
//! command line). A new key is shown once, in the reply that makes it; only its digest is
//! stored. `POST /keys` ignores `Idempotency-Key` (its reply is never stored): a retry gets 409
//! `/problems/key-exists`.

use axum::Json;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::Caller;
use super::error::{ApiError, Problem};
use super::extract::AppJson;
use crate::domain::api_key::ApiKey;
use crate::domain::time;
use crate::service::keys::{self, AddKey};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_key, list_keys))
        .routes(routes!(revoke_key))
        .routes(routes!(who_am_i))
}

/// The key a request runs as, so that a client (the review console) shows who it is and
/// offers only what the role may do.
#[derive(Debug, Serialize, ToSchema)]
pub struct CallerResponse {
    /// The key's name; `config:N` for a key of `--api-keys`, `anonymous` without keys.
    pub name: String,
    /// `reader`, `agent`, `reviewer` or `admin`.
    pub role: String,
    /// The scopes it reads and writes: exact names and `prefix*` patterns (`*`: every scope).
    pub scopes: Vec<String>,
    /// What the role may do: `read`, `write`, `resolve`, `admin`.
    pub permissions: Vec<String>,
}

/// Who this request runs as: the key's name, role, scopes and permissions.
#[utoipa::path(
    get, path = "/me", tag = "keys",
    responses(
        (status = 200, body = CallerResponse),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn who_am_i(caller: Caller) -> Json<CallerResponse> {
    use crate::domain::access::Permission as P;
    let permissions = [P::Read, P::Write, P::Resolve, P::Admin]
        .into_iter()
        .filter(|p| caller.may(*p))
        .map(|p| p.as_str().to_owned())
        .collect();
    Json(CallerResponse {
        name: caller.name,
        role: caller.role.as_str().to_owned(),
        scopes: caller.scopes.to_strings(),
        permissions,
    })
}

/// A key to make.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateKeyRequest {
    /// Unique name, 1..64 characters of `A-Za-z0-9._-` starting with a letter or digit; never
    /// reused, also after the key is revoked.
    #[schema(
        example = "team-a-agent",
        min_length = 1,
        pattern = r"^\s*[A-Za-z0-9][A-Za-z0-9._-]{0,63}\s*$"
    )]
    pub name: String,
    /// `reader`, `agent`, `reviewer` or `admin` (README, "Keys and roles").
    #[schema(example = "agent", pattern = "^(reader|agent|reviewer|admin)$")]
    pub role: String,
    /// Scopes the key may use: exact names, or prefixes ending in `*` (`team-a/*`; `*` is every
    /// scope). At least one.
    #[schema(example = json!(["team-a/*"]), min_items = 1, max_items = 64)]
    pub scopes: Vec<String>,
}

/// A key as stored: never the key itself.
#[derive(Debug, Serialize, ToSchema)]
pub struct KeyDto {
    pub name: String,
    /// `reader`, `agent`, `reviewer` or `admin`.
    pub role: String,
    /// Exact scope names and `prefix*` patterns.
    pub scopes: Vec<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    /// When it last authorised a request (recorded at most once a minute per instance); null
    /// if never.
    #[schema(format = DateTime)]
    pub last_used_at: Option<String>,
    /// When it was revoked; null while it is valid.
    #[schema(format = DateTime)]
    pub revoked_at: Option<String>,
}

impl From<ApiKey> for KeyDto {
    fn from(k: ApiKey) -> Self {
        Self {
            name: k.name,
            role: k.role.as_str().to_owned(),
            scopes: k.scopes.to_strings(),
            created_at: time::format(&k.created_at),
            last_used_at: k.last_used_at.as_ref().map(time::format),
            revoked_at: k.revoked_at.as_ref().map(time::format),
        }
    }
}

/// A new key, shown this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct CreatedKeyResponse {
    /// The key, for `Authorization: Bearer <key>`. concord keeps only its digest: it cannot be
    /// shown again.
    #[schema(example = "concord_q2Zb…")]
    pub key: String,
    /// The key as stored.
    pub api_key: KeyDto,
}

/// Every key, revoked ones included, by name.
#[derive(Debug, Serialize, ToSchema)]
pub struct KeyListResponse {
    pub items: Vec<KeyDto>,
}

/// Make an API key (admin only). The reply holds the key, once.
#[utoipa::path(
    post, path = "/keys", tag = "keys",
    request_body = CreateKeyRequest,
    responses(
        (status = 201, body = CreatedKeyResponse),
        (status = 403, description = "The caller's role is not `admin` (`/problems/role-forbidden`), or its key does not hold every scope (`/problems/scope-forbidden`)",
         body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A key of this name exists, revoked or not (`/problems/key-exists`)",
         body = Problem, content_type = "application/problem+json"),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
#[tracing::instrument(skip_all, fields(key.name = %body.name))]
pub async fn create_key(
    State(state): State<AppState>,
    caller: Caller,
    AppJson(body): AppJson<CreateKeyRequest>,
) -> Result<(StatusCode, Json<CreatedKeyResponse>), ApiError> {
    let new = AddKey::parse(&body.name, &body.role, &body.scopes).map_err(ApiError::Validation)?;
    let (key, secret) = keys::add(&state.services, &caller, new).await?;
    let reply = CreatedKeyResponse {
        key: secret,
        api_key: key.into(),
    };
    Ok((StatusCode::CREATED, Json(reply)))
}

/// List the API keys (admin only): names, roles, scopes, last use; never the keys.
#[utoipa::path(
    get, path = "/keys", tag = "keys",
    responses(
        (status = 200, body = KeyListResponse),
        (status = 403, description = "The caller's role is not `admin` (`/problems/role-forbidden`), or its key does not hold every scope (`/problems/scope-forbidden`)",
         body = Problem, content_type = "application/problem+json"),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn list_keys(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<KeyListResponse>, ApiError> {
    let items = keys::list(&state.services, &caller).await?;
    Ok(Json(KeyListResponse {
        items: items.into_iter().map(Into::into).collect(),
    }))
}

/// Revoke an API key (admin only): every instance refuses it within a second. Revoking a
/// revoked key changes nothing; its name stays taken.
#[utoipa::path(
    delete, path = "/keys/{name}", tag = "keys",
    params(("name" = String, Path, description = "Key name")),
    responses(
        (status = 200, body = KeyDto, description = "The key, now revoked"),
        (status = 403, description = "The caller's role is not `admin` (`/problems/role-forbidden`), or its key does not hold every scope (`/problems/scope-forbidden`)",
         body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No key of this name (`/problems/not-found`)",
         body = Problem, content_type = "application/problem+json"),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn revoke_key(
    State(state): State<AppState>,
    caller: Caller,
    name: Result<Path<String>, PathRejection>,
) -> Result<Json<KeyDto>, ApiError> {
    let Path(name) = name.map_err(|_| ApiError::NoRoute)?;
    let key = keys::revoke(&state.services, &caller, &name).await?;
    Ok(Json(key.into()))
}
