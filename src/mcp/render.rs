//! Shapes of tool results: structured content (the REST DTOs where they fit) and the text a
//! model reads. A conflict is always shown with both texts in full and the recommendation,
//! so the model can tell the user what disagrees without another call.

use std::fmt::Write;

use serde::Serialize;
use uuid::Uuid;

use crate::domain::conflict::Conflict;
use crate::domain::node::Node;
use crate::service::nodes::Hit;
use crate::service::recall::Recall;
use crate::service::report::Report;
use crate::wire::dto::{ConflictDto, NodeDto, RecommendationDto, TimelineResponse};

/// One side of a disagreement.
#[derive(Debug, Clone, Serialize)]
pub struct Statement {
    /// Absent for text that is not stored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub title: String,
    pub body: String,
}

impl Statement {
    pub fn of(n: &Node) -> Self {
        Self {
            id: Some(n.id),
            title: n.title.clone(),
            body: n.body.clone(),
        }
    }
}

/// Two memories that disagree, as a write or a check found them.
#[derive(Debug, Serialize)]
pub struct Disagreement {
    /// The queued conflict; on a check (which queues nothing), the conflict that already
    /// stands for the pair: pending, or decided `keep_both`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflict_id: Option<Uuid>,
    pub conflict_type: String,
    pub probability: f64,
    pub signals: Vec<String>,
    pub explanation: String,
    pub old: Statement,
    pub new: Statement,
    pub recommendation: RecommendationDto,
    /// The strategy a resolution policy applied in the same write, or on a check `keep_both`
    /// when the pair was decided so earlier; absent while pending.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution: Option<String>,
    /// `policy:<name>` when a resolution policy resolved it in the same write; on a check,
    /// who decided `keep_both`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved_by: Option<String>,
}

impl Disagreement {
    /// A conflict a write queued; `new` is the node just written.
    pub fn queued(c: Conflict, new: &Node) -> Self {
        let old = c.old_node.as_ref().map(Statement::of).unwrap_or(Statement {
            id: c.old_node_id,
            title: String::new(),
            body: String::new(),
        });
        Self {
            conflict_id: Some(c.id),
            conflict_type: c.conflict_type,
            probability: c.detection.probability,
            signals: c.detection.signals,
            explanation: c.detection.explanation,
            old,
            new: Statement::of(new),
            recommendation: c.recommendation.into(),
            resolution: c.resolution.map(|s| s.as_str().to_owned()),
            resolved_by: c.resolved_by,
        }
    }

    /// A check's finding against `new` (a stored node or text), with the pending conflict
    /// that already stands for the pair, if any.
    pub fn found(h: Hit, new: Statement) -> Self {
        Self {
            conflict_id: h.conflict_id,
            conflict_type: h.conflict_type,
            probability: h.detection.probability,
            signals: h.detection.signals,
            explanation: h.detection.explanation,
            old: Statement::of(&h.old),
            new,
            recommendation: h.recommendation.into(),
            resolution: h.kept_both.then(|| "keep_both".to_owned()),
            resolved_by: h.resolved_by,
        }
    }
}

fn side_line(out: &mut String, label: &str, s: &Statement) {
    let id = s.id.map(|i| format!(" [{i}]")).unwrap_or_default();
    let _ = writeln!(out, "  {label}{id} {}: {}", s.title, s.body);
}

fn recommendation_line(out: &mut String, r: &RecommendationDto) {
    let strategy = r
        .strategy
        .as_deref()
        .map(|s| format!(" (strategy {s})"))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "  Recommendation: {}{strategy}. {}",
        r.resolution, r.reasoning
    );
}

/// The disagreements, one block each.
pub fn disagreements(list: &[Disagreement]) -> String {
    let mut out = String::new();
    for d in list {
        let queued = match (d.conflict_id, &d.resolved_by, &d.resolution) {
            (Some(i), by, Some(how)) if how == "keep_both" => {
                let by = by
                    .as_deref()
                    .map(|b| format!(" by {b}"))
                    .unwrap_or_default();
                format!(", conflict {i} decided keep_both{by}: both hold")
            }
            (Some(i), Some(by), Some(how)) => {
                format!(", conflict {i} resolved at once by {by} with {how}")
            }
            (Some(i), _, _) => format!(", pending conflict {i}"),
            (None, _, _) => String::new(),
        };
        let _ = writeln!(
            out,
            "- {} (probability {}{queued}): {}",
            d.conflict_type, d.probability, d.explanation
        );
        side_line(&mut out, "OLD", &d.old);
        side_line(&mut out, "NEW", &d.new);
        recommendation_line(&mut out, &d.recommendation);
    }
    out
}

/// Pending conflicts with both sides in full.
pub fn conflicts(list: &[ConflictDto], pending_total: i64) -> String {
    if list.is_empty() {
        return "No pending conflicts.".to_owned();
    }
    let mut out = format!(
        "{} pending conflict(s); showing {}, oldest first.\n",
        pending_total,
        list.len()
    );
    for c in list {
        let _ = writeln!(
            out,
            "- conflict {} ({}): {}",
            c.id, c.conflict_type, c.detection.explanation
        );
        if let Some(n) = &c.old_node {
            side_line(&mut out, "OLD", &node_side(n));
        }
        match (&c.new_node, &c.new_content) {
            (Some(n), _) => side_line(&mut out, "NEW", &node_side(n)),
            (None, Some(text)) => side_line(
                &mut out,
                "NEW",
                &Statement {
                    id: None,
                    title: "(text only)".into(),
                    body: text.clone(),
                },
            ),
            (None, None) => {}
        }
        recommendation_line(&mut out, &c.recommendation);
    }
    out
}

fn node_side(n: &NodeDto) -> Statement {
    Statement {
        id: Some(n.id),
        title: n.title.clone(),
        body: n.body.clone(),
    }
}

/// Recalled memories and where they disagree.
/// A timeline: its sentence, then one line per memory.
pub fn timeline(t: &TimelineResponse) -> String {
    let mut out = format!("{}\n", t.summary);
    for e in &t.entries {
        let n = &e.node;
        let held = match (n.corrected, &n.valid_until) {
            (true, _) => "never held (a correction)".to_owned(),
            (false, Some(until)) => format!("held {} until {until}", n.observed_at),
            (false, None) => format!("holds since {}", n.observed_at),
        };
        let replaced = e
            .replaced_by
            .as_ref()
            .map(|r| {
                let by = r
                    .resolved_by
                    .as_deref()
                    .unwrap_or("an edge written by hand");
                let conflict = r
                    .conflict_id
                    .map(|c| format!(" in conflict {c}"))
                    .unwrap_or_default();
                format!("; replaced by [{}], decided by {by}{conflict}", r.node_id)
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "- [{}] {}: {} ({held}{replaced})",
            n.id, n.title, n.body
        );
    }
    out
}

pub fn recall(r: &Recall) -> String {
    if r.sources.is_empty() {
        return format!("No memory matches \"{}\".", r.query);
    }
    let mut out = format!("Memories for \"{}\":\n", r.query);
    for s in &r.sources {
        let _ = writeln!(
            out,
            "- [{}] ({}, confidence {}) {}",
            s.id, s.provenance, s.confidence, s.source_text
        );
    }
    if r.conflicts.is_empty() {
        out.push_str("These memories agree.\n");
        return out;
    }
    out.push_str("\nThey DISAGREE; do not pick one silently:\n");
    for c in &r.conflicts {
        let queued = c
            .conflict_id
            .map(|i| format!(" (pending conflict {i})"))
            .unwrap_or_else(|| " (found now, not queued)".to_owned());
        let _ = writeln!(
            out,
            "- {} between {} and {}{queued}. Recommended: {}. {}",
            c.conflict_type, c.sources[0], c.sources[1], c.recommended_resolution, c.reasoning
        );
    }
    out
}

/// A topic report.
pub fn report(r: &Report) -> String {
    let mut out = format!(
        "{} (confidence {}, {} sources analysed)\n",
        r.summary, r.confidence, r.sources_analyzed
    );
    for c in &r.conflicts {
        let _ = writeln!(
            out,
            "- {} ({} severity): \"{}\" vs \"{}\". Recommended: {}. {}",
            c.conflict_type,
            c.severity,
            c.claims[0],
            c.claims[1],
            c.recommended_resolution,
            c.reasoning
        );
    }
    out
}
