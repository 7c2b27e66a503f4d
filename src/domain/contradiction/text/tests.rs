use super::*;

#[test]
fn report_wrappers_give_way_to_their_claim() {
    let cases = [
        (
            "The current export shows guest access is disabled.",
            "guest access is disabled.",
        ),
        (
            "According to the dashboard, the limit is now 50.",
            "the limit is now 50.",
        ),
        (
            "The album shows jazz influences.",
            "The album shows jazz influences.",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(claim(text), want);
    }
}

#[test]
fn questions_are_recognised() {
    assert!(is_question("Is the cache TTL still 30 seconds?"));
    assert!(is_question("要不要改用 Vue？"));
    assert!(!is_question("The cache TTL is 30 seconds."));
}
