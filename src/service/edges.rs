//! Edges between memories: `POST /edges` and `GET /nodes/{id}/edges`.

use uuid::Uuid;

use crate::domain::cursor::Page;
use crate::domain::edge::Edge;
use crate::service::{Result, Services};

pub use crate::store::EdgeQuery;

/// Stores an edge (parsed by the caller: `EdgeInput::parse`); a missing endpoint is invalid
/// input pointing at its field.
pub async fn create(svc: &Services, edge: Edge) -> Result<Edge> {
    Ok(svc.store.create_edge(edge).await?)
}

/// A page of a node's edges, oldest first.
pub async fn list(svc: &Services, node_id: Uuid, query: EdgeQuery) -> Result<Page<Edge>> {
    Ok(svc.store.list_edges(node_id, query).await?)
}
