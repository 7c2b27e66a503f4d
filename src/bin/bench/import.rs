//! `import`: the same generated memories brought in three ways, in one sitting, each into a
//! fresh empty store: `concord import` writing the database directly, `concord import --url`
//! through a spawned server (`POST /nodes/batch`), and one client sending them one
//! `POST /nodes` at a time to a spawned server. Reports each way's rate, the ratios, and the
//! conflicts each queued (they should be the same). A fourth way is the ceiling of the first:
//! the direct import with `--no-detect`, what a batch costs when detection costs nothing.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};

use crate::http::Client;
use crate::preload::{Env, Template};
use crate::server::Server;
use crate::text::{self, Rng};

/// Generates (once) the file of `memories` lines: each a fact's stored form, or, for
/// `contradict_pct` percent, a changed value of a fact stated earlier in the file. A fact is
/// changed at most once: the same change twice would be the same text twice, which
/// `concord import` skips as repeated and one-at-a-time writes store twice.
pub fn generate(
    dir: &Path,
    seed: u64,
    memories: u64,
    contradict_pct: u64,
) -> anyhow::Result<PathBuf> {
    let path = dir.join(format!(
        "import_{memories}_c{contradict_pct}_s{seed}_v2.jsonl"
    ));
    if path.exists() {
        return Ok(path);
    }
    std::fs::create_dir_all(dir)?;
    let tmp = path.with_extension("tmp");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
    let mut rng = Rng::new(seed ^ 0x1a2b_3c4d);
    let mut stated = 0u64;
    let mut changed = std::collections::HashSet::new();
    for _ in 0..memories {
        let target = rng.below(stated.max(1));
        let line = if stated > 0 && rng.chance(contradict_pct) && changed.insert(target) {
            text::fact(seed, target).changed(0)
        } else {
            stated += 1;
            text::fact(seed, stated - 1).stored(0)
        };
        serde_json::to_writer(&mut out, &line)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    drop(out);
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}

/// What one way did.
pub struct Way {
    name: &'static str,
    written: u64,
    pub conflicts: u64,
    seconds: f64,
}

pub async fn run(
    env: &Env,
    bin: &Path,
    log: &str,
    memories: u64,
    contradict_pct: u64,
) -> anyhow::Result<()> {
    let file = generate(&env.dir, env.seed, memories, contradict_pct)?;
    eprintln!("input: {} ({memories} memories)", file.display());
    let empty = Template {
        nodes: 0,
        pairs: 0,
        body: 0,
    };
    let mut ways = Vec::new();

    let url = env.scratch(empty, "import_direct").await?;
    ways.push(import(
        bin,
        "import, direct",
        &file,
        &["--database-url", &url],
    )?);
    env.discard("import_direct").await?;

    let url = env.scratch(empty, "import_ceiling").await?;
    ways.push(import(
        bin,
        "import, direct, no detection",
        &file,
        &["--database-url", &url, "--no-detect"],
    )?);
    env.discard("import_ceiling").await?;

    let url = env.scratch(empty, "import_http").await?;
    let mut server = Server::spawn(bin, &url, log, true).await?;
    let base = format!("http://{}", server.addr);
    let mut way = import(bin, "import --url", &file, &["--url", &base])?;
    way.conflicts = pending(&server.addr).await?;
    server.stop().await;
    env.discard("import_http").await?;
    ways.push(way);

    let url = env.scratch(empty, "import_seq").await?;
    let mut server = Server::spawn(bin, &url, log, true).await?;
    let mut way = one_at_a_time(&server.addr, &file).await?;
    let stored = pending(&server.addr).await?;
    if stored != way.conflicts {
        bail!(
            "POST /nodes replies named {} conflicts, the queue holds {stored}",
            way.conflicts
        );
    }
    way.conflicts = stored;
    server.stop().await;
    env.discard("import_seq").await?;
    ways.push(way);

    report(&ways, env);
    Ok(())
}

/// Runs `concord import FILE ARGS…` and reads its summary.
pub fn import(bin: &Path, name: &'static str, file: &Path, args: &[&str]) -> anyhow::Result<Way> {
    let state = file.with_extension("import-state");
    let _ = std::fs::remove_file(&state);
    let started = Instant::now();
    let out = Command::new(bin)
        .arg("import")
        .arg(file)
        .args(args)
        .arg("--state")
        .arg(&state)
        .env("CONCORD_LOG", "warn")
        .output()
        .with_context(|| format!("run {}", bin.display()))?;
    let seconds = started.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        bail!(
            "{name} failed: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = std::fs::remove_file(&state);
    Ok(Way {
        name,
        written: figure(&stdout, "written: ")?,
        conflicts: figure(&stdout, "conflicts queued: ")?,
        seconds,
    })
}

/// The number after `label` in the summary (`1,234` → 1234).
fn figure(summary: &str, label: &str) -> anyhow::Result<u64> {
    let at = summary.find(label).context("summary line missing")? + label.len();
    let digits: String = summary[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    Ok(digits.parse()?)
}

async fn one_at_a_time(addr: &str, file: &Path) -> anyhow::Result<Way> {
    let text = std::fs::read_to_string(file)?;
    let mut client = Client::new(addr);
    let (mut written, mut conflicts) = (0u64, 0u64);
    let started = Instant::now();
    for line in text.lines() {
        let body: serde_json::Value = serde_json::from_str(line)?;
        let reply = client.post("/nodes", &body).await?;
        if !matches!(reply.status, 200 | 201) {
            bail!("POST /nodes answered {}", reply.status);
        }
        let json = reply.json()?;
        if reply.status == 201 {
            written += 1;
        }
        conflicts += json["conflicts"].as_array().map_or(0, Vec::len) as u64;
    }
    Ok(Way {
        name: "POST /nodes, one at a time",
        written,
        conflicts,
        seconds: started.elapsed().as_secs_f64(),
    })
}

pub async fn pending(addr: &str) -> anyhow::Result<u64> {
    let stats = Client::new(addr).get("/conflicts/stats").await?.json()?;
    stats["pending"].as_u64().context("stats without pending")
}

fn report(ways: &[Way], env: &Env) {
    println!("database: {:?}", env.db);
    println!(
        "{:<28} {:>9} {:>10} {:>9} {:>10}",
        "way", "written", "conflicts", "seconds", "per second"
    );
    let base = ways.last().map_or(1.0, |w| w.written as f64 / w.seconds);
    for w in ways {
        let rate = w.written as f64 / w.seconds;
        println!(
            "{:<28} {:>9} {:>10} {:>9.1} {:>10.0}  ({:.1}x)",
            w.name,
            w.written,
            w.conflicts,
            w.seconds,
            rate,
            rate / base
        );
    }
}
