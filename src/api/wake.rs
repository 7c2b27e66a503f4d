//! `GET /conflicts/wake`: the long poll that wakes an agent's daemon. It answers at once when
//! conflicts wait after the cursor; otherwise it sleeps until a commit wakes it (no polling
//! loop, no database work while it waits) or the wait runs out (204).

use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use super::auth::Caller;
use super::error::{ApiError, Problem};
use super::extract::AppQuery;
use crate::domain::time;
use crate::domain::wake::{self, SideText};
use crate::service::feed::{self, WakeBatch};
use crate::service::scopes;
use crate::state::AppState;
use crate::wire::dto::RecommendationDto;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(wake_conflicts))
}

/// `GET /conflicts/wake` parameters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct WakeQuery {
    /// Cursor from a previous reply; absent = any pending conflict.
    pub after: Option<String>,
    /// Seconds to wait when nothing is pending after the cursor (0..60, default 0).
    #[param(minimum = 0, maximum = 60)]
    pub wait: Option<i64>,
    /// Only conflicts of this scope, 1..200 characters (one the key holds: 403
    /// `/problems/scope-forbidden` otherwise): a daemon that wakes one agent waits on its
    /// scope. Without it, every scope the key holds.
    #[param(min_length = 1, max_length = 200, pattern = r"\S")]
    pub scope: Option<String>,
    /// Conflicts per reply (1..20, default 5).
    #[param(minimum = 1, maximum = 20)]
    pub max: Option<i64>,
    /// Preview length in characters (50..5000, default 500).
    #[param(minimum = 50, maximum = 5000)]
    pub preview_chars: Option<i64>,
    /// `json` (default) or `text` (only the message, as `text/plain`).
    #[param(pattern = "^(json|text)$")]
    pub format: Option<String>,
}

/// One side of a conflict in the digest.
#[derive(Debug, Serialize, ToSchema)]
pub struct WakeSide {
    /// The node's id; null when the side is only text.
    pub id: Option<Uuid>,
    pub title: String,
    /// The start of the body, `preview_chars` long at most.
    pub preview: String,
}

/// A conflict in the digest.
#[derive(Debug, Serialize, ToSchema)]
pub struct WakeConflict {
    pub id: Uuid,
    pub conflict_type: String,
    pub old: Option<WakeSide>,
    pub new: Option<WakeSide>,
    pub recommendation: RecommendationDto,
    #[schema(format = DateTime)]
    pub created_at: String,
}

/// Pending conflicts after the cursor.
#[derive(Debug, Serialize, ToSchema)]
pub struct WakeResponse {
    /// All pending conflicts.
    pub pending_total: i64,
    /// The oldest pending conflicts after the cursor, at most `max`.
    pub conflicts: Vec<WakeConflict>,
    /// Pending conflicts after these.
    pub more: i64,
    /// Pass as `after` next time.
    pub cursor: String,
    /// Ready-to-read text: each conflict's OLD and NEW side, then `... and N more`.
    pub message: String,
}

struct Args {
    after: i64,
    wait: Duration,
    max: usize,
    preview: usize,
    text: bool,
}

fn in_range(v: Option<i64>, default: i64, lo: i64, hi: i64, name: &str) -> Result<i64, ApiError> {
    let v = v.unwrap_or(default);
    if (lo..=hi).contains(&v) {
        Ok(v)
    } else {
        Err(ApiError::validation(
            &format!("/{name}"),
            format!("must be between {lo} and {hi}"),
        ))
    }
}

fn parse(q: WakeQuery) -> Result<Args, ApiError> {
    let after = match q.after.as_deref() {
        None | Some("") => 0,
        Some(c) => decode_cursor(c)
            .ok_or_else(|| ApiError::validation("/after", "is not a wake cursor"))?,
    };
    let text = match q.format.as_deref().unwrap_or("json") {
        "json" => false,
        "text" => true,
        _ => return Err(ApiError::validation("/format", "must be json or text")),
    };
    Ok(Args {
        after,
        wait: Duration::from_secs(in_range(q.wait, 0, 0, 60, "wait")? as u64),
        max: in_range(q.max, 5, 1, 20, "max")? as usize,
        preview: in_range(q.preview_chars, 500, 50, 5000, "preview_chars")? as usize,
        text,
    })
}

pub fn encode_cursor(seq: i64) -> String {
    URL_SAFE_NO_PAD.encode(format!("seq:{seq}"))
}

fn decode_cursor(c: &str) -> Option<i64> {
    let raw = String::from_utf8(URL_SAFE_NO_PAD.decode(c).ok()?).ok()?;
    raw.strip_prefix("seq:")?
        .parse()
        .ok()
        .filter(|n: &i64| *n >= 0)
}

/// Wait for pending conflicts: returns at once when some are pending after `after`, else waits
/// up to `wait` seconds for the first one (204 if none came). A conflict queued through any
/// instance sharing the database wakes the wait (PostgreSQL LISTEN/NOTIFY).
#[utoipa::path(
    get, path = "/conflicts/wake", tag = "conflicts",
    params(WakeQuery),
    responses(
        (status = 200, description = "Conflicts wait: JSON, or with `format=text` only the message, as text/plain", content(
            (WakeResponse = "application/json"),
            (String = "text/plain"),
        )),
        (status = 204, description = "Nothing came within `wait` seconds"),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn wake_conflicts(
    State(state): State<AppState>,
    caller: Caller,
    AppQuery(q): AppQuery<WakeQuery>,
) -> Result<Response, ApiError> {
    let caller = scopes::narrowed(&caller, q.scope.as_deref())?;
    let args = parse(q)?;
    match feed::wake(&state.services, &caller, args.after, args.max, args.wait).await? {
        Some(batch) => Ok(reply(batch, &args)),
        None => Ok(StatusCode::NO_CONTENT.into_response()),
    }
}

fn side(s: Option<SideText>, id: Option<Uuid>) -> Option<WakeSide> {
    s.map(|s| WakeSide {
        id,
        title: s.title,
        preview: s.preview,
    })
}

fn reply(batch: WakeBatch, args: &Args) -> Response {
    let message = wake::message(&batch.conflicts, batch.more, args.preview);
    if args.text {
        return (
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            message,
        )
            .into_response();
    }
    let cursor = encode_cursor(batch.conflicts.last().map_or(args.after, |c| c.seq));
    let conflicts = batch
        .conflicts
        .into_iter()
        .map(|c| WakeConflict {
            id: c.id,
            conflict_type: c.conflict_type.clone(),
            old: side(wake::old_side(&c, args.preview), c.old_node_id),
            new: side(wake::new_side(&c, args.preview), c.new_node_id),
            created_at: time::format(&c.created_at),
            recommendation: c.recommendation.into(),
        })
        .collect();
    Json(WakeResponse {
        pending_total: batch.pending_total,
        conflicts,
        more: batch.more,
        cursor,
        message,
    })
    .into_response()
}
