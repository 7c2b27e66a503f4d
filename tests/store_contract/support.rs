//! Test data built through the domain constructors, a raw dump of every table, and a small
//! `join_all` so concurrent cases need no extra dependency.

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

use concord::domain::conflict::{Action, Detection, NewConflict, Recommendation};
use concord::domain::contradiction::index_tokens;
use concord::domain::edge::{Direction, Edge};
use concord::domain::node::{NewNode, Node, NodeInput, NodeState};
use concord::domain::plan::Resolve;
use concord::domain::resolution::Resolution;
use concord::domain::time;
use concord::store::{CandidateQuery, EdgeQuery, Store, StoreResult};
use sqlx::{Row, TypeInfo, ValueRef};
use uuid::Uuid;

pub fn input(title: &str, body: &str) -> NodeInput {
    NodeInput {
        title: Some(title.into()),
        body: Some(body.into()),
        ..Default::default()
    }
}

pub fn new_node(input: NodeInput) -> NewNode {
    NewNode::parse(input, time::now()).expect("valid node input")
}

pub async fn node_from(store: &dyn Store, input: NodeInput) -> Node {
    let (node, found) = store
        .create_node(new_node(input), Vec::new())
        .await
        .expect("create node");
    assert!(found.is_empty());
    node
}

pub async fn node(store: &dyn Store, title: &str, body: &str) -> Node {
    node_from(store, input(title, body)).await
}

/// A node with a source, for the credibility counters.
pub async fn sourced(store: &dyn Store, title: &str, body: &str, source: &str) -> Node {
    node_from(
        store,
        NodeInput {
            source: Some(source.into()),
            ..input(title, body)
        },
    )
    .await
}

pub fn new_conflict(old: Uuid, new: Option<Uuid>, content: Option<&str>) -> NewConflict {
    NewConflict {
        id: Uuid::now_v7(),
        old_node_id: old,
        new_node_id: new,
        new_content: content.map(Into::into),
        conflict_type: "numeric-mismatch".into(),
        detection: Detection::manual(),
        recommendation: Recommendation {
            resolution: "escalate-to-user".into(),
            strategy: None,
            reasoning: "a test asked for it".into(),
        },
        note: None,
        created_at: time::now(),
        key: None,
    }
}

/// Queues a conflict between two stored nodes and returns its id.
pub async fn conflict(store: &dyn Store, old: &Node, new: &Node) -> Uuid {
    let (c, inserted) = store
        .queue_conflict(new_conflict(old.id, Some(new.id), None))
        .await
        .expect("queue conflict");
    assert!(inserted);
    c.id
}

pub fn request(id: Uuid, strategy: &str) -> Resolve {
    Resolve::parse(id, strategy, None, None, None).expect("valid resolution")
}

pub async fn resolve(store: &dyn Store, id: Uuid, strategy: &str) -> StoreResult<Resolution> {
    store.resolve_conflict(request(id, strategy)).await
}

pub fn names(actions: &[Action]) -> Vec<&'static str> {
    actions.iter().map(Action::name).collect()
}

/// The edges of one kind at a node, either direction.
pub async fn edges_of(store: &dyn Store, id: Uuid, kind: &str) -> Vec<Edge> {
    let q = EdgeQuery {
        direction: Direction::Both,
        kind: Some(kind.into()),
        limit: 50,
        after: None,
        scopes: None,
    };
    store.list_edges(id, q).await.unwrap().items
}

#[track_caller]
pub fn assert_resolution_edge(edge: &Edge, kind: &str, source: Uuid, target: Uuid) {
    assert_eq!(
        (edge.kind.as_str(), edge.source_id, edge.target_id),
        (kind, source, target)
    );
    assert_eq!(
        (edge.neural_weight, edge.strength, edge.confidence),
        (0.5, 0.5, 1.0)
    );
}

pub async fn state(store: &dyn Store, id: Uuid) -> NodeState {
    store.get_node(id).await.unwrap().state
}

/// A query as concord's tokenizer tokenises it.
pub fn tokens(q: &str) -> Vec<String> {
    index_tokens(q, "")
}

/// A write's candidate search for `tokens` among the default scope's facts, at most `limit`.
pub fn by_tokens(tokens: Vec<String>, limit: usize) -> CandidateQuery {
    CandidateQuery {
        exclude: None,
        scope: "default".into(),
        memory_type: "fact".into(),
        tokens,
        names: vec![],
        labels: vec![],
        with_embedding: false,
        limit,
        newest: 0,
        before: None,
        docs: None,
        hits: None,
    }
}

/// Facts that share the words "service setting", one per number of `numbers`.
pub async fn service_settings(store: &dyn Store, numbers: std::ops::Range<usize>) {
    for i in numbers {
        node(
            store,
            "service setting",
            &format!("the service setting {i}"),
        )
        .await;
    }
}

/// Raw access to the database behind a store.
pub enum Db {
    Sqlite(sqlx::SqlitePool),
    Postgres(sqlx::PgPool),
}

/// A node's columns but its change context (`changed_by`, `changed_in`: who made the last
/// change, which a revert is). Its versions are a log, like `conflict_history`.
macro_rules! node_columns {
    () => {
        "node_id, title, body, memory_type, labels, scope, source, confidence, state, \
         observed_at, created_at, updated_at, embedding, embedding_dim, search_tokens, \
         valid_until, corrected"
    };
}

const SQLITE_TABLES: [&str; 8] = [
    concat!("select ", node_columns!(), " from nodes"),
    "select * from node_labels",
    "select * from edges",
    "select * from conflict_queue",
    "select * from sources",
    "select * from idempotency_keys",
    "select * from conflict_reports",
    "select * from events",
];

const PG_TABLES: [&str; 8] = [
    concat!("select (", node_columns!(), ")::text from nodes t"),
    "select t::text from node_labels t",
    "select t::text from edges t",
    "select t::text from conflict_queue t",
    "select t::text from sources t",
    "select t::text from idempotency_keys t",
    "select t::text from conflict_reports t",
    "select t::text from events t",
];

impl Db {
    /// Every table but the event log (a log, which only grows), as [`Db::dump`] reads them.
    /// `conflict_history` is a log too, and is not dumped at all.
    pub async fn state(&self) -> Vec<Vec<String>> {
        let mut tables = self.dump().await;
        tables.pop();
        tables
    }

    /// Every row of every table as text, sorted within each table.
    pub async fn dump(&self) -> Vec<Vec<String>> {
        let mut tables = Vec::new();
        match self {
            Self::Sqlite(pool) => {
                for sql in SQLITE_TABLES {
                    let rows = sqlx::query(sql).fetch_all(pool).await.expect(sql);
                    let mut text: Vec<String> = rows.iter().map(sqlite_row).collect();
                    text.sort();
                    tables.push(text);
                }
            }
            Self::Postgres(pool) => {
                for sql in PG_TABLES {
                    let mut text: Vec<String> =
                        sqlx::query_scalar(sql).fetch_all(pool).await.expect(sql);
                    text.sort();
                    tables.push(text);
                }
            }
        }
        tables
    }
}

fn sqlite_row(row: &sqlx::sqlite::SqliteRow) -> String {
    (0..row.len())
        .map(|i| {
            let raw = row.try_get_raw(i).expect("column");
            if raw.is_null() {
                return "NULL".to_owned();
            }
            match raw.type_info().name() {
                "INTEGER" => row.try_get_unchecked::<i64, _>(i).expect("int").to_string(),
                "REAL" => row
                    .try_get_unchecked::<f64, _>(i)
                    .expect("real")
                    .to_string(),
                "BLOB" => format!(
                    "{:?}",
                    row.try_get_unchecked::<Vec<u8>, _>(i).expect("blob")
                ),
                _ => row.try_get_unchecked::<String, _>(i).expect("text"),
            }
        })
        .collect::<Vec<_>>()
        .join("|")
}

/// Polls every future concurrently on the current task (their queries run on separate pooled
/// connections, so the database sees them at once) and returns their outputs in order.
pub async fn join_all<F: Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut futures: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (f, out) in futures.iter_mut().zip(outputs.iter_mut()) {
            if out.is_none() {
                match f.as_mut().poll(cx) {
                    Poll::Ready(v) => *out = Some(v),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    outputs
        .into_iter()
        .map(|o| o.expect("polled to completion"))
        .collect()
}

/// Asserts two dumps are equal, naming the first table that differs and its differing rows.
#[track_caller]
pub fn assert_same_rows(before: &[Vec<String>], after: &[Vec<String>], what: &str) {
    for (i, (b, a)) in before.iter().zip(after).enumerate() {
        if b != a {
            let gone: Vec<_> = b.iter().filter(|r| !a.contains(r)).collect();
            let new: Vec<_> = a.iter().filter(|r| !b.contains(r)).collect();
            panic!(
                "{what}: table {} differs\n  only before: {gone:#?}\n  only after: {new:#?}",
                SQLITE_TABLES[i]
            );
        }
    }
    assert_eq!(before.len(), after.len(), "{what}");
}
