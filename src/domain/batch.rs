//! A batch of memories written together (`POST /nodes/batch`, `concord import`): up to
//! [`MAX_NODES`] nodes, each with an optional client-side reference, and edges whose ends
//! name either a reference of the batch or a stored node's id. Parsing checks every item and
//! reports every error at once, each under its item's pointer (`/nodes/3/title`,
//! `/edges/0/target`), so one reply tells an importer all it must fix.

use std::collections::HashMap;

use uuid::Uuid;

use crate::domain::conflict::Conflict;
use crate::domain::edge::{Edge, EdgeInput};
use crate::domain::node::{NewNode, Node, NodeInput};
use crate::domain::time::Timestamp;
use crate::domain::validate::{Errors, FieldError, check_text};

/// Most nodes one batch may carry: one transaction holds the writer for all of them.
pub const MAX_NODES: usize = 1_000;
/// Most edges one batch may carry.
pub const MAX_EDGES: usize = 10_000;
/// Longest client-side reference, in characters.
pub const MAX_REF_CHARS: usize = 200;

/// A batch as the request carries it.
#[derive(Debug, Default)]
pub struct BatchInput {
    pub nodes: Vec<BatchNodeInput>,
    pub edges: Vec<BatchEdgeInput>,
}

#[derive(Debug, Default)]
pub struct BatchNodeInput {
    /// The client's name for the node within this batch, for edges to point at.
    pub reference: Option<String>,
    pub node: NodeInput,
}

/// An edge of a batch: `source` and `target` are a reference of the batch or a node id; the
/// rest is `POST /edges`'s (its `source_id` and `target_id` are ignored).
#[derive(Debug, Default)]
pub struct BatchEdgeInput {
    pub source: String,
    pub target: String,
    pub edge: EdgeInput,
}

/// A validated batch: nodes in input order with their references, and edges whose ends are
/// ids (a reference replaced by its node's new id).
#[derive(Debug, Clone)]
pub struct NewBatch {
    pub nodes: Vec<BatchNode>,
    pub edges: Vec<Edge>,
}

#[derive(Debug, Clone)]
pub struct BatchNode {
    pub reference: Option<String>,
    pub node: NewNode,
}

/// A written batch: each node as it reads now with the conflicts its write queued, in input
/// order, and the edges.
#[derive(Debug, Clone)]
pub struct BatchWritten {
    pub nodes: Vec<WrittenNode>,
    pub edges: Vec<Edge>,
}

#[derive(Debug, Clone)]
pub struct WrittenNode {
    pub reference: Option<String>,
    pub node: Node,
    pub conflicts: Vec<Conflict>,
}

impl BatchInput {
    pub fn parse(self, now: Timestamp) -> Result<NewBatch, Vec<FieldError>> {
        let mut e = Errors::default();
        match self.nodes.len() {
            0 => e.add("/nodes", "must hold at least one node"),
            n if n > MAX_NODES => e.add(
                "/nodes",
                format!("holds {n} nodes; a batch holds at most {MAX_NODES}"),
            ),
            _ => {}
        }
        if self.edges.len() > MAX_EDGES {
            e.add(
                "/edges",
                format!(
                    "holds {} edges; a batch holds at most {MAX_EDGES}",
                    self.edges.len()
                ),
            );
        }
        if !e.0.is_empty() {
            return Err(e.0);
        }
        let mut nodes = Vec::with_capacity(self.nodes.len());
        let mut refs: HashMap<String, Uuid> = HashMap::new();
        let mut dimension: Option<(usize, usize)> = None;
        for (i, item) in self.nodes.into_iter().enumerate() {
            let at = format!("/nodes/{i}");
            if let Some(d) = item.node.embedding.as_ref().map(Vec::len) {
                match dimension {
                    None => dimension = Some((i, d)),
                    Some((first, dim)) if dim != d => e.add(
                        &format!("{at}/embedding"),
                        format!(
                            "has {d} numbers; node {first} of the batch has {dim}, and every \
                             embedding in one store has the same dimension"
                        ),
                    ),
                    Some(_) => {}
                }
            }
            let parsed = NewNode::parse(item.node, now);
            let node = match parsed {
                Ok(node) => node,
                Err(errors) => {
                    e.0.extend(errors.into_iter().map(|f| under(&at, f)));
                    continue;
                }
            };
            if let Some(r) = &item.reference {
                let pointer = format!("{at}/ref");
                if let Some(problem) = reference_problem(r) {
                    e.add(&pointer, problem);
                } else if refs.insert(r.clone(), node.id).is_some() {
                    e.add(&pointer, "is used by an earlier node of the batch");
                }
            }
            nodes.push(BatchNode {
                reference: item.reference,
                node,
            });
        }
        let mut edges = Vec::with_capacity(self.edges.len());
        for (j, item) in self.edges.into_iter().enumerate() {
            let at = format!("/edges/{j}");
            let source = endpoint(&refs, &item.source, &format!("{at}/source"), &mut e);
            let target = endpoint(&refs, &item.target, &format!("{at}/target"), &mut e);
            let input = EdgeInput {
                source_id: Some(source.unwrap_or_else(Uuid::now_v7)),
                target_id: Some(target.unwrap_or_else(Uuid::now_v7)),
                ..item.edge
            };
            match input.parse() {
                Ok(edge) => edges.push(edge),
                Err(errors) => e.0.extend(errors.into_iter().map(|f| {
                    let f = FieldError {
                        pointer: f.pointer.replace("/target_id", "/target"),
                        ..f
                    };
                    under(&at, f)
                })),
            }
        }
        e.finish(NewBatch { nodes, edges })
    }
}

/// A field error of an item, under the item's pointer.
fn under(at: &str, f: FieldError) -> FieldError {
    FieldError {
        pointer: format!("{at}{}", f.pointer),
        detail: f.detail,
    }
}

fn reference_problem(r: &str) -> Option<String> {
    let n = r.chars().count();
    if n == 0 || r.trim().is_empty() {
        return Some("must not be blank".into());
    }
    if n > MAX_REF_CHARS {
        return Some(format!("must be at most {MAX_REF_CHARS} characters"));
    }
    if Uuid::parse_str(r).is_ok() {
        // An edge end that parses as an id names a stored node; a reference may not shadow one.
        return Some("must not be a UUID (edge ends that are UUIDs name stored nodes)".into());
    }
    let mut nul = Errors::default();
    check_text(&mut nul, "", r);
    nul.0.pop().map(|f| f.detail)
}

/// The node an edge end names: a reference of the batch, else a stored node's id (whether
/// it exists is the store's to say, in the write's transaction).
fn endpoint(
    refs: &HashMap<String, Uuid>,
    end: &str,
    pointer: &str,
    e: &mut Errors,
) -> Option<Uuid> {
    if let Some(&id) = refs.get(end) {
        return Some(id);
    }
    match Uuid::parse_str(end) {
        Ok(id) => Some(id),
        Err(_) => {
            e.add(
                pointer,
                "names no node of the batch (by `ref`) and is not a node id",
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::time;

    fn node(title: &str, reference: Option<&str>) -> BatchNodeInput {
        BatchNodeInput {
            reference: reference.map(str::to_owned),
            node: NodeInput {
                title: Some(title.to_owned()),
                ..NodeInput::default()
            },
        }
    }

    fn edge(source: &str, target: &str, kind: &str) -> BatchEdgeInput {
        BatchEdgeInput {
            source: source.to_owned(),
            target: target.to_owned(),
            edge: EdgeInput {
                kind: Some(kind.to_owned()),
                ..EdgeInput::default()
            },
        }
    }

    fn pointers(errors: Vec<FieldError>) -> Vec<String> {
        errors.into_iter().map(|f| f.pointer).collect()
    }

    #[test]
    fn references_become_the_new_nodes_ids() {
        let stored = Uuid::now_v7();
        let batch = BatchInput {
            nodes: vec![
                node("Uses Postgres", Some("db")),
                node("Cache is Redis", None),
            ],
            edges: vec![edge("db", &stored.to_string(), "depends_on")],
        }
        .parse(time::now())
        .unwrap();
        assert_eq!(batch.nodes.len(), 2);
        assert_eq!(batch.nodes[0].reference.as_deref(), Some("db"));
        assert_eq!(batch.edges[0].source_id, batch.nodes[0].node.id);
        assert_eq!(batch.edges[0].target_id, stored);
    }

    #[test]
    fn every_bad_item_is_named_by_its_pointer() {
        let errors = BatchInput {
            nodes: vec![
                node("fine", Some("a")),
                node("  ", None),
                node("dup", Some("a")),
                node("uuid ref", Some(&Uuid::now_v7().to_string())),
            ],
            edges: vec![edge("a", "nowhere", "depends_on"), edge("a", "a", "Bad")],
        }
        .parse(time::now())
        .unwrap_err();
        assert_eq!(
            pointers(errors),
            [
                "/nodes/1/title",
                "/nodes/2/ref",
                "/nodes/3/ref",
                "/edges/0/target",
                "/edges/1/target",
                "/edges/1/kind",
            ]
        );
    }

    #[test]
    fn a_batch_holds_one_to_a_thousand_nodes() {
        let empty = BatchInput::default().parse(time::now()).unwrap_err();
        assert_eq!(pointers(empty), ["/nodes"]);
        let big = BatchInput {
            nodes: (0..=MAX_NODES)
                .map(|i| node(&format!("m{i}"), None))
                .collect(),
            edges: Vec::new(),
        };
        assert_eq!(pointers(big.parse(time::now()).unwrap_err()), ["/nodes"]);
        let full = BatchInput {
            nodes: (0..MAX_NODES)
                .map(|i| node(&format!("m{i}"), None))
                .collect(),
            edges: Vec::new(),
        };
        assert_eq!(full.parse(time::now()).unwrap().nodes.len(), MAX_NODES);
    }

    #[test]
    fn embeddings_of_one_batch_share_a_dimension() {
        let mut a = node("a", None);
        a.node.embedding = Some(vec![0.1, 0.2]);
        let mut b = node("b", None);
        b.node.embedding = Some(vec![0.1, 0.2, 0.3]);
        let errors = BatchInput {
            nodes: vec![a, b],
            edges: Vec::new(),
        }
        .parse(time::now())
        .unwrap_err();
        assert_eq!(pointers(errors), ["/nodes/1/embedding"]);
    }
}
