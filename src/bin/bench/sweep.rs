//! `sweep`: the generated memories of `import`, stored without detection, then swept
//! (`POST /sweeps` on a spawned server), in one sitting: the sweep's rate, the conflicts it
//! queued against those `concord import` with detection queued for the same memories, and one
//! client's write latency (`POST /nodes`) idle and while a sweep runs on a second copy.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::http::Client;
use crate::import;
use crate::preload::{Env, Template};
use crate::server::Server;
use crate::stats::median;
use crate::text;

/// Writes timed while the server is idle.
const IDLE_WRITES: u64 = 500;
/// How long the writer writes once the sweep started; then the sweep runs on alone.
const WRITE_FOR: Duration = Duration::from_secs(60);

pub async fn run(
    env: &Env,
    bin: &Path,
    log: &str,
    memories: u64,
    contradict_pct: u64,
) -> anyhow::Result<()> {
    let file = import::generate(&env.dir, env.seed, memories, contradict_pct)?;
    eprintln!("input: {} ({memories} memories)", file.display());
    let empty = Template {
        nodes: 0,
        pairs: 0,
        body: 0,
    };

    eprintln!("reference: concord import with detection");
    let url = env.scratch(empty, "sweep_ref").await?;
    let reference = import::import(bin, "import", &file, &["--database-url", &url])?;
    env.discard("sweep_ref").await?;

    eprintln!("a sweep alone");
    let url = env.scratch(empty, "sweep_alone").await?;
    import::import(
        bin,
        "import",
        &file,
        &["--database-url", &url, "--no-detect"],
    )?;
    let mut server = Server::spawn(bin, &url, log, false).await?;
    let alone = sweep(&server.addr, None).await?;
    let pending = import::pending(&server.addr).await?;
    server.stop().await;
    env.discard("sweep_alone").await?;
    if pending != alone.queued {
        bail!(
            "the sweep reported {} conflicts, the queue holds {pending}",
            alone.queued
        );
    }

    eprintln!("writes idle, then during a sweep");
    let url = env.scratch(empty, "sweep_writes").await?;
    import::import(
        bin,
        "import",
        &file,
        &["--database-url", &url, "--no-detect"],
    )?;
    let mut server = Server::spawn(bin, &url, log, false).await?;
    let mut writer = Writer::new(&server.addr, env.seed, memories);
    let mut idle = Vec::new();
    for _ in 0..IDLE_WRITES {
        idle.push(writer.write().await?);
    }
    let mut during = Vec::new();
    let loaded = sweep(&server.addr, Some((&mut writer, &mut during))).await?;
    server.stop().await;
    env.discard("sweep_writes").await?;

    println!("database: {:?}", env.db);
    println!(
        "memories {memories}, compared by the sweep {}; conflicts: write-time detection {}, sweep {}",
        alone.compared, reference.conflicts, alone.queued
    );
    println!(
        "sweep alone: {:.1} s, {:.0} memories/s",
        alone.seconds,
        alone.compared as f64 / alone.seconds
    );
    println!(
        "sweep with one writer: {:.0} memories/s while it wrote ({} compared in {:.1} s)",
        loaded.compared_writing as f64 / loaded.writing_seconds,
        loaded.compared_writing,
        loaded.writing_seconds
    );
    let (idle_p50, during_p50) = (median(&idle), median(&during));
    println!(
        "POST /nodes p50: idle {idle_p50:.2} ms ({} writes), during the sweep {during_p50:.2} ms ({} writes): {:.2}x",
        idle.len(),
        during.len(),
        during_p50 / idle_p50
    );
    Ok(())
}

/// How a sweep went.
struct Swept {
    compared: u64,
    queued: u64,
    seconds: f64,
    /// Compared while the writer wrote, and for how long it wrote.
    compared_writing: u64,
    writing_seconds: f64,
}

/// Starts a sweep on `addr` and follows it until it is done; with a writer, writes one fact
/// after another meanwhile, each latency kept.
async fn sweep(
    addr: &str,
    mut writing: Option<(&mut Writer, &mut Vec<f64>)>,
) -> anyhow::Result<Swept> {
    let mut client = Client::new(addr);
    let started = Instant::now();
    let reply = client.post("/sweeps", &serde_json::json!({})).await?;
    if reply.status != 202 {
        bail!("POST /sweeps answered {}", reply.status);
    }
    let id = reply.json()?["id"].as_str().context("no id")?.to_owned();
    let mut looked = Instant::now();
    let (mut compared_writing, mut writing_seconds) = (0, 0.0);
    loop {
        match &mut writing {
            Some((writer, latencies)) if started.elapsed() < WRITE_FOR => {
                latencies.push(writer.write().await?);
            }
            _ => tokio::time::sleep(Duration::from_millis(100)).await,
        }
        if looked.elapsed() < Duration::from_millis(100) {
            continue;
        }
        looked = Instant::now();
        let s = client.get(&format!("/sweeps/{id}")).await?.json()?;
        let compared = s["compared"].as_u64().unwrap_or(0);
        if writing.is_some() && started.elapsed() < WRITE_FOR {
            (compared_writing, writing_seconds) = (compared, started.elapsed().as_secs_f64());
        }
        match s["status"].as_str() {
            Some("running") => {}
            Some("done") => {
                return Ok(Swept {
                    compared,
                    queued: s["conflicts_queued"].as_u64().unwrap_or(0),
                    seconds: started.elapsed().as_secs_f64(),
                    compared_writing,
                    writing_seconds,
                });
            }
            _ => bail!("the sweep ended as {s}"),
        }
    }
}

/// One client writing new facts, each timed.
struct Writer {
    client: Client,
    seed: u64,
    next: u64,
}

impl Writer {
    fn new(addr: &str, seed: u64, after: u64) -> Self {
        Self {
            client: Client::new(addr),
            seed,
            // Facts beyond the file's: new subjects, judged against the stored ones.
            next: after + 1_000_000,
        }
    }

    /// Writes the next fact; its latency in milliseconds.
    async fn write(&mut self) -> anyhow::Result<f64> {
        let body = text::fact(self.seed, self.next).stored(0);
        self.next += 1;
        let started = Instant::now();
        let reply = self.client.post("/nodes", &body).await?;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        if reply.status != 201 {
            bail!("POST /nodes answered {}", reply.status);
        }
        Ok(ms)
    }
}
