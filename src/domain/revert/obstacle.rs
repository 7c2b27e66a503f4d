//! The later changes in the way of a revert: each row the revert would restore compared with
//! the row the resolution left (or, for a merge's deleted node, with what deleting it left).

use uuid::Uuid;

use super::{Now, Resolved};
use crate::domain::pre_image::NodeImage;

/// A later change in the way of a revert.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Obstacle {
    NodeEdited {
        node_id: Uuid,
    },
    NodeDeleted {
        node_id: Uuid,
    },
    ResolvedAgain {
        node_id: Uuid,
        conflict_id: Uuid,
    },
    PairPending {
        conflict_id: Uuid,
    },
    NodeLinked {
        node_id: Uuid,
        link_id: Uuid,
    },
    EdgeChanged {
        edge_id: Uuid,
    },
    ConflictChanged {
        conflict_id: Uuid,
    },
    /// The resolution was recorded before resolutions kept what they overwrote.
    NoPreImage,
}

impl Obstacle {
    /// Stable snake_case name, e.g. `node_edited`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::NodeEdited { .. } => "node_edited",
            Self::NodeDeleted { .. } => "node_deleted",
            Self::ResolvedAgain { .. } => "resolved_again",
            Self::PairPending { .. } => "pair_pending",
            Self::NodeLinked { .. } => "node_linked",
            Self::EdgeChanged { .. } => "edge_changed",
            Self::ConflictChanged { .. } => "conflict_changed",
            Self::NoPreImage => "no_pre_image",
        }
    }
}

impl std::fmt::Display for Obstacle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NodeEdited { node_id } => write!(f, "node {node_id} was edited since"),
            Self::NodeDeleted { node_id } => write!(f, "node {node_id} was deleted since"),
            Self::ResolvedAgain {
                node_id,
                conflict_id,
            } => write!(
                f,
                "node {node_id} was resolved again through conflict {conflict_id}"
            ),
            Self::PairPending { conflict_id } => write!(
                f,
                "conflict {conflict_id} is pending for the same pair of nodes"
            ),
            Self::NodeLinked { node_id, link_id } => write!(
                f,
                "node {node_id}, which the resolution created, is linked to {link_id} since"
            ),
            Self::EdgeChanged { edge_id } => write!(f, "edge {edge_id} changed since"),
            Self::ConflictChanged { conflict_id } => {
                write!(f, "conflict {conflict_id} changed since")
            }
            Self::NoPreImage => write!(
                f,
                "the resolution was recorded before concord kept what resolutions overwrite"
            ),
        }
    }
}

impl Resolved {
    /// Every later change a revert would overwrite or could not restore around.
    pub fn obstacles(&self, now: &Now) -> Vec<Obstacle> {
        let mut found = Vec::new();
        let gone = self.merged_away();
        let gone_id = gone.map(|(n, _)| n.node_id);
        for id in [self.old_node_id, self.new_node_id].into_iter().flatten() {
            if Some(id) != gone_id && !now.nodes.contains_key(&id) {
                found.push(Obstacle::NodeDeleted { node_id: id });
            }
        }
        for change in &self.pre.nodes {
            let (Some(after), Some(row)) = (&change.after, now.nodes.get(&change.node_id)) else {
                continue;
            };
            if row.fingerprint() != *after {
                found.push(Obstacle::NodeEdited {
                    node_id: change.node_id,
                });
            }
        }
        for (conflict_id, node_id) in &now.resolved_since {
            found.push(Obstacle::ResolvedAgain {
                node_id: *node_id,
                conflict_id: *conflict_id,
            });
        }
        if let Some(conflict_id) = now.pair_taken_by {
            found.push(Obstacle::PairPending { conflict_id });
        }
        for (node_id, link_id) in &now.links {
            found.push(Obstacle::NodeLinked {
                node_id: *node_id,
                link_id: *link_id,
            });
        }
        for (edge_id, source, target) in self.created_edges() {
            let both = now.nodes.contains_key(&source) && now.nodes.contains_key(&target);
            match now.edges.get(&edge_id) {
                Some(ends) if *ends == (source, target) => {}
                None if !both => {}
                _ => found.push(Obstacle::EdgeChanged { edge_id }),
            }
        }
        if let Some((node, kept)) = gone {
            found.extend(self.merge_obstacles(node, kept, now));
        }
        found
    }

    fn merge_obstacles(&self, node: &NodeImage, kept: Uuid, now: &Now) -> Vec<Obstacle> {
        let gone = node.node_id;
        let mut found = Vec::new();
        for e in &self.pre.edges {
            let Some(ends) = now.edges.get(&e.edge_id) else {
                continue;
            };
            if e.after_merge(gone, kept) != Some(*ends) {
                found.push(Obstacle::EdgeChanged { edge_id: e.edge_id });
            }
        }
        for c in &self.pre.conflicts {
            let changed = match (c.deleted_with(gone), now.conflicts.get(&c.conflict_id)) {
                (true, None) => {
                    let refs = [c.new_node_id].into_iter().flatten();
                    for id in refs.filter(|id| *id != gone && !now.nodes.contains_key(id)) {
                        found.push(Obstacle::NodeDeleted { node_id: id });
                    }
                    false
                }
                (false, Some(refs)) => *refs != c.refs_after_delete(gone, &node.body),
                _ => true,
            };
            if changed {
                found.push(Obstacle::ConflictChanged {
                    conflict_id: c.conflict_id,
                });
            }
        }
        found
    }
}
