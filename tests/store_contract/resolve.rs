//! Resolution: what every strategy does to nodes, edges and the conflict.

use concord::domain::conflict::{Action, Status, Strategy};
use concord::domain::edge::Edge;
use concord::domain::node::{NodeInput, NodeState};
use concord::domain::plan::Resolve;
use concord::domain::time;
use concord::store::{Store, StoreError};

use super::support::*;

pub async fn new_is_current_retires_the_old_node_behind_a_supersedes_edge(store: &dyn Store) {
    // Arrange
    let old = node(store, "Timeout", "The timeout is 30 seconds").await;
    let new = node(store, "Timeout", "The timeout is 60 seconds").await;
    let id = conflict(store, &old, &new).await;

    // Act
    let r = store
        .resolve_conflict(
            Resolve::parse(
                id,
                "new_is_current",
                None,
                Some("agent".into()),
                Some("newer".into()),
            )
            .unwrap(),
        )
        .await
        .unwrap();

    // Assert
    assert_eq!(
        names(&r.actions),
        vec!["node_state_changed", "edge_created", "conflict_resolved"]
    );
    assert_eq!(
        (r.old_node_id, r.new_node_id, r.replayed),
        (Some(old.id), Some(new.id), false)
    );
    assert_eq!(
        (state(store, old.id).await, state(store, new.id).await),
        (NodeState::Dormant, NodeState::Active)
    );
    let edges = edges_of(store, old.id, "supersedes").await;
    assert_eq!(edges.len(), 1);
    assert_resolution_edge(&edges[0], "supersedes", new.id, old.id);
    let c = store.get_conflict(id).await.unwrap();
    assert_eq!(
        (c.status, c.resolution),
        (Status::Resolved, Some(Strategy::NewIsCurrent))
    );
    assert_eq!(
        (c.resolved_at, c.resolved_by.as_deref(), c.note.as_deref()),
        (Some(r.resolved_at), Some("agent"), Some("newer"))
    );
    assert_eq!(c.actions.as_ref(), Some(&r.actions));
}

pub async fn old_is_current_retires_the_new_node_behind_a_supersedes_edge(store: &dyn Store) {
    // Arrange
    let old = node(store, "Timeout", "The timeout is 30 seconds").await;
    let new = node(store, "Timeout", "The timeout is 60 seconds").await;
    let id = conflict(store, &old, &new).await;

    // Act
    let r = resolve(store, id, "old_is_current").await.unwrap();

    // Assert
    assert_eq!(
        names(&r.actions),
        vec!["node_state_changed", "edge_created", "conflict_resolved"]
    );
    assert_eq!(
        (state(store, old.id).await, state(store, new.id).await),
        (NodeState::Active, NodeState::Dormant)
    );
    let edges = edges_of(store, old.id, "supersedes").await;
    assert_eq!(edges.len(), 1);
    assert_resolution_edge(&edges[0], "supersedes", old.id, new.id);
}

pub async fn keep_both_links_the_nodes_with_relates_to(store: &dyn Store) {
    // Arrange
    let old = node(store, "Timeout", "The timeout is 30 seconds").await;
    let new = node(store, "Timeout", "The timeout is 60 seconds for batch jobs").await;
    let id = conflict(store, &old, &new).await;

    // Act
    let r = resolve(store, id, "keep_both").await.unwrap();

    // Assert
    assert_eq!(names(&r.actions), vec!["edge_created", "conflict_resolved"]);
    assert_eq!(
        (state(store, old.id).await, state(store, new.id).await),
        (NodeState::Active, NodeState::Active)
    );
    let edges = edges_of(store, old.id, "relates_to").await;
    assert_eq!(edges.len(), 1);
    assert_resolution_edge(&edges[0], "relates_to", old.id, new.id);
}

pub async fn merge_appends_the_new_body_unites_labels_moves_edges_and_deletes_the_new_node(
    store: &dyn Store,
) {
    // Arrange
    let labelled = |labels: &[&str], body: &str| NodeInput {
        labels: Some(labels.iter().map(|l| l.to_string()).collect()),
        ..input("Cache", body)
    };
    let old = node_from(
        store,
        labelled(&["cache", "perf"], "The cache holds 512 entries"),
    )
    .await;
    let new = node_from(
        store,
        labelled(&["perf", "memory"], "The cache holds 1024 entries"),
    )
    .await;
    let x = node(store, "X", "x").await;
    let y = node(store, "Y", "y").await;
    store
        .create_edge(Edge::system(new.id, x.id, "depends_on", 1.0))
        .await
        .unwrap();
    store
        .create_edge(Edge::system(y.id, new.id, "depends_on", 1.0))
        .await
        .unwrap();
    store
        .create_edge(Edge::system(new.id, old.id, "contradicts", 0.7))
        .await
        .unwrap();
    let id = conflict(store, &old, &new).await;

    // Act
    let r = resolve(store, id, "merge").await.unwrap();

    // Assert
    assert_eq!(
        names(&r.actions),
        vec![
            "node_body_merged",
            "edges_moved",
            "node_deleted",
            "conflict_resolved"
        ]
    );
    let merged = store.get_node(old.id).await.unwrap();
    let expected = format!(
        "The cache holds 512 entries\n\n--- Merged ({}) ---\n\nThe cache holds 1024 entries",
        time::day(&r.resolved_at)
    );
    assert_eq!(merged.body, expected);
    assert_eq!(merged.labels, vec!["cache", "perf", "memory"]);
    assert!(
        matches!(r.actions[1], Action::EdgesMoved { count: 2, .. }),
        "{:?}",
        r.actions[1]
    );
    assert!(matches!(
        store.get_node(new.id).await,
        Err(StoreError::NotFound("node"))
    ));
    let moved = edges_of(store, old.id, "depends_on").await;
    let mut ends: Vec<_> = moved.iter().map(|e| (e.source_id, e.target_id)).collect();
    ends.sort();
    let mut expected_ends = vec![(old.id, x.id), (y.id, old.id)];
    expected_ends.sort();
    assert_eq!(ends, expected_ends);
    assert!(edges_of(store, old.id, "contradicts").await.is_empty());
    let c = store.get_conflict(id).await.unwrap();
    assert_eq!(
        (c.new_node_id, c.new_content.as_deref()),
        (None, Some("The cache holds 1024 entries"))
    );
    let search = concord::store::NodeQuery {
        tokens: Some(tokens("1024")),
        limit: 50,
        ..Default::default()
    };
    let found = store.list_nodes(search).await.unwrap().items;
    assert_eq!(
        found.iter().map(|n| n.id).collect::<Vec<_>>(),
        vec![old.id],
        "the merged body is searchable"
    );
}

pub async fn merge_with_merged_content_replaces_the_old_body(store: &dyn Store) {
    // Arrange
    let old = node(store, "Cache", "The cache holds 512 entries").await;
    let new = node(store, "Cache", "The cache holds 1024 entries").await;
    let id = conflict(store, &old, &new).await;
    let req = Resolve::parse(
        id,
        "merge",
        Some("The cache holds 1024 entries since May".into()),
        None,
        None,
    )
    .unwrap();

    // Act
    store.resolve_conflict(req).await.unwrap();

    // Assert
    assert_eq!(
        store.get_node(old.id).await.unwrap().body,
        "The cache holds 1024 entries since May"
    );
}

pub async fn a_new_content_conflict_creates_the_new_node_first_when_the_strategy_needs_one(
    store: &dyn Store,
) {
    for strategy in ["new_is_current", "keep_both", "old_is_current", "merge"] {
        // Arrange
        let old = node_from(
            store,
            NodeInput {
                labels: Some(vec!["net".into()]),
                memory_type: Some("config".into()),
                scope: Some("prod".into()),
                ..input("Port", "The port is 8080")
            },
        )
        .await;
        let (c, _) = store
            .queue_conflict(new_conflict(old.id, None, Some("The port is 9090")))
            .await
            .unwrap();

        // Act
        let r = resolve(store, c.id, strategy).await.unwrap();

        // Assert
        let after = store.get_conflict(c.id).await.unwrap();
        match strategy {
            "new_is_current" | "keep_both" => {
                assert_eq!(names(&r.actions)[0], "node_created", "{strategy}");
                let created = store.get_node(r.new_node_id.unwrap()).await.unwrap();
                assert_eq!(
                    (
                        created.title.as_str(),
                        created.body.as_str(),
                        created.memory_type.as_str(),
                        created.scope.as_str()
                    ),
                    ("Port", "The port is 9090", "config", "prod")
                );
                assert_eq!(created.labels, vec!["net"]);
                assert_eq!(after.new_node_id, Some(created.id));
            }
            "old_is_current" => assert_eq!(names(&r.actions), vec!["conflict_resolved"]),
            _ => {
                assert_eq!(
                    names(&r.actions),
                    vec!["node_body_merged", "conflict_resolved"]
                );
                assert!(
                    store
                        .get_node(old.id)
                        .await
                        .unwrap()
                        .body
                        .ends_with("---\n\nThe port is 9090")
                );
            }
        }
        assert_eq!(after.status, Status::Resolved, "{strategy}");
    }
}
