//! The `concord` binary: parse the command line, then serve (HTTP, or MCP on stdio), migrate,
//! print the OpenAPI document, evaluate detection, or check a running instance's health.

use clap::Parser;
use concord::config::{Cli, Command, Settings};
use concord::{api, store, telemetry};

mod eval;

/// mimalloc for Rust's allocations (SQLite keeps the C library's). A write decodes its
/// candidates into many short strings, often freed on another thread than the one that
/// made them. Under 16 clients the server spent 1.66 ms of CPU per write with glibc's
/// allocator and 1.43 ms with this one, and held less memory (BENCHMARKS.md). Built without
/// transparent huge pages: with them, the resident set grew in 2 MiB steps (about 35 MiB
/// more at 10k).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve(settings) => serve(settings).await,
        Command::Mcp(settings) => mcp(settings).await,
        Command::Migrate(db) => {
            telemetry::init();
            store::connect_with(&db.database_url.0, db.sqlite_synchronous).await?;
            tracing::info!("migrations applied");
            Ok(())
        }
        Command::Check(db) => check(&db).await,
        Command::Openapi => {
            print!("{}", api::openapi_json());
            Ok(())
        }
        Command::Eval(args) => eval::run(args).await,
        Command::Healthcheck { url } => healthcheck(&url).await,
    }
}

async fn serve(settings: Settings) -> anyhow::Result<()> {
    telemetry::init();
    settings.check_bind()?;
    let store =
        store::connect_with(&settings.db.database_url.0, settings.db.sqlite_synchronous).await?;
    let listener = tokio::net::TcpListener::bind(settings.bind).await?;
    tracing::info!(addr = %listener.local_addr()?, database = store.backend(), "concord listening");
    let state = concord::AppState::new(store, settings);
    // Conflicts committed by other instances sharing the database wake our waiters too.
    state.store.listen(state.notifier.clone()).await?;
    let notifier = state.notifier.clone();
    let limits = state.settings.server_limits();
    let app = concord::app(state.clone());
    concord::service::warmup::spawn(&state.services);
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
    let store =
        store::connect_with(&settings.db.database_url.0, settings.db.sqlite_synchronous).await?;
    tracing::info!(database = store.backend(), "concord MCP on stdio");
    let state = concord::AppState::new(store, settings);
    concord::service::warmup::spawn(&state.services);
    concord::mcp::serve_stdio(state).await
}

/// Verifies the database's invariants: prints each violation and exits 1 when there is any.
async fn check(db: &concord::config::DbArgs) -> anyhow::Result<()> {
    let store = store::connect_with(&db.database_url.0, db.sqlite_synchronous).await?;
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
