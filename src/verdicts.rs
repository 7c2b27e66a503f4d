//! Verdict files: the rules' verdict on every pair of a labelled file, one JSON line per pair.
//! Committed next to the pairs they judge (`tests/data/eval`), they pin every verdict down, so
//! that a change meant only to make the rules faster is shown to change none. A change to the
//! rules made on purpose regenerates them with `concord eval --rules-only --write-verdicts`.

use std::io::BufRead;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::domain::contradiction::{self, Analysed, DetectConfig, Memory, Verdict};

/// What a verdict file needs of a labelled pair; the other fields of a line are ignored.
#[derive(Debug, Clone, Deserialize)]
pub struct PairText {
    #[serde(default)]
    pub id: serde_json::Value,
    pub a: String,
    pub b: String,
    #[serde(default)]
    pub topic: Option<String>,
}

impl PairText {
    /// The id as written in the file, without JSON quotes.
    pub fn id(&self) -> String {
        match &self.id {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        }
    }
}

/// The title `concord eval` gives one side of a pair: the pair's topic, or else the first 80
/// characters of the side's text; trimmed, as every stored title is.
pub fn title(topic: Option<&str>, text: &str) -> String {
    let raw: String = match topic.filter(|t| !t.trim().is_empty()) {
        Some(t) => t.to_owned(),
        None => text.chars().take(80).collect(),
    };
    raw.trim().to_owned()
}

/// A side of a pair as `concord eval --rules-only` judges it without embeddings: the default
/// confidence of a new node and no labels.
pub fn memory<'a>(title: &'a str, body: &'a str) -> Memory<'a> {
    Memory {
        title,
        body,
        labels: &[],
        confidence: 0.8,
        embedding: None,
    }
}

/// The verdict on a pair whose `a` is stored and `b` is new, through [`contradiction::assess`].
pub fn judge(pair: &PairText, cfg: &DetectConfig) -> Option<Verdict> {
    let topic = pair.topic.as_deref();
    let (ta, tb) = (title(topic, &pair.a), title(topic, &pair.b));
    contradiction::assess(&memory(&tb, &pair.b), &memory(&ta, &pair.a), cfg)
}

/// The same verdict through [`contradiction::analyse`] and [`contradiction::assess_analysed`],
/// as the write path judges a pair.
pub fn judge_analysed(pair: &PairText, cfg: &DetectConfig) -> Option<Verdict> {
    let topic = pair.topic.as_deref();
    let (ta, tb) = (title(topic, &pair.a), title(topic, &pair.b));
    let (old, new) = (memory(&ta, &pair.a), memory(&tb, &pair.b));
    let (ao, an) = (contradiction::analyse(&old), contradiction::analyse(&new));
    contradiction::assess_analysed(Analysed::new(new, &an), Analysed::new(old, &ao), cfg)
}

/// One line of a verdict file. Figures are rounded to three decimals, as conflicts report them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub id: String,
    pub flagged: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conflict_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probability: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overlap: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub signals: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
}

impl Record {
    pub fn new(id: String, verdict: Option<&Verdict>) -> Self {
        let round3 = |x: f64| (x * 1000.0).round() / 1000.0;
        Record {
            id,
            flagged: verdict.is_some(),
            conflict_type: verdict.map(|v| v.conflict_type.as_str().to_owned()),
            probability: verdict.map(|v| round3(v.probability)),
            overlap: verdict.map(|v| round3(v.overlap)),
            signals: verdict.map_or_else(Vec::new, |v| {
                v.signals.iter().map(|s| s.as_str().to_owned()).collect()
            }),
            explanation: verdict.map(|v| v.explanation.clone()),
        }
    }
}

/// The non-empty lines of a JSON-lines file, each parsed as a `T`.
pub fn read_lines<T: serde::de::DeserializeOwned>(path: &Path) -> anyhow::Result<Vec<T>> {
    let file = std::fs::File::open(path)?;
    let mut out = Vec::new();
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let item = serde_json::from_str(&line)
            .map_err(|e| anyhow::anyhow!("{}:{}: {e}", path.display(), n + 1))?;
        out.push(item);
    }
    Ok(out)
}

/// Writes records as JSON lines.
pub fn write_records(path: &Path, records: &[Record]) -> anyhow::Result<()> {
    let mut out = String::new();
    for r in records {
        out.push_str(&serde_json::to_string(r)?);
        out.push('\n');
    }
    std::fs::write(path, out)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_fall_back_to_the_start_of_the_text() {
        assert_eq!(title(Some("Redis"), "The cache is Redis."), "Redis");
        assert_eq!(
            title(Some("  "), "The cache is Redis."),
            "The cache is Redis."
        );
        let long = "word ".repeat(40);
        assert_eq!(title(None, &long).chars().count(), 79);
    }

    #[test]
    fn records_of_no_verdict_carry_only_the_id() {
        let r = Record::new("x".into(), None);
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"id":"x","flagged":false}"#
        );
    }
}
