//! `POST /nodes/batch`: many memories (and edges among them) in one request and one
//! transaction, for imports and agents that learn several things at once.

use axum::extract::{DefaultBodyLimit, State};
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::Caller;
use super::error::{ApiError, Problem};
use super::extract::{AppJson, AppQuery, from_value_at};
use super::idempotency::Claimed;
use super::nodes::{CreateNodeRequest, DetectQuery, sensitivity};
use crate::config::BATCH_BODY_LIMIT;
use crate::domain::batch::{BatchEdgeInput, BatchInput, BatchNodeInput};
use crate::domain::edge::EdgeInput;
use crate::service::idempotency::Reply;
use crate::service::{batch, replies};
use crate::state::AppState;
use crate::wire::dto::BatchWriteResponse;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_batch))
        .layer(DefaultBodyLimit::max(BATCH_BODY_LIMIT))
}

/// Memories to store together, with optional edges among them.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchRequest {
    /// 1..1000 nodes, written (and detected) in this order. Read as JSON first and each
    /// item then as a node, so that an error points into its item (`/nodes/3/title`).
    #[schema(min_items = 1, max_items = 1000, value_type = Vec<BatchNodeRequest>)]
    pub nodes: Vec<serde_json::Value>,
    /// Up to 10,000 edges; default none.
    #[serde(default)]
    #[schema(max_items = 10000)]
    pub edges: Vec<BatchEdgeRequest>,
}

/// A node of a batch: `POST /nodes`'s fields, and an optional reference for edges.
#[derive(Debug, Deserialize, ToSchema)]
#[allow(dead_code)] // The document's shape of an item; items are read by `node_input`.
pub struct BatchNodeRequest {
    /// The client's name for this node within the batch (1..200 characters, unique in the
    /// batch, not a UUID), for `edges` to point at; echoed in the reply.
    #[serde(rename = "ref", default)]
    #[schema(min_length = 1, max_length = 200, pattern = r"\S")]
    pub reference: Option<String>,
    #[serde(flatten)]
    pub node: CreateNodeRequest,
}

/// An edge of a batch; its ends are a `ref` of the batch or the id of a stored node.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchEdgeRequest {
    /// A node of the batch (its `ref`) or a stored node (its id).
    pub source: String,
    /// A node of the batch (its `ref`) or a stored node (its id); not the same node as
    /// `source`.
    pub target: String,
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

/// Store up to 1,000 nodes, and edges among them, in one transaction.
///
/// Each node is checked for contradictions (unless `detect=false`) against the stored
/// memories and against the batch's earlier nodes, as though the batch had been written one
/// `POST /nodes` at a time in its order. Every item is validated first: any invalid item is
/// 422 with one error per problem, its `pointer` naming the item (`/nodes/3/title`,
/// `/edges/0/target`), and nothing of the batch is written. The body may be up to 32 MiB.
#[utoipa::path(
    post, path = "/nodes/batch", tag = "nodes",
    params(DetectQuery),
    request_body = BatchRequest,
    responses(
        (status = 201, body = BatchWriteResponse),
        (status = "4XX", body = Problem, content_type = "application/problem+json"),
        (status = "5XX", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn create_batch(
    State(state): State<AppState>,
    caller: Caller,
    claim: Claimed,
    AppQuery(q): AppQuery<DetectQuery>,
    AppJson(body): AppJson<BatchRequest>,
) -> Result<Reply, ApiError> {
    let sens = sensitivity(&q)?;
    let input = body.into_input()?;
    let written = batch::remember_all(
        &state.services,
        &caller,
        input,
        caller.writer(),
        q.detect.unwrap_or(true),
        sens,
        claim.get(),
    )
    .await?;
    Ok(replies::batch_written(&written))
}

impl BatchRequest {
    fn into_input(self) -> Result<BatchInput, ApiError> {
        Ok(BatchInput {
            nodes: (self.nodes.into_iter().enumerate())
                .map(|(i, item)| node_input(item, &format!("/nodes/{i}")))
                .collect::<Result<_, _>>()?,
            edges: (self.edges.into_iter())
                .map(|e| BatchEdgeInput {
                    source: e.source,
                    target: e.target,
                    edge: EdgeInput {
                        source_id: None,
                        target_id: None,
                        kind: Some(e.kind),
                        neural_weight: e.neural_weight,
                        strength: e.strength,
                        confidence: e.confidence,
                        valid_from: e.valid_from,
                    },
                })
                .collect(),
        })
    }
}

/// An item of `nodes`: its `ref`, and the rest read as `POST /nodes` reads its body.
fn node_input(item: serde_json::Value, at: &str) -> Result<BatchNodeInput, ApiError> {
    let serde_json::Value::Object(mut fields) = item else {
        return Err(ApiError::validation(at, "must be an object"));
    };
    let reference = match fields.remove("ref") {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(r)) => Some(r),
        Some(_) => {
            return Err(ApiError::validation(
                &format!("{at}/ref"),
                "must be a string",
            ));
        }
    };
    let node: CreateNodeRequest = from_value_at(serde_json::Value::Object(fields), at)?;
    Ok(BatchNodeInput {
        reference,
        node: node.into_input(),
    })
}
