//! Topic reports (`POST /conflicts/check`): search the nodes of a topic, judge every pair of
//! them with the detection rules (older node as the old side), and store the conflict-aware
//! report. Nothing is queued: a report describes, it does not change the queue.

use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::domain::access::Caller;
use crate::domain::conflict::Recommendation;
use crate::domain::contradiction::{
    self, DetectConfig, Memory, Sensitivity, Verdict, index_tokens,
};
use crate::domain::cursor::{Cursor, Page};
use crate::domain::node::{Node, normalize_labels};
use crate::domain::report as grade;
use crate::domain::time;
use crate::domain::valid_time::PointInTime;
use crate::domain::validate::{Errors, FieldError};
use crate::service::detect::{Probe, recommend_for};
use crate::service::finding::Credibility;
use crate::service::nodes::memories_at;
use crate::service::{Result, Services};
use crate::store::{NodeQuery, Store, StoreResult, StoredReport};

/// What to report on.
pub struct TopicCheck {
    pub topic: String,
    pub labels: Vec<String>,
    pub limit: usize,
    pub sensitivity: Sensitivity,
    /// Report as of a point in time instead of now.
    pub at: Option<PointInTime>,
}

impl TopicCheck {
    /// Validates a report request: topic 1..500 characters, limit 2..50 (default 20),
    /// sensitivity `strict`, `balanced` (default) or `lenient`; `at` is `(as_of, known_at)` as
    /// the client sent them.
    pub fn parse(
        topic: String,
        labels: Option<Vec<String>>,
        limit: Option<i64>,
        sensitivity: Option<String>,
        at: (Option<&str>, Option<&str>),
    ) -> Result<Self, Vec<FieldError>> {
        let mut e = Errors::default();
        let at = PointInTime::parse(at.0, at.1, time::now()).unwrap_or_else(|errs| {
            for err in errs {
                e.add(&err.pointer, err.detail);
            }
            None
        });
        let topic = topic.trim().to_owned();
        if topic.is_empty() || topic.chars().count() > 500 {
            e.add("/topic", "must be 1..500 characters");
        }
        crate::domain::validate::check_text(&mut e, "/topic", &topic);
        let limit = limit.unwrap_or(20);
        if !(2..=50).contains(&limit) {
            e.add("/limit", "must be between 2 and 50");
        }
        let sensitivity = match sensitivity.as_deref() {
            None => Sensitivity::Balanced,
            Some(s) => s.parse().unwrap_or_else(|_| {
                e.add("/sensitivity", "must be strict, balanced or lenient");
                Sensitivity::Balanced
            }),
        };
        let labels = normalize_labels(labels.unwrap_or_default(), &mut e);
        e.finish(TopicCheck {
            topic,
            labels,
            limit: limit as usize,
            sensitivity,
            at,
        })
    }
}

/// One node a report or a recall cites (also the wire form: recall and reports share it).
#[derive(Debug, Serialize, ToSchema)]

pub struct ReportSource {
    pub id: Uuid,
    /// The node's body.
    pub source_text: String,
    /// The node's `source`, or `node:<id>` when it has none.
    pub provenance: String,
    /// `high` (≥ 0.8), `med` (≥ 0.5) or `low`.
    #[schema(value_type = String)]
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
    /// The valid time the report describes, when asked as of one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub as_of: Option<String>,
    /// The system time the report describes, when asked as of one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub known_at: Option<String>,
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

/// Active nodes that full-text search finds for `topic`, best ranked first, keeping those
/// with at least one of `labels` (any when empty), at most `limit`.
pub(crate) async fn search_active(
    store: &dyn Store,
    caller: &Caller,
    topic: &str,
    labels: &[String],
    limit: usize,
) -> StoreResult<Vec<Node>> {
    let tokens = index_tokens("", topic);
    if tokens.is_empty() {
        // Nothing searchable (only punctuation or stop words): nothing matches.
        return Ok(Vec::new());
    }
    let mut nodes = store
        .list_nodes(NodeQuery {
            tokens: Some(tokens),
            limit: 200,
            scopes: caller.visible(),
            ..Default::default()
        })
        .await?
        .items;
    if !labels.is_empty() {
        nodes.retain(|n| n.labels.iter().any(|l| labels.contains(l)));
    }
    nodes.truncate(limit);
    Ok(nodes)
}

/// Two of the given nodes that the detection rules find contradictory.
pub(crate) struct PairConflict<'a> {
    pub old: &'a Node,
    pub new: &'a Node,
    pub verdict: Verdict,
    pub recommendation: Recommendation,
}

/// Judges every pair of `nodes` of one scope and memory type, the older observation as the
/// old side.
pub(crate) fn judge_pairs<'a>(
    nodes: &[&'a Node],
    cfg: &DetectConfig,
    table: &Credibility,
) -> Vec<PairConflict<'a>> {
    let mut sorted = nodes.to_vec();
    sorted.sort_by_key(|n| (n.observed_at, n.id));
    let mut found = Vec::new();
    for (i, &old) in sorted.iter().enumerate() {
        for &new in &sorted[i + 1..] {
            if old.scope != new.scope || old.memory_type != new.memory_type {
                continue;
            }
            let Some(verdict) = contradiction::assess(&memory(new), &memory(old), cfg) else {
                continue;
            };
            let recommendation = recommend_for(old, &Probe::of_stored(new, None), table);
            found.push(PairConflict {
                old,
                new,
                verdict,
                recommendation,
            });
        }
    }
    found
}

/// `high` (≥ 0.8), `med` (≥ 0.5) or `low`, with the node's provenance.
pub(crate) fn source_of(n: &Node) -> ReportSource {
    ReportSource {
        id: n.id,
        source_text: n.body.clone(),
        provenance: n.source.clone().unwrap_or_else(|| format!("node:{}", n.id)),
        confidence: grade::source_confidence(n.confidence),
    }
}

/// Builds, stores and returns the report.
pub async fn check_topic(svc: &Services, caller: &Caller, check: TopicCheck) -> Result<Report> {
    let (store, base) = (&*svc.store, svc.detector.config());
    let mut nodes = match check.at {
        None => search_active(store, caller, &check.topic, &check.labels, check.limit).await?,
        // What was known then about what held then; a memory that did not hold is no source.
        Some(at) => {
            let tokens = index_tokens("", &check.topic);
            memories_at(svc, caller, &tokens, &check.labels, check.limit, at).await?
        }
    };
    // Oldest observation first, so sources and claims read in order.
    nodes.sort_by_key(|n| (n.observed_at, n.id));
    let cfg = DetectConfig {
        sensitivity: check.sensitivity,
        ..base
    };
    let table = svc.detector.credibility(store).await?;
    let refs: Vec<&Node> = nodes.iter().collect();
    let conflicts: Vec<ReportConflict> = judge_pairs(&refs, &cfg, &table)
        .into_iter()
        .map(|p| {
            let labels: Vec<&String> = p.old.labels.iter().chain(&p.new.labels).collect();
            ReportConflict {
                conflict_type: p.verdict.conflict_type.as_str().to_owned(),
                severity: grade::severity(p.verdict.probability, &labels),
                sources: [p.old.id, p.new.id],
                claims: [p.old.body.clone(), p.new.body.clone()],
                probability: (p.verdict.probability * 1000.0).round() / 1000.0,
                recommended_resolution: p.recommendation.resolution,
                reasoning: format!("{} {}", p.verdict.explanation, p.recommendation.reasoning),
            }
        })
        .collect();
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
        sources: nodes.iter().map(source_of).collect(),
        conflicts,
        created_at: time::format(&now),
        as_of: check.at.map(|a| time::format(&a.valid)),
        known_at: check.at.map(|a| time::format(&a.known)),
    };
    store
        .save_report(StoredReport {
            id: report.id,
            topic: report.topic.clone(),
            report: serde_json::to_value(&report)?,
            created_at: now,
            scopes: Some(report_scopes(caller, &nodes)),
        })
        .await?;
    Ok(report)
}

/// The scopes a stored report is shown to keys of: those of the memories it drew on, or, when
/// it drew on none, those of the key that asked (its topic is all it holds).
fn report_scopes(caller: &Caller, nodes: &[Node]) -> String {
    let scopes: std::collections::BTreeSet<&str> = nodes.iter().map(|n| n.scope.as_str()).collect();
    if scopes.is_empty() {
        caller.scopes.to_strings().join("\n")
    } else {
        scopes.into_iter().collect::<Vec<_>>().join("\n")
    }
}

/// Stored reports the caller sees, newest first, as they were stored.
pub async fn list(
    svc: &Services,
    caller: &Caller,
    limit: usize,
    after: Option<Cursor>,
) -> Result<Page<serde_json::Value>> {
    let page = svc
        .store
        .list_reports(limit, after, caller.visible().as_deref())
        .await?;
    Ok(Page {
        items: page.items.into_iter().map(|r| r.report).collect(),
        next_cursor: page.next_cursor,
    })
}
