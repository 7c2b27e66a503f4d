//! A memory's versions: every change kept, with when concord held it (system time), who made
//! it and in which conflict. The store keeps only what each change replaced (the version that
//! replaced a value holds it as `prev_*`), so an unchanged body or standing is never copied;
//! [`reconstruct`] turns those rows back into whole versions.

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

/// How a memory stood in a version, besides its texts and confidence.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    pub memory_type: String,
    pub labels: Vec<String>,
    pub scope: String,
    pub source: Option<String>,
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

/// What a change replaced, each value as it was before the change; `None` where the change
/// left it alone. The standing is replaced whole or not at all. A tombstone replaced
/// everything, and the live node reads as a row that replaced everything too.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Replaced {
    pub title: Option<String>,
    pub body: Option<String>,
    pub confidence: Option<f64>,
    pub standing: Option<Standing>,
}

/// A version row as stored: only what this version's change replaced.
#[derive(Debug, Clone, PartialEq)]
pub struct VersionRow {
    pub version: i64,
    pub kind: VersionKind,
    pub recorded_at: Timestamp,
    pub by: Option<String>,
    /// The name of the key that made the change (null without keys).
    pub key: Option<String>,
    pub conflict_id: Option<Uuid>,
    pub replaced: Replaced,
}

/// One whole version of a memory.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeVersion {
    pub node_id: Uuid,
    pub version: i64,
    pub kind: VersionKind,
    pub recorded_at: Timestamp,
    pub by: Option<String>,
    pub key: Option<String>,
    pub conflict_id: Option<Uuid>,
    /// The values this version had; a tombstone's are the last ones before the delete.
    pub title: String,
    pub body: String,
    pub confidence: f64,
    pub standing: Standing,
}

/// A memory's values at one version.
#[derive(Debug, Clone)]
struct Values {
    title: String,
    body: String,
    confidence: f64,
    standing: Standing,
}

impl Values {
    /// The values of a row that replaced everything (the live node, a tombstone).
    fn whole(r: Replaced) -> Option<Self> {
        Some(Self {
            title: r.title?,
            body: r.body?,
            confidence: r.confidence?,
            standing: r.standing?,
        })
    }

    /// The values before a change that replaced `r`.
    fn before(&mut self, r: Replaced) {
        if let Some(t) = r.title {
            self.title = t;
        }
        if let Some(b) = r.body {
            self.body = b;
        }
        if let Some(c) = r.confidence {
            self.confidence = c;
        }
        if let Some(s) = r.standing {
            self.standing = s;
        }
    }
}

/// Whole versions from the rows of one node, oldest first, given the live node's values
/// (`None` once the node is deleted: the last tombstone holds them then). Walking back from
/// the newest, each version has the values in force until a later version replaced them.
/// `Err` names what is missing when the rows cannot be whole (a live node or tombstone
/// without all its values, a newest version that is neither live nor a tombstone).
pub fn reconstruct(
    node_id: Uuid,
    mut rows: Vec<VersionRow>,
    live: Option<Replaced>,
) -> Result<Vec<NodeVersion>, String> {
    rows.sort_by_key(|r| r.version);
    let mut values = match live {
        Some(r) => Some(
            Values::whole(r)
                .ok_or_else(|| format!("node {node_id}: the live row lacks a value"))?,
        ),
        None => None,
    };
    let mut out = Vec::with_capacity(rows.len());
    for mut row in rows.into_iter().rev() {
        let replaced = std::mem::take(&mut row.replaced);
        if row.kind == VersionKind::Deleted {
            // The node did not exist after this tombstone: its values are what it deleted.
            let deleted = Values::whole(replaced).ok_or_else(|| {
                format!("node {node_id}: tombstone {} lacks a value", row.version)
            })?;
            out.push(whole(node_id, row, &deleted));
            values = Some(deleted);
            continue;
        }
        let now = values.as_mut().ok_or_else(|| {
            format!(
                "node {node_id}: version {} has no later values",
                row.version
            )
        })?;
        out.push(whole(node_id, row, now));
        now.before(replaced);
    }
    out.reverse();
    Ok(out)
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
            confidence: self.confidence,
            state: s.state,
            observed_at: s.observed_at,
            created_at,
            updated_at: self.recorded_at,
            has_embedding,
            validity: s.validity(),
            conflict_ids: Vec::new(),
            // Provenance is written once with the memory and not versioned: the reader that
            // has the live node takes it from there.
            provenance: None,
        }
    }
}

fn whole(node_id: Uuid, row: VersionRow, values: &Values) -> NodeVersion {
    NodeVersion {
        node_id,
        version: row.version,
        kind: row.kind,
        recorded_at: row.recorded_at,
        by: row.by,
        key: row.key,
        conflict_id: row.conflict_id,
        title: values.title.clone(),
        body: values.body.clone(),
        confidence: values.confidence,
        standing: values.standing.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standing(state: NodeState) -> Standing {
        Standing {
            memory_type: "fact".into(),
            labels: vec![],
            scope: "default".into(),
            source: None,
            state,
            observed_at: Timestamp::default(),
            valid_until: None,
            corrected: false,
        }
    }

    fn everything(t: &str, b: &str, c: f64, state: NodeState) -> Replaced {
        Replaced {
            title: Some(t.into()),
            body: Some(b.into()),
            confidence: Some(c),
            standing: Some(standing(state)),
        }
    }

    fn row(version: i64, kind: VersionKind, replaced: Replaced) -> VersionRow {
        VersionRow {
            version,
            kind,
            recorded_at: Timestamp::default(),
            by: None,
            key: None,
            conflict_id: None,
            replaced,
        }
    }

    fn texts(v: &[NodeVersion]) -> Vec<(String, String)> {
        v.iter()
            .map(|v| (v.title.clone(), v.body.clone()))
            .collect()
    }

    fn pairs(want: &[(&str, &str)]) -> Vec<(String, String)> {
        want.iter()
            .map(|(t, b)| (t.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn each_version_has_the_values_in_force_until_replaced() {
        let id = Uuid::nil();
        let rows = vec![
            row(1, VersionKind::Created, Replaced::default()),
            row(
                2,
                VersionKind::Changed,
                Replaced {
                    title: Some("t1".into()),
                    body: Some("b1".into()),
                    confidence: Some(0.5),
                    ..Replaced::default()
                },
            ),
            row(
                3,
                VersionKind::Changed,
                Replaced {
                    body: Some("b2".into()),
                    standing: Some(standing(NodeState::Active)),
                    ..Replaced::default()
                },
            ),
            row(4, VersionKind::Changed, Replaced::default()),
        ];
        let live = everything("t2", "b3", 0.9, NodeState::Dormant);
        let v = reconstruct(id, rows, Some(live)).unwrap();
        assert_eq!(
            texts(&v),
            pairs(&[("t1", "b1"), ("t2", "b2"), ("t2", "b3"), ("t2", "b3")])
        );
        let confidence: Vec<f64> = v.iter().map(|v| v.confidence).collect();
        assert_eq!(confidence, [0.5, 0.9, 0.9, 0.9]);
        let states: Vec<NodeState> = v.iter().map(|v| v.standing.state).collect();
        let (a, d) = (NodeState::Active, NodeState::Dormant);
        assert_eq!(states, [a, a, d, d]);
    }

    #[test]
    fn a_tombstone_keeps_the_last_values_and_a_restore_continues() {
        let id = Uuid::nil();
        // Created, deleted, put back by a revert, changed, and deleted again.
        let (a, d) = (NodeState::Active, NodeState::Dormant);
        let rows = vec![
            row(1, VersionKind::Created, Replaced::default()),
            row(2, VersionKind::Deleted, everything("t", "b", 0.8, a)),
            row(3, VersionKind::Created, Replaced::default()),
            row(4, VersionKind::Changed, everything("t", "b", 0.8, a)),
            row(5, VersionKind::Deleted, everything("t2", "b2", 0.6, d)),
        ];
        let v = reconstruct(id, rows, None).unwrap();
        assert_eq!(
            texts(&v),
            pairs(&[
                ("t", "b"),
                ("t", "b"),
                ("t", "b"),
                ("t2", "b2"),
                ("t2", "b2")
            ])
        );
        let states: Vec<NodeState> = v.iter().map(|v| v.standing.state).collect();
        assert_eq!(states, [a, a, a, d, d]);
    }

    #[test]
    fn rows_that_cannot_be_made_whole_are_an_error_not_a_guess() {
        let id = Uuid::nil();
        let created = || row(1, VersionKind::Created, Replaced::default());
        // Neither live nor deleted: nothing says what the newest version held.
        assert!(reconstruct(id, vec![created()], None).is_err());
        let half = Replaced {
            title: Some("t".into()),
            ..Replaced::default()
        };
        assert!(reconstruct(id, vec![created()], Some(half.clone())).is_err());
        let tombstone = row(2, VersionKind::Deleted, half);
        assert!(reconstruct(id, vec![created(), tombstone], None).is_err());
    }
}
