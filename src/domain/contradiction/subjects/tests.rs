use super::super::align;
use super::*;

fn subject_hunks(a: &str, b: &str) -> usize {
    let (sa, sb) = (Side::analyse(a), Side::analyse(b));
    let al = align::align(&sa.tokens, &sb.tokens).expect("aligns");
    al.hunks
        .iter()
        .filter(|h| hunk_names_other_subject(&sa, &sb, h))
        .count()
}

#[test]
fn subject_tokens_are_recognised_by_form() {
    let s =
        Side::analyse("In staging, the sync-relay on gateway2 talks to Redis in the eu cluster.");
    let subjects: Vec<&str> = (0..s.tokens.len())
        .filter(|&i| is_identifier(&s, i) || is_name(&s, i))
        .map(|i| s.tokens[i].norm.as_str())
        .collect();
    assert_eq!(
        subjects,
        ["staging", "sync", "relay", "gateway2", "redis", "eu"]
    );
}

#[test]
fn hunks_that_swap_subjects_are_found() {
    let cases = [
        (
            "The payments service timeout is 30s.",
            "The search service timeout is 60s.",
            1,
        ),
        (
            "In production, the error budget is 5%.",
            "In development, the error budget is 7%.",
            1,
        ),
        (
            "The payments service timeout is 30s.",
            "The payments service timeout is 60s.",
            0,
        ),
        (
            "支付服务的超时时间是 30 秒",
            "搜索服务的超时时间是 60 秒",
            1,
        ),
        (
            "支付服务的超时时间是 30 秒",
            "支付服务的超时时间是 60 秒",
            0,
        ),
        // A pronoun for a name is the same subject; an added qualifier is not a swap.
        (
            "Alice owns the billing service.",
            "She owns the billing service.",
            0,
        ),
        (
            "The error budget is 5%.",
            "In production, the error budget is 5%.",
            0,
        ),
    ];
    for (a, b, want) in cases {
        assert_eq!(subject_hunks(a, b), want, "{a} / {b}");
    }
}

#[test]
fn loose_agreement_needs_matching_identifiers_and_environments() {
    let cases = [
        (
            "Per the runbook, retry backoff for backup-collector in canary equals 5700 ms.",
            "The backup-collector retry backoff is 900 ms.",
            true,
        ),
        (
            "Per the runbook, retry backoff for backup-collector in canary equals 5700 ms.",
            "retry backoff of media-cache (canary): 900 ms.",
            false,
        ),
        (
            "retry backoff (production): 5700 ms, reviewed last week.",
            "In staging the retry backoff is 900 ms.",
            false,
        ),
    ];
    for (a, b, want) in cases {
        assert_eq!(
            loose_agree(&Side::analyse(a), &Side::analyse(b)),
            want,
            "{a} / {b}"
        );
    }
}
