//! What concord suggests for a conflict. Value-layer labels always go to a human; otherwise a
//! clearly more credible or more confident side wins, then the clearly more recent one.

use super::conflict::{Recommendation, Strategy};
use super::time::Timestamp;

/// Labels whose conflicts are never decided automatically.
pub const ESCALATE_LABELS: [&str; 3] = ["security", "data-integrity", "breaking-change"];

/// A confidence or credibility gap at least this large is "clearly" higher.
pub const CLEAR_GAP: f64 = 0.2;

/// Observations at least this far apart (in seconds) are "clearly" ordered in time.
pub const CLEARLY_LATER_SECS: i64 = 60;

/// What the recommendation looks at on each side.
#[derive(Debug, Clone)]
pub struct Standing<'a> {
    pub labels: &'a [String],
    pub confidence: f64,
    pub observed_at: Timestamp,
    /// Learned credibility of the side's source, when it has one with verdicts.
    pub credibility: Option<f64>,
}

pub fn recommend(old: &Standing, new: &Standing) -> Recommendation {
    let escalate = |reasoning: String| Recommendation {
        resolution: "escalate-to-user".into(),
        strategy: None,
        reasoning,
    };
    if let Some(label) = old
        .labels
        .iter()
        .chain(new.labels)
        .find(|l| ESCALATE_LABELS.contains(&l.as_str()))
    {
        return escalate(format!(
            "Labelled `{label}`: a value-layer conflict needs a human decision."
        ));
    }
    let pick = |new_wins: bool| {
        if new_wins {
            Strategy::NewIsCurrent
        } else {
            Strategy::OldIsCurrent
        }
    };
    if let (Some(o), Some(n)) = (old.credibility, new.credibility)
        && (n - o).abs() >= CLEAR_GAP
    {
        return Recommendation {
            resolution: "prefer-authoritative".into(),
            strategy: Some(pick(n > o)),
            reasoning: format!(
                "The {} side's source is clearly more credible ({:.2} vs {:.2}).",
                if n > o { "new" } else { "old" },
                n.max(o),
                n.min(o)
            ),
        };
    }
    if (new.confidence - old.confidence).abs() >= CLEAR_GAP {
        let new_wins = new.confidence > old.confidence;
        return Recommendation {
            resolution: "prefer-authoritative".into(),
            strategy: Some(pick(new_wins)),
            reasoning: format!(
                "The {} side is clearly more confident ({:.2} vs {:.2}).",
                if new_wins { "new" } else { "old" },
                new.confidence.max(old.confidence),
                new.confidence.min(old.confidence)
            ),
        };
    }
    let gap = (new.observed_at - old.observed_at).num_seconds();
    let less_credible = match (old.credibility, new.credibility) {
        (Some(o), Some(n)) => n < o,
        _ => false,
    };
    if gap >= CLEARLY_LATER_SECS && !less_credible {
        return Recommendation {
            resolution: "prefer-recent".into(),
            strategy: Some(Strategy::NewIsCurrent),
            reasoning: "The new side was observed later and is not less credible.".into(),
        };
    }
    if gap <= -CLEARLY_LATER_SECS {
        return Recommendation {
            resolution: "prefer-recent".into(),
            strategy: Some(Strategy::OldIsCurrent),
            reasoning: "The old side was observed later than the new one.".into(),
        };
    }
    escalate("Neither side is clearly more recent or more authoritative.".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::time;
    use chrono::Duration;

    fn side(labels: &[String], confidence: f64, secs: i64, cred: Option<f64>) -> Standing<'_> {
        let base = time::parse("2026-01-01T00:00:00Z").unwrap();
        Standing {
            labels,
            confidence,
            observed_at: base + Duration::seconds(secs),
            credibility: cred,
        }
    }

    #[test]
    fn value_layer_labels_always_escalate() {
        let sec = vec!["security".to_string()];
        let r = recommend(&side(&sec, 0.1, 0, None), &side(&[], 1.0, 9999, Some(1.0)));
        assert_eq!(r.resolution, "escalate-to-user");
        assert_eq!(r.strategy, None);
    }

    #[test]
    fn a_clearly_more_credible_source_wins() {
        let r = recommend(
            &side(&[], 0.8, 9999, Some(0.9)),
            &side(&[], 0.8, 0, Some(0.4)),
        );
        assert_eq!(r.resolution, "prefer-authoritative");
        assert_eq!(r.strategy, Some(Strategy::OldIsCurrent));
    }

    #[test]
    fn a_clearly_more_confident_side_wins() {
        let r = recommend(&side(&[], 0.5, 0, None), &side(&[], 0.9, 0, None));
        assert_eq!(r.resolution, "prefer-authoritative");
        assert_eq!(r.strategy, Some(Strategy::NewIsCurrent));
    }

    #[test]
    fn a_clearly_later_observation_is_preferred() {
        let r = recommend(&side(&[], 0.8, 0, None), &side(&[], 0.8, 3600, None));
        assert_eq!(r.resolution, "prefer-recent");
        assert_eq!(r.strategy, Some(Strategy::NewIsCurrent));
        let r = recommend(&side(&[], 0.8, 3600, None), &side(&[], 0.8, 0, None));
        assert_eq!(r.strategy, Some(Strategy::OldIsCurrent));
    }

    #[test]
    fn a_newer_but_less_credible_side_is_not_preferred() {
        let r = recommend(
            &side(&[], 0.8, 0, Some(0.6)),
            &side(&[], 0.8, 3600, Some(0.5)),
        );
        assert_eq!(r.resolution, "escalate-to-user");
    }

    #[test]
    fn simultaneous_equally_confident_sides_escalate() {
        let r = recommend(&side(&[], 0.8, 0, None), &side(&[], 0.8, 10, None));
        assert_eq!(r.resolution, "escalate-to-user");
    }
}
