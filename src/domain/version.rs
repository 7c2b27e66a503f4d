//! A memory's versions: every change kept, with when concord held it (system time), who made
//! it and in which conflict. The store keeps each replaced title and body once (the version
//! that replaced it holds it as `prev_*`); [`reconstruct`] turns those rows back into whole
//! versions.

use std::str::FromStr;

use uuid::Uuid;

use super::node::{Node, NodeState};
use super::time::Timestamp;
use super::valid_time::Validity;

/// What made a version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionKind {
    /// The memory was written (or put back by a revert after a deletion).
    Created,
    /// Its text or standing changed: an edit, a resolution, a revert.
    Changed,
    /// It was deleted; the tombstone keeps the last text.
    Deleted,
}

impl VersionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Created => "created",
            Self::Changed => "changed",
            Self::Deleted => "deleted",
        }
    }
}

impl FromStr for VersionKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "created" => Ok(Self::Created),
            "changed" => Ok(Self::Changed),
            "deleted" => Ok(Self::Deleted),
            _ => Err(format!("unknown version kind {s:?}")),
        }
    }
}

/// The columns every version stores whole.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    pub memory_type: String,
    pub labels: Vec<String>,
    pub scope: String,
    pub source: Option<String>,
    pub confidence: f64,
    pub state: NodeState,
    pub observed_at: Timestamp,
    pub valid_until: Option<Timestamp>,
    pub corrected: bool,
}

impl Standing {
    /// Whether the memory held at valid time `at`.
    pub fn holds_at(&self, at: Timestamp) -> bool {
        self.validity().holds_at(self.observed_at, at)
    }

    pub fn validity(&self) -> Validity {
        Validity {
            valid_until: self.valid_until,
            corrected: self.corrected,
        }
    }
}

/// A version row as stored: the texts only where this version replaced them.
#[derive(Debug, Clone, PartialEq)]
pub struct VersionRow {
    pub version: i64,
    pub kind: VersionKind,
    pub recorded_at: Timestamp,
    pub by: Option<String>,
    pub conflict_id: Option<Uuid>,
    pub prev_title: Option<String>,
    pub prev_body: Option<String>,
    pub standing: Standing,
}

/// One whole version of a memory.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeVersion {
    pub node_id: Uuid,
    pub version: i64,
    pub kind: VersionKind,
    pub recorded_at: Timestamp,
    pub by: Option<String>,
    pub conflict_id: Option<Uuid>,
    /// The title and body this version had; a tombstone's are the last ones before the delete.
    pub title: String,
    pub body: String,
    pub standing: Standing,
}

/// Whole versions from the rows of one node, oldest first, given the live title and body
/// (`None` once the node is deleted: the last tombstone holds them then). Walking back from
/// the newest, each version has the texts in force until a later version replaced them.
pub fn reconstruct(
    node_id: Uuid,
    mut rows: Vec<VersionRow>,
    live: Option<(String, String)>,
) -> Vec<NodeVersion> {
    rows.sort_by_key(|r| r.version);
    let (mut title, mut body) = live.unwrap_or_default();
    let mut out = Vec::with_capacity(rows.len());
    for row in rows.into_iter().rev() {
        if row.kind == VersionKind::Deleted {
            // The node did not exist after this tombstone: its texts are what it deleted.
            title = row.prev_title.clone().unwrap_or_default();
            body = row.prev_body.clone().unwrap_or_default();
            out.push(whole(node_id, row, &title, &body));
            continue;
        }
        let (prev_title, prev_body) = (row.prev_title.clone(), row.prev_body.clone());
        out.push(whole(node_id, row, &title, &body));
        if let Some(t) = prev_title {
            title = t;
        }
        if let Some(b) = prev_body {
            body = b;
        }
    }
    out.reverse();
    out
}

/// The version concord held at system time `known`: the latest recorded by then; `None` when
/// the memory was not written yet or was deleted then.
pub fn known_at(versions: &[NodeVersion], known: Timestamp) -> Option<&NodeVersion> {
    versions
        .iter()
        .filter(|v| v.recorded_at <= known)
        .max_by_key(|v| v.version)
        .filter(|v| v.kind != VersionKind::Deleted)
}

impl NodeVersion {
    /// The memory as this version had it, read as a node: `created_at` is when concord first
    /// held the memory, `updated_at` when it recorded this version.
    pub fn to_node(&self, created_at: Timestamp, has_embedding: bool) -> Node {
        let s = &self.standing;
        Node {
            id: self.node_id,
            title: self.title.clone(),
            body: self.body.clone(),
            memory_type: s.memory_type.clone(),
            labels: s.labels.clone(),
            scope: s.scope.clone(),
            source: s.source.clone(),
            confidence: s.confidence,
            state: s.state,
            observed_at: s.observed_at,
            created_at,
            updated_at: self.recorded_at,
            has_embedding,
            validity: s.validity(),
            conflict_ids: Vec::new(),
        }
    }
}

fn whole(node_id: Uuid, row: VersionRow, title: &str, body: &str) -> NodeVersion {
    NodeVersion {
        node_id,
        version: row.version,
        kind: row.kind,
        recorded_at: row.recorded_at,
        by: row.by,
        conflict_id: row.conflict_id,
        title: title.to_owned(),
        body: body.to_owned(),
        standing: row.standing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(version: i64, kind: VersionKind, prev: Option<(&str, &str)>) -> VersionRow {
        VersionRow {
            version,
            kind,
            recorded_at: Timestamp::default(),
            by: None,
            conflict_id: None,
            prev_title: prev.map(|p| p.0.to_owned()),
            prev_body: prev.map(|p| p.1.to_owned()),
            standing: Standing {
                memory_type: "fact".into(),
                labels: vec![],
                scope: "default".into(),
                source: None,
                confidence: 0.8,
                state: NodeState::Active,
                observed_at: Timestamp::default(),
                valid_until: None,
                corrected: false,
            },
        }
    }

    fn texts(v: &[NodeVersion]) -> Vec<(String, String)> {
        v.iter()
            .map(|v| (v.title.clone(), v.body.clone()))
            .collect()
    }

    #[test]
    fn each_version_has_the_texts_in_force_until_replaced() {
        let id = Uuid::nil();
        let mut body_only = row(3, VersionKind::Changed, None);
        body_only.prev_body = Some("b2".into());
        let rows = vec![
            row(1, VersionKind::Created, None),
            row(2, VersionKind::Changed, Some(("t1", "b1"))),
            body_only,
            row(4, VersionKind::Changed, None),
        ];
        let v = reconstruct(id, rows, Some(("t2".into(), "b3".into())));
        let want = [("t1", "b1"), ("t2", "b2"), ("t2", "b3"), ("t2", "b3")];
        let want: Vec<_> = want
            .iter()
            .map(|(t, b)| (t.to_string(), b.to_string()))
            .collect();
        assert_eq!(texts(&v), want);
    }

    #[test]
    fn a_tombstone_keeps_the_last_texts_and_a_restore_continues() {
        let id = Uuid::nil();
        // Created, deleted, put back by a revert, and deleted again.
        let rows = vec![
            row(1, VersionKind::Created, None),
            row(2, VersionKind::Deleted, Some(("t", "b"))),
            row(3, VersionKind::Created, None),
            row(4, VersionKind::Changed, Some(("t", "b"))),
            row(5, VersionKind::Deleted, Some(("t2", "b2"))),
        ];
        let v = reconstruct(id, rows, None);
        let want = [
            ("t", "b"),
            ("t", "b"),
            ("t", "b"),
            ("t2", "b2"),
            ("t2", "b2"),
        ];
        let want: Vec<_> = want
            .iter()
            .map(|(t, b)| (t.to_string(), b.to_string()))
            .collect();
        assert_eq!(texts(&v), want);
    }
}
