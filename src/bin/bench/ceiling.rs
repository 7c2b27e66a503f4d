//! The ceiling: the same store calls the handlers make (`Store::resolve_conflict` for a
//! resolution, `Detector::write_node` for a write), in process, with no HTTP, over a fresh
//! copy of the same template, in the same loop shape (same client count, shared counter).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use concord::config::Settings;
use concord::domain::contradiction::{index_tokens, subject_names};
use concord::domain::plan::Resolve;
use concord::service::detect::{Detector, MAX_CANDIDATES, Probe};
use concord::service::warmup;
use concord::store::sqlite::Synchronous;
use concord::store::{self, CandidateQuery, Store};

/// The durability the spawned server runs with (`CONCORD_SQLITE_SYNCHRONOUS`, default full),
/// so the in-process ceiling is measured under the same setting.
fn synchronous() -> Synchronous {
    std::env::var("CONCORD_SQLITE_SYNCHRONOUS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_default()
}
use uuid::Uuid;

use crate::preload::new_node;
use crate::stats::{Samples, Summary};
use crate::text;

async fn drive<F, Fut>(store: Arc<dyn Store>, clients: usize, f: F) -> (Samples, f64)
where
    F: Fn(Arc<dyn Store>) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = Samples> + Send + 'static,
{
    let started = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|_| tokio::spawn(f.clone()(store.clone())))
        .collect();
    let mut all = Samples::default();
    for t in tasks {
        if let Ok(s) = t.await {
            all.merge(s);
        }
    }
    (all, started.elapsed().as_secs_f64())
}

pub async fn resolve(
    url: &str,
    clients: usize,
    ids: &[String],
    strategy: &str,
) -> anyhow::Result<Summary> {
    let store = store::connect_with(url, synchronous()).await?;
    let ids: Arc<Vec<Uuid>> = Arc::new(ids.iter().filter_map(|s| s.parse().ok()).collect());
    let strategy = strategy.to_owned();
    let next = Arc::new(AtomicU64::new(0));
    let s2 = strategy.clone();
    let (samples, secs) = drive(store, clients, move |store| {
        let (ids, next, strategy) = (ids.clone(), next.clone(), s2.clone());
        async move {
            let mut s = Samples::default();
            loop {
                let n = next.fetch_add(1, Ordering::Relaxed) as usize;
                let Some(id) = ids.get(n) else { return s };
                let req = Resolve::parse(*id, &strategy, None, Some("bench".into()), None)
                    .expect("valid strategy");
                let t = Instant::now();
                match store.resolve_conflict(req).await {
                    Ok(_) => s.ok(t.elapsed()),
                    Err(e) => s.error(format!("{e}")),
                }
            }
        }
    })
    .await;
    Ok(samples.summary(
        &format!("ceiling resolve {strategy}"),
        Duration::from_secs_f64(secs),
    ))
}

/// How the ceiling runs: with each step timed (`--breakdown`), and whether it starts before
/// stored memories' analyses are loaded (`--cold`).
#[derive(Clone, Copy)]
pub struct Options {
    pub breakdown: bool,
    pub cold: bool,
}

pub async fn write(
    url: &str,
    clients: usize,
    requests: u64,
    nodes: u64,
    seed: u64,
    contradict_pct: u64,
    Options { breakdown, cold }: Options,
) -> anyhow::Result<Summary> {
    let store = store::connect_with(url, synchronous()).await?;
    let detector = Arc::new(Detector::new(&Settings::for_database(url)));
    if !cold {
        warmup::fill(store.as_ref(), detector.analyses()).await?;
    }
    let next = Arc::new(AtomicU64::new(0));
    let (samples, secs) = drive(store, clients, move |store| {
        let (next, detector) = (next.clone(), detector.clone());
        async move {
            let mut s = Samples::default();
            let mut parts: [Samples; 5] = Default::default();
            loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                if n >= requests {
                    if breakdown {
                        let names = [
                            "find (candidates+judge)",
                            "to_conflicts",
                            "create_node",
                            "store.candidates alone",
                            "candidates returned (x1000)",
                        ];
                        for (name, p) in names.iter().zip(parts.iter()) {
                            let m = p.summary(name, Duration::from_secs(1));
                            eprintln!(
                                "  breakdown {name}: p50 {:.2} ms p95 {:.2} ms",
                                m.p50_ms, m.p95_ms
                            );
                        }
                    }
                    return s;
                }
                let body = text::write_body(seed, nodes, n, contradict_pct);
                let t = Instant::now();
                // Parsing the node is part of the handler's work, so it is timed here too.
                let node = new_node(&body);
                if breakdown {
                    // The steps of `Detector::write_node`, timed one by one.
                    match steps(&detector, &*store, node, &mut parts).await {
                        Ok(()) => s.ok(t.elapsed()),
                        Err(e) => s.error(format!("{e}")),
                    }
                    continue;
                }
                match detector.write_node(&*store, node, true, None).await {
                    Ok(_) => s.ok(t.elapsed()),
                    Err(e) => s.error(format!("{e}")),
                }
            }
        }
    })
    .await;
    Ok(samples.summary("ceiling write_node", Duration::from_secs_f64(secs)))
}

async fn steps(
    detector: &Detector,
    store: &dyn Store,
    node: concord::domain::node::NewNode,
    parts: &mut [Samples; 5],
) -> anyhow::Result<()> {
    let probe = Probe::of_new(&node);
    let mut tokens = index_tokens(probe.title, probe.body);
    tokens.sort_by_key(|t| std::cmp::Reverse(t.chars().count()));
    tokens.truncate(48);
    let t = Instant::now();
    let query = CandidateQuery {
        exclude: None,
        scope: node.scope.clone(),
        memory_type: node.memory_type.clone(),
        tokens,
        names: subject_names(probe.title, probe.body),
        labels: node.labels.clone(),
        with_embedding: false,
        limit: MAX_CANDIDATES,
        newest: 0,
        before: None,
        docs: None,
        hits: None,
    };
    let n = store.candidates(query).await?.len();
    parts[3].ok(t.elapsed());
    parts[4].ok(Duration::from_millis(n as u64));
    let t = Instant::now();
    let findings = detector.find(store, &probe, None).await?;
    parts[0].ok(t.elapsed());
    let t = Instant::now();
    let found = detector
        .to_conflicts(store, &probe, node.id, findings)
        .await?;
    parts[1].ok(t.elapsed());
    let t = Instant::now();
    store.create_node(node, found).await?;
    parts[2].ok(t.elapsed());
    Ok(())
}
