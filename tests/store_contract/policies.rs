//! Policy resolutions inside a node write: the store runs each one with the write, right after
//! queueing its conflict, and the write stands or falls as one transaction.

use concord::domain::conflict::Status;
use concord::domain::conflict::Strategy;
use concord::domain::edge::{CONTRADICTS, Edge};
use concord::domain::node::{NewNode, NodeInput, NodeState};
use concord::domain::plan::Resolve;
use concord::store::{DetectedConflict, Store, StoreError};
use uuid::Uuid;

use super::support::*;

/// A detected conflict of `new` with `old` that the policy `rule` resolves with `strategy`.
fn resolved_by_policy(
    old: Uuid,
    new: &NewNode,
    rule: &str,
    strategy: Strategy,
) -> DetectedConflict {
    let conflict = new_conflict(old, Some(new.id), None);
    DetectedConflict {
        resolve: Some(Resolve {
            scopes: None,
            key: None,
            reason: None,
            conflict_id: conflict.id,
            strategy,
            merged_content: None,
            resolved_by: Some(format!("policy:{rule}")),
            note: Some(format!("policy {rule} resolved with {}", strategy.as_str())),
        }),
        edge: Edge::system(new.id, old, CONTRADICTS, 0.8),
        conflict,
        quarantine: false,
    }
}

pub async fn a_policy_that_cannot_apply_after_an_earlier_one_leaves_its_conflict_pending(
    store: &dyn Store,
) {
    // Arrange: the first rule retires the new node, so the second cannot keep it current.
    let first_old = node(store, "Quota", "The quota is 5 GB").await;
    let second_old = node(store, "Quota", "The quota is 6 GB").await;
    let new = new_node(input("Quota", "The quota is 10 GB"));
    let found = vec![
        resolved_by_policy(first_old.id, &new, "keep-old", Strategy::OldIsCurrent),
        resolved_by_policy(second_old.id, &new, "take-new", Strategy::NewIsCurrent),
    ];

    // Act
    let (written, queued) = store
        .create_node(new, found)
        .await
        .expect("the write stands");

    // Assert
    assert_eq!(queued.len(), 2);
    assert_eq!(queued[0].status, Status::Resolved);
    assert_eq!(queued[0].resolved_by.as_deref(), Some("policy:keep-old"));
    assert_eq!(
        queued[1].status,
        Status::Pending,
        "stale: left for a person"
    );
    assert_eq!(
        written.state,
        NodeState::Dormant,
        "the reply shows the node as it is now"
    );
    assert_eq!(
        written.conflict_ids,
        vec![queued[1].id],
        "only the pending one"
    );
    assert_eq!(state(store, second_old.id).await, NodeState::Active);
    let stored = store.get_conflict(queued[1].id).await.unwrap();
    assert_eq!(stored.status, Status::Pending);
}

pub async fn a_failure_after_a_policy_resolution_rolls_back_the_whole_write(
    store: &dyn Store,
    db: &super::Db,
) {
    // Arrange
    let old = sourced(store, "Quota", "The quota is 5 GB", "docs").await;
    let new = new_node(NodeInput {
        source: Some("chat".into()),
        ..input("Quota", "The quota is 10 GB")
    });
    let found = vec![resolved_by_policy(
        old.id,
        &new,
        "take-new",
        Strategy::NewIsCurrent,
    )];
    let before = db.dump().await;
    concord::store::failpoints::arm(old.id, "policy_resolved");

    // Act
    let result = store.create_node(new.clone(), found.clone()).await;

    // Assert: not a trace of the node, the conflict, its edges, history, events or verdicts.
    assert!(
        matches!(result, Err(StoreError::Failed(concord::store::Failure::Injected(ref at))) if at == "policy_resolved"),
        "{result:?}"
    );
    assert!(db.dump().await == before, "the failed write left a trace");

    // And the same write succeeds once the fault is gone.
    let (_, queued) = store.create_node(new, found).await.expect("retry");
    assert_eq!(queued[0].status, Status::Resolved);
    assert_eq!(state(store, old.id).await, NodeState::Dormant);
}
