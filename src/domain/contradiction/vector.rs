//! Vector tier: embeddings only say that two memories are about the same thing (cosine does not
//! separate agreement from contradiction), so a pair in the similarity band that shares a label
//! is a *candidate* whose probability shrinks as the memories grow more alike and as either
//! memory grows less certain: `(1 − similarity) × min(confidence)`.

use super::{ConflictType, DetectConfig, Memory, Signal, Tier, Verdict};

/// Cosine similarity; 0.0 for empty, mismatched or zero-length vectors.
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    if a.is_empty() || a.len() != b.len() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0.0f64, 0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        return 0.0;
    }
    (dot / (na.sqrt() * nb.sqrt())).clamp(-1.0, 1.0)
}

pub fn similarity(new: &Memory, old: &Memory) -> Option<f64> {
    Some(cosine(new.embedding?, old.embedding?))
}

pub fn in_band(sim: f64, cfg: &DetectConfig) -> bool {
    sim >= cfg.cosine_band.0 && sim <= cfg.cosine_band.1
}

pub fn verdict(
    new: &Memory,
    old: &Memory,
    sim: f64,
    overlap: f64,
    cfg: &DetectConfig,
) -> Option<Verdict> {
    let shared = new.labels.iter().any(|l| old.labels.contains(l));
    if !shared || !in_band(sim, cfg) {
        return None;
    }
    let confidence = new.confidence.min(old.confidence).clamp(0.0, 1.0);
    Some(Verdict {
        tier: Tier::Vector,
        conflict_type: ConflictType::DirectContradiction,
        probability: ((1.0 - sim) * confidence).clamp(0.0, 1.0),
        signals: vec![Signal::VectorSimilarity],
        overlap,
        similarity: Some(sim),
        explanation: format!("vector: same labels, cosine {sim:.2} within band"),
    })
}

#[cfg(test)]
mod tests;
