//! Edges and the candidate search of detection.

use concord::domain::edge::{Direction, Edge};
use concord::domain::node::NodeInput;
use concord::store::{CandidateQuery, EdgeQuery, Store, StoreError};
use uuid::Uuid;

use super::support::*;

pub async fn an_edge_to_a_missing_node_is_invalid_and_names_the_endpoint(store: &dyn Store) {
    // Arrange
    let a = node(store, "A", "a").await;
    let missing = Uuid::now_v7();

    // Act
    let bad_target = store
        .create_edge(Edge::system(a.id, missing, "depends_on", 1.0))
        .await;
    let bad_source = store
        .create_edge(Edge::system(missing, a.id, "depends_on", 1.0))
        .await;

    // Assert
    for (result, pointer) in [(bad_target, "/target_id"), (bad_source, "/source_id")] {
        match result {
            Err(StoreError::Refused(concord::store::Refusal::Invalid(errors))) => {
                let pointers: Vec<_> = errors.iter().map(|e| e.pointer.as_str()).collect();
                assert_eq!(pointers, vec![pointer]);
            }
            other => panic!("an edge with a missing {pointer} gave {other:?}"),
        }
    }
    let edges = store
        .list_edges(
            a.id,
            EdgeQuery {
                limit: 50,
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(edges.items.is_empty());
}

pub async fn edges_are_listed_by_direction_and_kind(store: &dyn Store) {
    // Arrange
    let a = node(store, "A", "a").await;
    let b = node(store, "B", "b").await;
    let c = node(store, "C", "c").await;
    let out = store
        .create_edge(Edge::system(a.id, b.id, "depends_on", 0.9))
        .await
        .unwrap();
    let inbound = store
        .create_edge(Edge::system(c.id, a.id, "relates_to", 1.0))
        .await
        .unwrap();
    let other = store
        .create_edge(Edge::system(a.id, c.id, "relates_to", 1.0))
        .await
        .unwrap();
    let list = |direction, kind: Option<&str>| EdgeQuery {
        direction,
        kind: kind.map(Into::into),
        limit: 50,
        after: None,
        scopes: None,
    };

    // Act
    let outs = store
        .list_edges(a.id, list(Direction::Out, None))
        .await
        .unwrap()
        .items;
    let ins = store
        .list_edges(a.id, list(Direction::In, None))
        .await
        .unwrap()
        .items;
    let both = store
        .list_edges(a.id, list(Direction::Both, None))
        .await
        .unwrap()
        .items;
    let related = store
        .list_edges(a.id, list(Direction::Both, Some("relates_to")))
        .await
        .unwrap()
        .items;
    let first = store
        .list_edges(
            a.id,
            EdgeQuery {
                limit: 2,
                ..list(Direction::Both, None)
            },
        )
        .await
        .unwrap();
    let rest = store
        .list_edges(
            a.id,
            EdgeQuery {
                after: first.next_cursor.clone(),
                scopes: None,
                ..list(Direction::Both, None)
            },
        )
        .await
        .unwrap();

    // Assert
    assert_eq!(outs, vec![out.clone(), other.clone()]);
    assert_eq!(ins, vec![inbound.clone()]);
    assert_eq!(both, vec![out.clone(), inbound.clone(), other.clone()]);
    assert_eq!(related, vec![inbound, other]);
    let walked: Vec<_> = first.items.into_iter().chain(rest.items).collect();
    assert_eq!(walked, both);
    assert!(rest.next_cursor.is_none());
    let missing = store
        .list_edges(Uuid::now_v7(), list(Direction::Both, None))
        .await;
    assert!(matches!(missing, Err(StoreError::NotFound("node"))));
}

pub async fn candidates_are_active_nodes_of_the_same_scope_and_type_sharing_a_token(
    store: &dyn Store,
) {
    // Arrange
    let same = node(store, "Deploy region", "We deploy to us-east-1").await;
    node_from(
        store,
        NodeInput {
            scope: Some("other".into()),
            ..input("Deploy region", "us-east-1")
        },
    )
    .await;
    node_from(
        store,
        NodeInput {
            state: Some("dormant".into()),
            ..input("Deploy region", "x")
        },
    )
    .await;
    node(store, "Unrelated", "Coffee is brewed at 93 degrees").await;
    let me = node(store, "Deploy region", "We deploy to eu-west-1").await;
    let linked = node(store, "Deploy target", "deploy everything").await;
    store
        .create_edge(Edge::system(me.id, linked.id, "supersedes", 1.0))
        .await
        .unwrap();

    // Act
    let found = store
        .candidates(CandidateQuery {
            exclude: Some(me.id),
            ..by_tokens(tokens("deploy region eu-west-1"), 20)
        })
        .await
        .unwrap();

    // Assert
    let mut ids: Vec<_> = found.iter().map(|c| (c.node.id, c.remembered)).collect();
    ids.sort();
    let mut expected = vec![(same.id, false), (linked.id, true)];
    expected.sort();
    assert_eq!(ids, expected);
}
