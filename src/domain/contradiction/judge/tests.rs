use super::*;
use crate::domain::contradiction::statement::read;
use crate::domain::contradiction::tokens::tokenize;

fn read_text(text: &str) -> Vec<Statement> {
    read(&tokenize(text), text)
}

fn judged(old: &str, new: &str) -> Option<String> {
    judge(&read_text(old), &read_text(new)).map(|e| e.explanation)
}

fn vetoed(old: &str, new: &str) -> bool {
    vetoes(&read_text(old), &read_text(new))
}

#[test]
fn each_rule_names_what_it_found() {
    let cases = [
        (
            "Ana is the release manager",
            "Ben replaced Ana as release manager",
            "handed over",
        ),
        ("I work at Initech", "I left Initech in June", "ended"),
        (
            "Prefers aisle seats",
            "Dislikes aisle seats",
            "turned round",
        ),
        ("I play squash", "I switched to badminton", "changed"),
        (
            "We release every two weeks",
            "We now release weekly",
            "frequency changed",
        ),
        (
            "User works at Microsoft",
            "Actually, I meant Google, not Microsoft",
            "corrected",
        ),
        (
            "I'm allergic to dairy",
            "I eat cheese every day",
            "allergic",
        ),
        (
            "I'm a professional chef",
            "I can't cook",
            "who never does it",
        ),
        (
            "I don't work at Google anymore",
            "I'm still at Google",
            "holds again",
        ),
        (
            "We host on Azure westeurope",
            "We host on AWS eu-central-1",
            "other value",
        ),
    ];
    for (old, new, want) in cases {
        let got = judged(old, new).unwrap_or_default();
        assert!(got.contains(want), "{old:?} / {new:?}: {got:?}");
    }
}

#[test]
fn statements_rule_out_other_keys_owners_and_conditions() {
    assert!(vetoed(
        "The log level for service 0 is 5 units.",
        "Actually, the cache ttl for service 0 is now 7001 units."
    ));
    assert!(vetoed(
        "The cache ttl for service 5 is 194 units.",
        "Update: service 0 cache ttl is 7002 units now."
    ));
    assert!(vetoed(
        "The log level for service 0 is 5 units.",
        "We raised the cache ttl for service 0 to 7004 units."
    ));
    assert!(vetoed(
        "Bob lives in Berlin.",
        "Bob's sister lives in Munich."
    ));
    assert!(vetoed("My rent is 1500", "My salary is 1800"));
    assert!(vetoed(
        "I like jazz when relaxing",
        "I hate jazz when working"
    ));
    assert!(vetoed(
        "I play squash",
        "If I moved to London I would play badminton"
    ));
    // The same key of the same owner is for the rules to judge.
    assert!(!vetoed(
        "The cache ttl for service 0 is 162 units.",
        "Service 0's cache ttl went up to 7005 units."
    ));
    assert!(!vetoed(
        "The cache ttl for service 0 is 162 units.",
        "We raised the cache ttl for service 0 to 7004 units."
    ));
    // A clause the statements could not read leaves the pair to the other rules.
    assert!(!vetoed(
        "It has campuses in Little Rock, Paragould, and Rogers as well.",
        "It has campuses in Little Rock, Paragould, and Bentonville as well."
    ));
}

#[test]
fn covers_takes_a_category_to_its_members() {
    assert!(covers("caffeine", "coffee"));
    assert!(covers("dairy", "cheese"));
    assert!(!covers("coffee", "caffeine"));
    assert!(!covers("meat", "coffee"));
}
