//! Edges between memories: `POST /edges` and `GET /nodes/{id}/edges`.

use uuid::Uuid;

use crate::domain::cursor::Page;
use crate::domain::edge::Edge;
use crate::service::idempotency::{self, Claim};
use crate::service::{Result, Services, replies};

pub use crate::store::EdgeQuery;

/// Stores an edge (parsed by the caller: `EdgeInput::parse`); a missing endpoint is invalid
/// input pointing at its field. With a claimed key its reply ([`replies::edge_created`])
/// commits with it.
pub async fn create(svc: &Services, edge: Edge, claim: Option<&Claim>) -> Result<Edge> {
    Ok(match claim {
        None => svc.store.create_edge(edge).await?,
        Some(c) => {
            let pending = svc.store.create_edge_keyed(edge).await?;
            idempotency::commit(c, pending, replies::edge_created).await?
        }
    })
}

/// A page of a node's edges, oldest first.
pub async fn list(svc: &Services, node_id: Uuid, query: EdgeQuery) -> Result<Page<Edge>> {
    Ok(svc.store.list_edges(node_id, query).await?)
}
