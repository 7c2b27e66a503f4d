//! `concord eval`: measures detection on labelled pairs through the same code the service
//! runs. Each pair gets its own scope in a scratch SQLite store, so `a` is stored as a node and
//! `b` is written through `Detector::write_node`, exactly like `POST /nodes`. With
//! `--rules-only` the pairs are judged by the pure rules alone, to time them without storage:
//! every memory is analysed once, then every pair judged from the two analyses, and the two
//! phases are timed apart (judging is what a write pays per candidate whose analysis is kept).

use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;
use std::time::{Duration, Instant};

use concord::config::{EvalArgs, Settings};
use concord::domain::contradiction::{
    Analysed, DetectConfig, Memory, Sensitivity, Verdict, analyse, assess_analysed,
};
use concord::domain::node::{NewNode, NodeInput};
use concord::domain::time;
use concord::service::detect::Detector;
use concord::verdicts::{self, Record};
use serde::{Deserialize, Serialize};

#[derive(Deserialize)]
struct Pair {
    #[serde(default)]
    id: serde_json::Value,
    a: String,
    b: String,
    label: String,
    #[serde(default)]
    topic: Option<String>,
    #[serde(default)]
    source: Option<String>,
}

#[derive(Default, Serialize, Clone, Copy)]
struct Score {
    pairs: u64,
    tp: u64,
    fp: u64,
    #[serde(rename = "fn")]
    fn_: u64,
    tn: u64,
    precision: f64,
    recall: f64,
    f1: f64,
    pairs_per_second: f64,
}

impl Score {
    fn add(&mut self, truth: bool, flagged: bool) {
        self.pairs += 1;
        match (truth, flagged) {
            (true, true) => self.tp += 1,
            (false, true) => self.fp += 1,
            (true, false) => self.fn_ += 1,
            (false, false) => self.tn += 1,
        }
    }

    fn finish(&mut self, pps: f64) {
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        self.precision = ratio(self.tp, self.tp + self.fp);
        self.recall = ratio(self.tp, self.tp + self.fn_);
        let (p, r) = (self.precision, self.recall);
        self.f1 = if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        };
        self.pairs_per_second = pps;
    }
}

#[derive(Serialize)]
struct Report {
    overall: Score,
    by_tier: BTreeMap<String, Score>,
    by_source: BTreeMap<String, Score>,
    /// With `--rules-only`: analysis and judging timed apart.
    #[serde(skip_serializing_if = "Option::is_none")]
    rules: Option<RulesSpeed>,
}

fn title_of(p: &Pair, text: &str) -> String {
    verdicts::title(p.topic.as_deref(), text)
}

#[derive(Deserialize)]
struct PairEmbedding {
    id: serde_json::Value,
    a: Vec<f64>,
    b: Vec<f64>,
}

fn memory(n: &NewNode) -> Memory<'_> {
    Memory {
        title: &n.title,
        body: &n.body,
        labels: &n.labels,
        confidence: n.confidence,
        embedding: n.embedding.as_deref(),
    }
}

/// The embeddings of a pair's `a` and `b`.
type EmbeddingPair = (Vec<f64>, Vec<f64>);

fn read_embeddings(path: &std::path::Path) -> anyhow::Result<HashMap<String, EmbeddingPair>> {
    let file = std::fs::File::open(path)?;
    let mut out = HashMap::new();
    for line in std::io::BufReader::new(file).lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let e: PairEmbedding = serde_json::from_str(&line)?;
        out.insert(e.id.to_string(), (e.a, e.b));
    }
    Ok(out)
}

fn node(
    title: String,
    body: &str,
    scope: &str,
    embedding: Option<Vec<f64>>,
) -> anyhow::Result<NewNode> {
    // With embeddings both sides share one label, the vector tier's other condition.
    let labels = embedding.as_ref().map(|_| vec!["eval".to_owned()]);
    let input = NodeInput {
        title: Some(title),
        body: Some(body.to_owned()),
        scope: Some(scope.to_owned()),
        labels,
        embedding,
        ..Default::default()
    };
    NewNode::parse(input, time::now()).map_err(|e| anyhow::anyhow!("invalid pair: {e:?}"))
}

pub async fn run(args: EvalArgs) -> anyhow::Result<()> {
    let file = std::fs::File::open(&args.data)?;
    let pairs: Vec<Pair> = std::io::BufReader::new(file)
        .lines()
        .filter(|l| l.as_ref().map_or(true, |l| !l.trim().is_empty()))
        .map(|l| Ok(serde_json::from_str(&l?)?))
        .collect::<anyhow::Result<_>>()?;
    let embeddings = match &args.embeddings {
        Some(path) => read_embeddings(path)?,
        None => HashMap::new(),
    };
    let mut nodes = Vec::with_capacity(pairs.len());
    for (i, p) in pairs.iter().enumerate() {
        let scope = format!("eval-{i}-{}", p.id);
        let (ea, eb) = embeddings.get(&p.id.to_string()).cloned().unzip();
        let a = node(title_of(p, &p.a), &p.a, &scope, ea)?;
        let b = node(title_of(p, &p.b), &p.b, &scope, eb)?;
        nodes.push((a, b));
    }
    let (tiers, whys, pps, rules) = if args.rules_only {
        let cfg = DetectConfig {
            sensitivity: args.sensitivity,
            ..DetectConfig::default()
        };
        let (verdicts, speed) = judge_by_rules(&nodes, &cfg);
        if let Some(path) = &args.write_verdicts {
            let records: Vec<Record> = pairs
                .iter()
                .zip(&verdicts)
                .map(|(p, v)| Record::new(id_of(p), v.as_ref()))
                .collect();
            verdicts::write_records(path, &records)?;
        }
        let tiers = verdicts
            .iter()
            .map(|v| v.iter().map(|v| v.tier.as_str().to_owned()).collect())
            .collect();
        let whys = verdicts
            .iter()
            .map(|v| {
                v.as_ref()
                    .map(|v| v.explanation.clone())
                    .unwrap_or_default()
            })
            .collect();
        (tiers, whys, speed.end_to_end_pairs_per_second, Some(speed))
    } else {
        let (tiers, pps) = judge_by_writes(nodes, args.sensitivity).await?;
        let whys = vec![String::new(); tiers.len()];
        (tiers, whys, pps, None)
    };

    let mut overall = Score::default();
    let mut by_tier: BTreeMap<String, Score> = BTreeMap::new();
    let mut by_source: BTreeMap<String, Score> = BTreeMap::new();
    for ((p, tiers), why) in pairs.iter().zip(&tiers).zip(&whys) {
        let truth = p.label == "contradiction";
        let flagged = !tiers.is_empty();
        if args.errors && truth != flagged {
            let kind = if truth { "missed" } else { "false_alarm" };
            let line =
                serde_json::json!({"error": kind, "id": p.id, "a": p.a, "b": p.b, "why": why});
            eprintln!("{line}");
        }
        overall.add(truth, flagged);
        by_source
            .entry(p.source.clone().unwrap_or_else(|| "-".into()))
            .or_default()
            .add(truth, flagged);
        // A pair counts for a tier when that tier flagged it; misses count for every tier.
        for tier in ["heuristic", "vector", "llm"] {
            let this = tiers.iter().any(|t| t == tier);
            if this || !flagged {
                by_tier.entry(tier.into()).or_default().add(truth, this);
            }
        }
    }
    overall.finish(pps);
    by_tier.retain(|_, s| s.tp + s.fp > 0);
    for s in by_tier.values_mut().chain(by_source.values_mut()) {
        s.finish(pps);
    }
    let report = Report {
        overall,
        by_tier,
        by_source,
        rules,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_table(&report);
    }
    Ok(())
}

/// Each pair's `a` is stored and `b` written through `Detector::write_node`, in a scope of its
/// own in a scratch SQLite store: the tiers of the conflicts found, and pairs per second.
async fn judge_by_writes(
    nodes: Vec<(NewNode, NewNode)>,
    sensitivity: Sensitivity,
) -> anyhow::Result<(Vec<Vec<String>>, f64)> {
    let dir = std::env::temp_dir().join(format!("concord-eval-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir)?;
    let url = format!("sqlite://{}", dir.join("eval.db").display());
    let store = concord::store::connect(&url).await?;
    let mut settings = Settings::for_database(&url);
    settings.sensitivity = sensitivity;
    let detector = Detector::new(&settings);
    let n = nodes.len();
    let mut tiers = Vec::with_capacity(n);
    let started = Instant::now();
    for (a, b) in nodes {
        store.create_node(a, Vec::new()).await?;
        let (_, conflicts) = detector.write_node(&*store, b, true, None).await?;
        tiers.push(conflicts.into_iter().map(|c| c.detection.tier).collect());
    }
    let pps = n as f64 / started.elapsed().as_secs_f64().max(1e-9);
    let _ = std::fs::remove_dir_all(&dir);
    Ok((tiers, pps))
}

/// How fast the pure rules ran, on one thread.
#[derive(Serialize, Clone, Copy)]
struct RulesSpeed {
    /// Memories (both sides of every pair) analysed per second.
    memories_analysed_per_second: f64,
    /// Pairs judged per second from analyses made beforehand: the write path's cost per
    /// candidate once the candidate's analysis is cached.
    judging_pairs_per_second: f64,
    /// Pairs per second counting the analysis of both memories and the judging.
    end_to_end_pairs_per_second: f64,
}

/// The rules alone: every memory analysed once, then every pair judged from the analyses, each
/// phase timed on its own.
fn judge_by_rules(
    nodes: &[(NewNode, NewNode)],
    cfg: &DetectConfig,
) -> (Vec<Option<Verdict>>, RulesSpeed) {
    let memories: Vec<(Memory, Memory)> =
        nodes.iter().map(|(a, b)| (memory(a), memory(b))).collect();
    let (analyses, analysis_s) = timed(|| {
        memories
            .iter()
            .map(|(a, b)| (analyse(a), analyse(b)))
            .collect::<Vec<_>>()
    });
    let (verdicts, judging_s) = timed(|| {
        memories
            .iter()
            .zip(&analyses)
            .map(|((a, b), (aa, ab))| {
                assess_analysed(Analysed::new(*b, ab), Analysed::new(*a, aa), cfg)
            })
            .collect::<Vec<_>>()
    });
    let n = nodes.len() as f64;
    let speed = RulesSpeed {
        memories_analysed_per_second: 2.0 * n / analysis_s,
        judging_pairs_per_second: n / judging_s,
        end_to_end_pairs_per_second: n / (analysis_s + judging_s),
    };
    (verdicts, speed)
}

/// Shortest time a phase is repeated for: one pass over a dev file takes milliseconds, too
/// short to time on its own.
const MIN_TIMED: Duration = Duration::from_millis(500);

/// The first pass's result and the mean seconds per pass, over as many passes as fit in
/// [`MIN_TIMED`] (at least one).
fn timed<T>(mut pass: impl FnMut() -> T) -> (T, f64) {
    let started = Instant::now();
    let first = pass();
    let mut passes = 1u32;
    while started.elapsed() < MIN_TIMED {
        std::hint::black_box(pass());
        passes += 1;
    }
    let seconds = started.elapsed().as_secs_f64() / f64::from(passes);
    (first, seconds.max(1e-12))
}

fn id_of(p: &Pair) -> String {
    match &p.id {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn print_table(r: &Report) {
    println!(
        "{:<28} {:>6} {:>5} {:>5} {:>5} {:>6} {:>9} {:>7} {:>6}",
        "", "pairs", "tp", "fp", "fn", "tn", "precision", "recall", "f1"
    );
    let row = |name: &str, s: &Score| {
        println!(
            "{:<28} {:>6} {:>5} {:>5} {:>5} {:>6} {:>9.3} {:>7.3} {:>6.3}",
            name, s.pairs, s.tp, s.fp, s.fn_, s.tn, s.precision, s.recall, s.f1
        );
    };
    row("overall", &r.overall);
    for (t, s) in &r.by_tier {
        row(&format!("tier {t}"), s);
    }
    for (src, s) in &r.by_source {
        row(&format!("source {src}"), s);
    }
    if let Some(speed) = &r.rules {
        println!(
            "{:.0} memories analysed per second; {:.0} pairs judged per second from analyses",
            speed.memories_analysed_per_second, speed.judging_pairs_per_second
        );
        print!("end to end (analysis and judging): ");
    }
    println!("{:.0} pairs per second", r.overall.pairs_per_second);
}
