//! Topic reports (`POST /conflicts/check`): the conflict-aware envelope over a set of nodes.
//! Pure grading rules: how sure a source is, how severe a conflict is, how far to trust the
//! whole answer, and the one-line summary.

use super::recommend::ESCALATE_LABELS;

/// `high` (≥ 0.8), `med` (≥ 0.5) or `low` confidence of one source.
pub fn source_confidence(confidence: f64) -> &'static str {
    if confidence >= 0.8 {
        "high"
    } else if confidence >= 0.5 {
        "med"
    } else {
        "low"
    }
}

/// `high` for value-layer labels or probability ≥ 0.85, `medium` from 0.65, else `low`.
pub fn severity(probability: f64, labels: &[&String]) -> &'static str {
    if labels.iter().any(|l| ESCALATE_LABELS.contains(&l.as_str())) || probability >= 0.85 {
        "high"
    } else if probability >= 0.65 {
        "medium"
    } else {
        "low"
    }
}

/// How far the sources can be taken at their word: `low` when a high-severity conflict
/// exists, `med` with other conflicts or mostly unsure sources, else `high`.
pub fn overall_confidence(severities: &[&str], source_confidences: &[f64]) -> &'static str {
    if severities.contains(&"high") {
        return "low";
    }
    let mean = if source_confidences.is_empty() {
        0.0
    } else {
        source_confidences.iter().sum::<f64>() / source_confidences.len() as f64
    };
    if !severities.is_empty() || mean < 0.6 {
        "med"
    } else {
        "high"
    }
}

/// One line for a human: how many sources, how many conflicts, of which types.
pub fn summary(topic: &str, sources: usize, conflict_types: &[&str]) -> String {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    if conflict_types.is_empty() && sources == 1 {
        return format!("1 source on \"{topic}\": no conflicts found.");
    }
    if conflict_types.is_empty() {
        return format!("{sources} sources on \"{topic}\" agree: no conflicts found.");
    }
    let mut types: Vec<&str> = conflict_types.to_vec();
    types.sort_unstable();
    types.dedup();
    format!(
        "{} on \"{topic}\": {} ({}).",
        plural(sources, "source"),
        plural(conflict_types.len(), "conflict"),
        types.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grades_follow_the_thresholds() {
        assert_eq!(source_confidence(0.9), "high");
        assert_eq!(source_confidence(0.5), "med");
        assert_eq!(source_confidence(0.2), "low");
        assert_eq!(severity(0.9, &[]), "high");
        assert_eq!(severity(0.7, &[]), "medium");
        assert_eq!(severity(0.55, &[]), "low");
        let sec = "security".to_string();
        assert_eq!(severity(0.55, &[&sec]), "high");
    }

    #[test]
    fn overall_confidence_drops_with_conflicts() {
        assert_eq!(overall_confidence(&[], &[0.9, 0.8]), "high");
        assert_eq!(overall_confidence(&["low"], &[0.9]), "med");
        assert_eq!(overall_confidence(&["high", "low"], &[0.9]), "low");
        assert_eq!(overall_confidence(&[], &[0.3]), "med");
    }

    #[test]
    fn summaries_read_as_sentences() {
        assert_eq!(
            summary("ttl", 1, &[]),
            "1 source on \"ttl\": no conflicts found."
        );
        assert_eq!(
            summary("ttl", 2, &[]),
            "2 sources on \"ttl\" agree: no conflicts found."
        );
        assert_eq!(
            summary("ttl", 3, &["numeric-mismatch", "numeric-mismatch"]),
            "3 sources on \"ttl\": 2 conflicts (numeric-mismatch)."
        );
    }
}
