//! Queueing, listing, stats, delete history rules, reports and idempotency keys.

use concord::domain::conflict::{ConflictFilter, Status};
use concord::domain::edge::Edge;
use concord::domain::time;
use concord::store::{
    EdgeQuery, IdempotencyBegin, Store, StoreError, StoredReport, StoredResponse,
};
use uuid::Uuid;

use super::support::*;

pub async fn deleting_a_node_removes_its_edges_and_pending_conflicts_but_keeps_history(
    store: &dyn Store,
) {
    // Arrange
    let old = node(store, "Port", "The port is 8080").await;
    let new = node(store, "Port", "The port is 9090").await;
    let other = node(store, "Port", "The port is 7070").await;
    let pending_as_old = conflict(store, &old, &new).await;
    let resolved_as_old = conflict(store, &old, &other).await;
    resolve(store, resolved_as_old, "keep_both").await.unwrap();
    let third = node(store, "Port", "The port is 6060").await;
    let pending_as_new = conflict(store, &third, &new).await;
    store
        .create_edge(Edge::system(new.id, third.id, "depends_on", 1.0))
        .await
        .unwrap();

    // Act
    store.delete_node(old.id, None, None).await.unwrap();
    store.delete_node(new.id, None, None).await.unwrap();

    // Assert
    assert!(matches!(
        store.get_conflict(pending_as_old).await,
        Err(StoreError::NotFound("conflict"))
    ));
    let history = store.get_conflict(resolved_as_old).await.unwrap();
    assert_eq!(
        (history.old_node_id, history.old_node.is_some()),
        (None, false)
    );
    assert_eq!(history.status, Status::Resolved);
    let orphan = store.get_conflict(pending_as_new).await.unwrap();
    assert_eq!(
        (orphan.new_node_id, orphan.new_node.is_none()),
        (None, true)
    );
    assert_eq!(orphan.new_content.as_deref(), Some("The port is 9090"));
    assert_eq!(orphan.status, Status::Pending);
    let edges = store
        .list_edges(
            third.id,
            EdgeQuery {
                limit: 50,
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(edges.items.is_empty(), "a deleted node's edges go with it");
    let edges = store
        .list_edges(
            other.id,
            EdgeQuery {
                limit: 50,
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(edges.items.is_empty());
}

pub async fn queueing_a_known_pair_again_returns_the_pending_conflict(store: &dyn Store) {
    // Arrange
    let old = node(store, "Limit", "The limit is 10").await;
    let new = node(store, "Limit", "The limit is 20").await;
    let first = conflict(store, &old, &new).await;

    // Act
    let (again, inserted) = store
        .queue_conflict(new_conflict(old.id, Some(new.id), None))
        .await
        .unwrap();
    let (text1, inserted1) = store
        .queue_conflict(new_conflict(old.id, None, Some("The limit is 30")))
        .await
        .unwrap();
    let (text2, inserted2) = store
        .queue_conflict(new_conflict(old.id, None, Some("The limit is 30")))
        .await
        .unwrap();

    // Assert
    assert_eq!((again.id, inserted), (first, false));
    assert!(inserted1 && !inserted2);
    assert_eq!(text1.id, text2.id);
    assert_eq!(text1.new_content.as_deref(), Some("The limit is 30"));
    assert!(
        text1.seq > again.seq,
        "seq grows with every queued conflict"
    );
    let (page, total) = store
        .list_conflicts(ConflictFilter {
            status: Some(Status::Pending),
            limit: 50,
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!((page.items.len(), total), (2, 2));
}

pub async fn queueing_against_a_missing_node_is_not_found(store: &dyn Store) {
    let result = store
        .queue_conflict(new_conflict(Uuid::now_v7(), None, Some("x")))
        .await;
    assert!(
        matches!(result, Err(StoreError::NotFound("node"))),
        "got {result:?}"
    );
}

pub async fn conflicts_are_listed_with_filters_order_pagination_and_full_bodies(store: &dyn Store) {
    // Arrange
    let long = "x".repeat(5000);
    let mut ids = Vec::new();
    let anchor = node_from(
        store,
        concord::domain::node::NodeInput {
            labels: Some(vec!["infra".into()]),
            ..input("Anchor", &long)
        },
    )
    .await;
    for i in 0..5 {
        let n = node(store, "Variant", &format!("variant {i}")).await;
        let mut c = new_conflict(anchor.id, Some(n.id), None);
        if i == 4 {
            c.conflict_type = "scope-mismatch".into();
        }
        ids.push(store.queue_conflict(c).await.unwrap().0);
    }
    let unlabelled_old = node(store, "Other", "o").await;
    let unlabelled_new = node(store, "Other", "p").await;
    let resolved = conflict(store, &unlabelled_old, &unlabelled_new).await;
    resolve(store, resolved, "keep_both").await.unwrap();
    let filter = |status, limit| ConflictFilter {
        status,
        limit,
        ..Default::default()
    };

    // Act
    let mut walked = Vec::new();
    let mut after = None;
    let total = loop {
        let (page, pending_total) = store
            .list_conflicts(ConflictFilter {
                after,
                ..filter(Some(Status::Pending), 2)
            })
            .await
            .unwrap();
        walked.extend(page.items);
        after = page.next_cursor;
        if after.is_none() {
            break pending_total;
        }
    };
    let (newest, _) = store
        .list_conflicts(ConflictFilter {
            newest_first: true,
            ..filter(None, 50)
        })
        .await
        .unwrap();
    let (done, _) = store
        .list_conflicts(filter(Some(Status::Resolved), 50))
        .await
        .unwrap();
    let (typed, typed_total) = store
        .list_conflicts(ConflictFilter {
            conflict_type: Some("scope-mismatch".into()),
            ..filter(None, 50)
        })
        .await
        .unwrap();
    let (labelled, labelled_total) = store
        .list_conflicts(ConflictFilter {
            label: Some("infra".into()),
            ..filter(None, 50)
        })
        .await
        .unwrap();

    // Assert
    let mut oldest: Vec<_> = ids.clone();
    oldest.sort_by_key(|c| (c.created_at, c.id));
    assert_eq!(
        walked.iter().map(|c| c.id).collect::<Vec<_>>(),
        oldest.iter().map(|c| c.id).collect::<Vec<_>>()
    );
    assert_eq!(walked, oldest, "listed conflicts equal the queued ones");
    assert_eq!(total, 5);
    for c in &walked {
        assert_eq!(
            c.old_node.as_ref().unwrap().body,
            long,
            "nodes inside a conflict carry the full body"
        );
        assert!(c.new_node.as_ref().unwrap().body.starts_with("variant"));
    }
    let mut all: Vec<_> = newest.items.iter().map(|c| (c.created_at, c.id)).collect();
    assert_eq!(all.len(), 6);
    let listed = all.clone();
    all.sort_by(|a, b| b.cmp(a));
    assert_eq!(listed, all, "newest first");
    assert_eq!(
        done.items.iter().map(|c| c.id).collect::<Vec<_>>(),
        vec![resolved]
    );
    assert_eq!(
        done.items[0].resolution.map(|s| s.as_str()),
        Some("keep_both")
    );
    assert_eq!(typed.items.len(), 1);
    assert_eq!((typed.items[0].id, typed_total), (ids[4].id, 1));
    assert_eq!((labelled.items.len(), labelled_total), (5, 5));
}

pub async fn stats_count_pending_and_resolved_conflicts_by_type(store: &dyn Store) {
    // Arrange
    let empty = store.conflict_stats(None).await.unwrap();
    let old = node(store, "Size", "10").await;
    let a = node(store, "Size", "20").await;
    let b = node(store, "Size", "30").await;
    let first = conflict(store, &old, &a).await;
    let mut scoped = new_conflict(old.id, Some(b.id), None);
    scoped.conflict_type = "scope-mismatch".into();
    let second = store.queue_conflict(scoped).await.unwrap().0;

    // Act
    resolve(store, first, "keep_both").await.unwrap();
    let stats = store.conflict_stats(None).await.unwrap();

    // Assert
    assert_eq!(
        (empty.pending, empty.resolved, empty.oldest_pending_at),
        (0, 0, None)
    );
    assert_eq!((stats.pending, stats.resolved), (1, 1));
    assert_eq!(stats.by_type, vec![("scope-mismatch".to_owned(), 1)]);
    assert_eq!(stats.oldest_pending_at, Some(second.created_at));
}

pub async fn reports_are_listed_newest_first_with_pagination(store: &dyn Store) {
    // Arrange
    let mut saved = Vec::new();
    for i in 0..3 {
        let report = StoredReport {
            id: Uuid::now_v7(),
            topic: format!("topic {i}"),
            report: serde_json::json!({"topic": format!("topic {i}"), "sources_analyzed": i}),
            created_at: time::now(),
            scopes: Some("default".to_owned()),
        };
        store.save_report(report.clone()).await.unwrap();
        saved.push(report);
    }
    saved.sort_by_key(|r| std::cmp::Reverse((r.created_at, r.id)));

    // Act
    let first = store.list_reports(2, None, None).await.unwrap();
    let rest = store
        .list_reports(2, first.next_cursor.clone(), None)
        .await
        .unwrap();

    // Assert
    let walked: Vec<_> = first.items.into_iter().chain(rest.items).collect();
    assert_eq!(walked, saved);
    assert!(rest.next_cursor.is_none());
}

pub async fn idempotency_keys_start_replay_mismatch_and_refuse_in_flight_requests(
    store: &dyn Store,
) {
    // Arrange
    let response = StoredResponse {
        status: 201,
        body: b"{\"ok\":true}".to_vec(),
        content_type: Some("application/json".into()),
        location: Some("/nodes/1".into()),
    };

    // Act / Assert
    assert_eq!(
        store.idempotency_begin("k1", "key", "fp").await.unwrap(),
        IdempotencyBegin::Started
    );
    assert_eq!(
        store.idempotency_begin("k1", "key", "fp").await.unwrap(),
        IdempotencyBegin::InFlight
    );
    assert_eq!(
        store.idempotency_begin("k1", "key", "other").await.unwrap(),
        IdempotencyBegin::Mismatch
    );
    assert_eq!(
        store.idempotency_begin("k2", "key", "fp").await.unwrap(),
        IdempotencyBegin::Started,
        "keys are per scope"
    );
    store
        .idempotency_finish("k1", "key", response.clone())
        .await
        .unwrap();
    store.idempotency_abandon("k1", "key").await.unwrap();
    assert_eq!(
        store.idempotency_begin("k1", "key", "fp").await.unwrap(),
        IdempotencyBegin::Replay(response),
        "a finished key replays, and abandoning it afterwards changes nothing"
    );
    assert_eq!(
        store.idempotency_begin("k1", "key", "other").await.unwrap(),
        IdempotencyBegin::Mismatch
    );
    store.idempotency_abandon("k2", "key").await.unwrap();
    assert_eq!(
        store.idempotency_begin("k2", "key", "fp2").await.unwrap(),
        IdempotencyBegin::Started,
        "an abandoned key can be claimed again"
    );
    let racers = join_all(
        (0..8)
            .map(|_| store.idempotency_begin("k3", "key", "fp"))
            .collect(),
    )
    .await;
    let started = racers
        .iter()
        .filter(|r| matches!(r, Ok(IdempotencyBegin::Started)))
        .count();
    let in_flight = racers
        .iter()
        .filter(|r| matches!(r, Ok(IdempotencyBegin::InFlight)))
        .count();
    assert_eq!(
        (started, in_flight),
        (1, 7),
        "one of eight concurrent first uses runs: {racers:?}"
    );
}

/// Sets `column` of key `key` in scope `scope` to `at`, as if written then.
async fn date_key(
    db: &Db,
    scope: &str,
    key: &str,
    column: &str,
    at: chrono::DateTime<chrono::Utc>,
) {
    let sql = sqlx::AssertSqlSafe(format!(
        "update idempotency_keys set {column} = $1 where scope = $2 and idem_key = $3"
    ));
    match db {
        Db::Sqlite(pool) => sqlx::query(sql)
            .bind(time::format(&at))
            .bind(scope)
            .bind(key)
            .execute(pool)
            .await
            .map(drop),
        Db::Postgres(pool) => sqlx::query(sql)
            .bind(at)
            .bind(scope)
            .bind(key)
            .execute(pool)
            .await
            .map(drop),
    }
    .unwrap_or_else(|e| panic!("dating {column}: {e}"));
}

/// A claim left by a request that died with its process is taken over once it is stale, and
/// an expired key is claimed anew, even one with a stored reply: both are read first without
/// the write lock, and neither may be answered from that read.
pub async fn a_stale_claim_is_taken_over_and_an_expired_key_claimed_anew(
    store: &dyn Store,
    db: &Db,
) {
    // Arrange
    let now = chrono::Utc::now();
    let reply = StoredResponse {
        status: 201,
        body: b"{}".to_vec(),
        content_type: Some("application/json".into()),
        location: None,
    };
    store.idempotency_begin("s", "died", "fp").await.unwrap();
    store.idempotency_begin("s", "old", "fp").await.unwrap();
    store
        .idempotency_finish("s", "old", reply.clone())
        .await
        .unwrap();
    let stale = now - chrono::Duration::seconds(concord::store::IDEMPOTENCY_STALE_SECS + 5);
    date_key(db, "s", "died", "updated_at", stale).await;
    date_key(
        db,
        "s",
        "old",
        "expires_at",
        now - chrono::Duration::seconds(1),
    )
    .await;

    // Act / Assert
    assert_eq!(
        store.idempotency_begin("s", "died", "fp").await.unwrap(),
        IdempotencyBegin::Started,
        "a stale claim is taken over"
    );
    assert_eq!(
        store.idempotency_begin("s", "died", "fp").await.unwrap(),
        IdempotencyBegin::InFlight,
        "and is fresh again"
    );
    assert_eq!(
        store.idempotency_begin("s", "old", "other").await.unwrap(),
        IdempotencyBegin::Started,
        "an expired key is neither replayed nor a mismatch"
    );
}
