//! Settings from flags or environment (contract section 0). `Debug` never prints secrets.

use std::fmt;
use std::net::SocketAddr;

use clap::{Parser, Subcommand};

use crate::domain::contradiction::Sensitivity;
use crate::domain::policy::{Format, RuleSet};
use crate::store::sqlite::{SqliteOptions, Synchronous};

/// The server loop's two guards (`server`): header-read timeout and connection cap.
#[derive(Debug, Clone, Copy)]
pub struct ServerLimits {
    pub header_read_timeout: std::time::Duration,
    /// Open connections at most; `None`: derived from the file-descriptor limit.
    pub max_connections: Option<usize>,
}

/// Largest request body accepted, on REST and MCP alike (but for the batch route).
pub const BODY_LIMIT: usize = 2 * 1024 * 1024;
/// Largest body of `POST /nodes/batch`: a thousand memories of a few KiB each, with room.
pub const BATCH_BODY_LIMIT: usize = 32 * 1024 * 1024;

/// The largest body a request to `path` may carry.
pub fn body_limit(path: &str) -> usize {
    if path == "/nodes/batch" {
        BATCH_BODY_LIMIT
    } else {
        BODY_LIMIT
    }
}

/// Header fields a request may carry (hyper's default).
pub const MAX_HEADERS: usize = 100;
/// Bytes a request head may take (hyper's default read buffer).
pub const MAX_HEAD_BYTES: usize = 8192 + 4096 * 100;

#[derive(Parser, Debug)]
#[command(
    name = "concord",
    version,
    about = "Contradiction-aware long-term memory for AI agents"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Start the HTTP service (migrations run first).
    Serve(Settings),
    /// Speak MCP over stdin/stdout against the database (for desktop agent clients); the
    /// detection settings are those of `serve`. The HTTP ones are unused, so its help leaves
    /// them out.
    #[command(
        mut_arg("bind", |a| a.hide(true)),
        mut_arg("api_keys", |a| a.hide(true)),
        mut_arg("request_timeout_ms", |a| a.hide(true)),
        mut_arg("max_in_flight", |a| a.hide(true)),
        mut_arg("header_read_timeout_ms", |a| a.hide(true)),
        mut_arg("max_connections", |a| a.hide(true)),
        mut_arg("allowed_hosts", |a| a.hide(true)),
        mut_arg("mcp_max_sessions", |a| a.hide(true)),
        mut_arg("mcp_client_share", |a| a.hide(true)),
        mut_arg("mcp_session_idle_secs", |a| a.hide(true))
    )]
    Mcp(Settings),
    /// Run the database migrations and exit.
    Migrate(DbArgs),
    /// Manage the API keys kept in the database (each with a role and scopes).
    #[command(subcommand)]
    Keys(KeysCommand),
    /// Verify the database's invariants; exit 1 listing every violation found.
    Check(DbArgs),
    /// Print the OpenAPI 3.1 document.
    Openapi,
    /// Measure contradiction detection on labelled pairs (JSON lines).
    Eval(EvalArgs),
    /// Bring memories in from files: JSON lines, text, markdown, mem0 or Graphiti listings.
    Import(ImportArgs),
    /// Compare the stored memories with one another, as writes with detection would have, and
    /// queue the contradictions not queued yet (a stopped sweep is resumed).
    Sweep(SweepArgs),
    /// Exit 0 when the service at URL answers `/healthz` (for container health checks).
    Healthcheck {
        /// Base URL, e.g. `http://127.0.0.1:8080`.
        #[arg(default_value = "http://127.0.0.1:8080")]
        url: String,
    },
}

#[derive(clap::Args, Debug, Clone)]
pub struct DbArgs {
    /// `sqlite://concord.db` (created by `serve` if missing, held by one `serve` at a time) or
    /// `postgres://user@host/db`.
    #[arg(
        long,
        env = "CONCORD_DATABASE_URL",
        default_value = "sqlite://concord.db"
    )]
    pub database_url: Secret,
    /// SQLite durability: `full` (default) syncs every commit and survives a power loss;
    /// `normal` syncs at checkpoints only: faster, and safe against a crash of concord, but a
    /// power loss or OS crash can lose the last acknowledged writes. Ignored for PostgreSQL.
    #[arg(long, env = "CONCORD_SQLITE_SYNCHRONOUS", default_value = "full",
          value_parser = parse_synchronous)]
    pub sqlite_synchronous: Synchronous,
    /// How much of a SQLite file is read through a memory map, in MiB (`PRAGMA mmap_size`; 0,
    /// the default, maps nothing). A large store reads faster mapped (a sweep over 100,000
    /// memories 1.15x); the mapped pages then count in the process's resident memory.
    /// Ignored for PostgreSQL.
    #[arg(long, env = "CONCORD_SQLITE_MMAP_MIB", default_value_t = 0)]
    pub sqlite_mmap_mib: u64,
}

impl DbArgs {
    /// How SQLite is opened.
    pub fn sqlite(&self) -> SqliteOptions {
        SqliteOptions {
            synchronous: self.sqlite_synchronous,
            mmap_mib: self.sqlite_mmap_mib,
            batch_postings: false,
        }
    }
}

/// `concord keys …`: against the configured database (which must exist).
#[derive(Subcommand, Debug)]
pub enum KeysCommand {
    /// Make a key and print it, once, alone on the last line (only its digest is stored).
    Add {
        /// Unique name, 1..64 characters of `A-Za-z0-9._-` (never reused, also once revoked).
        name: String,
        /// `reader`, `agent`, `reviewer` or `admin`.
        #[arg(long)]
        role: String,
        /// A scope the key may use: an exact name, or a prefix ending in `*` (`team-a/*`; `*`
        /// is every scope). Repeat for several.
        #[arg(long = "scope", required = true, value_name = "SCOPE")]
        scopes: Vec<String>,
        #[command(flatten)]
        db: DbArgs,
    },
    /// List the keys: name, role, scopes, when made, last used and revoked.
    List {
        #[command(flatten)]
        db: DbArgs,
    },
    /// Revoke a key: every instance refuses it within a second.
    Revoke {
        name: String,
        #[command(flatten)]
        db: DbArgs,
    },
}

fn parse_synchronous(s: &str) -> Result<Synchronous, String> {
    s.parse()
}

/// How detection judges and what policies decide: the same for `serve`, `mcp`, and the
/// `import` and `sweep` that write the database directly, so that a memory brought in or swept
/// is judged and resolved as a write through the server would be.
#[derive(clap::Args, Debug, Clone)]
pub struct DetectionArgs {
    /// Minimum token overlap (Jaccard) of the heuristic tier.
    #[arg(long, env = "CONCORD_MIN_OVERLAP", default_value_t = 0.3)]
    pub min_overlap: f64,
    /// Cosine band of the vector tier, `low,high`.
    #[arg(long, env = "CONCORD_COSINE_BAND", default_value = "0.30,0.95", value_parser = parse_band)]
    pub cosine_band: (f64, f64),
    /// MiB of stored memories' detection analyses (tokens, values, overlap units) kept in
    /// memory, so a write judges its candidates without analysing their text again: a
    /// memory's own when it is written, a candidate's once it is met a second time; the
    /// oldest go first unless read since, and 0 keeps none.
    #[arg(long, env = "CONCORD_ANALYSIS_CACHE_MIB", default_value_t = 48)]
    pub analysis_cache_mib: usize,
    #[command(flatten)]
    pub llm: LlmArgs,
    /// Resolution policies, a TOML or JSON file (README, "Resolution policies"): rules that
    /// resolve a detected conflict at write time. Unset: nothing is resolved automatically.
    /// A file that does not parse stops the process, naming the rule and the field.
    #[arg(long, env = "CONCORD_POLICIES", value_name = "FILE", value_parser = load_policies)]
    pub policies: Option<RuleSet>,
    /// Record what each policy would do (in the conflict's history and `detection.policy`)
    /// without doing it: every conflict stays pending.
    #[arg(long, env = "CONCORD_POLICIES_DRY_RUN")]
    pub policies_dry_run: bool,
}

impl Default for DetectionArgs {
    fn default() -> Self {
        Self {
            min_overlap: 0.3,
            cosine_band: (0.30, 0.95),
            analysis_cache_mib: 48,
            llm: LlmArgs::default(),
            policies: None,
            policies_dry_run: false,
        }
    }
}

#[derive(clap::Args, Debug, Clone)]
pub struct Settings {
    #[command(flatten)]
    pub db: DbArgs,
    /// Address to listen on. Without API keys only loopback addresses are allowed.
    #[arg(long, env = "CONCORD_BIND", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
    /// Comma-separated API keys; when set every route needs one but /healthz, /readyz and the
    /// review console's page and files under /review (they carry no data, and the page must
    /// load to ask for a key).
    #[arg(long, env = "CONCORD_API_KEYS", value_delimiter = ',')]
    pub api_keys: Vec<Secret>,
    /// Default detection sensitivity: strict, balanced or lenient.
    #[arg(long, env = "CONCORD_SENSITIVITY", default_value = "balanced", value_parser = parse_sensitivity)]
    pub sensitivity: Sensitivity,
    #[command(flatten)]
    pub detection: DetectionArgs,
    /// Milliseconds a request may run before it is abandoned with 503 `/problems/timeout`
    /// (the long poll and the event stream are exempt).
    #[arg(long, env = "CONCORD_REQUEST_TIMEOUT_MS", default_value_t = 30_000,
          value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub request_timeout_ms: u64,
    /// Requests in flight at once; beyond it requests are shed with 503 `/problems/overloaded`
    /// (`/healthz` and `/readyz` are exempt).
    #[arg(long, env = "CONCORD_MAX_IN_FLIGHT", default_value_t = 512,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_in_flight: u32,
    /// Milliseconds a connection may take to send a complete request head, counted from when
    /// the server starts waiting for one (idle keep-alive connections included); then it is
    /// closed.
    #[arg(long, env = "CONCORD_HEADER_READ_TIMEOUT_MS", default_value_t = 30_000,
          value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub header_read_timeout_ms: u64,
    /// Open connections at most; one more evicts the oldest idle connection (or is closed when
    /// none is idle). Default: what the file-descriptor limit allows, less a reserve.
    #[arg(long, env = "CONCORD_MAX_CONNECTIONS",
          value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    pub max_connections: Option<u32>,
    /// Without API keys, `Host` names accepted besides the bound address, `localhost`,
    /// `127.0.0.1` and `[::1]` (those with the bound port only); comma separated, each `name`
    /// (any port) or `name:port`. Any other `Host` is refused, so a page of another site that
    /// rebinds its DNS name to loopback cannot reach the service. Ignored with API keys.
    #[arg(long, env = "CONCORD_ALLOWED_HOSTS", value_delimiter = ',')]
    pub allowed_hosts: Vec<String>,
    /// Open MCP sessions (each `initialize` opens one; revision 2026-07-28 clients send none)
    /// at most; one more `initialize` is refused with 503 `/problems/mcp-sessions-full` and
    /// `Retry-After`.
    #[arg(long, env = "CONCORD_MCP_MAX_SESSIONS", default_value_t = 4096,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub mcp_max_sessions: u32,
    /// Percent of `--mcp-max-sessions` one client (a peer IP address) may hold open at once
    /// (at least one session); past it that client's `initialize` is refused with 503
    /// `/problems/mcp-client-sessions-full` and `Retry-After` while others still get sessions.
    /// Clients behind one proxy share an address, and so a share: raise it there.
    #[arg(long, env = "CONCORD_MCP_CLIENT_SHARE", default_value_t = 25,
          value_parser = clap::value_parser!(u8).range(1..=100))]
    pub mcp_client_share: u8,
    /// Seconds an MCP session may stay without a request before it is closed.
    #[arg(long, env = "CONCORD_MCP_SESSION_IDLE_SECS", default_value_t = 300,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub mcp_session_idle_secs: u64,
    /// Whether the database held API keys at start (`concord keys`): then keys are required
    /// as with `--api-keys`. Set by `serve`, not a flag.
    #[arg(skip)]
    pub database_keys: bool,
}

#[derive(clap::Args, Debug, Clone)]
pub struct LlmArgs {
    /// OpenAI-compatible chat completions URL; unset = LLM tier off.
    #[arg(id = "llm_url", long = "llm-url", env = "CONCORD_LLM_URL", value_parser = parse_llm_url)]
    pub url: Option<String>,
    /// Model name sent to the LLM endpoint.
    #[arg(long = "llm-model", env = "CONCORD_LLM_MODEL")]
    pub model: Option<String>,
    /// Bearer key for the LLM endpoint.
    #[arg(id = "llm_api_key", long = "llm-api-key", env = "CONCORD_LLM_API_KEY")]
    pub api_key: Option<Secret>,
    /// Milliseconds a pair may wait for the LLM (queueing included) before detection falls back
    /// to the other tiers.
    #[arg(long = "llm-timeout-ms", env = "CONCORD_LLM_TIMEOUT_MS", default_value_t = 5000,
          value_parser = clap::value_parser!(u64).range(1..=600_000))]
    pub timeout_ms: u64,
    /// LLM requests in flight at once, across all writes.
    #[arg(long = "llm-concurrency", env = "CONCORD_LLM_CONCURRENCY", default_value_t = 4,
          value_parser = clap::value_parser!(u32).range(1..=256))]
    pub concurrency: u32,
}

impl Default for LlmArgs {
    /// The tier off, with the flag defaults.
    fn default() -> Self {
        Self {
            url: None,
            model: None,
            api_key: None,
            timeout_ms: 5000,
            concurrency: 4,
        }
    }
}

fn parse_llm_url(s: &str) -> Result<String, String> {
    let s = s.trim();
    let rest = s
        .strip_prefix("https://")
        .or_else(|| s.strip_prefix("http://"))
        .ok_or("expected an http:// or https:// URL")?;
    if rest.is_empty() || rest.starts_with('/') {
        return Err("the URL has no host".into());
    }
    Ok(s.to_owned())
}

#[derive(clap::Args, Debug, Clone)]
pub struct EvalArgs {
    /// Labelled pairs: one `{"id","a","b","label","topic"?}` per line.
    #[arg(long)]
    pub data: std::path::PathBuf,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Sensitivity to measure.
    #[arg(long, default_value = "balanced", value_parser = parse_sensitivity)]
    pub sensitivity: Sensitivity,
    /// Embeddings of the pairs (`{"id","a":[…],"b":[…]}` per line): both sides then carry an
    /// embedding and one shared label, so the vector tier takes part.
    #[arg(long)]
    pub embeddings: Option<std::path::PathBuf>,
    /// Judge pairs with the pure rules only (no store, no index): times the rules alone.
    #[arg(long)]
    pub rules_only: bool,
    /// With `--rules-only`: also write each pair's verdict to FILE, one JSON line per pair
    /// (the verdict files under `tests/data/eval` that pin the rules down).
    #[arg(long, value_name = "FILE", requires = "rules_only")]
    pub write_verdicts: Option<std::path::PathBuf>,
    /// Also print every missed contradiction and every false alarm, one JSON line each, to
    /// stderr: what a rule change gained or lost.
    #[arg(long)]
    pub errors: bool,
}

/// A string that `Debug` prints as `***` (database URLs carry passwords, keys are keys).
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub String);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl std::str::FromStr for Secret {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Self(s.trim().to_owned()))
    }
}

fn parse_sensitivity(s: &str) -> Result<Sensitivity, String> {
    s.parse()
        .map_err(|_| "expected strict, balanced or lenient".to_owned())
}

/// Reads and validates a policy file; the error names the file, then the rule and the field.
fn load_policies(path: &str) -> Result<RuleSet, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("policy file {path}: cannot read: {e}"))?;
    RuleSet::parse(&text, Format::of(path, &text)).map_err(|e| format!("policy file {path}: {e}"))
}

fn parse_band(s: &str) -> Result<(f64, f64), String> {
    let (lo, hi) = s.split_once(',').ok_or("expected low,high")?;
    let lo: f64 = lo.trim().parse().map_err(|_| "low is not a number")?;
    let hi: f64 = hi.trim().parse().map_err(|_| "high is not a number")?;
    if !(0.0..=1.0).contains(&lo) || !(lo..=1.0).contains(&hi) {
        return Err("expected 0 <= low <= high <= 1".into());
    }
    Ok((lo, hi))
}

impl Settings {
    /// The settings of a command that works on the database directly (`import`, `sweep`):
    /// `serve`'s defaults with its detection settings and default sensitivity.
    pub fn for_tool(url: &str, detection: &DetectionArgs, sensitivity: Sensitivity) -> Self {
        Self {
            sensitivity,
            detection: detection.clone(),
            ..Self::for_database(url)
        }
    }

    /// Settings for tests and tools: the defaults of `serve` with this database.
    pub fn for_database(url: &str) -> Self {
        Self {
            db: DbArgs {
                database_url: Secret(url.to_owned()),
                sqlite_synchronous: Synchronous::Full,
                sqlite_mmap_mib: 0,
            },
            bind: "127.0.0.1:0".parse().expect("valid address"),
            api_keys: Vec::new(),
            sensitivity: Sensitivity::Balanced,
            detection: DetectionArgs::default(),
            request_timeout_ms: 30_000,
            max_in_flight: 512,
            header_read_timeout_ms: 30_000,
            max_connections: None,
            allowed_hosts: Vec::new(),
            mcp_max_sessions: 4096,
            mcp_client_share: 25,
            mcp_session_idle_secs: 300,
            database_keys: false,
        }
    }

    /// MCP sessions one client may hold: its share of the cap, rounded up, at least one.
    pub fn mcp_sessions_per_client(&self) -> usize {
        let cap = self.mcp_max_sessions as usize;
        (cap * usize::from(self.mcp_client_share))
            .div_ceil(100)
            .max(1)
    }

    /// The server loop's guards against idle and slow connections.
    pub fn server_limits(&self) -> ServerLimits {
        ServerLimits {
            header_read_timeout: std::time::Duration::from_millis(self.header_read_timeout_ms),
            max_connections: self.max_connections.map(|n| n as usize),
        }
    }

    /// Whether requests need an API key: at least one non-empty key is configured, or the
    /// database held keys at start.
    pub fn keys_required(&self) -> bool {
        self.database_keys || self.api_keys.iter().any(|k| !k.0.is_empty())
    }

    /// Refuses to serve an open, key-less API beyond this machine.
    pub fn check_bind(&self) -> anyhow::Result<()> {
        if !self.keys_required() && !self.bind.ip().is_loopback() {
            anyhow::bail!(
                "refusing to bind {} without API keys: set CONCORD_API_KEYS, add one with `concord keys add`, or bind a loopback address",
                self.bind
            );
        }
        Ok(())
    }
}

/// `concord import`: memories from files, written in batches with detection, into a running
/// server (`--url`) or the database directly (docs/import.md).
#[derive(clap::Args, Debug, Clone)]
pub struct ImportArgs {
    /// Files or folders (markdown) to read, in order; `-` reads stdin.
    #[arg(required = true, value_name = "FILE")]
    pub inputs: Vec<String>,
    /// `jsonl`, `text`, `markdown`, `mem0` or `graphiti`; default: guessed per file from its
    /// name and first bytes.
    #[arg(long, value_parser = parse_import_format)]
    pub format: Option<crate::import::Format>,
    /// Text: titles from each memory's `first-words` or from the `file` name.
    #[arg(long, default_value = "first-words", value_parser = ["first-words", "file"])]
    pub title_from: String,
    /// Text: one memory per `line`, or per `paragraph` (lines up to a blank line).
    #[arg(long, default_value = "line", value_parser = ["line", "paragraph"])]
    pub split: String,
    /// Scope for memories that name none (default `default`).
    #[arg(long)]
    pub scope: Option<String>,
    /// A label added to every memory (repeatable).
    #[arg(long = "label", value_name = "LABEL")]
    pub labels: Vec<String>,
    /// A running concord to send the memories to (`http://127.0.0.1:8080`); without it they
    /// are written to `--database-url` directly.
    #[arg(long, env = "CONCORD_URL")]
    pub url: Option<String>,
    /// API key for `--url`.
    #[arg(long, env = "CONCORD_API_KEY", hide_env_values = true)]
    pub api_key: Option<Secret>,
    #[command(flatten)]
    pub db: DbArgs,
    /// Write nothing: report what would be written and which conflicts would be queued.
    #[arg(long)]
    pub dry_run: bool,
    /// Skip the memories the state file records as written by an earlier run.
    #[arg(long)]
    pub resume: bool,
    /// The state file (default: the first input's path with `.import-state` added; for
    /// stdin, `concord-import.state`).
    #[arg(long, value_name = "PATH")]
    pub state: Option<std::path::PathBuf>,
    /// Store without detection.
    #[arg(long)]
    pub no_detect: bool,
    /// `strict`, `balanced` or `lenient`; default: `CONCORD_SENSITIVITY`, else the server's
    /// (with `--url`) or `balanced`.
    #[arg(long, env = "CONCORD_SENSITIVITY", value_parser = parse_sensitivity)]
    pub sensitivity: Option<Sensitivity>,
    /// Detection and policies when writing the database directly, as `serve` takes them
    /// (with `--url` the server's own apply).
    #[command(flatten)]
    pub detection: DetectionArgs,
    /// Memories per batch (1..1000); each batch is one transaction.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub batch_size: u16,
}

#[derive(clap::Args, Debug, Clone)]
pub struct SweepArgs {
    /// Only memories of this scope.
    #[arg(long)]
    pub scope: Option<String>,
    /// Only memories with this label.
    #[arg(long)]
    pub label: Option<String>,
    /// Only memories created at or after this time (RFC 3339); they are compared with older
    /// ones too.
    #[arg(long)]
    pub since: Option<String>,
    /// A running concord to sweep (`http://127.0.0.1:8080`; needs an admin key); without it
    /// this process sweeps `--database-url` itself.
    #[arg(long, env = "CONCORD_URL")]
    pub url: Option<String>,
    /// API key for `--url`.
    #[arg(long, env = "CONCORD_API_KEY", hide_env_values = true)]
    pub api_key: Option<Secret>,
    #[command(flatten)]
    pub db: DbArgs,
    /// Detection sensitivity when sweeping the database directly: strict, balanced or lenient
    /// (with `--url` the server's applies).
    #[arg(long, env = "CONCORD_SENSITIVITY", default_value = "balanced", value_parser = parse_sensitivity)]
    pub sensitivity: Sensitivity,
    /// Detection and policies when sweeping the database directly, as `serve` takes them
    /// (with `--url` the server's own apply).
    #[command(flatten)]
    pub detection: DetectionArgs,
}

impl ImportArgs {
    /// What an import writing database `url` directly detects and decides with.
    pub fn settings(&self, url: &str) -> Settings {
        let sensitivity = self.sensitivity.unwrap_or(Sensitivity::Balanced);
        Settings::for_tool(url, &self.detection, sensitivity)
    }
}

impl SweepArgs {
    /// What a sweep of database `url` in this process detects and decides with.
    pub fn settings(&self, url: &str) -> Settings {
        Settings::for_tool(url, &self.detection, self.sensitivity)
    }
}

fn parse_import_format(s: &str) -> Result<crate::import::Format, String> {
    crate::import::Format::parse(s)
        .ok_or_else(|| format!("expected one of {}", crate::import::Format::NAMES))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn every_command_line_is_well_formed() {
        // Two arguments of one command with the same name (the detection flags flattened
        // into `import` next to its own `--url`) panic only when that command is parsed.
        Cli::command().debug_assert();
    }

    #[test]
    fn a_direct_import_and_sweep_take_the_detection_settings_serve_takes() {
        let policies = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/policies/trust-and-quarantine.toml"
        );
        let parse = |args: &[&str]| Cli::try_parse_from(args).expect("parses").command;
        let common = [
            "--min-overlap",
            "0.5",
            "--analysis-cache-mib",
            "7",
            "--policies",
            policies,
        ];
        let Command::Import(import) =
            parse(&[&["concord", "import", "f.jsonl"][..], &common].concat())
        else {
            panic!("an import")
        };
        let Command::Sweep(sweep) = parse(
            &[
                &["concord", "sweep", "--sensitivity", "strict"][..],
                &common,
            ]
            .concat(),
        ) else {
            panic!("a sweep")
        };
        for settings in [import.settings("sqlite://x"), sweep.settings("sqlite://x")] {
            assert_eq!(settings.detection.min_overlap, 0.5);
            assert_eq!(settings.detection.analysis_cache_mib, 7);
            assert_eq!(settings.detection.policies.map(|p| p.rules.len()), Some(4));
        }
        assert_eq!(
            sweep.settings("sqlite://x").sensitivity,
            Sensitivity::Strict
        );
        assert_eq!(
            import.settings("sqlite://x").sensitivity,
            Sensitivity::Balanced
        );
    }
}
