//! The replies of the writes a retry may repeat (`POST /nodes`, `/edges`, `/conflicts`, a
//! resolution, a revert): status, JSON body and `Location`, rendered here from the use case's
//! outcome with the shapes of `wire::dto`. A keyed write commits this reply with its effect
//! (`service::idempotency`), and REST answers with it, so a retry replays the same bytes.

use crate::domain::batch::BatchWritten;
use crate::domain::conflict::Conflict;
use crate::domain::edge::Edge;
use crate::domain::node::{Node, Remembered};
use crate::domain::resolution::Resolution;
use crate::domain::revert::Reverted;
use crate::service::idempotency::Reply;
use crate::wire::dto::{
    BatchNodeWritten, BatchWriteResponse, ConflictDto, ConflictHitDto, EdgeDto, NodeDto,
    NodeRestatedResponse, NodeWriteResponse, ResolveResponse, RevertResponse,
};

const OK: u16 = 200;
const CREATED: u16 = 201;

/// A stored node and the conflicts its write queued: 201 with the node's `Location`.
pub fn node_written((node, conflicts): &(Node, Vec<Conflict>)) -> Reply {
    let body = NodeWriteResponse {
        node: NodeDto::from_domain(node.clone()),
        conflicts: hits(conflicts),
    };
    let location = format!("/nodes/{}", node.id);
    Reply::json(CREATED, Some(location), &body)
}

/// What `POST /nodes` did: 201 with a new node ([`node_written`]), or 200 with the stored
/// memory a restatement repeated.
pub fn remembered(r: Remembered) -> Reply {
    match r {
        Remembered::Written { node, conflicts } => node_written(&(node, conflicts)),
        Remembered::Restated {
            node,
            corroborated_by,
        } => {
            let location = format!("/nodes/{}", node.id);
            let body = NodeRestatedResponse {
                node: NodeDto::from_domain(node),
                restated: true,
                corroborated_by,
            };
            Reply::json(OK, Some(location), &body)
        }
    }
}

/// A written batch: 201 with each node and the conflicts its write queued, in input order,
/// and the edges.
pub fn batch_written(written: &BatchWritten) -> Reply {
    let body = BatchWriteResponse {
        nodes: written
            .nodes
            .iter()
            .map(|n| BatchNodeWritten {
                reference: n.reference.clone(),
                node: NodeDto::from_domain(n.node.clone()),
                conflicts: hits(&n.conflicts),
            })
            .collect(),
        edges: written.edges.iter().cloned().map(EdgeDto::from).collect(),
    };
    Reply::json(CREATED, None, &body)
}

/// A write's conflicts as hits; none when it queued none (the field is then absent).
fn hits(conflicts: &[Conflict]) -> Option<Vec<ConflictHitDto>> {
    (!conflicts.is_empty()).then(|| {
        conflicts
            .iter()
            .cloned()
            .map(ConflictHitDto::from_conflict)
            .collect()
    })
}

/// A created edge: 201.
pub fn edge_created(edge: &Edge) -> Reply {
    Reply::json(CREATED, None, &EdgeDto::from(edge.clone()))
}

/// A queued conflict: 201, or 200 when the pair was pending already; its `Location`.
pub fn conflict_queued((conflict, created): &(Conflict, bool)) -> Reply {
    let status = if *created { CREATED } else { OK };
    let location = format!("/conflicts/{}", conflict.id);
    let body = ConflictDto::from_domain(conflict.clone(), None);
    Reply::json(status, Some(location), &body)
}

/// A resolution (or its replay): 200.
pub fn resolved(r: &Resolution) -> Reply {
    Reply::json(OK, None, &ResolveResponse::from(r.clone()))
}

/// A revert (or its replay): 200.
pub fn reverted(r: &Reverted) -> Reply {
    Reply::json(OK, None, &RevertResponse::from(r.clone()))
}
