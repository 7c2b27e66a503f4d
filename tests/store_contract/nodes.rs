//! Nodes, listing, search, embeddings, edges and candidates.

use concord::domain::cursor::Cursor;

use concord::domain::conflict::{ConflictFilter, Status};
use concord::domain::edge::{CONTRADICTS, Edge};
use concord::domain::history::HistoryKind;
use concord::domain::node::{NewNode, NodeInput, NodePatch, NodeState, PatchInput};
use concord::store::{DetectedConflict, NodeQuery, Store, StoreError};
use uuid::Uuid;

use super::support::*;

pub async fn a_created_node_reads_back_unchanged_and_can_be_patched_and_deleted(store: &dyn Store) {
    // Arrange
    let created = node_from(
        store,
        NodeInput {
            labels: Some(vec![" Cache ".into(), "cache".into(), "DB".into()]),
            source: Some("file:src/cache.rs:42".into()),
            confidence: Some(0.6),
            memory_type: Some("decision".into()),
            ..input("Cache size", "The cache holds 512 entries")
        },
    )
    .await;

    // Act
    let read = store.get_node(created.id).await.unwrap();
    let patch = NodePatch::parse(PatchInput {
        title: Some("Cache capacity".into()),
        state: Some("dormant".into()),
        source: Some(None),
        ..Default::default()
    })
    .unwrap();
    let patched = store.update_node(created.id, patch).await.unwrap();

    // Assert
    assert_eq!(
        read, created,
        "a node must read back exactly as it was created"
    );
    assert_eq!(read.labels, vec!["cache", "db"]);
    assert!(read.conflict_ids.is_empty() && !read.has_embedding);
    assert_eq!(patched.title, "Cache capacity");
    assert_eq!(patched.state, NodeState::Dormant);
    assert_eq!(patched.source, None);
    assert_eq!(patched.body, created.body);
    assert!(patched.updated_at >= created.updated_at);
    assert_eq!(store.get_node(created.id).await.unwrap(), patched);
    store.delete_node(created.id, None, None).await.unwrap();
    assert!(matches!(
        store.get_node(created.id).await,
        Err(StoreError::NotFound("node"))
    ));
    assert!(matches!(
        store.delete_node(created.id, None, None).await,
        Err(StoreError::NotFound("node"))
    ));
    let missing = store
        .update_node(Uuid::now_v7(), NodePatch::default())
        .await;
    assert!(matches!(missing, Err(StoreError::NotFound("node"))));
}

fn by_label(label: &str) -> NodeQuery {
    NodeQuery {
        label: Some(label.into()),
        limit: 50,
        ..Default::default()
    }
}

pub async fn patching_labels_rewrites_the_label_index(store: &dyn Store) {
    // Arrange
    let n = node_from(
        store,
        NodeInput {
            labels: Some(vec!["cache".into()]),
            ..input("Cache size", "512")
        },
    )
    .await;

    // Act
    let patch = NodePatch::parse(PatchInput {
        labels: Some(vec!["Storage".into()]),
        ..Default::default()
    })
    .unwrap();
    store.update_node(n.id, patch).await.unwrap();

    // Assert
    assert!(
        store
            .list_nodes(by_label("cache"))
            .await
            .unwrap()
            .items
            .is_empty()
    );
    let storage = store.list_nodes(by_label("storage")).await.unwrap().items;
    assert_eq!(storage.iter().map(|n| n.id).collect::<Vec<_>>(), vec![n.id]);
    assert_eq!(storage[0].labels, vec!["storage"]);
}

pub async fn a_node_carries_conflict_ids_only_while_it_has_pending_conflicts(store: &dyn Store) {
    // Arrange
    let old = node(store, "Timeout", "The timeout is 30 seconds").await;
    let new = node(store, "Timeout", "The timeout is 60 seconds").await;
    let bystander = node(store, "Region", "eu-west-1").await;

    // Act
    let id = conflict(store, &old, &new).await;

    // Assert
    assert_eq!(store.get_node(old.id).await.unwrap().conflict_ids, vec![id]);
    assert_eq!(store.get_node(new.id).await.unwrap().conflict_ids, vec![id]);
    let listed = store
        .list_nodes(NodeQuery {
            limit: 50,
            ..Default::default()
        })
        .await
        .unwrap();
    for n in &listed.items {
        let expected = if n.id == bystander.id {
            vec![]
        } else {
            vec![id]
        };
        assert_eq!(n.conflict_ids, expected, "conflict_ids of {}", n.title);
    }
    resolve(store, id, "keep_both").await.unwrap();
    assert!(
        store
            .get_node(old.id)
            .await
            .unwrap()
            .conflict_ids
            .is_empty()
    );
    assert!(
        store
            .get_node(new.id)
            .await
            .unwrap()
            .conflict_ids
            .is_empty()
    );
}

pub async fn listing_is_newest_first_and_pagination_visits_every_node_once(store: &dyn Store) {
    // Arrange
    let mut nodes = Vec::new();
    for i in 0..7 {
        nodes.push(node(store, &format!("Note {i}"), "body").await);
    }
    nodes.sort_by_key(|n| std::cmp::Reverse((n.created_at, n.id)));

    // Act
    let mut seen = Vec::new();
    let mut pages = 0;
    let mut after: Option<Cursor> = None;
    loop {
        let page = store
            .list_nodes(NodeQuery {
                limit: 3,
                after: after.clone(),
                ..Default::default()
            })
            .await
            .unwrap();
        pages += 1;
        seen.extend(page.items.iter().map(|n| n.id));
        match page.next_cursor {
            Some(c) => after = Some(Cursor::decode(&c.encode()).unwrap()),
            None => break,
        }
    }

    // Assert
    assert_eq!(pages, 3, "7 nodes in pages of 3 are 3 pages");
    assert_eq!(seen, nodes.iter().map(|n| n.id).collect::<Vec<_>>());
}

pub async fn full_text_search_requires_every_token_and_pages_by_rank(store: &dyn Store) {
    // Arrange
    let both = node(store, "Redis cache size", "The redis cache holds 512 MB").await;
    let redis = node(store, "Redis cluster", "The redis cluster has three shards").await;
    node(
        store,
        "Postgres cache",
        "The buffer cache hit ratio is high",
    )
    .await;
    let search = |q: &str, limit, after| NodeQuery {
        tokens: Some(tokens(q)),
        limit,
        after,
        ..Default::default()
    };

    // Act
    let and = store
        .list_nodes(search("redis cache", 50, None))
        .await
        .unwrap();
    let mut walked = Vec::new();
    let mut after = None;
    loop {
        let page = store.list_nodes(search("redis", 1, after)).await.unwrap();
        walked.extend(page.items.iter().map(|n| n.id));
        after = page.next_cursor;
        if after.is_none() {
            break;
        }
    }

    // Assert
    assert_eq!(
        and.items.iter().map(|n| n.id).collect::<Vec<_>>(),
        vec![both.id]
    );
    walked.sort();
    let mut expected = vec![both.id, redis.id];
    expected.sort();
    assert_eq!(
        walked, expected,
        "ranked pagination must visit every match once"
    );
    let none = store
        .list_nodes(search("redis mongodb", 50, None))
        .await
        .unwrap();
    assert!(none.items.is_empty());
}

pub async fn listing_filters_by_label_memory_type_and_state(store: &dyn Store) {
    // Arrange
    let labelled = node_from(
        store,
        NodeInput {
            labels: Some(vec!["cache".into()]),
            ..input("A", "a")
        },
    )
    .await;
    let decision = node_from(
        store,
        NodeInput {
            memory_type: Some("decision".into()),
            ..input("B", "b")
        },
    )
    .await;
    let dormant = node_from(
        store,
        NodeInput {
            state: Some("dormant".into()),
            labels: Some(vec!["cache".into()]),
            ..input("C", "c")
        },
    )
    .await;
    let ids = |items: Vec<concord::domain::node::Node>| {
        items.into_iter().map(|n| n.id).collect::<Vec<_>>()
    };

    // Act
    let cache = store.list_nodes(by_label("cache")).await.unwrap();
    let decisions = store
        .list_nodes(NodeQuery {
            memory_type: Some("decision".into()),
            limit: 50,
            ..Default::default()
        })
        .await
        .unwrap();
    let dormants = store
        .list_nodes(NodeQuery {
            state: Some(NodeState::Dormant),
            limit: 50,
            ..Default::default()
        })
        .await
        .unwrap();
    let active = store
        .list_nodes(NodeQuery {
            limit: 50,
            ..Default::default()
        })
        .await
        .unwrap();

    // Assert
    assert_eq!(
        ids(cache.items),
        vec![labelled.id],
        "label filters apply to active nodes by default"
    );
    assert_eq!(ids(decisions.items), vec![decision.id]);
    assert_eq!(ids(dormants.items), vec![dormant.id]);
    assert_eq!(ids(active.items), vec![decision.id, labelled.id]);
}

pub async fn an_embedding_of_another_dimension_is_invalid(store: &dyn Store) {
    // Arrange
    let with = |dims: Vec<f64>| NodeInput {
        embedding: Some(dims),
        ..input("Vector", "v")
    };
    assert_eq!(store.embedding_dim().await.unwrap(), None);
    let first = node_from(store, with(vec![0.25, -0.5, 1.0])).await;

    // Act
    let wrong = store
        .create_node(new_node(with(vec![0.1, 0.2])), Vec::new())
        .await;

    // Assert
    match wrong {
        Err(StoreError::Refused(concord::store::Refusal::Invalid(errors))) => {
            assert_eq!(errors[0].pointer, "/embedding")
        }
        other => panic!("a 2-dimensional embedding next to 3-dimensional ones gave {other:?}"),
    }
    node_from(store, with(vec![0.0, 0.0, 1.0])).await;
    assert_eq!(store.embedding_dim().await.unwrap(), Some(3));
    let (read, embedding) = store.get_node_with_embedding(first.id).await.unwrap();
    assert!(read.has_embedding);
    assert_eq!(embedding, Some(vec![0.25, -0.5, 1.0]));
    let plain = node(store, "Plain", "p").await;
    assert_eq!(
        store.get_node_with_embedding(plain.id).await.unwrap().1,
        None
    );
}

/// With statistics up to date, the candidate search queries the index by the new text's rarest
/// tokens; a near-duplicate buried among many nodes sharing the common words is still found.
pub async fn candidates_are_found_by_rare_tokens_among_many_common_ones(
    store: &dyn Store,
    db: &Db,
) {
    // Arrange: 300 nodes sharing the common words, one sharing the rare ones too.
    for i in 0..300 {
        node(
            store,
            "service setting",
            &format!("the service setting number {i} is set by the team"),
        )
        .await;
    }
    let target = node(
        store,
        "zephyr quota",
        "the zephyr ingest quota setting is set by the team",
    )
    .await;
    match db {
        Db::Sqlite(_) => {}
        Db::Postgres(pool) => {
            sqlx::query("analyze nodes").execute(pool).await.unwrap();
        }
    }

    // Act
    let found = store
        .candidates(by_tokens(
            concord::domain::contradiction::index_tokens(
                "zephyr quota",
                "the zephyr ingest quota setting is not set by the team",
            ),
            5,
        ))
        .await
        .unwrap();

    // Assert
    assert!(
        found.iter().any(|c| c.node.id == target.id),
        "the near-duplicate was not among {} candidates",
        found.len()
    );
}

pub async fn newest_candidates_are_the_scopes_newest_active_nodes_of_the_type(store: &dyn Store) {
    // Arrange: three nodes in the scope, then a dormant one, one of another type and one in
    // another scope, all newer.
    let older = node(store, "Home", "Lives in Berlin").await;
    let middle = node(store, "Work", "Works at Acme").await;
    let newest = node(store, "Pet", "Has a cat").await;
    let dormant = node(store, "Car", "Drives a Volvo").await;
    store
        .update_node(
            dormant.id,
            NodePatch::parse(PatchInput {
                state: Some("dormant".into()),
                ..Default::default()
            })
            .unwrap(),
        )
        .await
        .unwrap();
    node_from(
        store,
        NodeInput {
            memory_type: Some("goal".into()),
            ..input("Goal", "Run a marathon")
        },
    )
    .await;
    node_from(
        store,
        NodeInput {
            scope: Some("other".into()),
            ..input("Home", "Lives in Lisbon")
        },
    )
    .await;
    let query = |exclude| concord::store::CandidateQuery {
        exclude,
        scope: "default".into(),
        memory_type: "fact".into(),
        tokens: Vec::new(),
        names: Vec::new(),
        labels: Vec::new(),
        with_embedding: false,
        limit: 50,
        newest: 2,
        before: None,
        docs: None,
        hits: None,
    };

    // Act
    let two = store.candidates(query(None)).await.unwrap();
    let without_newest = store.candidates(query(Some(newest.id))).await.unwrap();

    // Assert
    let ids = |cs: &[concord::store::Candidate]| cs.iter().map(|c| c.node.id).collect::<Vec<_>>();
    assert_eq!(ids(&two), vec![newest.id, middle.id]);
    assert_eq!(
        ids(&without_newest),
        vec![middle.id, older.id],
        "the excluded node"
    );
}

/// Concurrent writes (which SQLite commits together, several in one transaction and up to
/// sixteen in one call) are each written exactly once, and one that fails fails alone: here a
/// write reusing another's id, placed among the later calls of the group.
pub async fn concurrent_writes_are_each_written_once_and_a_failing_one_fails_alone(
    store: &dyn Store,
) {
    // Arrange: forty nodes, and one more with the id of the first.
    let mut nodes: Vec<_> = (0..40)
        .map(|i| {
            new_node(input(
                &format!("Fact {i}"),
                &format!("Service {i} listens on {i}"),
            ))
        })
        .collect();
    let mut twin = new_node(input("Twin", "Reuses the id of fact 0"));
    twin.id = nodes[0].id;
    nodes.insert(30, twin);

    // Act
    let results = join_all(
        nodes
            .into_iter()
            .map(|n| store.create_node(n, Vec::new()))
            .collect(),
    )
    .await;

    // Assert
    let failed = results.iter().filter(|r| r.is_err()).count();
    assert_eq!(failed, 1, "only the write reusing an id fails");
    let page = store
        .list_nodes(NodeQuery {
            limit: 50,
            ..Default::default()
        })
        .await
        .unwrap();
    let mut titles: Vec<_> = page.items.iter().map(|n| n.title.clone()).collect();
    titles.sort();
    // Whichever of the two writes with one id came first is stored.
    let first = if titles.contains(&"Twin".to_owned()) {
        "Twin".to_owned()
    } else {
        "Fact 0".to_owned()
    };
    let mut expected: Vec<_> = (1..40)
        .map(|i| format!("Fact {i}"))
        .chain([first])
        .collect();
    expected.sort();
    assert_eq!(titles, expected, "every other write is stored once");
}

/// A detected conflict of `new` with `old`, for no policy to resolve.
fn detected(old: Uuid, new: &NewNode) -> DetectedConflict {
    DetectedConflict {
        conflict: new_conflict(old, Some(new.id), None),
        edge: Edge::system(new.id, old, CONTRADICTS, 0.8),
        resolve: None,
        quarantine: false,
    }
}

pub async fn concurrent_writes_with_conflicts_queue_each_once_with_its_history_event_and_edge(
    store: &dyn Store,
) {
    // Arrange: two active old nodes and an archived one; writes with and without conflicts,
    // one with two, one against the archived node, and one that fails (it reuses an id).
    let port = node(store, "Port", "The port is 8080").await;
    let owner = node(store, "Owner", "The owner is Ana").await;
    let retired = node(store, "Region", "The region is eu-west-1").await;
    let archive = NodePatch {
        state: Some(NodeState::Archived),
        ..Default::default()
    };
    store.update_node(retired.id, archive).await.unwrap();
    let events_before = store.events_after(0, 1000, None).await.unwrap().len();
    let mut writes = Vec::new();
    for i in 0..12 {
        let new = new_node(input("Port", &format!("The port is {}", 9000 + i)));
        let found = if i % 2 == 0 {
            vec![detected(port.id, &new)]
        } else {
            Vec::new()
        };
        writes.push((new, found));
    }
    let both = new_node(input("Port owner", "Port 9999 is owned by Bo"));
    let both_found = vec![detected(port.id, &both), detected(owner.id, &both)];
    writes.push((both.clone(), both_found.clone()));
    let late = new_node(input("Region", "The region is us-east-2"));
    writes.push((late.clone(), vec![detected(retired.id, &late)]));
    let mut twin = new_node(input("Owner", "The owner is Cy"));
    twin.id = both.id;
    let twin_found = vec![detected(owner.id, &twin)];
    writes.insert(5, (twin, twin_found.clone()));

    // Act
    let results = join_all(
        writes
            .into_iter()
            .map(|(n, found)| store.create_node(n, found))
            .collect(),
    )
    .await;

    // Assert: only the twin (or the write it raced, whichever came second) failed, alone.
    let failed: Vec<_> = results.iter().filter(|r| r.is_err()).collect();
    assert_eq!(
        failed.len(),
        1,
        "only one of the two writes with one id fails"
    );
    let written: Vec<_> = results.into_iter().filter_map(Result::ok).collect();
    let both_won = written.iter().any(|(n, _)| n.title == "Port owner");
    let port_conflicts = if both_won { 7 } else { 6 };
    let owner_conflicts = 1;
    for (created, queued) in &written {
        let ids: Vec<Uuid> = queued.iter().map(|c| c.id).collect();
        assert_eq!(
            created.conflict_ids, ids,
            "{} shows its queued conflicts",
            created.title
        );
        for c in queued {
            assert_eq!(c.status, Status::Pending);
            assert_eq!(c.new_node_id, Some(created.id));
            assert_eq!(c.new_node.as_ref().map(|n| n.id), Some(created.id));
            assert_eq!(c.old_node.as_ref().map(|n| n.id), c.old_node_id);
            let history = store.conflict_history(c.id).await.unwrap();
            assert_eq!(history.len(), 1);
            assert_eq!(history[0].kind, HistoryKind::Queued);
            let edges = edges_of(store, created.id, CONTRADICTS).await;
            assert!(
                edges.iter().any(|e| Some(e.target_id) == c.old_node_id),
                "{} contradicts its old node",
                created.title
            );
        }
    }
    if both_won {
        let (_, queued) = written
            .iter()
            .find(|(n, _)| n.title == "Port owner")
            .unwrap();
        let olds: Vec<_> = queued.iter().map(|c| c.old_node_id).collect();
        assert_eq!(olds, [Some(port.id), Some(owner.id)], "in the order found");
    } else {
        let (_, queued) = written.iter().find(|(n, _)| n.title == "Owner").unwrap();
        assert_eq!(queued.len(), 1);
    }
    let (_, late_queued) = written.iter().find(|(n, _)| n.title == "Region").unwrap();
    assert!(
        late_queued.is_empty(),
        "an archived old node is not contradicted"
    );
    let (all, _) = store
        .list_conflicts(ConflictFilter {
            status: Some(Status::Pending),
            limit: 100,
            ..Default::default()
        })
        .await
        .unwrap();
    let pending = |old: Uuid| {
        all.items
            .iter()
            .filter(|c| c.old_node_id == Some(old))
            .count()
    };
    assert_eq!(pending(port.id), port_conflicts);
    assert_eq!(pending(owner.id), owner_conflicts);
    assert_eq!(pending(retired.id), 0);
    let events = store.events_after(0, 1000, None).await.unwrap();
    assert_eq!(
        events.len() - events_before,
        port_conflicts + owner_conflicts,
        "one event per queued conflict"
    );
    // The write that lost wrote none of its conflicts.
    let lost = if both_won { twin_found } else { both_found };
    for hit in lost {
        assert!(matches!(
            store.get_conflict(hit.conflict.id).await,
            Err(StoreError::NotFound("conflict"))
        ));
    }
    assert!(
        store.check().await.unwrap().is_empty(),
        "no invariant is broken"
    );
}
