//! A memory's timeline: the chain of memories that superseded one another about one subject,
//! oldest first, each with the interval it held and the decision that replaced it ("us-east-1
//! until 2026-03-01, then eu-west-1, decided by ops-lead").

use uuid::Uuid;

use super::node::Node;
use super::time::{self, Timestamp};

/// The decision that replaced one memory with another: a resolved conflict whose winner
/// `supersedes` the loser.
#[derive(Debug, Clone, PartialEq)]
pub struct Replacement {
    pub loser: Uuid,
    pub winner: Uuid,
    pub conflict_id: Option<Uuid>,
    pub resolved_by: Option<String>,
    pub resolved_at: Option<Timestamp>,
}

/// One memory of a timeline and what replaced it, if anything did.
#[derive(Debug, Clone)]
pub struct Entry {
    pub node: Node,
    pub replaced_by: Option<Replacement>,
}

/// The entries of `nodes` in the order they held (by `observed_at`, then id), each with the
/// replacement that ended it.
pub fn order(nodes: Vec<Node>, replacements: &[Replacement]) -> Vec<Entry> {
    let mut entries: Vec<Entry> = nodes
        .into_iter()
        .map(|node| {
            let replaced_by = replacements
                .iter()
                .filter(|r| r.loser == node.id)
                .max_by_key(|r| r.resolved_at)
                .cloned();
            Entry { node, replaced_by }
        })
        .collect();
    entries.sort_by_key(|e| (e.node.observed_at, e.node.id));
    entries
}

/// The timeline in one sentence: each memory's text (its first line, shortened), until when
/// it held or that it never did, and who decided each replacement.
pub fn summary(entries: &[Entry]) -> String {
    let mut parts = Vec::with_capacity(entries.len());
    for e in entries {
        let mut part = quote(&e.node.body, &e.node.title);
        let v = e.node.validity;
        if v.corrected {
            part.push_str(" (a correction: it never held)");
        } else if let Some(until) = v.valid_until {
            part.push_str(&format!(" until {}", time::day(&until)));
        }
        if let Some(r) = &e.replaced_by
            && let Some(by) = &r.resolved_by
        {
            part.push_str(&format!(", replaced as decided by {by}"));
        }
        parts.push(part);
    }
    match parts.len() {
        0 => String::new(),
        1 => format!("{}; nothing replaced it.", parts[0]),
        _ => format!("{}.", parts.join("; then ")),
    }
}

/// A memory's first line, at most 80 characters, or its title when its body is empty.
fn quote(body: &str, title: &str) -> String {
    let line = body
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(title)
        .trim();
    if line.chars().count() > 80 {
        format!(
            "\u{201c}{}…\u{201d}",
            line.chars().take(79).collect::<String>()
        )
    } else {
        format!("\u{201c}{line}\u{201d}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::node::NewNode;

    fn node(body: &str, observed: &str) -> Node {
        let at = time::parse(observed).unwrap();
        let mut n = NewNode {
            id: Uuid::now_v7(),
            title: "Deploy region".into(),
            body: body.into(),
            memory_type: "fact".into(),
            labels: vec![],
            scope: "default".into(),
            source: None,
            confidence: 0.8,
            state: crate::domain::node::NodeState::Active,
            observed_at: at,
            created_at: at,
            embedding: None,
            provenance: None,
            changed_by: None,
            changed_key: None,
        }
        .to_node();
        n.observed_at = at;
        n
    }

    #[test]
    fn a_chain_reads_oldest_first_with_its_intervals_and_deciders() {
        let mut east = node("Region is us-east-1", "2026-01-01T00:00:00Z");
        let west = node("Region is eu-west-1", "2026-03-01T00:00:00Z");
        east.validity.valid_until = Some(west.observed_at);
        let r = Replacement {
            loser: east.id,
            winner: west.id,
            conflict_id: Some(Uuid::nil()),
            resolved_by: Some("ops-lead".into()),
            resolved_at: Some(west.observed_at),
        };
        let entries = order(vec![west.clone(), east.clone()], std::slice::from_ref(&r));
        assert_eq!(entries[0].node.id, east.id);
        assert_eq!(entries[0].replaced_by.as_ref(), Some(&r));
        assert!(entries[1].replaced_by.is_none());
        assert_eq!(
            summary(&entries),
            "\u{201c}Region is us-east-1\u{201d} until 2026-03-01, replaced as decided by \
             ops-lead; then \u{201c}Region is eu-west-1\u{201d}."
        );
        assert_eq!(
            summary(&entries[1..]),
            "\u{201c}Region is eu-west-1\u{201d}; nothing replaced it."
        );
    }
}
