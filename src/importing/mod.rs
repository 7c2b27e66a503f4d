//! `concord import`: reads memories from files (the library's `import` formats), writes
//! them in batches with detection to a running server or the database, shows progress on a
//! terminal, records what it wrote for `--resume`, and ends with a summary. Exit status 0
//! when every memory was read and written, 1 when any failed, 2 for a usage error.

mod dry_run;
mod inputs;
mod sink;
mod state;
mod summary;

use std::collections::HashSet;

use concord::config::ImportArgs;
use concord::import::{Fingerprint, Item, Options};
use concord::store::location;

use crate::progress::Progress;
use inputs::Input;
use sink::{Direct, Failure, Http, Outcomes, Sink};
use state::State;
use summary::Tally;

/// A batch is sent once its JSON would pass this size, before it reaches `--batch-size`
/// items: the server takes batch bodies up to 32 MiB.
const MAX_BATCH_BYTES: usize = 16 * 1024 * 1024;

/// Runs the import and returns the exit status.
pub async fn run(args: ImportArgs) -> anyhow::Result<i32> {
    let opts = Options {
        paragraphs: args.split == "paragraph",
        title_from_file: args.title_from == "file",
        scope: args.scope.clone(),
        labels: args.labels.clone(),
    };
    if args.inputs.iter().filter(|i| *i == "-").count() > 1 {
        return Ok(usage("stdin (`-`) can be read once"));
    }
    let inputs = match inputs::resolve(&args.inputs, args.format) {
        Ok(i) => i,
        Err(e) => return Ok(usage(&e)),
    };
    let state_path = args
        .state
        .clone()
        .unwrap_or_else(|| state::default_path(&args.inputs[0]));
    let done = if args.resume {
        state::load(&state_path)?
    } else {
        HashSet::new()
    };
    if args.dry_run {
        return dry_run(&inputs, &opts, &done, &args).await;
    }
    let Some(mut state) = State::open(&state_path, args.resume)? else {
        return Ok(usage(&format!(
            "another import is using the state file {}",
            state_path.display()
        )));
    };
    // Held to the end: while the import writes a SQLite file, no `serve` may take it.
    let mut _held = None;
    let sink = match &args.url {
        Some(url) => Sink::Http(Http {
            client: reqwest::Client::new(),
            base: url.trim_end_matches('/').to_owned(),
            api_key: args.api_key.as_ref().map(|k| k.0.clone()),
            detect: !args.no_detect,
            sensitivity: args.sensitivity,
        }),
        None => {
            let (services, held) = open(&args).await?;
            _held = held;
            Sink::Direct(Box::new(Direct {
                services,
                scope: state.key_scope(),
                detect: !args.no_detect,
                sensitivity: args.sensitivity,
                keyed: true,
            }))
        }
    };
    let mut progress = Progress::new("imported", total_lines(&inputs));
    let tally = import_all(
        &inputs,
        &opts,
        &done,
        &sink,
        &mut state,
        usize::from(args.batch_size),
        &mut progress,
        |_, _| {},
    )
    .await?;
    progress.finish();
    print!("{}", tally.render("written", "conflicts queued"));
    if tally.written > 0 || tally.resumed > 0 {
        println!("state: {}", state.path().display());
    }
    Ok(i32::from(tally.failed()))
}

/// `--dry-run`, against the database when it can be read (see `dry_run`).
async fn dry_run(
    inputs: &[Input],
    opts: &Options,
    done: &HashSet<Fingerprint>,
    args: &ImportArgs,
) -> anyhow::Result<i32> {
    let opened;
    let target = match &args.url {
        Some(_) => Err(
            "a dry run checks against the database itself: give --database-url instead of --url",
        ),
        None if location::require_existing(&args.db.database_url.0).is_err() => {
            Err("the database does not exist yet, so nothing stored can conflict")
        }
        None => {
            opened = open(args).await?.0;
            Ok(&opened)
        }
    };
    dry_run::run(inputs, opts, done, args, target).await
}

/// Prints a usage error; its exit status.
fn usage(why: &str) -> i32 {
    eprintln!("concord import: {why}");
    2
}

/// The database's services, as `concord mcp` builds them. A SQLite file that a `serve`
/// holds is refused: that server's console and event stream would never hear of the import
/// (send it to the server with `--url` instead).
async fn open(
    args: &ImportArgs,
) -> anyhow::Result<(concord::service::Services, Option<std::fs::File>)> {
    let url = &args.db.database_url.0;
    // A dry run only reads, as `concord check` does, so it may look at a served file.
    let hold = if args.dry_run {
        Ok(None)
    } else {
        location::hold_exclusively(url)
    };
    let held = match hold {
        Ok(file) => file,
        Err(refusal) => {
            eprintln!("concord import: {refusal}; send the memories to that server with --url");
            std::process::exit(2);
        }
    };
    // An import writes batch after batch: each ranks its searches from postings kept here.
    let sqlite = concord::store::sqlite::SqliteOptions {
        batch_postings: true,
        ..args.db.sqlite()
    };
    let store = concord::store::connect_with(url, sqlite)
        .await
        .map_err(|e| {
            anyhow::anyhow!(
                "cannot open the database ({}): {e}",
                location::describe(url)
            )
        })?;
    let settings = args.settings(url);
    Ok((concord::AppState::new(store, settings).services, held))
}

/// The inputs' line count when every one is a file read by lines (the progress total).
fn total_lines(inputs: &[Input]) -> Option<u64> {
    inputs.iter().map(Input::line_count).sum()
}

/// Reads every input and writes its new memories through `sink` in batches, recording each
/// committed batch in `state`; `written` sees each batch with what its write did.
#[allow(clippy::too_many_arguments)]
async fn import_all(
    inputs: &[Input],
    opts: &Options,
    done: &HashSet<Fingerprint>,
    sink: &Sink,
    state: &mut State,
    batch_size: usize,
    progress: &mut Progress,
    mut written: impl FnMut(&[Item], &Outcomes),
) -> anyhow::Result<Tally> {
    let mut tally = Tally::default();
    let mut seen: HashSet<Fingerprint> = HashSet::new();
    let mut batch: Vec<Item> = Vec::new();
    let mut bytes = 0usize;
    let mut read = 0u64;
    for parsed in inputs.iter().flat_map(|i| i.items(opts)) {
        read += 1;
        match parsed {
            Err(e) => tally.errors.push(e),
            Ok(item) if done.contains(&item.fingerprint) => tally.resumed += 1,
            Ok(item) if !seen.insert(item.fingerprint.clone()) => tally.duplicates += 1,
            Ok(item) => {
                bytes += size_of(&item);
                batch.push(item);
                if batch.len() >= batch_size || bytes >= MAX_BATCH_BYTES {
                    bytes = 0;
                    let sent = send(sink, std::mem::take(&mut batch), state, &mut tally).await?;
                    if let Some((items, outcomes)) = sent {
                        written(&items, &outcomes);
                    }
                    if tally.stopped.is_some() {
                        break;
                    }
                }
            }
        }
        progress.set(read, tally.conflicts_total());
    }
    if tally.stopped.is_none() && !batch.is_empty() {
        if let Some((items, outcomes)) = send(sink, batch, state, &mut tally).await? {
            written(&items, &outcomes);
        }
        progress.set(read, tally.conflicts_total());
    }
    Ok(tally)
}

/// The bytes an item adds to a batch body (close enough to keep under the body limit).
fn size_of(item: &Item) -> usize {
    let r = &item.record;
    256 + r.title.len()
        + r.body.as_ref().map_or(0, String::len) * 2
        + r.labels.iter().map(String::len).sum::<usize>()
        + r.source.as_ref().map_or(0, String::len)
        + r.embedding.as_ref().map_or(0, |e| e.len() * 24)
}

/// Sends one batch; items the service refuses are reported and the rest sent again. Returns
/// what was written, and records it; a fatal failure stops the import (`tally.stopped`).
async fn send(
    sink: &Sink,
    mut items: Vec<Item>,
    state: &mut State,
    tally: &mut Tally,
) -> anyhow::Result<Option<(Vec<Item>, Outcomes)>> {
    while !items.is_empty() {
        match sink.send(&items).await {
            Ok(outcomes) => {
                state.record(items.iter().map(|i| &i.fingerprint))?;
                tally.written += items.len() as u64;
                for o in &outcomes {
                    tally.count_conflicts(o.conflicts.iter().map(|q| &q.conflict_type));
                }
                return Ok(Some((items, outcomes)));
            }
            Err(Failure::Items(refused)) => {
                if refused.is_empty() || refused.iter().any(|(i, _)| *i >= items.len()) {
                    tally.stopped =
                        Some("the service refused the batch without naming an item".into());
                    return Ok(None);
                }
                for (i, why) in refused.into_iter().rev() {
                    let item = items.remove(i);
                    tally.errors.push(concord::import::ItemError {
                        location: item.location,
                        message: why,
                    });
                }
            }
            Err(Failure::Fatal(why)) => {
                tally.stopped = Some(why);
                return Ok(None);
            }
        }
    }
    Ok(None)
}
