//! Source credibility learned from verdicts: the mean of a Beta(upheld + 2, contradicted + 2)
//! posterior. The prior of two virtual verdicts each way keeps one verdict from swinging a
//! source far from neutral (0.5): one upheld verdict gives 0.6, ten give 0.86.

pub const PRIOR: f64 = 2.0;

pub fn score(upheld: i64, contradicted: i64) -> f64 {
    score_from(NEUTRAL, upheld, contradicted)
}

/// The credibility of a source that starts at `trust` (the policy file's trust table):
/// the same four virtual verdicts, split as `trust` says, so verdicts move it from there at
/// the same pace as from neutral.
pub fn score_from(trust: f64, upheld: i64, contradicted: i64) -> f64 {
    (upheld as f64 + 2.0 * PRIOR * trust) / ((upheld + contradicted) as f64 + 2.0 * PRIOR)
}

/// The credibility of a source nothing is known of.
pub const NEUTRAL: f64 = 0.5;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trusted_source_starts_where_it_is_trusted_and_verdicts_move_it_from_there() {
        assert!((score_from(0.9, 0, 0) - 0.9).abs() < 1e-9);
        assert!((score_from(0.9, 0, 1) - 0.72).abs() < 1e-9);
        assert!((score_from(0.2, 4, 0) - 0.6).abs() < 1e-9);
        assert_eq!(score_from(NEUTRAL, 3, 1), score(3, 1));
    }

    #[test]
    fn an_unknown_source_is_neutral_and_one_verdict_moves_it_little() {
        assert_eq!(score(0, 0), 0.5);
        assert!((score(1, 0) - 0.6).abs() < 1e-9);
        assert!((score(0, 1) - 0.4).abs() < 1e-9);
    }

    #[test]
    fn many_verdicts_dominate_the_prior() {
        assert!(score(10, 0) > 0.85);
        assert!(score(0, 10) < 0.15);
    }
}
