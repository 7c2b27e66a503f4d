//! `concord-bench`: a load generator for a running concord (`--url`) or one it starts itself on
//! a copy of a preloaded template database (the default). Each scenario runs `--runs` times and
//! reports every run and the medians: count, throughput, p50/p95/p99/max latency, errors, the
//! server's peak RSS, and for `write` and `resolve` the fraction of the in-process ceiling.

mod ceiling;
mod history;
mod http;
mod import;
mod numbered;
mod preload;
mod scenarios;
mod scopes;
mod server;
mod stats;
mod sweep;
mod text;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use preload::{Db, Env, Template};
use stats::{Summary, median, median_summary};

/// The server's allocator (see `src/main.rs`), so that the in-process ceiling runs the
/// service layer as the server does.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "concord-bench",
    about = "Load generator and ceiling for concord"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Args, Clone)]
struct Common {
    /// Database of the spawned server (and of the ceiling).
    #[arg(long, value_enum, default_value = "sqlite")]
    db: Db,
    /// PostgreSQL server for `--db postgres` (scratch databases are created and dropped there).
    #[arg(long, default_value = "postgres://postgres@127.0.0.1:5432")]
    pg_url: String,
    /// Drive this running server (`http://127.0.0.1:8080`) instead of spawning one; no
    /// preload, no ceiling, no RSS.
    #[arg(long)]
    url: Option<String>,
    /// The concord binary to spawn.
    #[arg(long, default_value = "target/release/concord")]
    server_bin: PathBuf,
    /// `CONCORD_LOG` of the spawned server.
    #[arg(long, default_value = "warn")]
    server_log: String,
    /// Repetitions; medians are reported.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Concurrent clients (one keep-alive connection each).
    #[arg(long, default_value_t = 4)]
    clients: usize,
    /// Seed of the generated text.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Templates and scratch databases (SQLite files) go here.
    #[arg(long, default_value = "target/bench")]
    work_dir: PathBuf,
    /// Skip the in-process ceiling.
    #[arg(long)]
    no_ceiling: bool,
    /// Start the load as soon as the server answers `/healthz`, while it may still be
    /// loading stored memories' analyses. By default the load waits until it has loaded
    /// them (`concord_analysis_warmup_running` 0 on `/metrics`), as in a server that has
    /// been up a while; the ceiling likewise loads them first.
    #[arg(long)]
    cold: bool,
    /// Append the medians as one JSON line to this file.
    #[arg(long)]
    json: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Cmd {
    /// `POST /nodes` with detection into a store of `--nodes` active nodes.
    Write {
        #[command(flatten)]
        common: Common,
        #[arg(long, default_value_t = 10_000)]
        nodes: u64,
        #[arg(long, default_value_t = 2_000)]
        requests: u64,
        /// Percent of writes that contradict a stored fact (another 40% relate to one).
        #[arg(long, default_value_t = 30)]
        contradict_pct: u64,
        /// Time the steps of `Detector::write_node` separately in the ceiling.
        #[arg(long)]
        breakdown: bool,
    },
    /// Each strategy over `--conflicts` pre-queued conflicts.
    Resolve {
        #[command(flatten)]
        common: Common,
        #[arg(long, default_value_t = 2_000)]
        conflicts: u64,
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "new_is_current,old_is_current,keep_both,merge"
        )]
        strategies: Vec<String>,
    },
    /// `GET /conflicts?limit=50` over `--pending` conflicts with `--body-bytes` bodies.
    List {
        #[command(flatten)]
        common: Common,
        #[arg(long, default_value_t = 10_000)]
        pending: u64,
        #[arg(long, default_value_t = 4096)]
        body_bytes: usize,
        #[arg(long, default_value_t = 2_000)]
        requests: u64,
    },
    /// Queue-to-reply time of `--clients` pollers waiting on `GET /conflicts/wake`.
    Wake {
        #[command(flatten)]
        common: Common,
        #[arg(long, default_value_t = 100)]
        rounds: u64,
        /// Queue the conflicts through this other instance (same database) instead, to time
        /// a wake across instances, e.g. `--url http://A --queue-url http://B`.
        #[arg(long)]
        queue_url: Option<String>,
    },
    /// `--clients` agents write and resolve while `--reviewers` list, for `--duration` s.
    Mixed {
        #[command(flatten)]
        common: Common,
        #[arg(long, default_value_t = 100_000)]
        nodes: u64,
        #[arg(long, default_value_t = 20)]
        duration: u64,
        #[arg(long, default_value_t = 1)]
        reviewers: usize,
    },
    /// Writes into a store of one templated fact per numbered service ("The cache ttl for
    /// service N is V units."): half change a stored service's value, half state a new
    /// service's. Reports the conflicts per write and those against another service.
    Numbered {
        #[command(flatten)]
        common: Common,
        #[arg(long, default_value_t = 2_000)]
        services: u64,
        #[arg(long, default_value_t = 400)]
        requests: u64,
    },
    /// Current and as-of reads over `--nodes` memories after `--changes` changes each (each
    /// change a version): `GET /nodes`, the same at a past `known_at` (halfway through the
    /// changes), and `GET /recall`; with the store's size before and after the changes.
    Reads {
        #[command(flatten)]
        common: Common,
        #[arg(long, default_value_t = 100_000)]
        nodes: u64,
        #[arg(long, default_value_t = 10)]
        changes: u64,
        #[arg(long, default_value_t = 2_000)]
        requests: u64,
        /// Also time the current reads on this concord binary, a build from before versions
        /// existed, on a copy of the same store with versions undone (SQLite only), right
        /// after the current build in each run: the A/B of what versions cost current reads.
        #[arg(long)]
        before_bin: Option<PathBuf>,
    },
    /// The same generated memories brought into fresh stores three ways in one sitting:
    /// `concord import` directly, `concord import --url`, and one client's `POST /nodes` one
    /// at a time; rates, ratios and the conflicts each queued. Also the direct import with
    /// `--no-detect`: the ceiling of a batch, what it costs when detection costs nothing.
    Import {
        #[command(flatten)]
        common: Common,
        #[arg(long, default_value_t = 100_000)]
        memories: u64,
        /// Percent of memories that change the value of a fact stated earlier in the file.
        #[arg(long, default_value_t = 10)]
        contradict_pct: u64,
    },
    /// The generated memories of `import` stored without detection, then swept: the sweep's
    /// rate, its conflicts against write-time detection's, and one client's write p50 idle
    /// and during a sweep.
    Sweep {
        #[command(flatten)]
        common: Common,
        #[arg(long, default_value_t = 100_000)]
        memories: u64,
        /// Percent of memories that change the value of a fact stated earlier in the file.
        #[arg(long, default_value_t = 10)]
        contradict_pct: u64,
    },
    /// Writes and resolutions with one admin key and with a key per scope, alternating in
    /// one sitting, over `--memories` memories in `--scopes` scopes: what scoped keys cost.
    Scopes {
        #[command(flatten)]
        common: Common,
        #[arg(long, default_value_t = 100_000)]
        memories: u64,
        #[arg(long, default_value_t = 100)]
        scopes: u64,
        /// Writes per run and key kind (each gets a conflict, resolved after).
        #[arg(long, default_value_t = 1_000)]
        requests: u64,
    },
    /// Builds a template only (untimed), e.g. before timing with hyperfine.
    Preload {
        #[command(flatten)]
        common: Common,
        #[arg(long, default_value_t = 10_000)]
        nodes: u64,
        #[arg(long, default_value_t = 0)]
        pending: u64,
        #[arg(long, default_value_t = 0)]
        body_bytes: usize,
    },
}

/// What one run measured.
#[derive(Default)]
struct Run {
    summaries: Vec<Summary>,
    /// Peak RSS of the spawned server, MiB.
    rss: Option<f64>,
    /// Named extra figures (ceiling fractions, detected conflicts, reply sizes).
    figures: BTreeMap<String, f64>,
}

impl Cmd {
    fn common(&self) -> &Common {
        match self {
            Cmd::Write { common, .. }
            | Cmd::Resolve { common, .. }
            | Cmd::List { common, .. }
            | Cmd::Wake { common, .. }
            | Cmd::Mixed { common, .. }
            | Cmd::Numbered { common, .. }
            | Cmd::Reads { common, .. }
            | Cmd::Import { common, .. }
            | Cmd::Sweep { common, .. }
            | Cmd::Scopes { common, .. }
            | Cmd::Preload { common, .. } => common,
        }
    }

    fn template(&self) -> Template {
        let t = |nodes, pairs, body| Template { nodes, pairs, body };
        match self {
            Cmd::Write { nodes, .. } | Cmd::Mixed { nodes, .. } | Cmd::Reads { nodes, .. } => {
                t(*nodes, 0, 0)
            }
            Cmd::Resolve { conflicts, .. } => t(1_000, *conflicts, 0),
            Cmd::List {
                pending,
                body_bytes,
                ..
            } => t(1_000, *pending, *body_bytes),
            Cmd::Wake { .. } => t(1_000, 0, 0),
            // Seeded through the API by the run itself: the facts are not the generator's.
            Cmd::Numbered { .. } | Cmd::Import { .. } | Cmd::Sweep { .. } | Cmd::Scopes { .. } => {
                t(0, 0, 0)
            }
            Cmd::Preload {
                nodes,
                pending,
                body_bytes,
                ..
            } => t(*nodes, *pending, *body_bytes),
        }
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let c = cli.cmd.common().clone();
    let env = Env {
        db: c.db,
        pg_url: c.pg_url.clone(),
        dir: c.work_dir.clone(),
        seed: c.seed,
    };
    if let Cmd::Preload { .. } = cli.cmd {
        env.ensure(cli.cmd.template()).await?;
        eprintln!("template ready");
        return Ok(());
    }
    if let Cmd::Import {
        memories,
        contradict_pct,
        ..
    } = cli.cmd
    {
        return import::run(&env, &c.server_bin, &c.server_log, memories, contradict_pct).await;
    }
    if let Cmd::Sweep {
        memories,
        contradict_pct,
        ..
    } = cli.cmd
    {
        return sweep::run(&env, &c.server_bin, &c.server_log, memories, contradict_pct).await;
    }
    if let Cmd::Scopes {
        memories,
        scopes,
        requests,
        ..
    } = cli.cmd
    {
        let (bin, log) = (&c.server_bin, &c.server_log);
        return scopes::run(
            &env, bin, log, memories, scopes, requests, c.clients, c.runs,
        )
        .await;
    }
    let mut runs = Vec::new();
    for r in 0..c.runs {
        eprintln!("run {}/{}", r + 1, c.runs);
        let run = once(&cli.cmd, &env, r).await?;
        print_run(&run);
        runs.push(run);
    }
    report(&cli.cmd, &c, &runs)
}

/// A scratch database and a spawned server on it, or the `--url` server.
struct Target {
    addr: String,
    server: Option<server::Server>,
    run_id: String,
}

async fn start(cmd: &Cmd, env: &Env, tag: &str) -> anyhow::Result<Target> {
    let c = cmd.common();
    let run_id = format!("{}_{tag}", std::process::id());
    if let Some(u) = &c.url {
        let addr = u
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_owned();
        return Ok(Target {
            addr,
            server: None,
            run_id,
        });
    }
    let url = env.scratch(cmd.template(), &run_id).await?;
    let server = server::Server::spawn(&c.server_bin, &url, &c.server_log, c.cold).await?;
    Ok(Target {
        addr: server.addr.clone(),
        server: Some(server),
        run_id,
    })
}

/// Stops the server; returns its peak RSS.
async fn finish(t: &mut Target, env: &Env) -> anyhow::Result<Option<f64>> {
    let rss = match &mut t.server {
        Some(s) => s.stop().await,
        None => None,
    };
    if t.server.is_some() {
        env.discard(&t.run_id).await?;
    }
    Ok(rss)
}

/// A fresh copy of the template for the ceiling, unless it is off or there is no template.
async fn ceiling_db(cmd: &Cmd, env: &Env, tag: &str) -> anyhow::Result<Option<(String, String)>> {
    let c = cmd.common();
    if c.no_ceiling || c.url.is_some() {
        return Ok(None);
    }
    let run_id = format!("{}_{tag}_ceiling", std::process::id());
    Ok(Some((env.scratch(cmd.template(), &run_id).await?, run_id)))
}

async fn once(cmd: &Cmd, env: &Env, r: usize) -> anyhow::Result<Run> {
    let c = cmd.common();
    let mut run = Run::default();
    match cmd {
        Cmd::Write {
            nodes,
            requests,
            contradict_pct,
            breakdown,
            ..
        } => {
            let mut t = start(cmd, env, &format!("w{r}")).await?;
            let (s, detected) = scenarios::write(
                &t.addr,
                c.clients,
                *requests,
                *nodes,
                c.seed,
                *contradict_pct,
            )
            .await;
            if let Some(cpu) = t.server.as_ref().and_then(|s| s.cpu_since_start()) {
                run.figures.insert(
                    "server CPU ms per write".into(),
                    cpu * 1000.0 / *requests as f64,
                );
            }
            run.rss = finish(&mut t, env).await?;
            run.figures
                .insert("conflicts detected".into(), detected as f64);
            if let Some((url, id)) = ceiling_db(cmd, env, &format!("w{r}")).await? {
                let ceil = ceiling::write(
                    &url,
                    c.clients,
                    *requests,
                    *nodes,
                    c.seed,
                    *contradict_pct,
                    ceiling::Options {
                        breakdown: *breakdown,
                        cold: c.cold,
                    },
                )
                .await?;
                env.discard(&id).await?;
                run.figures.insert(
                    "write fraction of ceiling".into(),
                    s.throughput / ceil.throughput,
                );
                run.summaries.push(ceil);
            }
            run.summaries.insert(0, s);
        }
        Cmd::Resolve { strategies, .. } => {
            for strategy in strategies {
                let tag = format!("r{r}_{strategy}");
                let mut t = start(cmd, env, &tag).await?;
                let ids = scenarios::pending_ids(&t.addr).await?;
                let s = scenarios::resolve(&t.addr, c.clients, ids.clone(), strategy).await;
                let rss = finish(&mut t, env).await?;
                run.rss = match (run.rss, rss) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    (a, b) => a.or(b),
                };
                if let Some((url, id)) = ceiling_db(cmd, env, &tag).await? {
                    let ceil = ceiling::resolve(&url, c.clients, &ids, strategy).await?;
                    env.discard(&id).await?;
                    run.figures.insert(
                        format!("resolve {strategy} fraction of ceiling"),
                        s.throughput / ceil.throughput,
                    );
                    run.summaries.push(s);
                    run.summaries.push(ceil);
                } else {
                    run.summaries.push(s);
                }
            }
        }
        Cmd::Reads {
            changes,
            requests,
            before_bin,
            ..
        } => {
            let run_id = format!("{}_h{r}", std::process::id());
            let url = env.scratch(cmd.template(), &run_id).await?;
            let before = history::size(&url).await?;
            let known = history::change_all(&url, *changes).await?;
            let after = history::size(&url).await?;
            if let (Some(b), Some(a)) = (before, after) {
                run.figures.insert("store MiB before the changes".into(), b);
                run.figures.insert("store MiB after the changes".into(), a);
            }
            if let (Some(bare), Some(a)) = (history::size_without_versions(&url).await?, after) {
                run.figures
                    .insert("store MiB without versions".into(), bare);
                run.figures
                    .insert("size with versions / without".into(), a / bare);
            }
            let server = server::Server::spawn(&c.server_bin, &url, &c.server_log, c.cold).await?;
            let mut t = Target {
                addr: server.addr.clone(),
                server: Some(server),
                run_id: run_id.clone(),
            };
            let now = concord::domain::time::format(&concord::domain::time::now());
            let as_of = format!("/nodes?limit=50&as_of={now}&known_at={known}");
            for (name, uri) in [
                ("current GET /nodes?limit=50", "/nodes?limit=50".to_owned()),
                ("as-of GET /nodes?limit=50 (past known_at)", as_of),
                (
                    "current GET /recall?q=ledger",
                    "/recall?q=ledger".to_owned(),
                ),
            ] {
                let s = scenarios::get(&t.addr, c.clients, *requests, name, &uri).await;
                run.summaries.push(s);
            }
            run.rss = finish(&mut t, env).await?;
            if let Some(bin) = before_bin {
                let url = env
                    .scratch(cmd.template(), &format!("{run_id}_before"))
                    .await?;
                // The same changes, so both files hold the same pages in the same places.
                history::change_all(&url, *changes).await?;
                history::undo_versions(&url).await?;
                let server = server::Server::spawn(bin, &url, &c.server_log, c.cold).await?;
                let mut t = Target {
                    addr: server.addr.clone(),
                    server: Some(server),
                    run_id: format!("{run_id}_before"),
                };
                for (name, uri) in [
                    (
                        "before versions: current GET /nodes?limit=50",
                        "/nodes?limit=50",
                    ),
                    (
                        "before versions: current GET /recall?q=ledger",
                        "/recall?q=ledger",
                    ),
                ] {
                    let s = scenarios::get(&t.addr, c.clients, *requests, name, uri).await;
                    run.summaries.push(s);
                }
                finish(&mut t, env).await?;
            }
        }
        Cmd::List { requests, .. } => {
            let mut t = start(cmd, env, &format!("l{r}")).await?;
            let (s, bytes) = scenarios::list(&t.addr, c.clients, *requests).await;
            run.rss = finish(&mut t, env).await?;
            run.figures.insert("mean reply bytes".into(), bytes);
            run.summaries.push(s);
        }
        Cmd::Wake {
            rounds, queue_url, ..
        } => {
            let mut t = start(cmd, env, &format!("k{r}")).await?;
            let queue_addr = queue_url
                .as_deref()
                .map(|u| u.trim_start_matches("http://"));
            let outcome = scenarios::wake(&t.addr, queue_addr, c.clients, *rounds).await;
            run.rss = finish(&mut t, env).await?;
            match outcome? {
                scenarios::Wake::Measured(s) => run.summaries.push(s),
                scenarios::Wake::Skipped(why) => {
                    eprintln!("wake skipped: {why}");
                }
            }
        }
        Cmd::Mixed {
            nodes,
            duration,
            reviewers,
            ..
        } => {
            let mut t = start(cmd, env, &format!("m{r}")).await?;
            let d = Duration::from_secs(*duration);
            run.summaries =
                scenarios::mixed(&t.addr, c.clients, *reviewers, d, *nodes, c.seed).await;
            run.rss = finish(&mut t, env).await?;
        }
        Cmd::Numbered {
            services, requests, ..
        } => {
            let mut t = start(cmd, env, &format!("n{r}")).await?;
            let ids = numbered::seed(&t.addr, *services).await?;
            let o = numbered::write(&t.addr, c.clients, ids.into(), *requests).await;
            run.rss = finish(&mut t, env).await?;
            let per = |n: u64, d: u64| n as f64 / d.max(1) as f64;
            let f = &mut run.figures;
            f.insert(
                "conflicts per changed fact".into(),
                per(o.changed_conflicts, o.changed_writes),
            );
            f.insert(
                "conflicts against another service".into(),
                o.other_subject as f64,
            );
            f.insert(
                "conflicts per new service's fact".into(),
                per(o.new_subject_conflicts, o.new_writes),
            );
            run.summaries.push(o.summary);
        }
        Cmd::Preload { .. } | Cmd::Import { .. } | Cmd::Sweep { .. } | Cmd::Scopes { .. } => {
            unreachable!("handled in main")
        }
    }
    Ok(run)
}

fn print_run(run: &Run) {
    println!("{}", Summary::header());
    for s in &run.summaries {
        println!("{}", s.line());
    }
    for (k, v) in &run.figures {
        println!("  {k}: {v:.3}");
    }
    if let Some(rss) = run.rss {
        println!("  server peak RSS: {rss:.1} MiB");
    }
}

fn report(cmd: &Cmd, c: &Common, runs: &[Run]) -> anyhow::Result<()> {
    let mut by_name: BTreeMap<String, Vec<Summary>> = BTreeMap::new();
    let mut order = Vec::new();
    for run in runs {
        for s in &run.summaries {
            if !by_name.contains_key(&s.name) {
                order.push(s.name.clone());
            }
            by_name.entry(s.name.clone()).or_default().push(s.clone());
        }
    }
    let medians: Vec<Summary> = order.iter().map(|n| median_summary(&by_name[n])).collect();
    let mut figures = BTreeMap::new();
    for run in runs {
        for (k, v) in &run.figures {
            figures.entry(k.clone()).or_insert_with(Vec::new).push(*v);
        }
    }
    let figures: BTreeMap<String, f64> =
        figures.into_iter().map(|(k, v)| (k, median(&v))).collect();
    let rss: Vec<f64> = runs.iter().filter_map(|r| r.rss).collect();
    let t = cmd.template();
    println!(
        "\nmedians of {} runs ({:?}, {} clients, store: {} nodes + {} pending conflicts, bodies {} B)",
        runs.len(),
        c.db,
        c.clients,
        t.nodes,
        t.pairs,
        t.body
    );
    println!("{}", Summary::header());
    for s in &medians {
        println!("{}", s.line());
    }
    for (k, v) in &figures {
        println!("  {k}: {v:.3}");
    }
    let rss = (!rss.is_empty()).then(|| median(&rss));
    if let Some(rss) = rss {
        println!("  server peak RSS: {rss:.1} MiB");
    }
    if let Some(path) = &c.json {
        use std::io::Write;
        let line = serde_json::json!({
            "scenario": std::env::args().nth(1),
            "db": format!("{:?}", c.db).to_lowercase(),
            "clients": c.clients,
            "nodes": t.nodes,
            "pending": t.pairs,
            "runs": runs.len(),
            "medians": medians,
            "figures": figures,
            "server_peak_rss_mib": rss,
        });
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        writeln!(f, "{line}")?;
    }
    Ok(())
}
