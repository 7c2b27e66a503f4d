//! Untimed preloading through the library (`Store::create_node`), kept as templates: a SQLite
//! file under the work directory or a PostgreSQL database `concord_bench_tpl_*`. A template is
//! built once (under a temporary name, renamed when complete) and copied for every run, so each
//! run starts from the same state and the 100k preload is paid once.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::Context;
use concord::domain::conflict::{Detection, NewConflict, Recommendation, Strategy};
use concord::domain::edge::{CONTRADICTS, Edge};
use concord::domain::node::{NewNode, NodeInput};
use concord::domain::time;
use concord::store::{self, DetectedConflict, Store};
use serde_json::Value;
use sqlx::{AssertSqlSafe, Connection};
use uuid::Uuid;

use crate::text;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Db {
    Sqlite,
    Postgres,
}

/// Where templates and scratch databases live.
#[derive(Clone)]
pub struct Env {
    pub db: Db,
    /// Server URL without a database path, e.g. `postgres://postgres@127.0.0.1:5432`.
    pub pg_url: String,
    pub dir: PathBuf,
    pub seed: u64,
}

/// What a template holds: `nodes` active facts, then `pairs` pending conflicts between
/// facts padded to `body` bytes.
#[derive(Clone, Copy, Debug)]
pub struct Template {
    pub nodes: u64,
    pub pairs: u64,
    pub body: usize,
}

impl Template {
    fn name(&self, seed: u64) -> String {
        format!("n{}_c{}_b{}_s{}", self.nodes, self.pairs, self.body, seed)
    }
}

impl Env {
    fn sqlite_path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.db"))
    }

    fn pg(&self, db: &str) -> String {
        format!("{}/{db}", self.pg_url.trim_end_matches('/'))
    }

    async fn admin(&self) -> anyhow::Result<sqlx::PgConnection> {
        sqlx::PgConnection::connect(&self.pg("postgres"))
            .await
            .context("connect to PostgreSQL (--pg-url)")
    }

    /// Builds the template unless it exists.
    pub async fn ensure(&self, t: Template) -> anyhow::Result<()> {
        let name = t.name(self.seed);
        match self.db {
            Db::Sqlite => {
                let path = self.sqlite_path(&format!("tpl_{name}"));
                if path.exists() {
                    return Ok(());
                }
                std::fs::create_dir_all(&self.dir)?;
                let tmp = self.sqlite_path(&format!("tmp_{name}"));
                remove_sqlite(&tmp);
                let url = format!("sqlite://{}", tmp.display());
                build(&url, t, self.seed).await?;
                // Fold the WAL into the main file so one file is the whole template.
                let mut c = sqlx::SqliteConnection::connect(&url).await?;
                sqlx::query("pragma wal_checkpoint(truncate)")
                    .execute(&mut c)
                    .await?;
                c.close().await?;
                std::fs::rename(&tmp, &path)?;
                remove_sqlite(&tmp);
            }
            Db::Postgres => {
                let tpl = format!("concord_bench_tpl_{name}");
                let mut admin = self.admin().await?;
                let exists: Option<i32> =
                    sqlx::query_scalar("select 1 from pg_database where datname = $1")
                        .bind(&tpl)
                        .fetch_optional(&mut admin)
                        .await?;
                if exists.is_some() {
                    return Ok(());
                }
                let tmp = format!("concord_bench_tmp_{name}");
                drop_pg(&mut admin, &tmp).await?;
                sqlx::query(AssertSqlSafe(format!("create database {tmp}")))
                    .execute(&mut admin)
                    .await?;
                build(&self.pg(&tmp), t, self.seed).await?;
                // What autovacuum does to a store that has lived a while: statistics for the
                // planner and the candidate search, and a visibility map, so that index-only
                // scans read no heap pages.
                let mut c = sqlx::PgConnection::connect(&self.pg(&tmp)).await?;
                sqlx::query("vacuum analyze").execute(&mut c).await?;
                c.close().await?;
                // The dropped pool's connections may linger; renaming needs them gone.
                terminate(&mut admin, &tmp).await?;
                sqlx::query(AssertSqlSafe(format!(
                    "alter database {tmp} rename to {tpl}"
                )))
                .execute(&mut admin)
                .await?;
            }
        }
        Ok(())
    }

    /// A fresh copy of the template for one run; returns its database URL.
    pub async fn scratch(&self, t: Template, run: &str) -> anyhow::Result<String> {
        self.ensure(t).await?;
        let name = t.name(self.seed);
        match self.db {
            Db::Sqlite => {
                let path = self.sqlite_path(&format!("run_{run}"));
                remove_sqlite(&path);
                std::fs::copy(self.sqlite_path(&format!("tpl_{name}")), &path)?;
                Ok(format!("sqlite://{}", path.display()))
            }
            Db::Postgres => {
                let tpl = format!("concord_bench_tpl_{name}");
                let db = format!("concord_bench_run_{run}");
                let mut admin = self.admin().await?;
                drop_pg(&mut admin, &db).await?;
                terminate(&mut admin, &tpl).await?;
                sqlx::query(AssertSqlSafe(format!(
                    "create database {db} template {tpl}"
                )))
                .execute(&mut admin)
                .await?;
                Ok(self.pg(&db))
            }
        }
    }

    /// Removes a scratch database made by `scratch`.
    pub async fn discard(&self, run: &str) -> anyhow::Result<()> {
        match self.db {
            Db::Sqlite => remove_sqlite(&self.sqlite_path(&format!("run_{run}"))),
            Db::Postgres => {
                let mut admin = self.admin().await?;
                drop_pg(&mut admin, &format!("concord_bench_run_{run}")).await?;
            }
        }
        Ok(())
    }
}

fn remove_sqlite(path: &std::path::Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

async fn terminate(admin: &mut sqlx::PgConnection, db: &str) -> anyhow::Result<()> {
    sqlx::query(
        "select pg_terminate_backend(pid) from pg_stat_activity \
         where datname = $1 and pid <> pg_backend_pid()",
    )
    .bind(db)
    .execute(&mut *admin)
    .await?;
    Ok(())
}

async fn drop_pg(admin: &mut sqlx::PgConnection, db: &str) -> anyhow::Result<()> {
    sqlx::query(AssertSqlSafe(format!(
        "drop database if exists {db} with (force)"
    )))
    .execute(&mut *admin)
    .await?;
    Ok(())
}

/// A node from the JSON body a client would send.
pub fn new_node(v: &Value) -> NewNode {
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    let input = NodeInput {
        title: s("title"),
        body: s("body"),
        labels: v.get("labels").and_then(Value::as_array).map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_owned))
                .collect()
        }),
        source: s("source"),
        confidence: v.get("confidence").and_then(Value::as_f64),
        ..NodeInput::default()
    };
    NewNode::parse(input, time::now()).expect("generated nodes are valid")
}

async fn build(url: &str, t: Template, seed: u64) -> anyhow::Result<()> {
    let store = store::connect(url).await?;
    eprintln!("preloading {t:?} into a template (once; reused by later runs)");
    let started = std::time::Instant::now();
    parallel(&store, t.nodes, move |store, i| async move {
        let mut f = text::fact(seed, i);
        store
            .create_node(new_node(&f.stored(0)), Vec::new())
            .await?;
        Ok(())
    })
    .await?;
    parallel(&store, t.pairs, move |store, k| async move {
        let mut f = text::fact(seed, 500_000_000 + k);
        let old = new_node(&f.stored(t.body));
        let new = new_node(&f.changed(t.body));
        let (old, _) = store.create_node(old, Vec::new()).await?;
        let found = vec![detected(old.id, new.id)];
        store.create_node(new, found).await?;
        Ok(())
    })
    .await?;
    eprintln!("preload done in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// What detection would have written for a value change of `old` by `new`.
fn detected(old: Uuid, new: Uuid) -> DetectedConflict {
    DetectedConflict {
        conflict: NewConflict {
            id: Uuid::now_v7(),
            old_node_id: old,
            new_node_id: Some(new),
            new_content: None,
            conflict_type: "numeric-mismatch".into(),
            detection: Detection {
                tier: "heuristic".into(),
                probability: 0.8,
                signals: vec!["value_change".into()],
                overlap: Some(0.6),
                similarity: None,
                explanation: "the same setting with another value".into(),
                llm_fallback: None,
                policy: None,
            },
            recommendation: Recommendation {
                resolution: "prefer-recent".into(),
                strategy: Some(Strategy::NewIsCurrent),
                reasoning: "the newer statement is not less credible".into(),
            },
            note: None,
            created_at: time::now(),
            key: None,
        },
        edge: Edge::system(new, old, CONTRADICTS, 0.8),
        resolve: None,
        quarantine: false,
    }
}

/// Runs `f(store, i)` for i in 0..n on a few tasks, printing progress.
async fn parallel<F, Fut>(store: &Arc<dyn Store>, n: u64, f: F) -> anyhow::Result<()>
where
    F: Fn(Arc<dyn Store>, u64) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = anyhow::Result<()>> + Send,
{
    let next = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for _ in 0..6 {
        let (store, next, f) = (store.clone(), next.clone(), f.clone());
        tasks.push(tokio::spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    return Ok::<_, anyhow::Error>(());
                }
                if i > 0 && i % 20_000 == 0 {
                    eprintln!("  {i}/{n}");
                }
                f(store.clone(), i).await?;
            }
        }));
    }
    for t in tasks {
        t.await??;
    }
    Ok(())
}
