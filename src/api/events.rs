//! `GET /events`: Server-Sent Events `conflict.created`, `conflict.resolved` and
//! `conflict.reverted`, and a sweep's `sweep.started`, `sweep.progress`, `sweep.done`,
//! `sweep.cancelled` and `sweep.failed`. Ids are the
//! event log's ids, so `Last-Event-ID` resumes without gaps or repeats. Each stream reads the
//! log at its own pace, so a slow client holds up no one but itself.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use futures_util::stream::{self, Stream};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use super::auth::Caller;
use super::error::{ApiError, Problem};
use crate::domain::time;
use crate::service::feed::{self, Event};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(stream_events))
}

/// Comment lines keep idle connections (and proxies) alive.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The `data` of an event.
#[derive(Debug, Serialize, ToSchema)]
pub struct EventData {
    /// `conflict.created`, `conflict.resolved` or `conflict.reverted`; `sweep.started`,
    /// `sweep.progress` (at most every 2 s), `sweep.done`, `sweep.cancelled` or `sweep.failed`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The conflict, for `conflict.*` events.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflict_id: Option<Uuid>,
    /// The sweep, for `sweep.*` events (`GET /sweeps/{id}` has its progress).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sweep_id: Option<Uuid>,
    #[schema(format = DateTime)]
    pub created_at: String,
}

/// Stream conflict and sweep events (`text/event-stream`). Send `Last-Event-ID` to resume after the last
/// event seen; without it the stream starts with events that happen from now on.
#[utoipa::path(
    get, path = "/events", tag = "conflicts",
    params(("Last-Event-ID" = Option<i64>, Header, description = "Resume after this event id")),
    responses(
        (status = 200, content_type = "text/event-stream", body = EventData,
         description = "`event:` is the type, `id:` the event id, `data:` an EventData object"),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn stream_events(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    let resume = headers
        .get("last-event-id")
        .map(|v| {
            v.to_str()
                .ok()
                .and_then(|s| s.trim().parse::<i64>().ok())
                .filter(|n| *n >= 0)
                .ok_or_else(|| {
                    ApiError::validation("/headers/Last-Event-ID", "must be an event id")
                })
        })
        .transpose()?;
    let feed = feed::events(&state.services, &caller, resume).await?;
    let events = stream::unfold(feed, |mut feed| async move {
        let e = feed.next().await?;
        Some((Ok(to_sse(e)), feed))
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::new().interval(KEEP_ALIVE)))
}

fn to_sse(e: Event) -> SseEvent {
    // The log keeps an event's subject in one column: a sweep's id for `sweep.*` events.
    let sweep = e.kind.starts_with("sweep.");
    let data = EventData {
        kind: e.kind.clone(),
        conflict_id: (!sweep).then_some(e.conflict_id),
        sweep_id: sweep.then_some(e.conflict_id),
        created_at: time::format(&e.created_at),
    };
    SseEvent::default()
        .event(e.kind)
        .id(e.id.to_string())
        .json_data(data)
        .unwrap_or_default()
}
