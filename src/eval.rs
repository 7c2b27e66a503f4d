//! `concord eval`: measures detection on labelled pairs through the same code the service
//! runs. Each pair gets its own scope in a scratch SQLite store, so `a` is stored as a node and
//! `b` is written through `Detector::write_node`, exactly like `POST /nodes`. With
//! `--rules-only` the pairs are judged by the pure rules alone, to time them without storage.

use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;
use std::time::Instant;

use concord::config::{EvalArgs, Settings};
use concord::domain::contradiction::{DetectConfig, Memory, assess};
use concord::domain::node::{NewNode, NodeInput};
use concord::domain::time;
use concord::service::detect::Detector;
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
}

fn title_of(p: &Pair, text: &str) -> String {
    p.topic
        .clone()
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| text.chars().take(80).collect())
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
    let dir = std::env::temp_dir().join(format!("concord-eval-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir)?;
    let url = format!("sqlite://{}", dir.join("eval.db").display());
    let store = concord::store::connect(&url).await?;
    let mut settings = Settings::for_database(&url);
    settings.sensitivity = args.sensitivity;
    let detector = Detector::new(&settings);

    let mut overall = Score::default();
    let mut by_tier: BTreeMap<String, Score> = BTreeMap::new();
    let mut by_source: BTreeMap<String, Score> = BTreeMap::new();
    let started = Instant::now();
    for (i, p) in pairs.iter().enumerate() {
        let scope = format!("eval-{i}-{}", p.id);
        let (ea, eb) = embeddings.get(&p.id.to_string()).cloned().unzip();
        let a = node(title_of(p, &p.a), &p.a, &scope, ea)?;
        let b = node(title_of(p, &p.b), &p.b, &scope, eb)?;
        let mut why = String::new();
        let tiers: Vec<String> = if args.rules_only {
            let cfg = DetectConfig {
                sensitivity: args.sensitivity,
                ..DetectConfig::default()
            };
            let verdict = assess(&memory(&b), &memory(&a), &cfg);
            if let Some(v) = &verdict {
                why.clone_from(&v.explanation);
            }
            verdict
                .map(|v| v.tier.as_str().to_owned())
                .into_iter()
                .collect()
        } else {
            store.create_node(a, Vec::new()).await?;
            let (_, conflicts) = detector.write_node(&*store, b, true, None).await?;
            conflicts.into_iter().map(|c| c.detection.tier).collect()
        };
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
    let pps = pairs.len() as f64 / started.elapsed().as_secs_f64().max(1e-9);
    overall.finish(pps);
    by_tier.retain(|_, s| s.tp + s.fp > 0);
    for s in by_tier.values_mut().chain(by_source.values_mut()) {
        s.finish(pps);
    }
    let _ = std::fs::remove_dir_all(&dir);
    let report = Report {
        overall,
        by_tier,
        by_source,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_table(&report);
    }
    Ok(())
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
    println!("{:.0} pairs per second", r.overall.pairs_per_second);
}
