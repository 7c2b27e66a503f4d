//! The filters every tier applies before judging a pair, and the sensitivity rules for the
//! optional LLM tier. Pure: the LLM call itself lives in `crate::service::llm`; this module only says
//! which pairs are worth asking about and what an answer means at a given sensitivity.

use super::{Analysed, analyse, vector};
use super::{ConflictType, DetectConfig, FLAG, LENIENT_FLAG, Memory, Sensitivity, Tier, Verdict};

/// A pair that passed the filters: enough token overlap, or embeddings in the band with a
/// shared label.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Screen {
    pub overlap: f64,
    pub similarity: Option<f64>,
}

/// Some(screen) when the pair passes the filters of the heuristic or the vector tier; only such
/// pairs can be contradictions, and only they are sent to the LLM tier.
pub fn screen(new: &Memory, old: &Memory, cfg: &DetectConfig) -> Option<Screen> {
    let (an, ao) = (analyse(new), analyse(old));
    screen_analysed(Analysed::new(*new, &an), Analysed::new(*old, &ao), cfg)
}

/// [`screen`] of two memories analysed beforehand.
pub fn screen_analysed(new: Analysed, old: Analysed, cfg: &DetectConfig) -> Option<Screen> {
    let overlap = old.analysis.overlap(new.analysis);
    let (new, old) = (&new.memory, &old.memory);
    let similarity = vector::similarity(new, old);
    let shared_label = new.labels.iter().any(|l| old.labels.contains(l));
    let vector_candidate = similarity.is_some_and(|s| shared_label && vector::in_band(s, cfg));
    (overlap >= cfg.min_overlap || vector_candidate).then_some(Screen {
        overlap,
        similarity,
    })
}

/// What the LLM tier answered about one pair, already validated.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmJudgement {
    pub contradiction: bool,
    pub probability: f64,
    /// None only when `contradiction` is false.
    pub conflict_type: Option<ConflictType>,
    pub explanation: String,
}

/// The LLM tier's verdict when it flags the pair at this sensitivity: `strict` and `balanced`
/// take it as sufficient evidence above 0.5, `lenient` only for direct contradictions and
/// numeric mismatches above 0.7. A judgement that says "no contradiction" never flags, whatever
/// its probability (precision over recall).
pub fn llm_verdict(j: &LlmJudgement, s: &Screen, sensitivity: Sensitivity) -> Option<Verdict> {
    let kind = j.conflict_type.filter(|_| j.contradiction)?;
    let accepted = match sensitivity {
        Sensitivity::Strict | Sensitivity::Balanced => j.probability > FLAG,
        Sensitivity::Lenient => {
            matches!(
                kind,
                ConflictType::DirectContradiction | ConflictType::NumericMismatch
            ) && j.probability > LENIENT_FLAG
        }
    };
    accepted.then(|| Verdict {
        tier: Tier::Llm,
        conflict_type: kind,
        probability: j.probability.clamp(0.0, 1.0),
        signals: Vec::new(),
        overlap: s.overlap,
        similarity: s.similarity,
        explanation: format!("llm: {}", j.explanation),
    })
}

#[cfg(test)]
mod tests;
