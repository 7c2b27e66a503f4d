//! Topic reports (`POST /conflicts/check`): search the nodes of a topic, judge every pair of
//! them with the detection rules (older node as the old side), and store the conflict-aware
//! report. Nothing is queued: a report describes, it does not change the queue.

use serde::Serialize;
use uuid::Uuid;

use crate::domain::contradiction::{self, DetectConfig, Memory, Sensitivity, index_tokens};
use crate::domain::node::Node;
use crate::domain::report as grade;
use crate::domain::time;
use crate::service::detect::{Probe, credibility_table, recommend_for};
use crate::store::{NodeQuery, Store, StoreResult, StoredReport};

/// What to report on.
pub struct TopicCheck {
    pub topic: String,
    pub labels: Vec<String>,
    pub limit: usize,
    pub sensitivity: Sensitivity,
}

/// One node the report analysed (its stored and wire form: `api::reports` describes it).
#[derive(Debug, Serialize)]
pub struct ReportSource {
    pub id: Uuid,
    /// The node's body.
    pub source_text: String,
    /// The node's `source`, or `node:<id>` when it has none.
    pub provenance: String,
    /// `high` (≥ 0.8), `med` (≥ 0.5) or `low`.
    pub confidence: &'static str,
}

/// Two sources that contradict each other.
#[derive(Debug, Serialize)]
pub struct ReportConflict {
    pub conflict_type: String,
    /// `high`, `medium` or `low`.
    pub severity: &'static str,
    /// Older source first.
    pub sources: [Uuid; 2],
    /// Their texts, in the same order.
    pub claims: [String; 2],
    pub probability: f64,
    pub recommended_resolution: String,
    pub reasoning: String,
}

/// A conflict-aware answer about a topic. `confidence`: `low` when a high-severity conflict
/// exists, `med` with other conflicts or mostly unsure sources, else `high`. Severity: `high`
/// for value-layer labels or probability ≥ 0.85, `medium` from 0.65, else `low`.
#[derive(Debug, Serialize)]
pub struct Report {
    pub id: Uuid,
    pub topic: String,
    pub sources_analyzed: usize,
    pub sources: Vec<ReportSource>,
    /// Absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<ReportConflict>,
    /// `high`, `med` or `low`.
    pub confidence: &'static str,
    pub summary: String,
    pub created_at: String,
}

fn memory(n: &Node) -> Memory<'_> {
    Memory {
        title: &n.title,
        body: &n.body,
        labels: &n.labels,
        confidence: n.confidence,
        embedding: None,
    }
}

/// Builds, stores and returns the report.
pub async fn check_topic(
    store: &dyn Store,
    base: DetectConfig,
    check: TopicCheck,
) -> StoreResult<Report> {
    let tokens = index_tokens("", &check.topic);
    let mut nodes = if tokens.is_empty() {
        Vec::new()
    } else {
        store
            .list_nodes(NodeQuery {
                tokens: Some(tokens),
                limit: 200,
                ..Default::default()
            })
            .await?
            .items
    };
    if !check.labels.is_empty() {
        nodes.retain(|n| n.labels.iter().any(|l| check.labels.contains(l)));
    }
    nodes.truncate(check.limit);
    // Oldest observation first, so each pair is judged as (old, new).
    nodes.sort_by_key(|n| (n.observed_at, n.id));
    let cfg = DetectConfig {
        sensitivity: check.sensitivity,
        ..base
    };
    let table = credibility_table(store).await?;
    let mut conflicts = Vec::new();
    for (i, old) in nodes.iter().enumerate() {
        for new in &nodes[i + 1..] {
            if old.scope != new.scope || old.memory_type != new.memory_type {
                continue;
            }
            let Some(v) = contradiction::assess(&memory(new), &memory(old), &cfg) else {
                continue;
            };
            let rec = recommend_for(old, &Probe::of_stored(new, None), &table);
            let labels: Vec<&String> = old.labels.iter().chain(&new.labels).collect();
            conflicts.push(ReportConflict {
                conflict_type: v.conflict_type.as_str().to_owned(),
                severity: grade::severity(v.probability, &labels),
                sources: [old.id, new.id],
                claims: [old.body.clone(), new.body.clone()],
                probability: (v.probability * 1000.0).round() / 1000.0,
                recommended_resolution: rec.resolution,
                reasoning: format!("{} {}", v.explanation, rec.reasoning),
            });
        }
    }
    let severities: Vec<&str> = conflicts.iter().map(|c| c.severity).collect();
    let confidences: Vec<f64> = nodes.iter().map(|n| n.confidence).collect();
    let types: Vec<&str> = conflicts.iter().map(|c| c.conflict_type.as_str()).collect();
    let now = time::now();
    let report = Report {
        id: Uuid::now_v7(),
        summary: grade::summary(&check.topic, nodes.len(), &types),
        confidence: grade::overall_confidence(&severities, &confidences),
        topic: check.topic,
        sources_analyzed: nodes.len(),
        sources: nodes
            .iter()
            .map(|n| ReportSource {
                id: n.id,
                source_text: n.body.clone(),
                provenance: n.source.clone().unwrap_or_else(|| format!("node:{}", n.id)),
                confidence: grade::source_confidence(n.confidence),
            })
            .collect(),
        conflicts,
        created_at: time::format(&now),
    };
    store
        .save_report(StoredReport {
            id: report.id,
            topic: report.topic.clone(),
            report: serde_json::to_value(&report)?,
            created_at: now,
        })
        .await?;
    Ok(report)
}
