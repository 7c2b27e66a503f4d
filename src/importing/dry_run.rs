//! `--dry-run`: what an import would write and which conflicts it would queue, writing
//! nothing. Two kinds of conflict are found two ways:
//! - **within the input** (two memories of the files that contradict each other): the import
//!   runs for real into a scratch SQLite store that starts empty and is deleted afterwards,
//!   with the same batches and the same detection, so what it queues there is exactly what
//!   the input queues against itself;
//! - **with stored memories**: each new memory is checked against the target database as a
//!   write would be (`check_text`, which writes nothing). With `--url` the server offers no
//!   such check over REST, so this half is skipped and the summary says so.
//!
//! A real import can queue fewer than the sum: a memory that contradicts both a stored node
//! and an earlier memory of the input is compared with both, as here, but detection keeps
//! only its strongest candidates per write.

use std::collections::{BTreeMap, HashMap, HashSet};

use concord::config::ImportArgs;
use concord::domain::access::Caller;
use concord::import::{Fingerprint, Location, Options};
use concord::service::{Services, nodes};
use concord::store::sqlite::{SqliteOptions, Synchronous};

use super::inputs::Input;
use super::sink::{Direct, Sink};
use super::state::State;
use super::summary::by_type;
use crate::progress::Progress;

pub async fn run(
    inputs: &[Input],
    opts: &Options,
    done: &HashSet<Fingerprint>,
    args: &ImportArgs,
    target: Result<&Services, &str>,
) -> anyhow::Result<i32> {
    let dir = std::env::temp_dir().join(format!("concord-dry-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let url = format!("sqlite://{}", dir.join("scratch.db").display());
    let result = scratch_run(&url, inputs, opts, done, args, target).await;
    let _ = std::fs::remove_dir_all(&dir);
    result
}

async fn scratch_run(
    url: &str,
    inputs: &[Input],
    opts: &Options,
    done: &HashSet<Fingerprint>,
    args: &ImportArgs,
    target: Result<&Services, &str>,
) -> anyhow::Result<i32> {
    // Opened as the import opens the target (`args.db`), without syncing a throwaway file.
    let sqlite = SqliteOptions {
        synchronous: Synchronous::Normal,
        batch_postings: true,
        ..args.db.sqlite()
    };
    let store = concord::store::connect_with(url, sqlite).await?;
    let settings = args.settings(url);
    let sink = Sink::Direct(Box::new(Direct {
        services: concord::AppState::new(store, settings).services,
        scope: String::new(),
        detect: !args.no_detect,
        sensitivity: args.sensitivity,
        keyed: false,
    }));
    let mut lines = Vec::new();
    let mut against_store: BTreeMap<String, u64> = BTreeMap::new();
    // Scratch node id → where its memory is in the input, to name both sides of a conflict.
    let mut located: HashMap<String, Location> = HashMap::new();
    let mut pending = Vec::new();
    let mut progress = Progress::new("checked", super::total_lines(inputs));
    let mut state = State::none();
    let tally = super::import_all(
        inputs,
        opts,
        done,
        &sink,
        &mut state,
        usize::from(args.batch_size),
        &mut progress,
        |items, outcomes| {
            for (item, w) in items.iter().zip(outcomes) {
                located.insert(w.id.clone(), item.location.clone());
                for q in &w.conflicts {
                    let other = located
                        .get(&q.old_node_id)
                        .map_or_else(|| q.old_node_id.clone(), ToString::to_string);
                    lines.push(format!(
                        "conflict: {} {} with {other}",
                        item.location, q.conflict_type
                    ));
                }
                if target.is_ok() && !args.no_detect {
                    pending.push((item.location.clone(), item.record.to_input()));
                }
            }
        },
    )
    .await?;
    progress.finish();
    if let Ok(svc) = target {
        for (at, input) in pending {
            // An item the scratch store took is valid; a check can only fail for the store.
            for hit in nodes::check_text(svc, &Caller::anonymous(), input, args.sensitivity).await?
            {
                *against_store.entry(hit.conflict_type.clone()).or_default() += 1;
                lines.push(format!(
                    "conflict: {at} {} with stored node {} {:?}",
                    hit.conflict_type, hit.old.id, hit.old.title
                ));
            }
        }
    }
    println!("dry run: nothing was written");
    print!(
        "{}",
        tally.render("would write", "conflicts within the input")
    );
    match target {
        Ok(_) => println!(
            "conflicts with stored memories: {}{}",
            against_store.values().sum::<u64>(),
            by_type(&against_store)
        ),
        Err(why) => println!("conflicts with stored memories: not checked ({why})"),
    }
    for l in lines {
        println!("{l}");
    }
    Ok(i32::from(tally.failed()))
}
