use super::*;
use crate::domain::conflict::{Detection, Recommendation, Status};

fn node(body: &str, labels: &[&str], state: NodeState) -> Node {
    let now = time::now();
    Node {
        id: Uuid::now_v7(),
        title: "Deploy region".into(),
        body: body.into(),
        memory_type: "fact".into(),
        labels: labels.iter().map(|l| l.to_string()).collect(),
        scope: "default".into(),
        source: None,
        confidence: 0.8,
        state,
        observed_at: now,
        created_at: now,
        updated_at: now,
        has_embedding: false,
        validity: Default::default(),
        conflict_ids: vec![],
        provenance: None,
    }
}

fn conflict(old: Node, new: Option<Node>, content: Option<&str>) -> Conflict {
    Conflict {
        id: Uuid::now_v7(),
        status: Status::Pending,
        conflict_type: "direct-contradiction".into(),
        old_node_id: Some(old.id),
        new_node_id: new.as_ref().map(|n| n.id),
        old_node: Some(old),
        new_node: new,
        new_content: content.map(Into::into),
        detection: Detection::manual(),
        recommendation: Recommendation {
            resolution: "escalate-to-user".into(),
            strategy: None,
            reasoning: String::new(),
        },
        resolution: None,
        resolved_at: None,
        resolved_by: None,
        note: None,
        actions: None,
        created_at: time::now(),
        seq: 1,
    }
}

fn req(c: &Conflict, strategy: Strategy, merged: Option<&str>) -> Resolve {
    Resolve::parse(c.id, strategy.as_str(), merged.map(Into::into), None, None).unwrap()
}

fn names(p: &Plan) -> Vec<&'static str> {
    p.steps
        .iter()
        .map(|s| s.action(Uuid::nil(), 0).name())
        .collect()
}

#[test]
fn new_is_current_makes_the_old_node_dormant_and_supersedes_it() {
    let c = conflict(
        node("us-east-1", &[], NodeState::Active),
        Some(node("eu-west-1", &[], NodeState::Active)),
        None,
    );
    let p = plan(&c, &req(&c, Strategy::NewIsCurrent, None), time::now()).unwrap();
    assert_eq!(
        names(&p),
        ["node_state_changed", "edge_created", "conflict_resolved"]
    );
    let Step::CreateEdge(e) = &p.steps[1] else {
        panic!()
    };
    assert_eq!(
        (e.source_id, e.target_id),
        (p.new_node_id.unwrap(), p.old_node_id)
    );
    assert_eq!(
        (e.kind.as_str(), e.neural_weight, e.strength, e.confidence),
        ("supersedes", 0.5, 0.5, 1.0)
    );
}

#[test]
fn new_content_only_creates_the_new_node_first() {
    let old = node("us-east-1", &["deploy"], NodeState::Active);
    let c = conflict(old.clone(), None, Some("eu-west-1"));
    for strategy in [Strategy::NewIsCurrent, Strategy::KeepBoth] {
        let p = plan(&c, &req(&c, strategy, None), time::now()).unwrap();
        let Step::CreateNode(n) = &p.steps[0] else {
            panic!("{strategy:?} did not create the node first")
        };
        assert_eq!(
            (n.title.as_str(), n.body.as_str()),
            (old.title.as_str(), "eu-west-1")
        );
        assert_eq!(n.labels, old.labels);
        assert_eq!(p.new_node_id, Some(n.id));
    }
}

#[test]
fn old_is_current_without_a_new_node_only_resolves() {
    let c = conflict(node("a", &[], NodeState::Active), None, Some("b"));
    let p = plan(&c, &req(&c, Strategy::OldIsCurrent, None), time::now()).unwrap();
    assert_eq!(names(&p), ["conflict_resolved"]);
}

#[test]
fn merge_appends_with_a_dated_separator_and_unites_labels() {
    let c = conflict(
        node("old body", &["a"], NodeState::Active),
        Some(node("new body", &["b", "a"], NodeState::Active)),
        None,
    );
    let now = time::parse("2026-11-22T10:00:00Z").unwrap();
    let p = plan(&c, &req(&c, Strategy::Merge, None), now).unwrap();
    assert_eq!(
        names(&p),
        [
            "node_body_merged",
            "edges_moved",
            "node_deleted",
            "conflict_resolved"
        ]
    );
    let Step::MergeBody {
        body,
        labels,
        chars_added,
        ..
    } = &p.steps[0]
    else {
        panic!()
    };
    assert_eq!(body, "old body\n\n--- Merged (2026-11-22) ---\n\nnew body");
    assert_eq!(labels, &["a", "b"]);
    assert_eq!(*chars_added, body.chars().count() as i64 - 8);
}

#[test]
fn merged_content_replaces_the_old_body() {
    let c = conflict(node("old", &[], NodeState::Active), None, Some("new"));
    let p = plan(&c, &req(&c, Strategy::Merge, Some("both")), time::now()).unwrap();
    assert_eq!(names(&p), ["node_body_merged", "conflict_resolved"]);
    let Step::MergeBody {
        body, chars_added, ..
    } = &p.steps[0]
    else {
        panic!()
    };
    assert_eq!((body.as_str(), *chars_added), ("both", 1));
}

#[test]
fn keeping_a_node_that_is_no_longer_active_is_stale() {
    let dormant_old = node("a", &[], NodeState::Dormant);
    let active_new = node("b", &[], NodeState::Active);
    let c = conflict(dormant_old.clone(), Some(active_new.clone()), None);
    for s in [Strategy::OldIsCurrent, Strategy::Merge] {
        assert_eq!(
            plan(&c, &req(&c, s, None), time::now()),
            Err(PlanError::Stale {
                node_id: dormant_old.id,
                state: NodeState::Dormant
            })
        );
    }
    // The old node is already dormant: superseding it again is not an error and not a step.
    let p = plan(&c, &req(&c, Strategy::NewIsCurrent, None), time::now()).unwrap();
    assert_eq!(names(&p), ["edge_created", "conflict_resolved"]);

    let c = conflict(
        node("a", &[], NodeState::Active),
        Some(node("b", &[], NodeState::Dormant)),
        None,
    );
    for s in [Strategy::NewIsCurrent, Strategy::KeepBoth] {
        assert!(matches!(
            plan(&c, &req(&c, s, None), time::now()),
            Err(PlanError::Stale { .. })
        ));
    }
}

#[test]
fn merged_content_with_another_strategy_is_invalid() {
    let errs = Resolve::parse(Uuid::nil(), "keep_both", Some("x".into()), None, None).unwrap_err();
    assert_eq!(errs[0].pointer, "/merged_content");
    let errs = Resolve::parse(Uuid::nil(), "shrug", None, None, None).unwrap_err();
    assert_eq!(errs[0].pointer, "/resolution");
}

#[test]
fn a_quarantined_new_node_is_promoted_by_keeping_it_and_dormant_when_rejected() {
    let c = conflict(
        node("5 mg", &[], NodeState::Active),
        Some(node("50 mg", &[], NodeState::Quarantined)),
        None,
    );
    let promote = plan(&c, &req(&c, Strategy::NewIsCurrent, None), time::now()).unwrap();
    let Step::SetState {
        from, to, validity, ..
    } = &promote.steps[0]
    else {
        panic!("the promotion comes first: {promote:?}");
    };
    assert_eq!((*from, *to), (NodeState::Quarantined, NodeState::Active));
    assert_eq!(*validity, c.new_node.as_ref().unwrap().validity);
    assert_eq!(
        names(&promote),
        [
            "node_state_changed",
            "node_state_changed",
            "edge_created",
            "conflict_resolved"
        ]
    );
    let both = plan(&c, &req(&c, Strategy::KeepBoth, None), time::now()).unwrap();
    assert_eq!(
        names(&both),
        ["node_state_changed", "edge_created", "conflict_resolved"]
    );
    let reject = plan(&c, &req(&c, Strategy::OldIsCurrent, None), time::now()).unwrap();
    let Step::SetState { to, validity, .. } = &reject.steps[0] else {
        panic!("the rejection: {reject:?}");
    };
    assert_eq!(*to, NodeState::Dormant);
    assert!(validity.corrected, "a rejected claim never held");

    // Only the new side is promotable: a quarantined old side is stale.
    let c = conflict(
        node("5 mg", &[], NodeState::Quarantined),
        Some(node("50 mg", &[], NodeState::Active)),
        None,
    );
    assert!(matches!(
        plan(&c, &req(&c, Strategy::OldIsCurrent, None), time::now()),
        Err(PlanError::Stale { .. })
    ));
}
