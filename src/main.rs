//! The `concord` binary: parse the command line, then serve (HTTP, or MCP on stdio), migrate,
//! manage API keys, print the OpenAPI document, evaluate detection, import memories from
//! files, sweep the stored ones for contradictions, or check a running instance's health.

use anyhow::Context;
use clap::Parser;
use concord::config::{Cli, Command, KeysCommand, Settings};
use concord::domain::access::Caller;
use concord::store::location;
use concord::{api, store, telemetry};

mod eval;
mod importing;
mod progress;
mod sweep_cmd;

/// mimalloc for Rust's allocations (SQLite keeps the C library's). A write decodes its
/// candidates into many short strings, often freed on another thread than the one that
/// made them. Under 16 clients the server spent 1.66 ms of CPU per write with glibc's
/// allocator and 1.43 ms with this one, and held less memory (BENCHMARKS.md). Built without
/// transparent huge pages: with them, the resident set grew in 2 MiB steps (about 35 MiB
/// more at 10k).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

unsafe extern "C" {
    /// mimalloc's own: frees this thread's empty pages and, with `force`, purges the free
    /// memory of every arena (hands it back to the OS). Linked from the allocator's library.
    fn mi_collect(force: bool);
}

/// Returns the calling thread's free pages, and all purgeable arena memory, to the OS.
fn return_free_memory() {
    // SAFETY: mi_collect takes no pointers and may be called from any thread at any time.
    unsafe { mi_collect(true) }
}

fn main() -> anyhow::Result<()> {
    concord::memory::set_return_hook(return_free_memory);
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .on_thread_park(concord::memory::on_worker_park)
        .build()?
        .block_on(run())
}

async fn run() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve(settings) => serve(settings).await,
        Command::Mcp(settings) => mcp(settings).await,
        Command::Migrate(db) => {
            telemetry::init();
            refuse_on(location::require_existing(&db.database_url.0));
            open(&db).await?;
            tracing::info!("migrations applied");
            Ok(())
        }
        Command::Keys(command) => keys(command).await,
        Command::Check(db) => {
            refuse_on(location::require_existing(&db.database_url.0));
            check(&db).await
        }
        Command::Openapi => {
            print!("{}", api::openapi_json());
            Ok(())
        }
        Command::Eval(args) => eval::run(args).await,
        Command::Import(args) => {
            let status = importing::run(args).await?;
            std::process::exit(status)
        }
        Command::Sweep(args) => {
            let status = sweep_cmd::run(args).await?;
            std::process::exit(status)
        }
        Command::Healthcheck { url } => healthcheck(&url).await,
    }
}

/// Exits with status 2 and the reason when a database may not be used.
fn refuse_on(check: Result<impl Sized, location::Refusal>) {
    if let Err(refusal) = check {
        eprintln!("concord: {refusal}");
        std::process::exit(2);
    }
}

/// Connects (and migrates), naming the database when it cannot be opened.
async fn open(db: &concord::config::DbArgs) -> anyhow::Result<std::sync::Arc<dyn store::Store>> {
    let url = &db.database_url.0;
    store::connect_with(url, db.sqlite())
        .await
        .with_context(|| format!("cannot open the database ({})", location::describe(url)))
}

async fn serve(mut settings: Settings) -> anyhow::Result<()> {
    telemetry::init();
    let url = &settings.db.database_url.0;
    // Held until the process exits: a second `serve` on the same SQLite file would never see
    // this one's conflicts in its event stream or console.
    let held = location::hold_exclusively(url);
    let _held = match held {
        Ok(file) => file,
        Err(refusal) => {
            eprintln!("concord: {refusal}");
            std::process::exit(2);
        }
    };
    let store = open(&settings.db).await?;
    // Keys made with `concord keys` count as keys: the service may then listen beyond loopback.
    settings.database_keys = store.keys_exist().await?;
    settings.check_bind()?;
    let listener = tokio::net::TcpListener::bind(settings.bind)
        .await
        .with_context(|| format!("cannot listen on {}", settings.bind))?;
    let addr = listener.local_addr()?;
    // The port the OS chose for `:0`: the Host check accepts the loopback names with it.
    settings.bind = addr;
    tracing::info!(
        %addr,
        console = %format_args!("http://{addr}/review"),
        database = %location::describe(url),
        policy_rules = settings.detection.policies.as_ref().map_or(0, |p| p.rules.len()),
        keys_required = settings.keys_required(),
        "concord listening"
    );
    let state = concord::AppState::new(store, settings);
    // Conflicts committed by other instances sharing the database wake our waiters too.
    state.store.listen(state.notifier.clone()).await?;
    let notifier = state.notifier.clone();
    let limits = state.settings.server_limits();
    let app = concord::app(state.clone());
    concord::service::warmup::spawn(&state.services);
    concord::service::sweep::spawn(&state.services);
    concord::server::serve(listener, app, limits, async move {
        shutdown_signal().await;
        // Long polls and event streams end now, so in-flight work can drain.
        notifier.shut_down();
    })
    .await?;
    tracing::info!("concord stopped");
    Ok(())
}

/// MCP over stdio: stdout carries the protocol, so logs go to stderr.
async fn mcp(settings: Settings) -> anyhow::Result<()> {
    telemetry::init_stderr();
    let store = open(&settings.db).await?;
    tracing::info!(database = %location::describe(&settings.db.database_url.0), "concord MCP on stdio");
    let state = concord::AppState::new(store, settings);
    concord::service::warmup::spawn(&state.services);
    concord::mcp::serve_stdio(state).await
}

/// Verifies the database's invariants: prints each violation and exits 1 when there is any.
async fn check(db: &concord::config::DbArgs) -> anyhow::Result<()> {
    let store = open(db).await?;
    let violations = store.check().await?;
    if violations.is_empty() {
        println!("ok: no invariant violated ({} database)", store.backend());
        return Ok(());
    }
    for v in &violations {
        println!("{}: {}", v.invariant, v.detail);
    }
    eprintln!("{} invariant violation(s)", violations.len());
    std::process::exit(1);
}

/// `concord keys add|list|revoke` against the configured database (which must exist).
async fn keys(command: KeysCommand) -> anyhow::Result<()> {
    use concord::service::keys::{self as keys, AddKey};
    let (KeysCommand::Add { db, .. } | KeysCommand::List { db } | KeysCommand::Revoke { db, .. }) =
        &command;
    refuse_on(location::require_existing(&db.database_url.0));
    let store = open(db).await?;
    let services =
        concord::AppState::new(store, Settings::for_database(&db.database_url.0)).services;
    match command {
        KeysCommand::Add {
            name, role, scopes, ..
        } => {
            let new = AddKey::parse(&name, &role, &scopes).unwrap_or_else(|errors| {
                for e in errors {
                    eprintln!(
                        "concord: {}: {}",
                        e.pointer.trim_start_matches('/'),
                        e.detail
                    );
                }
                std::process::exit(2);
            });
            let (key, secret) = keys::add(&services, &Caller::anonymous(), new)
                .await
                .unwrap_or_else(|e| exit_on(e));
            println!(
                "added key {} (role {}, scopes {}); it is shown only now:",
                key.name,
                key.role,
                key.scopes.to_strings().join(" ")
            );
            println!("{secret}");
        }
        KeysCommand::List { .. } => {
            let all = keys::list(&services, &Caller::anonymous())
                .await
                .unwrap_or_else(|e| exit_on(e));
            print!("{}", key_table(&all));
        }
        KeysCommand::Revoke { name, .. } => {
            let key = keys::revoke(&services, &Caller::anonymous(), &name)
                .await
                .unwrap_or_else(|e| {
                    if let concord::service::Error::NotFound(_) = e {
                        eprintln!("concord: no key named {name:?}");
                        std::process::exit(1);
                    }
                    exit_on(e)
                });
            let at = key.revoked_at.as_ref().map(concord::domain::time::format);
            println!("revoked key {} at {}", key.name, at.unwrap_or_default());
        }
    }
    Ok(())
}

/// Exits with the use case's outcome: status 1 and its text.
fn exit_on(e: concord::service::Error) -> ! {
    eprintln!("concord: {e}");
    std::process::exit(1);
}

/// The keys as an aligned table with a header; `-` where there is nothing.
fn key_table(all: &[concord::domain::api_key::ApiKey]) -> String {
    use concord::domain::time::format;
    let header = ["NAME", "ROLE", "SCOPES", "CREATED", "LAST USED", "REVOKED"].map(String::from);
    let rows: Vec<[String; 6]> = all
        .iter()
        .map(|k| {
            [
                k.name.clone(),
                k.role.to_string(),
                k.scopes.to_strings().join(","),
                format(&k.created_at),
                k.last_used_at.as_ref().map_or("-".into(), format),
                k.revoked_at.as_ref().map_or("-".into(), format),
            ]
        })
        .collect();
    let mut widths = header.clone().map(|h| h.len());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let cells: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:w$}"))
            .collect();
        out += cells.join("  ").trim_end();
        out.push('\n');
    }
    out
}

/// Resolves on Ctrl-C or SIGTERM; in-flight requests then finish before the process exits.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    tracing::info!("shutting down");
}

/// A dependency-free HTTP/1.1 GET of `/healthz`, so container images need no curl.
async fn healthcheck(base: &str) -> anyhow::Result<()> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let hostport = base
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    let mut stream = tokio::time::timeout(
        std::time::Duration::from_secs(3),
        tokio::net::TcpStream::connect(&hostport),
    )
    .await??;
    let request = format!("GET /healthz HTTP/1.1\r\nHost: {hostport}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut reply = String::new();
    stream.read_to_string(&mut reply).await?;
    if reply.starts_with("HTTP/1.1 200") {
        Ok(())
    } else {
        anyhow::bail!("unhealthy: {}", reply.lines().next().unwrap_or("no reply"))
    }
}
