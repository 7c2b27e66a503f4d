//! Every pair of the public dev files keeps the verdict pinned in `tests/data/eval` (see its
//! README to regenerate them after a deliberate rule change).

use std::path::PathBuf;

use concord::domain::contradiction::DetectConfig;
use concord::verdicts::{self, PairText, Record};

const FILES: &[&str] = &[
    "memory_style_dev",
    "negation_probe_dev",
    "general_dev",
    "agent_memory_dev",
];

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/eval")
        .join(name)
}

/// The ids of pairs whose recomputed record differs from the pinned one, with both records.
fn differences(file: &str, judge: fn(&PairText, &DetectConfig) -> Record) -> Vec<String> {
    let pairs: Vec<PairText> = verdicts::read_lines(&data(&format!("{file}.jsonl"))).unwrap();
    let pinned: Vec<Record> =
        verdicts::read_lines(&data(&format!("{file}.verdicts.jsonl"))).unwrap();
    assert_eq!(pairs.len(), pinned.len(), "{file}: one verdict per pair");
    let cfg = DetectConfig::default();
    pairs
        .iter()
        .zip(&pinned)
        .filter_map(|(p, want)| {
            let got = judge(p, &cfg);
            (got != *want)
                .then(|| format!("{file} {}:\n  pinned {want:?}\n  now    {got:?}", p.id()))
        })
        .collect()
}

fn check(judge: fn(&PairText, &DetectConfig) -> Record) {
    let diffs: Vec<String> = FILES.iter().flat_map(|f| differences(f, judge)).collect();
    assert!(
        diffs.is_empty(),
        "{} pairs changed verdict; the first ones:\n{}",
        diffs.len(),
        diffs[..diffs.len().min(5)].join("\n")
    );
}

#[test]
fn assess_keeps_every_pinned_verdict() {
    check(|p, cfg| Record::new(p.id(), verdicts::judge(p, cfg).as_ref()));
}

#[test]
fn analysing_once_then_judging_keeps_every_pinned_verdict() {
    check(|p, cfg| Record::new(p.id(), verdicts::judge_analysed(p, cfg).as_ref()));
}
