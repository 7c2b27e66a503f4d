//! The migration that made versions keep only what changed: a store written under the old
//! layout (every version whole) reads back the same versions after it, on both databases.

use std::path::{Path, PathBuf};

use concord::domain::node::NodeState;
use concord::domain::time;
use concord::domain::version::{NodeVersion, VersionKind};
use concord::store::Store;
use concord::store::postgres::PgStore;
use concord::store::sqlite::SqliteStore;
use sqlx::migrate::Migrator;

/// The last migration of the old layout.
const OLD_LAYOUT: &str = "0009_";

/// A directory with the migrations up to the old layout, copied from `dir`.
fn migrations_until_old_layout(dir: &str) -> PathBuf {
    let out = std::env::temp_dir().join(format!("concord-migrations-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&out).unwrap();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        if name.as_str() <= OLD_LAYOUT || name.starts_with(OLD_LAYOUT) {
            std::fs::copy(&path, out.join(&name)).unwrap();
        }
    }
    out
}

/// The changes the test makes in the old layout, each straight on the node row as any write
/// path does, each a version: (statement, who).
fn changes(a: &str, b: &str) -> Vec<String> {
    vec![
        format!("update nodes set confidence = 0.5, changed_by = 'k1' where node_id = '{a}'"),
        format!(
            "update nodes set title = 'Alpha 2', body = 'alpha two', changed_by = 'k2' \
             where node_id = '{a}'"
        ),
        format!(
            "update nodes set state = 'dormant', valid_until = '2026-03-01T00:00:00.000Z', \
             changed_by = 'k3' where node_id = '{a}'"
        ),
        format!(
            "update nodes set labels = '[\"x\",\"y\"]', source = 'agent:z', changed_by = 'k4' \
             where node_id = '{a}'"
        ),
        format!("update nodes set corrected = true, changed_by = 'k5' where node_id = '{b}'"),
        format!("update nodes set changed_by = 'k6' where node_id = '{b}'"),
        format!("delete from nodes where node_id = '{b}'"),
    ]
}

/// What a version reads: kind, by, "title/body", confidence, state, labels, source, whether
/// `valid_until` is set, corrected.
type Summary = (
    VersionKind,
    Option<String>,
    String,
    f64,
    NodeState,
    Vec<String>,
    Option<String>,
    bool,
    bool,
);

fn summary(v: &NodeVersion) -> Summary {
    let s = &v.standing;
    (
        v.kind,
        v.by.clone(),
        format!("{}/{}", v.title, v.body),
        v.confidence,
        s.state,
        s.labels.clone(),
        s.source.clone(),
        s.valid_until.is_some(),
        s.corrected,
    )
}

#[allow(clippy::too_many_arguments)]
fn want(
    kind: VersionKind,
    by: Option<&str>,
    texts: &str,
    confidence: f64,
    state: NodeState,
    labels: &[&str],
    source: Option<&str>,
    until: bool,
    corrected: bool,
) -> Summary {
    (
        kind,
        by.map(str::to_owned),
        texts.to_owned(),
        confidence,
        state,
        labels.iter().map(|l| l.to_string()).collect(),
        source.map(str::to_owned),
        until,
        corrected,
    )
}

async fn old_layout_reads_back_the_same(
    store_at: impl AsyncFn() -> Box<dyn Store>,
    migrate: impl AsyncFn(&Path),
    run: impl AsyncFn(&str),
    recorded: impl AsyncFn(uuid::Uuid) -> Vec<time::Timestamp>,
    dir: &str,
) {
    let old = migrations_until_old_layout(dir);
    migrate(&old).await;
    // Written as the old layout's writes did: today's write paths set columns it lacks.
    let (a, b) = (uuid::Uuid::now_v7(), uuid::Uuid::now_v7());
    for (id, title, body, labels) in [
        (a, "Alpha", "alpha one", r#"["ops"]"#),
        (b, "Beta", "beta one", "[]"),
    ] {
        run(&format!(
            "insert into nodes (node_id, title, body, labels, confidence, observed_at, \
             created_at, updated_at, search_tokens) values ('{id}', '{title}', '{body}', \
             '{labels}', 0.8, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', \
             '2026-01-01T00:00:00.000Z', '{body}')"
        ))
        .await;
    }
    for sql in changes(&a.to_string(), &b.to_string()) {
        run(&sql).await;
    }
    let before = (recorded(a).await, recorded(b).await);
    std::fs::remove_dir_all(&old).unwrap();

    migrate(Path::new(dir)).await;
    let store = store_at().await;
    let va = store.node_versions(a).await.expect("versions of a");
    let vb = store.node_versions(b).await.expect("versions of b");
    let times = |v: &[NodeVersion]| v.iter().map(|v| v.recorded_at).collect::<Vec<_>>();
    assert_eq!(
        (times(&va), times(&vb)),
        before,
        "system times survive the migration"
    );

    use NodeState::{Active, Dormant};
    use VersionKind::{Changed, Created, Deleted};
    let want_a = vec![
        want(
            Created,
            None,
            "Alpha/alpha one",
            0.8,
            Active,
            &["ops"],
            None,
            false,
            false,
        ),
        want(
            Changed,
            Some("k1"),
            "Alpha/alpha one",
            0.5,
            Active,
            &["ops"],
            None,
            false,
            false,
        ),
        want(
            Changed,
            Some("k2"),
            "Alpha 2/alpha two",
            0.5,
            Active,
            &["ops"],
            None,
            false,
            false,
        ),
        want(
            Changed,
            Some("k3"),
            "Alpha 2/alpha two",
            0.5,
            Dormant,
            &["ops"],
            None,
            true,
            false,
        ),
        want(
            Changed,
            Some("k4"),
            "Alpha 2/alpha two",
            0.5,
            Dormant,
            &["x", "y"],
            Some("agent:z"),
            true,
            false,
        ),
    ];
    assert_eq!(va.iter().map(summary).collect::<Vec<_>>(), want_a);
    let conf = vb[0].confidence;
    let want_b = vec![
        want(
            Created,
            None,
            "Beta/beta one",
            conf,
            Active,
            &[],
            None,
            false,
            false,
        ),
        want(
            Changed,
            Some("k5"),
            "Beta/beta one",
            conf,
            Active,
            &[],
            None,
            false,
            true,
        ),
        want(
            Deleted,
            Some("k6"),
            "Beta/beta one",
            conf,
            Active,
            &[],
            None,
            false,
            true,
        ),
    ];
    assert_eq!(vb.iter().map(summary).collect::<Vec<_>>(), want_b);

    // New changes after the migration are versions in the new layout, read the same way.
    run(&format!(
        "update nodes set confidence = 0.25, changed_by = 'k7' where node_id = '{a}'"
    ))
    .await;
    let va = store.node_versions(a).await.expect("versions of a");
    assert_eq!(va.len(), 6);
    assert_eq!(va[4].confidence, 0.5);
    assert_eq!(va[5].confidence, 0.25);
    assert_eq!(va[5].standing, va[4].standing);
}

#[sqlx::test(migrations = false)]
async fn sqlite_versions_read_the_same_after_the_layout_migration(pool: sqlx::SqlitePool) {
    let p = pool.clone();
    old_layout_reads_back_the_same(
        async || Box::new(SqliteStore::from_pool(p.clone())) as Box<dyn Store>,
        async |dir| Migrator::new(dir).await.unwrap().run(&pool).await.unwrap(),
        async |sql| {
            let sql = sqlx::AssertSqlSafe(sql.to_owned());
            sqlx::query(sql).execute(&pool).await.unwrap();
        },
        async |id| {
            let texts: Vec<String> = sqlx::query_scalar(
                "select case when typeof(recorded_at) = 'integer' \
                 then strftime('%Y-%m-%dT%H:%M:%fZ', recorded_at / 1000.0, 'unixepoch') \
                 else recorded_at end from node_versions where node_id = $1 order by version",
            )
            .bind(id.to_string())
            .fetch_all(&pool)
            .await
            .unwrap();
            texts.iter().map(|t| time::parse(t).unwrap()).collect()
        },
        "migrations/sqlite",
    )
    .await;
}

#[sqlx::test(migrations = false)]
#[ignore = "needs PostgreSQL; scripts/test runs it with --include-ignored"]
async fn postgres_versions_read_the_same_after_the_layout_migration(pool: sqlx::PgPool) {
    let p = pool.clone();
    old_layout_reads_back_the_same(
        async || Box::new(PgStore::from_pool(p.clone())) as Box<dyn Store>,
        async |dir| Migrator::new(dir).await.unwrap().run(&pool).await.unwrap(),
        async |sql| {
            let sql = sqlx::AssertSqlSafe(sql.to_owned());
            sqlx::query(sql).execute(&pool).await.unwrap();
        },
        async |id| {
            sqlx::query_scalar(
                "select recorded_at from node_versions where node_id = $1 order by version",
            )
            .bind(id)
            .fetch_all(&pool)
            .await
            .unwrap()
        },
        "migrations/postgres",
    )
    .await;
}
