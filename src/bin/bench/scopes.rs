//! `scopes`: what keys bound to scopes cost (issue 36). One store of `memories` memories spread
//! over `scopes` scopes (imported directly, without detection) and one server with an admin
//! key of every scope; then, in one sitting and alternating which goes first, the same load
//! with the admin key and with keys of one scope each: `requests` writes (`POST /nodes` with
//! detection, each changing the value of a stored fact of its scope), then a `keep_both`
//! resolution of a conflict queued by hand (untimed) for each write. The scoped
//! variant writes with the scope's agent key and resolves with its reviewer key. Medians of
//! the runs' p50s, and the ratios.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

use crate::http::Client;
use crate::import;
use crate::preload::{Env, Template};
use crate::server::Server;
use crate::stats::{Samples, median};
use crate::text::{self, Rng};

const ADMIN: &str = "bench-admin-key";

fn scope_of(i: u64, scopes: u64) -> String {
    format!("tenant-{:03}", i % scopes)
}

/// Generates (once) the file of `memories` facts, fact `i` in scope `i mod scopes`.
fn generate(dir: &Path, seed: u64, memories: u64, scopes: u64) -> anyhow::Result<PathBuf> {
    let path = dir.join(format!("scopes_{memories}_{scopes}_s{seed}.jsonl"));
    if path.exists() {
        return Ok(path);
    }
    std::fs::create_dir_all(dir)?;
    let tmp = path.with_extension("tmp");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
    for i in 0..memories {
        let mut line = text::fact(seed, i).stored(0);
        line["scope"] = json!(scope_of(i, scopes));
        serde_json::to_writer(&mut out, &line)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    drop(out);
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}

/// Which keys a variant uses.
#[derive(Clone, Copy, PartialEq)]
enum Keys {
    Admin,
    Scoped,
}

impl Keys {
    fn name(self) -> &'static str {
        match self {
            Keys::Admin => "one admin key",
            Keys::Scoped => "a key per scope",
        }
    }
}

/// Per scope: (agent key, reviewer key).
type ScopeKeys = Vec<(String, String)>;

#[allow(clippy::too_many_arguments)]
pub async fn run(
    env: &Env,
    bin: &Path,
    log: &str,
    memories: u64,
    scopes: u64,
    requests: u64,
    clients: usize,
    runs: usize,
) -> anyhow::Result<()> {
    let file = generate(&env.dir, env.seed, memories, scopes)?;
    let empty = Template {
        nodes: 0,
        pairs: 0,
        body: 0,
    };
    let url = env.scratch(empty, "scopes").await?;
    eprintln!("importing {memories} memories in {scopes} scopes");
    import::import(
        bin,
        "import",
        &file,
        &["--database-url", &url, "--no-detect"],
    )?;
    let mut server = Server::spawn_keyed(bin, &url, log, false, Some(ADMIN)).await?;
    let measured = measure(env, &server.addr, scopes, memories, requests, clients, runs).await;
    server.stop().await;
    env.discard("scopes").await?;
    report(&measured?, env, memories, scopes, requests, clients);
    Ok(())
}

/// The runs, each with both kinds of keys; `(keys, write p50, resolve p50)` per load.
async fn measure(
    env: &Env,
    addr: &str,
    scopes: u64,
    memories: u64,
    requests: u64,
    clients: usize,
    runs: usize,
) -> anyhow::Result<Vec<(Keys, f64, f64)>> {
    let keys = make_keys(addr, scopes).await?;
    let mut results: Vec<(Keys, f64, f64)> = Vec::new();
    let mut next = 0u64;
    for r in 0..runs {
        let order = if r % 2 == 0 {
            [Keys::Admin, Keys::Scoped]
        } else {
            [Keys::Scoped, Keys::Admin]
        };
        for keys_used in order {
            let (write, resolve) = load(
                addr,
                env.seed,
                keys_used,
                &keys,
                (memories, scopes),
                next,
                requests,
                clients,
            )
            .await?;
            next += requests;
            eprintln!(
                "run {}/{runs}, {}: write p50 {write:.2} ms, resolve p50 {resolve:.2} ms",
                r + 1,
                keys_used.name()
            );
            results.push((keys_used, write, resolve));
        }
    }
    Ok(results)
}

/// An agent and a reviewer key for each scope, made with the admin key.
async fn make_keys(addr: &str, scopes: u64) -> anyhow::Result<ScopeKeys> {
    let mut c = Client::new(addr);
    c.key = Some(ADMIN.to_owned());
    let mut out = Vec::new();
    for s in 0..scopes {
        let scope = scope_of(s, scopes);
        let mut pair = Vec::new();
        for role in ["agent", "reviewer"] {
            let body = json!({"name": format!("{scope}-{role}-{}", std::process::id()),
                "role": role, "scopes": [scope]});
            let r = c.post("/keys", &body).await?;
            if r.status != 201 {
                bail!("POST /keys answered {}", r.status);
            }
            pair.push(r.json()?["key"].as_str().context("no key")?.to_owned());
        }
        out.push((pair[0].clone(), pair[1].clone()));
    }
    Ok(out)
}

/// The writes, then the resolutions of what they queued; the p50s in ms.
#[allow(clippy::too_many_arguments)]
async fn load(
    addr: &str,
    seed: u64,
    keys_used: Keys,
    keys: &ScopeKeys,
    (memories, scopes): (u64, u64),
    first: u64,
    requests: u64,
    clients: usize,
) -> anyhow::Result<(f64, f64)> {
    let keys = std::sync::Arc::new(keys.clone());
    let key_of = move |scope: u64, reviewer: bool| match keys_used {
        Keys::Admin => ADMIN.to_owned(),
        Keys::Scoped => {
            let (agent, review) = &keys[scope as usize];
            if reviewer { review } else { agent }.clone()
        }
    };
    // Writes: each client its share, one connection per key it uses.
    let mut tasks = Vec::new();
    for c in 0..clients as u64 {
        let addr = addr.to_owned();
        let key_of = key_of.clone();
        tasks.push(tokio::spawn(async move {
            let mut rng = Rng::new(seed ^ (first + c));
            let mut samples = Samples::default();
            let mut queued: Vec<(u64, String)> = Vec::new();
            let mut detected = 0u64;
            let mut conns: std::collections::HashMap<u64, Client> = Default::default();
            for _ in 0..requests / clients as u64 {
                let target = rng.below(memories);
                let scope = target % scopes;
                let mut body: Value = text::fact(seed, target).changed(0);
                body["scope"] = json!(scope_of(target, scopes));
                let client = conns.entry(scope).or_insert_with(|| {
                    let mut cl = Client::new(&addr);
                    cl.key = Some(key_of(scope, false));
                    cl
                });
                let started = Instant::now();
                match client.post("/nodes", &body).await {
                    Ok(r) if matches!(r.status, 200 | 201) => {
                        samples.ok(started.elapsed());
                        let written = r.json()?;
                        detected += written["conflicts"].as_array().map_or(0, Vec::len) as u64;
                        // A conflict to resolve for every write, queued by hand (untimed):
                        // how many detection finds depends on the store, not on the keys.
                        let manual = json!({"old_node_id": written["node"]["id"],
                            "new_content": "The value was changed by hand."});
                        let q = client.post("/conflicts", &manual).await?;
                        let id = q.json()?["id"].as_str().map(str::to_owned);
                        match id {
                            Some(id) if q.status == 201 => queued.push((scope, id)),
                            _ => samples.error(format!("queue status {}", q.status)),
                        }
                    }
                    Ok(r) => samples.error(format!("status {}", r.status)),
                    Err(_) => samples.error("transport"),
                }
            }
            anyhow::Ok((samples, queued, detected))
        }));
    }
    let mut writes = Samples::default();
    let (mut queued, mut detected) = (Vec::new(), 0);
    for t in tasks {
        let (s, q, d) = t.await??;
        writes.merge(s);
        queued.extend(q);
        detected += d;
    }
    let queued_total = queued.len();
    // Resolutions, split over the clients.
    let mut tasks = Vec::new();
    let share = queued.len().div_ceil(clients.max(1));
    for chunk in queued.chunks(share.max(1)) {
        let addr = addr.to_owned();
        let key_of = key_of.clone();
        let chunk = chunk.to_vec();
        tasks.push(tokio::spawn(async move {
            let mut samples = Samples::default();
            let mut conns: std::collections::HashMap<u64, Client> = Default::default();
            for (scope, id) in chunk {
                let client = conns.entry(scope).or_insert_with(|| {
                    let mut cl = Client::new(&addr);
                    cl.key = Some(key_of(scope, true));
                    cl
                });
                let started = Instant::now();
                let body = json!({"resolution": "keep_both"});
                match client
                    .post(&format!("/conflicts/{id}/resolve"), &body)
                    .await
                {
                    Ok(r) if r.status == 200 => samples.ok(started.elapsed()),
                    Ok(r) => samples.error(format!("status {}", r.status)),
                    Err(_) => samples.error("transport"),
                }
            }
            samples
        }));
    }
    let mut resolves = Samples::default();
    for t in tasks {
        resolves.merge(t.await?);
    }
    for (what, s) in [("writes", &writes), ("resolutions", &resolves)] {
        if !s.errors.is_empty() {
            bail!("{what} failed: {:?}", s.errors);
        }
        if s.micros.is_empty() {
            bail!("no {what} were made");
        }
    }
    let p50 = |s: &Samples| s.summary("", Duration::from_secs(1)).p50_ms;
    eprintln!(
        "  {} writes, {detected} conflicts detected; {queued_total} resolutions",
        writes.micros.len()
    );
    Ok((p50(&writes), p50(&resolves)))
}

fn report(
    results: &[(Keys, f64, f64)],
    env: &Env,
    memories: u64,
    scopes: u64,
    requests: u64,
    clients: usize,
) {
    println!(
        "database: {:?}; {memories} memories in {scopes} scopes; {requests} writes and the \
         resolutions of what they queued per run, {clients} clients",
        env.db
    );
    println!(
        "{:<18} {:>16} {:>18}",
        "keys", "write p50 (ms)", "resolve p50 (ms)"
    );
    let mut medians = Vec::new();
    for k in [Keys::Admin, Keys::Scoped] {
        let w: Vec<f64> = results.iter().filter(|r| r.0 == k).map(|r| r.1).collect();
        let v: Vec<f64> = results.iter().filter(|r| r.0 == k).map(|r| r.2).collect();
        let (w, v) = (median(&w), median(&v));
        println!("{:<18} {w:>16.2} {v:>18.2}", k.name());
        medians.push((w, v));
    }
    println!(
        "scoped / admin: writes {:.3}x, resolutions {:.3}x",
        medians[1].0 / medians[0].0,
        medians[1].1 / medians[0].1
    );
}
