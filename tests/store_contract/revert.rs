//! Revert (contract section 9): every strategy undone to the exact rows before it, exactly
//! once under concurrency, all or nothing under injected failures, and refused (writing
//! nothing) when later changes are in the way.

use concord::domain::conflict::Status;
use concord::domain::edge::Edge;
use concord::domain::node::{Node, NodeInput, NodePatch, NodeState, PatchInput};
use concord::domain::revert::{Obstacle, Revert, Reverted};
use concord::store::{Store, StoreError, StoreResult};
use uuid::Uuid;

use super::support::*;

const STRATEGIES: [&str; 4] = ["new_is_current", "old_is_current", "keep_both", "merge"];

/// `(strategy, with a new node, the revert's steps)`; the last, the conflict's own update,
/// reports no action.
const REVERT_STEPS: &[(&str, bool, &[&str])] = &[
    (
        "new_is_current",
        true,
        &["edge_deleted", "node_state_changed", "conflict_reverted"],
    ),
    (
        "new_is_current",
        false,
        &[
            "edge_deleted",
            "node_state_changed",
            "node_deleted",
            "conflict_reverted",
        ],
    ),
    (
        "old_is_current",
        true,
        &["edge_deleted", "node_state_changed", "conflict_reverted"],
    ),
    ("old_is_current", false, &["conflict_reverted"]),
    ("keep_both", true, &["edge_deleted", "conflict_reverted"]),
    (
        "keep_both",
        false,
        &["edge_deleted", "node_deleted", "conflict_reverted"],
    ),
    (
        "merge",
        true,
        &[
            "node_restored",
            "edges_moved",
            "node_body_restored",
            "conflict_reverted",
        ],
    ),
    ("merge", false, &["node_body_restored", "conflict_reverted"]),
];

pub fn undo(id: Uuid) -> Revert {
    Revert::parse(id, Some("tester".into()), Some("undo".into())).expect("valid revert")
}

async fn revert(store: &dyn Store, id: Uuid) -> StoreResult<Reverted> {
    store.revert_conflict(undo(id)).await
}

fn rich(title: &str, body: &str, source: &str, labels: &[&str], embedding: [f64; 3]) -> NodeInput {
    NodeInput {
        source: Some(source.into()),
        labels: Some(labels.iter().map(|l| l.to_string()).collect()),
        embedding: Some(embedding.to_vec()),
        ..input(title, body)
    }
}

/// A conflict with everything a resolution can touch: sourced, labelled nodes with
/// embeddings, edges on the new node in both directions and to the old node, a pending
/// conflict where the new node is the old side and a resolved one where it is the new side.
async fn arrange(store: &dyn Store, with_node: bool) -> (Uuid, Node, Option<Node>) {
    let (id, old, new, _) = arrange_with_others(store, with_node).await;
    (id, old, new)
}

/// [`arrange`], also returning the pending conflict where the new node is the old side.
async fn arrange_with_others(
    store: &dyn Store,
    with_node: bool,
) -> (Uuid, Node, Option<Node>, Option<Uuid>) {
    let old = node_from(
        store,
        rich(
            "Quota",
            "The quota is 5 GB",
            "docs",
            &["quota", "ops"],
            [1.0, 0.0, 0.5],
        ),
    )
    .await;
    if !with_node {
        let queued = new_conflict(old.id, None, Some("The quota is 20 GB"));
        let id = store.queue_conflict(queued).await.unwrap().0.id;
        return (id, old, None, None);
    }
    let new = node_from(
        store,
        rich(
            "Quota",
            "The quota is 10 GB",
            "chat",
            &["quota", "billing"],
            [0.9, 0.1, 0.5],
        ),
    )
    .await;
    let other = node(store, "Billing", "Billing runs monthly").await;
    for (s, t, kind) in [
        (new.id, other.id, "depends_on"),
        (other.id, new.id, "mentions"),
        (new.id, old.id, "contradicts"),
    ] {
        store
            .create_edge(Edge::system(s, t, kind, 0.7))
            .await
            .unwrap();
    }
    let as_old = conflict(store, &new, &other).await;
    let as_new = conflict(store, &other, &new).await;
    resolve(store, as_new, "keep_both").await.unwrap();
    let id = conflict(store, &old, &new).await;
    (id, old, Some(new), Some(as_old))
}

pub async fn every_strategy_reverts_to_the_exact_rows_before_it_and_resolves_again(
    store: &dyn Store,
    db: &super::Db,
) {
    for (k, strategy) in STRATEGIES.iter().enumerate() {
        for with_node in [true, false] {
            // Arrange
            let scenario = format!("{strategy} (new node: {with_node})");
            let (id, _, _, as_old) = arrange_with_others(store, with_node).await;
            let before = db.state().await;
            let mut histories = Vec::new();
            for c in as_old.iter() {
                histories.push(store.conflict_history(*c).await.unwrap());
            }
            resolve(store, id, strategy).await.unwrap();
            assert!(db.state().await != before, "{scenario} changed nothing");

            // Act
            let r = revert(store, id).await.unwrap();

            // Assert
            assert_eq!(
                (r.strategy.as_str(), r.replayed),
                (*strategy, false),
                "{scenario}"
            );
            assert_same_rows(&before, &db.state().await, &scenario);
            for (c, history) in as_old.iter().zip(&histories) {
                let now = store.conflict_history(*c).await.unwrap();
                assert_eq!(&now, history, "{scenario}: a restored conflict's history");
            }
            assert_eq!(store.check().await.unwrap(), vec![], "{scenario}");
            let again = STRATEGIES[(k + 1) % 4];
            let r = resolve(store, id, again).await.unwrap();
            assert_eq!(r.strategy.as_str(), again, "{scenario}, resolved again");
        }
    }
}

pub async fn a_failure_at_any_revert_step_writes_nothing_and_a_retry_succeeds(
    store: &dyn Store,
    db: &super::Db,
) {
    for (strategy, with_node, steps) in REVERT_STEPS {
        let scenario = format!("{strategy} (new node: {with_node})");
        let (id, _, _) = arrange(store, *with_node).await;
        resolve(store, id, strategy).await.unwrap();
        for (k, step) in steps.iter().enumerate() {
            // Arrange
            let before = db.dump().await;
            concord::store::failpoints::arm(id, step);

            // Act
            let result = revert(store, id).await;

            // Assert
            match result {
                Err(StoreError::Failed(concord::store::Failure::Revert {
                    partial_actions,
                    failed_action,
                    ..
                })) => {
                    assert_eq!(failed_action, *step, "{scenario}");
                    assert_eq!(names(&partial_actions), steps[..k], "{scenario} at {step}");
                }
                other => panic!("{scenario} failing at {step} gave {other:?}"),
            }
            assert_same_rows(&before, &db.dump().await, &format!("{scenario} at {step}"));
        }
        let r = revert(store, id).await.unwrap();
        // Every step but the conflict's own update reports an action.
        let (mark, undone) = steps.split_last().unwrap();
        assert_eq!(*mark, "conflict_reverted");
        assert_eq!(names(&r.actions), undone.to_vec(), "{scenario}: the retry");
    }
}

pub async fn thirty_two_concurrent_reverts_of_one_conflict_execute_once(store: &dyn Store) {
    // Arrange
    let (id, old, _) = arrange(store, true).await;
    resolve(store, id, "new_is_current").await.unwrap();

    // Act
    let results = join_all((0..32).map(|_| revert(store, id)).collect()).await;

    // Assert
    let replies: Vec<Reverted> = results.into_iter().map(|r| r.unwrap()).collect();
    assert_eq!(replies.iter().filter(|r| !r.replayed).count(), 1);
    let first = replies.iter().find(|r| !r.replayed).unwrap();
    for r in &replies {
        assert_eq!(
            (&r.actions, r.reverted_at),
            (&first.actions, first.reverted_at)
        );
    }
    assert_eq!(state(store, old.id).await, NodeState::Active);
    let history = store.conflict_history(id).await.unwrap();
    let kinds: Vec<_> = history.iter().map(|h| h.kind.as_str()).collect();
    assert_eq!(kinds, ["queued", "resolved", "reverted"]);
}

pub async fn reverting_a_pending_or_unknown_conflict_is_refused(store: &dyn Store) {
    let (id, _, _) = arrange(store, true).await;
    assert!(matches!(
        revert(store, id).await,
        Err(StoreError::Refused(concord::store::Refusal::NotResolved))
    ));
    assert!(matches!(
        revert(store, Uuid::now_v7()).await,
        Err(StoreError::NotFound("conflict"))
    ));
    resolve(store, id, "keep_both").await.unwrap();
    revert(store, id).await.unwrap();
    assert!(revert(store, id).await.unwrap().replayed, "a retry replays");
}

fn patch(body: &str) -> NodePatch {
    NodePatch::parse(PatchInput {
        body: Some(body.into()),
        ..Default::default()
    })
    .unwrap()
}

#[track_caller]
fn in_the_way(result: StoreResult<Reverted>) -> Vec<Obstacle> {
    match result {
        Err(StoreError::Refused(concord::store::Refusal::RevertBlocked(found))) => found,
        other => panic!("expected a revert conflict, got {other:?}"),
    }
}

pub async fn later_changes_are_named_and_nothing_is_written(store: &dyn Store, db: &super::Db) {
    // A merged body edited since.
    let (id, old, _) = arrange(store, true).await;
    resolve(store, id, "merge").await.unwrap();
    store
        .update_node(old.id, patch("Edited after the merge"))
        .await
        .unwrap();
    let before = db.dump().await;
    assert_eq!(
        in_the_way(revert(store, id).await),
        [Obstacle::NodeEdited { node_id: old.id }]
    );
    assert_same_rows(&before, &db.dump().await, "body edited since");

    // The new node deleted since.
    let (id, _, new) = arrange(store, true).await;
    let new = new.unwrap();
    resolve(store, id, "keep_both").await.unwrap();
    store.delete_node(new.id, None, None).await.unwrap();
    let before = db.dump().await;
    assert_eq!(
        in_the_way(revert(store, id).await),
        [Obstacle::NodeDeleted { node_id: new.id }]
    );
    assert_same_rows(&before, &db.dump().await, "node deleted since");

    // The old node resolved again through another conflict.
    let (id, old, _) = arrange(store, true).await;
    let third = node(store, "Quota", "The quota is 7 GB").await;
    let other = conflict(store, &old, &third).await;
    resolve(store, id, "old_is_current").await.unwrap();
    resolve(store, other, "merge").await.unwrap();
    let before = db.dump().await;
    assert_eq!(
        in_the_way(revert(store, id).await),
        [Obstacle::ResolvedAgain {
            node_id: old.id,
            conflict_id: other
        }]
    );
    assert_same_rows(&before, &db.dump().await, "resolved again since");
    assert_eq!(
        store.get_conflict(id).await.unwrap().status,
        Status::Resolved
    );

    // A resolution recorded before resolutions kept their pre-image.
    let (id, _, _) = arrange(store, true).await;
    resolve(store, id, "keep_both").await.unwrap();
    let forget = "update conflict_history set pre_image = null";
    match db {
        super::Db::Sqlite(pool) => sqlx::query(forget).execute(pool).await.map(drop),
        super::Db::Postgres(pool) => sqlx::query(forget).execute(pool).await.map(drop),
    }
    .unwrap();
    let before = db.dump().await;
    assert_eq!(in_the_way(revert(store, id).await), [Obstacle::NoPreImage]);
    assert_same_rows(&before, &db.dump().await, "no pre-image");
}

/// C1 (A, B) was resolved `new_is_current`; C2 (B, X) is pending. Reverting C1 and resolving
/// C2 race: either the resolution wins and the revert is refused (B was resolved again), or
/// the revert runs first and the resolution after it. Never anything in between.
pub async fn a_revert_racing_a_resolution_on_the_same_node_is_one_or_the_other(store: &dyn Store) {
    for round in 0..6 {
        // Arrange
        let a = node(store, "Region", "The region is us-east-1").await;
        let b = node(store, "Region", "The region is eu-west-1").await;
        let x = node(store, "Region", "The region is ap-south-1").await;
        let c1 = conflict(store, &a, &b).await;
        let c2 = conflict(store, &b, &x).await;
        resolve(store, c1, "new_is_current").await.unwrap();

        // Act
        let (reverted, resolved) =
            tokio::join!(revert(store, c1), resolve(store, c2, "new_is_current"));

        // Assert
        let resolved = resolved.unwrap_or_else(|e| panic!("round {round}: {e:?}"));
        assert!(!resolved.replayed);
        match reverted {
            Ok(r) => {
                assert!(!r.replayed);
                assert_eq!(state(store, a.id).await, NodeState::Active, "round {round}");
                let c1 = store.get_conflict(c1).await.unwrap();
                assert_eq!(c1.status, Status::Pending, "round {round}");
            }
            Err(StoreError::Refused(concord::store::Refusal::RevertBlocked(found))) => {
                assert_eq!(
                    found,
                    [Obstacle::ResolvedAgain {
                        node_id: b.id,
                        conflict_id: c2
                    }],
                    "round {round}"
                );
                assert_eq!(
                    state(store, a.id).await,
                    NodeState::Dormant,
                    "round {round}"
                );
                let c1 = store.get_conflict(c1).await.unwrap();
                assert_eq!(c1.status, Status::Resolved, "round {round}");
            }
            Err(other) => panic!("round {round}: {other:?}"),
        }
        assert_eq!(
            state(store, b.id).await,
            NodeState::Dormant,
            "round {round}"
        );
        assert_eq!(store.check().await.unwrap(), vec![], "round {round}");
    }
}

pub async fn verdicts_counted_since_stay_when_a_resolution_is_reverted(store: &dyn Store) {
    // Arrange: two conflicts between sources docs and chat, both resolved for chat.
    let mut ids = Vec::new();
    for n in [1, 2] {
        let old = sourced(store, "Port", &format!("The port is 80{n}"), "docs").await;
        let new = sourced(store, "Port", &format!("The port is 90{n}"), "chat").await;
        let id = conflict(store, &old, &new).await;
        resolve(store, id, "new_is_current").await.unwrap();
        ids.push(id);
    }

    // Act: the first one is undone after the second one counted.
    revert(store, ids[0]).await.unwrap();

    // Assert: the second one's verdicts remain.
    let sources = store.list_sources(None).await.unwrap();
    let counts: Vec<_> = sources
        .iter()
        .map(|s| (s.source.as_str(), s.upheld, s.contradicted))
        .collect();
    assert_eq!(counts, [("chat", 1, 0), ("docs", 0, 1)]);
}
