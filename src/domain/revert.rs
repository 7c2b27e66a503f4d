//! Undoing a resolution (contract section 9) as a plan, like resolving: given the resolution's
//! actions, the pre-image it stored and the rows as they are now, either the list of later
//! changes that are in the way, or the steps that restore every row, in the reverse order of
//! the resolution's own steps, the conflict's return to pending last.

use std::collections::{HashMap, HashSet};

use uuid::Uuid;

use super::conflict::{Action, Strategy};
use super::history;
use super::pre_image::{ConflictImage, ConflictRefs, EdgeImage, NodeImage, PreImage};
use super::time::Timestamp;
use super::validate::{Errors, FieldError, check_text};

mod obstacle;
mod uncount;

pub use obstacle::Obstacle;
pub use uncount::{SourceWrite, uncount};

/// A validated request to revert one conflict's resolution.
#[derive(Debug, Clone, PartialEq)]
pub struct Revert {
    pub conflict_id: Uuid,
    pub reverted_by: Option<String>,
    pub note: Option<String>,
    /// The scope patterns of the key that asks (`Caller::visible`; `None`: every scope): a
    /// conflict it does not see is reverted as one that does not exist.
    pub scopes: Option<String>,
    /// The name of the key that asks (null without keys): what history and versions record.
    pub key: Option<String>,
}

impl Revert {
    pub fn parse(
        conflict_id: Uuid,
        reverted_by: Option<String>,
        note: Option<String>,
    ) -> Result<Self, Vec<FieldError>> {
        let mut e = Errors::default();
        for (pointer, text) in [("/reverted_by", &reverted_by), ("/note", &note)] {
            if let Some(t) = text {
                check_text(&mut e, pointer, t);
            }
        }
        if reverted_by
            .as_ref()
            .is_some_and(|r| r.chars().count() > 200)
        {
            e.add("/reverted_by", "must be at most 200 characters");
        }
        if history::is_automatic(reverted_by.as_deref()) {
            e.add(
                "/reverted_by",
                "must not start with `policy:`, which names the configured resolution policies",
            );
        }
        if note.as_ref().is_some_and(|n| n.chars().count() > 10_000) {
            e.add("/note", "must be at most 10000 characters");
        }
        e.finish(Self {
            conflict_id,
            reverted_by,
            note,
            scopes: None,
            key: None,
        })
    }
}

/// What a revert did, as replied and replayed.
#[derive(Debug, Clone, PartialEq)]
pub struct Reverted {
    pub conflict_id: Uuid,
    /// The strategy undone.
    pub strategy: Strategy,
    pub actions: Vec<Action>,
    pub reverted_at: Timestamp,
    pub replayed: bool,
}

/// A resolved conflict as its revert reads it: the resolution's history entry and reply.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub conflict_id: Uuid,
    pub strategy: Strategy,
    pub old_node_id: Option<Uuid>,
    pub new_node_id: Option<Uuid>,
    /// The pair key of the conflict (one pending conflict per old node and key).
    pub new_key: String,
    pub resolved_at: Timestamp,
    pub actions: Vec<Action>,
    pub pre: PreImage,
}

/// The rows a revert must see before it decides, named by [`Resolved::wants`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Wants {
    pub nodes: Vec<Uuid>,
    pub edges: Vec<Uuid>,
    pub conflicts: Vec<Uuid>,
    /// Nodes the resolution created: anything linked to them since is in the way.
    pub created: Vec<Uuid>,
    /// Nodes another conflict's later resolution must not have touched.
    pub watched: Vec<Uuid>,
}

/// Those rows as they are now (absent from a map: the row is gone).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Now {
    pub nodes: HashMap<Uuid, NodeImage>,
    /// Each edge's endpoints.
    pub edges: HashMap<Uuid, (Uuid, Uuid)>,
    pub conflicts: HashMap<Uuid, ConflictRefs>,
    /// `(conflict, node)`: another conflict on a watched node resolved after this one.
    pub resolved_since: Vec<(Uuid, Uuid)>,
    /// A pending conflict holding this conflict's (old node, key) pair.
    pub pair_taken_by: Option<Uuid>,
    /// Edges and conflicts attached to a created node since, as `(node, edge or conflict)`.
    pub links: Vec<(Uuid, Uuid)>,
}
/// One unit of work of a revert.
#[derive(Debug, Clone, PartialEq)]
pub enum RevertStep {
    /// Deletes an edge the resolution created.
    DeleteEdge {
        edge_id: Uuid,
        kind: String,
        source_id: Uuid,
        target_id: Uuid,
    },
    /// Re-creates the node a merge deleted, with the edges deleted with it, and puts back the
    /// other conflicts' references to it (re-inserting those its deletion deleted).
    RestoreNode {
        node: Box<NodeImage>,
        edges: Vec<EdgeImage>,
        conflicts: Vec<ConflictImage>,
    },
    /// Moves the edges a merge moved from `to` to `from` back.
    MoveEdgesBack {
        from: Uuid,
        to: Uuid,
        edges: Vec<EdgeImage>,
    },
    /// Writes a node row back as it was; `state` is `(now, restored)` for a state change.
    RestoreRow {
        node: Box<NodeImage>,
        state: Option<(String, String)>,
    },
    /// Deletes the node the resolution created.
    DeleteNode { node_id: Uuid },
    /// The conflict back to pending, the verdicts uncounted, history and event.
    MarkReverted,
}

impl RevertStep {
    /// The step's name in `failed_action` and for failure injection: its action's name, and
    /// `conflict_reverted` for the conflict's own update.
    pub fn name(&self) -> &'static str {
        self.action(0).map_or("conflict_reverted", |a| a.name())
    }

    /// The action this step reports once done (`moved` is the count a `MoveEdgesBack` moved).
    /// The conflict's own update reports none: the reply says the conflict is pending again,
    /// and the contract's revert actions are only the undoing of the resolution's.
    pub fn action(&self, moved: u64) -> Option<Action> {
        Some(match self {
            Self::DeleteEdge {
                edge_id,
                kind,
                source_id,
                target_id,
            } => Action::EdgeDeleted {
                summary: format!("Edge {kind} {source_id} → {target_id} deleted"),
                edge_id: *edge_id,
                kind: kind.clone(),
                source_id: *source_id,
                target_id: *target_id,
            },
            Self::RestoreNode { node, edges, .. } => Action::NodeRestored {
                summary: format!(
                    "Node {} restored with {} edge(s) deleted with it",
                    node.node_id,
                    edges.len()
                ),
                node_id: node.node_id,
            },
            Self::MoveEdgesBack { from, to, .. } => Action::EdgesMoved {
                summary: format!("{moved} edge(s) moved back from {from} to {to}"),
                from_node_id: *from,
                to_node_id: *to,
                count: moved,
            },
            Self::RestoreRow {
                node,
                state: Some((from, to)),
            } => Action::NodeStateChanged {
                summary: format!("Node {} {from} → {to}", node.node_id),
                node_id: node.node_id,
                from: from.clone(),
                to: to.clone(),
            },
            Self::RestoreRow { node, state: None } => Action::NodeBodyRestored {
                summary: format!("Node {} body and labels restored", node.node_id),
                node_id: node.node_id,
            },
            Self::DeleteNode { node_id } => Action::NodeDeleted {
                summary: format!("Node {node_id}, created by the resolution, deleted"),
                node_id: *node_id,
            },
            Self::MarkReverted => return None,
        })
    }
}

/// Why a revert cannot be planned.
#[derive(Debug, Clone, PartialEq)]
pub enum RevertError {
    InTheWay(Vec<Obstacle>),
    /// The stored resolution does not match its pre-image.
    Corrupt(String),
}

impl Resolved {
    fn before(&self, id: Uuid) -> Result<&NodeImage, RevertError> {
        self.pre
            .nodes
            .iter()
            .find(|n| n.node_id == id)
            .and_then(|n| n.before.as_ref())
            .ok_or_else(|| RevertError::Corrupt(format!("no pre-image of node {id}")))
    }

    /// The node a merge deleted, if this resolution was a merge that deleted one.
    fn merged_away(&self) -> Option<(&NodeImage, Uuid)> {
        let gone = self.pre.nodes.iter().find(|n| n.after.is_none())?;
        Some((gone.before.as_ref()?, self.old_node_id?))
    }

    fn created(&self) -> Vec<Uuid> {
        self.actions
            .iter()
            .filter_map(|a| match a {
                Action::NodeCreated { node_id, .. } => Some(*node_id),
                _ => None,
            })
            .collect()
    }

    fn created_edges(&self) -> impl Iterator<Item = (Uuid, Uuid, Uuid)> + '_ {
        self.actions.iter().filter_map(|a| match a {
            Action::EdgeCreated {
                edge_id,
                source_id,
                target_id,
                ..
            } => Some((*edge_id, *source_id, *target_id)),
            _ => None,
        })
    }

    /// The rows to read (inside the revert's transaction) before planning.
    pub fn wants(&self) -> Wants {
        let mut nodes: Vec<Uuid> = [self.old_node_id, self.new_node_id]
            .into_iter()
            .flatten()
            .collect();
        nodes.extend(self.pre.nodes.iter().map(|n| n.node_id));
        for c in &self.pre.conflicts {
            nodes.extend([c.old_node_id, c.new_node_id].into_iter().flatten());
        }
        let mut edges: Vec<Uuid> = self.created_edges().map(|(id, _, _)| id).collect();
        edges.extend(self.pre.edges.iter().map(|e| e.edge_id));
        let gone: Option<Uuid> = self.merged_away().map(|(n, _)| n.node_id);
        let watched = [self.old_node_id, self.new_node_id]
            .into_iter()
            .flatten()
            .filter(|id| Some(*id) != gone)
            .collect();
        Wants {
            nodes: dedup(nodes),
            edges: dedup(edges),
            conflicts: self.pre.conflicts.iter().map(|c| c.conflict_id).collect(),
            created: self.created(),
            watched,
        }
    }

    /// The later changes in the way, or the steps that undo the resolution.
    pub fn plan(&self, now: &Now) -> Result<Vec<RevertStep>, RevertError> {
        let obstacles = self.obstacles(now);
        if !obstacles.is_empty() {
            return Err(RevertError::InTheWay(obstacles));
        }
        let mut steps = Vec::new();
        for action in self.actions.iter().rev() {
            if let Some(step) = self.undo(action, now)? {
                steps.push(step);
            }
        }
        steps.push(RevertStep::MarkReverted);
        Ok(steps)
    }

    fn undo(&self, action: &Action, now: &Now) -> Result<Option<RevertStep>, RevertError> {
        let step = match action {
            Action::NodeCreated { node_id, .. } => RevertStep::DeleteNode { node_id: *node_id },
            Action::NodeStateChanged {
                node_id, from, to, ..
            } => RevertStep::RestoreRow {
                node: Box::new(self.before(*node_id)?.clone()),
                state: Some((to.clone(), from.clone())),
            },
            Action::EdgeCreated {
                edge_id,
                kind,
                source_id,
                target_id,
                ..
            } => RevertStep::DeleteEdge {
                edge_id: *edge_id,
                kind: kind.clone(),
                source_id: *source_id,
                target_id: *target_id,
            },
            Action::NodeBodyMerged { node_id, .. } => RevertStep::RestoreRow {
                node: Box::new(self.before(*node_id)?.clone()),
                state: None,
            },
            Action::EdgesMoved {
                from_node_id,
                to_node_id,
                ..
            } => RevertStep::MoveEdgesBack {
                from: *to_node_id,
                to: *from_node_id,
                // Edges gone since went with a node deleted since; they stay gone.
                edges: (self.pre.edges.iter())
                    .filter(|e| e.after_merge(*from_node_id, *to_node_id).is_some())
                    .filter(|e| now.edges.contains_key(&e.edge_id))
                    .cloned()
                    .collect(),
            },
            Action::NodeDeleted { node_id, .. } => {
                let kept = self.old_node_id.ok_or_else(|| {
                    RevertError::Corrupt("a merge without an old node".to_owned())
                })?;
                RevertStep::RestoreNode {
                    node: Box::new(self.before(*node_id)?.clone()),
                    edges: (self.pre.edges.iter())
                        .filter(|e| e.after_merge(*node_id, kept).is_none())
                        .cloned()
                        .collect(),
                    conflicts: self.pre.conflicts.clone(),
                }
            }
            _ => return Ok(None),
        };
        Ok(Some(step))
    }
}

fn dedup(ids: Vec<Uuid>) -> Vec<Uuid> {
    let mut seen = HashSet::new();
    ids.into_iter().filter(|id| seen.insert(*id)).collect()
}

#[cfg(test)]
mod tests;
