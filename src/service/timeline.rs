//! `GET /nodes/{id}/timeline` and the MCP tool `memory_timeline`: the memories that
//! superseded one another about one subject, found by following `supersedes` edges from a
//! memory both ways, each with the resolved conflict that connected it to the next.

use std::collections::{HashSet, VecDeque};

use uuid::Uuid;

use crate::domain::access::Caller;
use crate::domain::conflict::{Status, Strategy};
use crate::domain::edge::{self, Direction};
use crate::domain::timeline::{self, Entry, Replacement};
use crate::service::{Result, Services, nodes};
use crate::store::{EdgeQuery, StoreError};

/// At most this many memories in one timeline.
pub const MAX_ENTRIES: usize = 100;

/// A memory's timeline, oldest first.
pub struct Timeline {
    pub node_id: Uuid,
    pub entries: Vec<Entry>,
    pub summary: String,
}

/// The timeline of a memory the caller sees, through the memories it sees.
pub async fn timeline(svc: &Services, caller: &Caller, id: Uuid) -> Result<Timeline> {
    let store = &*svc.store;
    let mut nodes = vec![nodes::get(svc, caller, id).await?];
    // Memories of scopes the caller does not hold: neither shown nor followed.
    let mut hidden: HashSet<Uuid> = HashSet::new();
    let mut seen = HashSet::from([id]);
    let mut queue = VecDeque::from([id]);
    let mut replacements: Vec<Replacement> = Vec::new();
    while let Some(at) = queue.pop_front() {
        let mut after = None;
        loop {
            let query = EdgeQuery {
                direction: Direction::Both,
                kind: Some(edge::SUPERSEDES.to_owned()),
                limit: 200,
                after,
                scopes: None,
            };
            let page = store.list_edges(at, query).await?;
            for e in &page.items {
                // `A supersedes B`: A replaced B.
                if !replacements
                    .iter()
                    .any(|r| r.winner == e.source_id && r.loser == e.target_id)
                {
                    replacements.push(Replacement {
                        loser: e.target_id,
                        winner: e.source_id,
                        conflict_id: None,
                        resolved_by: None,
                        resolved_at: None,
                    });
                }
                let other = if e.source_id == at {
                    e.target_id
                } else {
                    e.source_id
                };
                if nodes.len() < MAX_ENTRIES && seen.insert(other) {
                    match store.get_node(other).await {
                        Ok(n) if !caller.holds(&n.scope) => {
                            hidden.insert(other);
                        }
                        Ok(n) => {
                            nodes.push(n);
                            queue.push_back(other);
                        }
                        // Deleted since the edge was read.
                        Err(StoreError::NotFound(_)) => {}
                        Err(e) => return Err(e.into()),
                    }
                }
            }
            match page.next_cursor {
                Some(c) => after = Some(c),
                None => break,
            }
        }
    }
    replacements.retain(|r| !hidden.contains(&r.loser) && !hidden.contains(&r.winner));
    for r in &mut replacements {
        decided_by(svc, r).await?;
    }
    let entries = timeline::order(nodes, &replacements);
    Ok(Timeline {
        node_id: id,
        summary: timeline::summary(&entries),
        entries,
    })
}

/// Fills in the resolved conflict that made `r`, the latest if several did; an edge a client
/// wrote by hand has none.
async fn decided_by(svc: &Services, r: &mut Replacement) -> Result<()> {
    for c in svc.store.conflicts_of_node(r.loser).await? {
        let (old, new) = (c.old_node_id, c.new_node_id);
        let made_it = match c.resolution {
            Some(Strategy::NewIsCurrent) => old == Some(r.loser) && new == Some(r.winner),
            Some(Strategy::OldIsCurrent) => old == Some(r.winner) && new == Some(r.loser),
            _ => false,
        };
        if c.status == Status::Resolved && made_it && c.resolved_at >= r.resolved_at {
            r.conflict_id = Some(c.id);
            r.resolved_by = c.resolved_by;
            r.resolved_at = c.resolved_at;
        }
    }
    Ok(())
}
