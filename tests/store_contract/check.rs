//! `Store::check` (`concord check`): a store written only through the trait is clean after
//! every kind of resolution and deletion, and each deliberate corruption made with raw SQL is
//! reported under its invariant.

use std::collections::BTreeSet;

use concord::domain::conflict::Action;
use concord::domain::node::NodeInput;
use concord::domain::resolution::Resolution;
use concord::store::Store;
use uuid::Uuid;

use super::support::*;

/// Every strategy, a created node, a merge, a deleted node and a pending conflict.
async fn history(store: &dyn Store) -> Vec<Resolution> {
    let labelled = |title: &str, body: &str| NodeInput {
        labels: Some(vec!["cache".into(), "ops".into()]),
        ..input(title, body)
    };
    let mut done = Vec::new();
    for strategy in ["new_is_current", "old_is_current", "keep_both", "merge"] {
        let old = node_from(store, labelled("Cache size", "The cache holds 10 items")).await;
        let new = node_from(store, labelled("Cache size", "The cache holds 20 items")).await;
        let id = conflict(store, &old, &new).await;
        done.push(resolve(store, id, strategy).await.expect(strategy));
    }
    let old = node(store, "Region", "Deploys go to us-east-1").await;
    let (c, _) = store
        .queue_conflict(new_conflict(old.id, None, Some("Deploys go to eu-west-1")))
        .await
        .unwrap();
    done.push(resolve(store, c.id, "new_is_current").await.unwrap());
    // A later deletion removes a resolution edge with its endpoint: still consistent.
    let old = node(store, "Port", "The port is 80").await;
    let new = node(store, "Port", "The port is 8080").await;
    let id = conflict(store, &old, &new).await;
    resolve(store, id, "keep_both").await.unwrap();
    store.delete_node(new.id, None, None).await.unwrap();
    // A memory moved to another scope takes its postings and token counts along, whether they
    // were merged already or still buffered (SQLite merges every 128 writes).
    let motto = node(store, "Motto", "A heron stands for patience").await;
    move_scope(store, motto.id).await;
    let mascot = node(store, "Mascot", "A heron stands for patience").await;
    for _ in 0..130 {
        node(store, "Filler", "Nothing in particular").await;
    }
    move_scope(store, mascot.id).await;
    // A conflict follows its memories to another scope (the service refuses to move a memory
    // with conflicts; the database keeps a conflict's scopes in step all the same).
    let before = node(store, "Colour", "The colour is teal").await;
    let after = node(store, "Colour", "The colour is plum").await;
    conflict(store, &before, &after).await;
    move_scope(store, before.id).await;
    move_scope(store, after.id).await;
    // One conflict stays pending.
    let a = node(store, "Owner", "The owner is Ada").await;
    let b = node(store, "Owner", "The owner is Grace").await;
    conflict(store, &a, &b).await;
    done
}

async fn move_scope(store: &dyn Store, id: Uuid) {
    let patch = concord::domain::node::NodePatch {
        scope: Some("elsewhere".into()),
        ..Default::default()
    };
    store.update_node(id, patch).await.unwrap();
}

fn invariants(found: &[concord::store::Violation]) -> BTreeSet<&'static str> {
    found.iter().map(|v| v.invariant).collect()
}

pub async fn a_store_written_through_the_trait_passes_the_check(store: &dyn Store) {
    // Arrange
    history(store).await;

    // Act
    let found = store.check().await.expect("check runs");

    // Assert
    assert!(found.is_empty(), "a clean store has violations: {found:?}");
}

/// Runs one statement binding `id` (text on SQLite, uuid on PostgreSQL).
async fn raw(db: &Db, sql: &'static str, id: Uuid) {
    match db {
        Db::Sqlite(pool) => sqlx::query(sql)
            .bind(id.to_string())
            .execute(pool)
            .await
            .map(drop),
        Db::Postgres(pool) => sqlx::query(sql).bind(id).execute(pool).await.map(drop),
    }
    .unwrap_or_else(|e| panic!("{sql}: {e}"));
}

/// Inserts an edge to a node that does not exist, with foreign keys off for that connection.
async fn dangling_edge(db: &Db, source: Uuid) {
    let missing = Uuid::now_v7();
    let insert = "insert into edges (edge_id, source_id, target_id, kind, neural_weight, \
                  strength, confidence, valid_from, created_at, updated_at) \
                  values ($1, $2, $3, 'about', 1, 1, 1, $4, $4, $4)";
    match db {
        Db::Sqlite(pool) => {
            let mut conn = pool.acquire().await.unwrap();
            sqlx::query("pragma foreign_keys = off")
                .execute(&mut *conn)
                .await
                .unwrap();
            sqlx::query(insert)
                .bind(Uuid::now_v7().to_string())
                .bind(source.to_string())
                .bind(missing.to_string())
                .bind("2026-01-01T00:00:00.000Z")
                .execute(&mut *conn)
                .await
                .unwrap();
            sqlx::query("pragma foreign_keys = on")
                .execute(&mut *conn)
                .await
                .unwrap();
        }
        Db::Postgres(pool) => {
            let mut tx = pool.begin().await.unwrap();
            // Replica mode skips the foreign-key triggers for this transaction only.
            sqlx::query("set local session_replication_role = replica")
                .execute(&mut *tx)
                .await
                .unwrap();
            sqlx::query(insert)
                .bind(Uuid::now_v7())
                .bind(source)
                .bind(missing)
                .bind(concord::domain::time::now())
                .execute(&mut *tx)
                .await
                .unwrap();
            tx.commit().await.unwrap();
        }
    }
}

pub async fn each_corruption_is_reported_under_its_invariant(store: &dyn Store, db: &Db) {
    // Arrange: a clean history, then one corruption per invariant.
    let done = history(store).await;
    assert_eq!(store.check().await.unwrap(), Vec::new(), "clean before");
    let superseded = &done[0];
    let edge = superseded
        .actions
        .iter()
        .find_map(|a| match a {
            Action::EdgeCreated { edge_id, .. } => Some(*edge_id),
            _ => None,
        })
        .expect("new_is_current creates an edge");
    let old = superseded.old_node_id.unwrap();
    let new = superseded.new_node_id.unwrap();
    let kept = done[2].old_node_id.unwrap();
    // A resolution that "happened twice": a copy of its edge under another id.
    let copy = "insert into edges (edge_id, source_id, target_id, kind, neural_weight, strength, \
                confidence, valid_from, created_at, updated_at) \
                select $2, source_id, target_id, kind, neural_weight, strength, confidence, \
                valid_from, created_at, updated_at from edges where edge_id = $1";
    match db {
        Db::Sqlite(pool) => sqlx::query(copy)
            .bind(edge.to_string())
            .bind(Uuid::now_v7().to_string())
            .execute(pool)
            .await
            .map(drop),
        Db::Postgres(pool) => sqlx::query(copy)
            .bind(edge)
            .bind(Uuid::now_v7())
            .execute(pool)
            .await
            .map(drop),
    }
    .expect("copy the edge");
    raw(db, "delete from edges where edge_id = $1", edge).await;
    raw(
        db,
        "update nodes set state = 'active' where node_id = $1",
        old,
    )
    .await;
    raw(db, "delete from node_labels where node_id = $1", kept).await;
    raw(
        db,
        "update nodes set search_tokens = 'stale' where node_id = $1",
        new,
    )
    .await;
    raw(
        db,
        "update conflict_queue set old_node_id = null where status = 'pending' \
         and conflict_id <> $1",
        Uuid::nil(),
    )
    .await;
    // File a conflict under a scope its memories are not in.
    raw(
        db,
        "update conflict_queue set scopes = 'elsewhere' where conflict_id = $1",
        done[2].conflict_id,
    )
    .await;
    // Drop a node's postings behind the triggers' back (on SQLite, merged or still buffered).
    let postings: &[&'static str] = match db {
        Db::Sqlite(_) => &[
            "delete from node_tokens where node = (select rowid from nodes where node_id = $1)",
            "delete from recent_tokens where node = (select rowid from nodes where node_id = $1)",
        ],
        Db::Postgres(_) => &["delete from node_tokens where node_id = $1"],
    };
    for &sql in postings {
        raw(db, sql, kept).await;
    }
    dangling_edge(db, kept).await;
    let mut expected = BTreeSet::from([
        "node_tokens_out_of_step",
        "created_edge_missing",
        "state_change_missing",
        "label_index_out_of_step",
        "search_tokens_stale",
        "pending_conflict_without_old_node",
        "edge_endpoint_missing",
        "duplicate_resolution_edge",
        "conflict_scopes_out_of_step",
    ]);
    if let Db::Sqlite(pool) = db {
        // Drop one row from the FTS5 index behind the content table's back.
        sqlx::query(
            "insert into nodes_fts (nodes_fts, rowid, search_tokens) \
             select 'delete', rowid, search_tokens from nodes where node_id = $1",
        )
        .bind(kept.to_string())
        .execute(pool)
        .await
        .unwrap();
        expected.insert("fts_out_of_step");
        // And miscount one token's documents behind the triggers' back.
        sqlx::query(
            "update token_docs set docs = docs + 1 where term = (select min(term) from token_docs)",
        )
        .execute(pool)
        .await
        .unwrap();
        expected.insert("token_docs_out_of_step");
    }

    // Act
    let found = store.check().await.expect("check runs");

    // Assert
    assert_eq!(
        invariants(&found),
        expected,
        "the violations reported: {found:#?}"
    );
}
