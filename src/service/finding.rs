//! What detection works on and finds: the new side of a check ([`Probe`]), one contradiction
//! found for it ([`Finding`]), and how a verdict and a source's credibility are recorded.
//! Below `detect`, `judging` and `policy`, which all use them.

use uuid::Uuid;

use crate::domain::conflict::Detection;
use crate::domain::contradiction::{ConflictType, Memory, Signal, Tier, Verdict};
use crate::domain::node::{NewNode, Node};
use crate::domain::time::Timestamp;
use std::sync::Arc;

use crate::domain::credibility;
use crate::domain::policy::{Trust, trust_of};
use crate::domain::provenance::Provenance;
use crate::store::SourceStats;

/// The new side of a check: a node about to be written, or one already stored.
pub struct Probe<'a> {
    pub id: Option<Uuid>,
    pub title: &'a str,
    pub body: &'a str,
    pub memory_type: &'a str,
    pub scope: &'a str,
    pub labels: &'a [String],
    pub confidence: f64,
    pub observed_at: Timestamp,
    pub source: Option<&'a str>,
    pub embedding: Option<&'a [f32]>,
    /// What the writer declared of its origin (policies read its evidence).
    pub provenance: Option<&'a Provenance>,
}

impl<'a> Probe<'a> {
    /// The probe as the rules see it.
    pub fn memory(&self) -> Memory<'a> {
        Memory {
            title: self.title,
            body: self.body,
            labels: self.labels,
            confidence: self.confidence,
            embedding: self.embedding,
        }
    }

    pub fn of_new(n: &'a NewNode) -> Self {
        Self {
            id: None,
            title: &n.title,
            body: &n.body,
            memory_type: &n.memory_type,
            scope: &n.scope,
            labels: &n.labels,
            confidence: n.confidence,
            observed_at: n.observed_at,
            source: n.source.as_deref(),
            embedding: n.embedding.as_deref(),
            provenance: n.provenance.as_ref(),
        }
    }

    pub fn of_stored(n: &'a Node, embedding: Option<&'a [f32]>) -> Self {
        Self {
            id: Some(n.id),
            title: &n.title,
            body: &n.body,
            memory_type: &n.memory_type,
            scope: &n.scope,
            labels: &n.labels,
            confidence: n.confidence,
            observed_at: n.observed_at,
            source: n.source.as_deref(),
            embedding,
            provenance: n.provenance.as_ref(),
        }
    }
}

/// One contradiction found for a probe.
pub struct Finding {
    pub old: Node,
    pub verdict: Verdict,
    /// Why the configured LLM tier did not give this verdict, when it did not.
    pub llm_fallback: Option<String>,
}

impl Finding {
    /// A memory the writer declared the new one replaces (`provenance.replaces`) where
    /// detection found no contradiction: a direct contradiction, certain because declared.
    pub fn declared(old: Node) -> Self {
        Self {
            old,
            verdict: Verdict {
                tier: Tier::Heuristic,
                conflict_type: ConflictType::DirectContradiction,
                probability: 1.0,
                signals: vec![Signal::Replacement],
                overlap: 0.0,
                similarity: None,
                explanation: "the writer declared that the new memory replaces this one \
                              (provenance.replaces)"
                    .to_owned(),
            },
            llm_fallback: None,
        }
    }

    /// The verdict as stored on the conflict, with the LLM fallback reason.
    pub fn detection(&self) -> Detection {
        Detection {
            llm_fallback: self.llm_fallback.clone(),
            ..detection_of(&self.verdict)
        }
    }
}

pub fn detection_of(v: &Verdict) -> Detection {
    Detection {
        tier: v.tier.as_str().to_owned(),
        probability: round3(v.probability),
        signals: v.signals.iter().map(|s| s.as_str().to_owned()).collect(),
        overlap: Some(round3(v.overlap)),
        similarity: v.similarity.map(round3),
        explanation: v.explanation.clone(),
        llm_fallback: None,
        policy: None,
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// What recommendations and policies know of sources: the verdicts learned in each scope,
/// and the starting trust the policy file's `[trust]` table gives source patterns.
#[derive(Debug, Clone, Default)]
pub struct Credibility {
    pub verdicts: Vec<SourceStats>,
    pub trust: Arc<[Trust]>,
}

/// A source's credibility in `scope`: its starting trust moved by the verdicts learned in
/// that scope (never another's); none for no source, or one without either.
pub fn credibility_of(table: &Credibility, scope: &str, source: Option<&str>) -> Option<f64> {
    let source = source?;
    let start = trust_of(&table.trust, source);
    let learned = (table.verdicts.iter()).find(|s| s.scope == scope && s.source == source);
    match learned {
        Some(s) => Some(credibility::score_from(
            start.unwrap_or(credibility::NEUTRAL),
            s.upheld,
            s.contradicted,
        )),
        None => start,
    }
}
