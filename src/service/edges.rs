//! Edges between memories: `POST /edges` and `GET /nodes/{id}/edges`.

use uuid::Uuid;

use crate::domain::FieldError;
use crate::domain::access::Caller;
use crate::domain::cursor::Page;
use crate::domain::edge::Edge;
use crate::service::idempotency::{self, Claim};
use crate::service::{Error, Result, Services, nodes, replies};
use crate::store::StoreError;

pub use crate::store::EdgeQuery;

/// Stores an edge (parsed by the caller: `EdgeInput::parse`); a missing endpoint is invalid
/// input pointing at its field, and so is one the caller does not see. With a claimed key its
/// reply ([`replies::edge_created`]) commits with it.
pub async fn create(
    svc: &Services,
    caller: &Caller,
    edge: Edge,
    claim: Option<&Claim>,
) -> Result<Edge> {
    let ends = [
        ("/source_id", edge.source_id),
        ("/target_id", edge.target_id),
    ];
    unseen_ends(svc, caller, &ends).await?;
    Ok(match claim {
        None => svc.store.create_edge(edge).await?,
        Some(c) => {
            let pending = svc.store.create_edge_keyed(edge).await?;
            idempotency::commit(c, pending, replies::edge_created).await?
        }
    })
}

/// `Ok` unless a stored node of `ends` (pointer, id) is outside the caller's scopes: then the
/// same 422 as for a node that does not exist (a missing one is left to the write to report).
pub async fn unseen_ends(svc: &Services, caller: &Caller, ends: &[(&str, Uuid)]) -> Result<()> {
    if caller.holds_all() {
        return Ok(());
    }
    let mut errors = Vec::new();
    for &(pointer, id) in ends {
        match svc.store.get_node(id).await {
            Ok(n) if !caller.holds(&n.scope) => errors.push(FieldError::new(
                pointer,
                format!("node {id} does not exist"),
            )),
            Ok(_) | Err(StoreError::NotFound(_)) => {}
            Err(e) => return Err(e.into()),
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Error::Invalid(errors))
    }
}

/// A page of a node's edges, oldest first: those whose other end the caller sees too.
pub async fn list(
    svc: &Services,
    caller: &Caller,
    node_id: Uuid,
    mut query: EdgeQuery,
) -> Result<Page<Edge>> {
    nodes::get(svc, caller, node_id).await?;
    query.scopes = caller.visible();
    Ok(svc.store.list_edges(node_id, query).await?)
}
