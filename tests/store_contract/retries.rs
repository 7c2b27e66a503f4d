//! Resolution when things go sideways: retries and replays, stale conflicts, credibility
//! counters, all-or-nothing failure at every step, and exactly-once execution under concurrency.

use concord::domain::conflict::{Status, Strategy};
use concord::domain::edge::Edge;
use concord::domain::node::{NodePatch, NodeState, PatchInput};
use concord::domain::plan::Resolve;
use concord::store::{Store, StoreError};
use uuid::Uuid;

use super::support::*;

pub async fn resolving_again_with_the_same_request_replays_the_stored_outcome(store: &dyn Store) {
    // Arrange
    let old = node(store, "Cache", "512").await;
    let new = node(store, "Cache", "1024").await;
    let id = conflict(store, &old, &new).await;
    let merged = || Resolve::parse(id, "merge", Some("both".into()), None, None).unwrap();
    let first = store.resolve_conflict(merged()).await.unwrap();

    // Act
    let again = store.resolve_conflict(merged()).await.unwrap();
    let other_text = store
        .resolve_conflict(Resolve::parse(id, "merge", Some("other".into()), None, None).unwrap())
        .await;

    // Assert
    assert!(again.replayed && !first.replayed);
    assert_eq!(again.actions, first.actions);
    assert_eq!(
        (again.resolved_at, again.strategy, again.new_node_id),
        (first.resolved_at, first.strategy, first.new_node_id)
    );
    assert!(
        matches!(
            other_text,
            Err(StoreError::Refused(
                concord::store::Refusal::AlreadyResolved(_)
            ))
        ),
        "another merged_content is another request"
    );
    assert_eq!(store.get_node(old.id).await.unwrap().body, "both");
}

pub async fn resolving_again_with_another_strategy_is_already_resolved(store: &dyn Store) {
    // Arrange
    let old = node(store, "Cache", "512").await;
    let new = node(store, "Cache", "1024").await;
    let id = conflict(store, &old, &new).await;
    let first = resolve(store, id, "keep_both").await.unwrap();

    // Act
    let other = resolve(store, id, "new_is_current").await;

    // Assert
    match other {
        Err(StoreError::Refused(concord::store::Refusal::AlreadyResolved(current))) => {
            assert_eq!(
                (current.strategy, &current.actions),
                (Strategy::KeepBoth, &first.actions)
            );
            assert_eq!(current.resolved_at, first.resolved_at);
        }
        other => panic!("another strategy on a resolved conflict gave {other:?}"),
    }
    assert_eq!(state(store, old.id).await, NodeState::Active);
}

async fn set_state(store: &dyn Store, id: Uuid, state: &str) {
    let patch = NodePatch::parse(PatchInput {
        state: Some(state.into()),
        ..Default::default()
    })
    .unwrap();
    store.update_node(id, patch).await.unwrap();
}

pub async fn a_strategy_that_would_leave_no_current_fact_is_stale_and_writes_nothing(
    store: &dyn Store,
) {
    for (strategy, dormant_side) in [
        ("old_is_current", "old"),
        ("merge", "old"),
        ("new_is_current", "new"),
        ("keep_both", "new"),
    ] {
        // Arrange
        let old = node(store, "Mode", "The mode is fast").await;
        let new = node(store, "Mode", "The mode is safe").await;
        let id = conflict(store, &old, &new).await;
        let stale = if dormant_side == "old" {
            old.id
        } else {
            new.id
        };
        set_state(store, stale, "dormant").await;

        // Act
        let result = resolve(store, id, strategy).await;

        // Assert
        match result {
            Err(StoreError::Refused(concord::store::Refusal::Stale { node_id, state })) => {
                assert_eq!((node_id, state), (stale, NodeState::Dormant), "{strategy}")
            }
            other => panic!("{strategy} with a dormant {dormant_side} node gave {other:?}"),
        }
        let c = store.get_conflict(id).await.unwrap();
        assert_eq!(c.status, Status::Pending, "{strategy}");
        assert!(edges_of(store, old.id, "supersedes").await.is_empty());
        assert!(edges_of(store, old.id, "relates_to").await.is_empty());
        assert!(store.get_node(new.id).await.is_ok());
    }
}

pub async fn making_an_already_dormant_node_dormant_is_not_a_step(store: &dyn Store) {
    // Arrange
    let old = node(store, "Mode", "The mode is fast").await;
    let new = node(store, "Mode", "The mode is safe").await;
    let id = conflict(store, &old, &new).await;
    set_state(store, old.id, "dormant").await;

    // Act
    let r = resolve(store, id, "new_is_current").await.unwrap();

    // Assert
    assert_eq!(names(&r.actions), vec!["edge_created", "conflict_resolved"]);
    assert_eq!(state(store, old.id).await, NodeState::Dormant);
}

pub async fn resolving_an_unknown_conflict_is_not_found(store: &dyn Store) {
    let result = resolve(store, Uuid::now_v7(), "keep_both").await;
    assert!(
        matches!(result, Err(StoreError::NotFound("conflict"))),
        "got {result:?}"
    );
}

pub async fn verdicts_count_for_the_sources_of_both_sides(store: &dyn Store) {
    // Arrange
    let docs = sourced(store, "Port", "The port is 8080", "docs").await;
    let chat = sourced(store, "Port", "The port is 9090", "chat").await;
    let chat2 = sourced(store, "Port", "The port is 7070", "chat").await;
    let first = conflict(store, &docs, &chat).await;
    let second = conflict(store, &docs, &chat2).await;

    // Act
    resolve(store, first, "old_is_current").await.unwrap();
    resolve(store, second, "keep_both").await.unwrap();
    let sources = store.list_sources(None).await.unwrap();

    // Assert
    let row = |name: &str| {
        let s = sources.iter().find(|s| s.source == name).expect(name);
        (s.upheld, s.contradicted, s.nodes)
    };
    assert_eq!(sources.len(), 2);
    assert_eq!(
        row("docs"),
        (1, 0, 1),
        "old_is_current upholds the old side's source"
    );
    assert_eq!(row("chat"), (0, 1, 2), "keep_both counts nothing");
}

/// The steps each scenario executes, in order.
const SCENARIOS: [(&str, bool, &[&str]); 7] = [
    (
        "new_is_current",
        true,
        &["node_state_changed", "edge_created", "conflict_resolved"],
    ),
    (
        "old_is_current",
        true,
        &["node_state_changed", "edge_created", "conflict_resolved"],
    ),
    ("keep_both", true, &["edge_created", "conflict_resolved"]),
    (
        "merge",
        true,
        &[
            "node_body_merged",
            "edges_moved",
            "node_deleted",
            "conflict_resolved",
        ],
    ),
    (
        "new_is_current",
        false,
        &[
            "node_created",
            "node_state_changed",
            "edge_created",
            "conflict_resolved",
        ],
    ),
    (
        "keep_both",
        false,
        &["node_created", "edge_created", "conflict_resolved"],
    ),
    ("merge", false, &["node_body_merged", "conflict_resolved"]),
];

pub async fn a_failure_at_any_step_of_any_strategy_rolls_everything_back_and_a_retry_succeeds(
    store: &dyn Store,
    db: &super::Db,
) {
    for (strategy, with_node, steps) in SCENARIOS {
        // Arrange
        let old = sourced(store, "Quota", "The quota is 5 GB", "docs").await;
        let new = sourced(store, "Quota", "The quota is 10 GB", "chat").await;
        let other = node(store, "Other", "o").await;
        store
            .create_edge(Edge::system(new.id, other.id, "depends_on", 1.0))
            .await
            .unwrap();
        let queued = match with_node {
            true => new_conflict(old.id, Some(new.id), None),
            false => new_conflict(old.id, None, Some("The quota is 20 GB")),
        };
        let id = store.queue_conflict(queued).await.unwrap().0.id;
        let scenario = format!(
            "{strategy} ({})",
            if with_node { "new node" } else { "new content" }
        );

        for (k, step) in steps.iter().enumerate() {
            // Act
            let before = db.dump().await;
            concord::store::failpoints::arm(id, step);
            let result = resolve(store, id, strategy).await;

            // Assert
            match result {
                Err(StoreError::Failed(concord::store::Failure::Resolution {
                    partial_actions,
                    failed_action,
                    ..
                })) => {
                    assert_eq!(failed_action, *step, "{scenario}");
                    assert_eq!(
                        names(&partial_actions),
                        steps[..k].to_vec(),
                        "{scenario} failing at {step}"
                    );
                }
                other => panic!("{scenario} failing at {step} gave {other:?}"),
            }
            assert!(
                db.dump().await == before,
                "{scenario} failing at {step} changed the database"
            );
        }
        let r = resolve(store, id, strategy).await.unwrap();
        assert_eq!(
            names(&r.actions),
            steps.to_vec(),
            "{scenario}: the retry executes every step"
        );
        assert_eq!(
            store.get_conflict(id).await.unwrap().status,
            Status::Resolved
        );
    }
}

pub async fn thirty_two_concurrent_resolutions_of_one_conflict_execute_exactly_once(
    store: &dyn Store,
) {
    // Arrange
    let old = sourced(store, "Limit", "The limit is 10", "docs").await;
    let new = sourced(store, "Limit", "The limit is 20", "chat").await;
    let id = conflict(store, &old, &new).await;
    let strategies = ["new_is_current", "old_is_current", "keep_both", "merge"];

    // Act
    let results = join_all(
        (0..32)
            .map(|i| resolve(store, id, strategies[i % 4]))
            .collect(),
    )
    .await;

    // Assert
    let executed: Vec<_> = results
        .iter()
        .filter_map(|r| r.as_ref().ok())
        .filter(|r| !r.replayed)
        .collect();
    assert_eq!(executed.len(), 1, "exactly one of 32 executes: {results:?}");
    let winner = executed[0].clone();
    for r in &results {
        match r {
            Ok(r) => assert_eq!(
                (r.strategy, &r.actions, r.resolved_at),
                (winner.strategy, &winner.actions, winner.resolved_at)
            ),
            Err(StoreError::Refused(concord::store::Refusal::AlreadyResolved(current))) => {
                assert_eq!(current.strategy, winner.strategy)
            }
            Err(e) => panic!("a concurrent resolution failed: {e:?}"),
        }
    }
    let replays = results
        .iter()
        .filter(|r| matches!(r, Ok(r) if r.replayed))
        .count();
    assert_eq!(
        replays, 7,
        "the 7 other requests of the winning strategy replay"
    );
    let supersedes = edges_of(store, old.id, "supersedes").await.len();
    let relates = edges_of(store, old.id, "relates_to").await.len();
    let body = store.get_node(old.id).await.unwrap().body;
    match winner.strategy {
        Strategy::NewIsCurrent | Strategy::OldIsCurrent => {
            assert_eq!((supersedes, relates), (1, 0))
        }
        Strategy::KeepBoth => assert_eq!((supersedes, relates), (0, 1)),
        Strategy::Merge => assert_eq!(body.matches("--- Merged").count(), 1),
    }
    let counted: i64 = store
        .list_sources(None)
        .await
        .unwrap()
        .iter()
        .map(|s| s.upheld + s.contradicted)
        .sum();
    let expected = if matches!(
        winner.strategy,
        Strategy::NewIsCurrent | Strategy::OldIsCurrent
    ) {
        2
    } else {
        0
    };
    assert_eq!(counted, expected, "verdicts are counted once");
}
