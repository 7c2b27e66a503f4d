//! `concord sweep`: start a sweep (or go on with the one that is running) and follow it to its
//! end with a progress line, then a summary. Without `--url` this process runs it against the
//! database; with `--url` the server's sweeper does, and this only follows it. Exit status 0
//! when it finished, 1 when it failed or was cancelled, 2 on a usage error.

use std::time::Duration;

use concord::config::SweepArgs;
use concord::domain::access::Caller;
use concord::domain::sweep::{Sweep, SweepFilter, SweepStatus};
use concord::service::{Error, sweep};
use concord::store::location;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::progress::Progress;

/// How often a followed sweep is read.
const POLL: Duration = Duration::from_millis(500);

pub async fn run(args: SweepArgs) -> anyhow::Result<i32> {
    let filter = match SweepFilter::parse(
        args.scope.as_deref(),
        args.label.as_deref(),
        args.since.as_deref(),
    ) {
        Ok(f) => f,
        Err(errors) => {
            for e in errors {
                eprintln!(
                    "concord sweep: --{}: {}",
                    e.pointer.trim_start_matches('/'),
                    e.detail
                );
            }
            return Ok(2);
        }
    };
    match &args.url {
        Some(url) => remote(&args, url, filter).await,
        None => direct(&args, filter).await,
    }
}

/// Sweeps the database in this process.
async fn direct(args: &SweepArgs, filter: SweepFilter) -> anyhow::Result<i32> {
    let url = &args.db.database_url.0;
    if let Err(refusal) = location::require_existing(url) {
        eprintln!("concord sweep: {refusal}");
        return Ok(2);
    }
    // Held to the end: a `serve` on the same file would not see the sweep's conflicts.
    let _held = match location::hold_exclusively(url) {
        Ok(file) => file,
        Err(refusal) => {
            eprintln!("concord sweep: {refusal}; sweep through that server with --url");
            return Ok(2);
        }
    };
    let store = concord::store::connect_with(url, args.db.sqlite())
        .await
        .map_err(|e| {
            anyhow::anyhow!(
                "cannot open the database ({}): {e}",
                location::describe(url)
            )
        })?;
    let svc = concord::AppState::new(store, args.settings(url)).services;
    let id = match sweep::start(&svc, &Caller::anonymous(), filter).await {
        Ok(s) => s.id,
        Err(Error::SweepRunning(id)) => {
            eprintln!("concord sweep: going on with sweep {id}, which was running");
            id
        }
        Err(Error::Invalid(errors)) => {
            for e in errors {
                eprintln!("concord sweep: {}: {}", e.pointer, e.detail);
            }
            return Ok(2);
        }
        Err(e) => return Err(e.into()),
    };
    let owner = format!("cli-{}", Uuid::now_v7());
    let mut progress = Progress::new("compared", None);
    let mut take_over = sweep::sole_process(&svc);
    let ended = loop {
        if let Some(claimed) = sweep::claim(&svc, &owner, std::mem::take(&mut take_over)).await? {
            show(&mut progress, &claimed);
            match sweep::run(&svc, claimed, &owner, |s| show(&mut progress, s)).await {
                Ok(s) if s.status == SweepStatus::Running => continue,
                Ok(s) => break s,
                Err(e) => {
                    progress.finish();
                    return Err(e.into());
                }
            }
        }
        // Another process runs it: follow it until it ends or its lease runs out.
        let s = sweep::get(&svc, &Caller::anonymous(), id).await?;
        show(&mut progress, &s);
        if s.status != SweepStatus::Running {
            break s;
        }
        tokio::time::sleep(POLL).await;
    };
    progress.finish();
    Ok(summary(&ended))
}

/// Starts (or follows) a sweep on the server at `base` and follows it.
async fn remote(args: &SweepArgs, base: &str, filter: SweepFilter) -> anyhow::Result<i32> {
    let base = base.trim_end_matches('/');
    let client = reqwest::Client::new();
    let key = args.api_key.as_ref().map(|k| k.0.clone());
    let send = |req: reqwest::RequestBuilder| match &key {
        Some(k) => req.bearer_auth(k),
        None => req,
    };
    let body = json!({
        "scope": filter.scope,
        "label": filter.label,
        "since": filter.since.as_ref().map(concord::domain::time::format),
    });
    let reply = send(client.post(format!("{base}/sweeps")).json(&body))
        .send()
        .await
        .map_err(|e| anyhow::anyhow!("cannot reach {base}: {e}"))?;
    let status = reply.status().as_u16();
    let json: Value = reply.json().await.unwrap_or(Value::Null);
    let id = match (status, json["id"].as_str(), json["sweep_id"].as_str()) {
        (202, Some(id), _) => id.to_owned(),
        (409, _, Some(id)) => {
            eprintln!("concord sweep: following sweep {id}, which was running");
            id.to_owned()
        }
        _ => {
            eprintln!(
                "concord sweep: the server answered {status}: {}",
                json["detail"].as_str().unwrap_or("no detail")
            );
            return Ok(if (400..500).contains(&status) { 2 } else { 1 });
        }
    };
    let mut progress = Progress::new("compared", None);
    loop {
        let reply = send(client.get(format!("{base}/sweeps/{id}")))
            .send()
            .await
            .map_err(|e| anyhow::anyhow!("cannot reach {base}: {e}"))?;
        let s: Value = reply.json().await?;
        progress.set_total(s["total"].as_u64());
        progress.set(
            s["compared"].as_u64().unwrap_or(0),
            s["conflicts_queued"].as_u64().unwrap_or(0),
        );
        if s["status"] != "running" {
            progress.finish();
            println!(
                "sweep {id} {}: {}",
                s["status"].as_str().unwrap_or("?"),
                counts(
                    s["compared"].as_i64().unwrap_or(0),
                    s["conflicts_queued"].as_i64().unwrap_or(0)
                )
            );
            if let Some(e) = s["error"].as_str() {
                println!("error: {e}");
            }
            return Ok(i32::from(s["status"] != "done"));
        }
        tokio::time::sleep(POLL).await;
    }
}

fn show(progress: &mut Progress, s: &Sweep) {
    progress.set_total(Some(s.total.max(0) as u64));
    progress.set(s.compared.max(0) as u64, s.queued.max(0) as u64);
}

/// Prints how the sweep ended; the exit status.
fn summary(s: &Sweep) -> i32 {
    println!(
        "sweep {} {}: {}",
        s.id,
        s.status.as_str(),
        counts(s.compared, s.queued)
    );
    if let Some(e) = &s.error {
        println!("error: {e}");
    }
    i32::from(s.status != SweepStatus::Done)
}

/// `600 memories compared, 1 conflict queued`.
fn counts(compared: i64, queued: i64) -> String {
    let plural = |n: i64| if n == 1 { "" } else { "s" };
    format!(
        "{compared} memor{} compared, {queued} conflict{} queued",
        if compared == 1 { "y" } else { "ies" },
        plural(queued)
    )
}
