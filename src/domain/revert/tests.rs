use super::*;
use crate::domain::node::NodeState;
use crate::domain::plan::Step;
use crate::domain::pre_image::{
    ConflictBefore, NodeChange, SourceBefore, SourceRow, SourceVerdict,
};
use crate::domain::time;

fn image(id: Uuid, body: &str) -> NodeImage {
    let t = time::parse("2026-01-01T00:00:00Z").unwrap();
    NodeImage {
        node_id: id,
        title: "Quota".into(),
        body: body.into(),
        memory_type: "fact".into(),
        labels: vec!["ops".into()],
        scope: "default".into(),
        source: None,
        confidence: 0.8,
        state: "active".into(),
        observed_at: t,
        created_at: t,
        updated_at: t,
        embedding: Some("0000803f".into()),
        embedding_dim: Some(1),
        search_tokens: "quota".into(),
        valid_until: None,
        corrected: false,
        provenance: None,
    }
}

fn edge(source: Uuid, target: Uuid) -> EdgeImage {
    let t = time::parse("2026-01-01T00:00:00Z").unwrap();
    EdgeImage {
        edge_id: Uuid::now_v7(),
        source_id: source,
        target_id: target,
        kind: "depends_on".into(),
        neural_weight: 1.0,
        strength: 1.0,
        confidence: 1.0,
        valid_from: t,
        created_at: t,
        updated_at: t,
    }
}

fn pre(nodes: Vec<NodeChange>) -> PreImage {
    PreImage {
        conflict: ConflictBefore {
            note: None,
            new_node_id: None,
            new_content: None,
            updated_at: time::now(),
        },
        nodes,
        edges: Vec::new(),
        conflicts: Vec::new(),
        sources: Vec::new(),
        verdicts: Vec::new(),
    }
}

fn names(steps: &[RevertStep]) -> Vec<&'static str> {
    steps.iter().map(|s| s.name()).collect()
}

/// A `new_is_current` resolution of (old, new): old made dormant behind a supersedes edge,
/// and the rows as that resolution left them.
fn new_is_current() -> (Resolved, Now, Uuid) {
    let (old, new, edge_id) = (Uuid::now_v7(), Uuid::now_v7(), Uuid::now_v7());
    let at = time::now();
    let before = image(old, "The quota is 5 GB");
    let step = Step::SetState {
        node_id: old,
        from: NodeState::Active,
        to: NodeState::Dormant,
        validity: Default::default(),
    };
    let after = before.after(&step, at).unwrap();
    let resolved = Resolved {
        conflict_id: Uuid::now_v7(),
        strategy: Strategy::NewIsCurrent,
        old_node_id: Some(old),
        new_node_id: Some(new),
        new_key: new.to_string(),
        resolved_at: at,
        actions: vec![
            step.action(Uuid::nil(), 0),
            Action::EdgeCreated {
                summary: String::new(),
                edge_id,
                kind: "supersedes".into(),
                source_id: new,
                target_id: old,
            },
            Step::MarkResolved.action(Uuid::nil(), 0),
        ],
        pre: pre(vec![NodeChange {
            node_id: old,
            before: Some(before),
            after: Some(after.fingerprint()),
        }]),
    };
    let now = Now {
        nodes: HashMap::from([(old, after), (new, image(new, "The quota is 10 GB"))]),
        edges: HashMap::from([(edge_id, (new, old))]),
        ..Now::default()
    };
    (resolved, now, old)
}

#[test]
fn undoing_new_is_current_deletes_the_edge_then_restores_the_old_node() {
    let (resolved, now, _) = new_is_current();
    let steps = resolved.plan(&now).unwrap();
    assert_eq!(
        names(&steps),
        ["edge_deleted", "node_state_changed", "conflict_reverted"]
    );
    let RevertStep::RestoreRow { node, state } = &steps[1] else {
        panic!("{steps:?}")
    };
    assert_eq!(node.body, "The quota is 5 GB");
    assert_eq!(node.state, "active");
    assert_eq!(state, &Some(("dormant".to_owned(), "active".to_owned())));
}

#[test]
fn an_edit_since_even_in_the_same_millisecond_is_in_the_way() {
    let (resolved, mut now, old) = new_is_current();
    now.nodes.get_mut(&old).unwrap().title = "Quota (edited)".into();
    assert_eq!(
        resolved.plan(&now),
        Err(RevertError::InTheWay(vec![Obstacle::NodeEdited {
            node_id: old
        }]))
    );
}

#[test]
fn a_node_deleted_since_is_in_the_way_and_its_edges_are_not_reported_twice() {
    let (resolved, mut now, old) = new_is_current();
    now.nodes.remove(&old);
    now.edges.clear();
    assert_eq!(
        resolved.plan(&now),
        Err(RevertError::InTheWay(vec![Obstacle::NodeDeleted {
            node_id: old
        }]))
    );
}

#[test]
fn later_resolutions_pending_pairs_and_links_are_each_named() {
    let (resolved, mut now, old) = new_is_current();
    let (other, pair, edge) = (Uuid::now_v7(), Uuid::now_v7(), Uuid::now_v7());
    now.resolved_since.push((other, old));
    now.pair_taken_by = Some(pair);
    now.links.push((old, edge));
    let Err(RevertError::InTheWay(found)) = resolved.plan(&now) else {
        panic!("a revert in the way was planned")
    };
    let names: Vec<_> = found.iter().map(Obstacle::name).collect();
    assert_eq!(names, ["resolved_again", "pair_pending", "node_linked"]);
    assert!(found[0].to_string().contains(&other.to_string()));
}

#[test]
fn undoing_a_created_node_deletes_it_after_its_edge_and_the_state_change() {
    let (mut resolved, mut now, _) = new_is_current();
    let created = resolved.new_node_id.unwrap();
    resolved.actions.insert(
        0,
        Action::NodeCreated {
            summary: String::new(),
            node_id: created,
        },
    );
    assert_eq!(resolved.wants().created, vec![created]);
    assert_eq!(
        names(&resolved.plan(&now).unwrap()),
        [
            "edge_deleted",
            "node_state_changed",
            "node_deleted",
            "conflict_reverted"
        ]
    );
    now.nodes.remove(&created);
    assert!(resolved.plan(&now).is_err(), "a created node deleted since");
}

#[test]
fn undoing_a_merge_restores_the_node_moves_its_edges_back_and_restores_the_body() {
    // Arrange: B merged into A; B had an edge to X (moved) and one to A (deleted with B).
    let (a, b, x) = (Uuid::now_v7(), Uuid::now_v7(), Uuid::now_v7());
    let at = time::now();
    let before_a = image(a, "5 GB");
    let merge = Step::MergeBody {
        node_id: a,
        body: "5 GB\n\n--- Merged ---\n\n10 GB".into(),
        labels: vec!["ops".into(), "quota".into()],
        chars_added: 20,
    };
    let after_a = before_a.after(&merge, at).unwrap();
    let (outer, inner) = (edge(b, x), edge(b, a));
    let mut pre = pre(vec![
        NodeChange {
            node_id: a,
            before: Some(before_a),
            after: Some(after_a.fingerprint()),
        },
        NodeChange {
            node_id: b,
            before: Some(image(b, "10 GB")),
            after: None,
        },
    ]);
    pre.edges = vec![outer.clone(), inner.clone()];
    let resolved = Resolved {
        conflict_id: Uuid::now_v7(),
        strategy: Strategy::Merge,
        old_node_id: Some(a),
        new_node_id: Some(b),
        new_key: b.to_string(),
        resolved_at: at,
        actions: vec![
            merge.action(Uuid::nil(), 0),
            Step::MoveEdges { from: b, to: a }.action(Uuid::nil(), 1),
            Step::DeleteNode { node_id: b }.action(Uuid::nil(), 0),
            Step::MarkResolved.action(Uuid::nil(), 0),
        ],
        pre,
    };
    let mut now = Now {
        nodes: HashMap::from([(a, after_a), (x, image(x, "x"))]),
        edges: HashMap::from([(outer.edge_id, (a, x))]),
        ..Now::default()
    };

    // Act
    let steps = resolved.plan(&now).unwrap();

    // Assert
    assert_eq!(
        names(&steps),
        [
            "node_restored",
            "edges_moved",
            "node_body_restored",
            "conflict_reverted"
        ]
    );
    let RevertStep::RestoreNode { node, edges, .. } = &steps[0] else {
        panic!("{steps:?}")
    };
    assert_eq!((node.node_id, edges.clone()), (b, vec![inner]));
    let RevertStep::MoveEdgesBack { from, to, edges } = &steps[1] else {
        panic!("{steps:?}")
    };
    assert_eq!((*from, *to, edges.clone()), (a, b, vec![outer.clone()]));
    assert!(!resolved.wants().watched.contains(&b));

    // An edge moved on since (X's own merge moved it to Y) is in the way.
    now.edges.insert(outer.edge_id, (a, Uuid::now_v7()));
    assert_eq!(
        resolved.plan(&now),
        Err(RevertError::InTheWay(vec![Obstacle::EdgeChanged {
            edge_id: outer.edge_id
        }]))
    );
}

fn counters(upheld: i64, contradicted: i64, at: Timestamp) -> SourceRow {
    SourceRow {
        upheld,
        contradicted,
        created_at: at,
        updated_at: at,
    }
}

fn key(source: &str) -> (String, String) {
    ("default".to_owned(), source.to_owned())
}

#[test]
fn verdicts_are_uncounted_exactly_or_subtracted_when_others_counted_since() {
    let (then, now) = (time::parse("2026-01-01T00:00:00Z").unwrap(), time::now());
    let mut pre = pre(Vec::new());
    pre.sources = vec![
        SourceBefore {
            scope: "default".into(),
            source: "docs".into(),
            row: None,
        },
        SourceBefore {
            scope: "default".into(),
            source: "chat".into(),
            row: Some(counters(2, 1, then)),
        },
    ];
    pre.verdicts = vec![
        SourceVerdict {
            scope: "default".into(),
            source: "docs".into(),
            upheld: true,
        },
        SourceVerdict {
            scope: "default".into(),
            source: "chat".into(),
            upheld: false,
        },
    ];
    let untouched = HashMap::from([
        (key("docs"), counters(1, 0, now)),
        (key("chat"), counters(2, 2, now)),
    ]);
    assert_eq!(
        uncount(&pre, &untouched, now),
        [
            SourceWrite::Delete {
                scope: "default".into(),
                source: "docs".into()
            },
            SourceWrite::Set {
                scope: "default".into(),
                source: "chat".into(),
                row: counters(2, 1, then)
            }
        ]
    );
    let counted_since = HashMap::from([
        (key("docs"), counters(3, 1, now)),
        (key("chat"), counters(2, 2, now)),
    ]);
    assert_eq!(
        uncount(&pre, &counted_since, now)[0],
        SourceWrite::Set {
            scope: "default".into(),
            source: "docs".into(),
            row: counters(2, 1, now)
        }
    );
}

#[test]
fn a_revert_request_follows_the_text_rules_and_cannot_name_a_policy() {
    let id = Uuid::now_v7();
    assert!(Revert::parse(id, Some("Grace".into()), Some("wrong call".into())).is_ok());
    let errors = Revert::parse(id, Some("x".repeat(201)), Some("a\0b".into())).unwrap_err();
    let pointers: Vec<_> = errors.iter().map(|e| e.pointer.as_str()).collect();
    assert_eq!(pointers, ["/note", "/reverted_by"]);
    assert!(Revert::parse(id, Some("policy:newest".into()), None).is_err());
}
