//! `--spawn`: starts `concord serve` on a scratch database and a free loopback port, waits for
//! `/healthz`, and reads the process's peak resident memory (`VmHWM`) before stopping it.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::http::Client;

pub struct Server {
    child: Child,
    pub addr: String,
    /// CPU seconds the process had used once it answered `/healthz` (startup, migrations).
    started_cpu: f64,
}

impl Server {
    /// Unless `cold`, waits as well until the server has loaded stored memories' analyses.
    pub async fn spawn(
        bin: &Path,
        database_url: &str,
        log: &str,
        cold: bool,
    ) -> anyhow::Result<Self> {
        Self::spawn_keyed(bin, database_url, log, cold, None).await
    }

    /// [`Server::spawn`] with `key` as its one `--api-keys` key (its own requests send it).
    pub async fn spawn_keyed(
        bin: &Path,
        database_url: &str,
        log: &str,
        cold: bool,
        key: Option<&str>,
    ) -> anyhow::Result<Self> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let addr = format!("127.0.0.1:{port}");
        let mut command = Command::new(bin);
        if let Some(k) = key {
            command.env("CONCORD_API_KEYS", k);
        }
        let child = command
            .args(["serve", "--database-url", database_url, "--bind", &addr])
            .env("CONCORD_LOG", log)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| {
                format!(
                    "start {} (run `cargo build --release` first)",
                    bin.display()
                )
            })?;
        let mut server = Self {
            child,
            addr,
            started_cpu: 0.0,
        };
        let started = Instant::now();
        let mut client = Client::new(&server.addr);
        client.timeout = Duration::from_secs(2);
        client.key = key.map(str::to_owned);
        loop {
            if let Ok(r) = client.get("/healthz").await
                && r.status == 200
                && (cold || warmed_up(&mut client).await)
            {
                server.started_cpu = cpu_seconds(server.pid()).unwrap_or(0.0);
                return Ok(server);
            }
            if let Some(status) = server.child.try_wait()? {
                bail!("concord exited during start: {status}");
            }
            if started.elapsed() > Duration::from_secs(120) {
                server.stop().await;
                bail!("concord did not answer /healthz within 120 s");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// CPU seconds (user and system, all threads) the server used since it started answering:
    /// less sensitive than latency to other work on the same machine.
    pub fn cpu_since_start(&self) -> Option<f64> {
        Some(cpu_seconds(self.pid())? - self.started_cpu)
    }

    /// Stops the server (SIGTERM, then SIGKILL after 10 s) and returns its peak RSS in MiB.
    pub async fn stop(&mut self) -> Option<f64> {
        let peak = peak_rss_mib(self.pid());
        let _ = Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return peak;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        peak
    }
}

/// Whether the server has ended its startup fill of the analysis memo; a build without
/// one counts as filled.
async fn warmed_up(client: &mut Client) -> bool {
    const GAUGE: &str = "concord_analysis_warmup_running ";
    let Ok(r) = client.get("/metrics").await else {
        return false;
    };
    let text = String::from_utf8_lossy(&r.body);
    match text.lines().find_map(|l| l.strip_prefix(GAUGE)) {
        Some(value) => value.trim() == "0",
        None => true,
    }
}

/// `VmHWM` (peak resident set) of a process, in MiB.
pub fn peak_rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// User and system CPU seconds of a process (`utime` and `stime` of `/proc/PID/stat`).
fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is parenthesised and may contain spaces.
    let rest = stat.rsplit_once(") ")?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    // `sysconf(_SC_CLK_TCK)` is 100 on Linux.
    Some(ticks / 100.0)
}
