use super::*;

#[test]
fn roots_match_word_forms() {
    for (a, b) in [
        ("deploying", "deploy"),
        ("owned", "owns"),
        ("smoking", "smoke"),
    ] {
        assert!(same_root(a, b), "{a} {b}");
    }
    assert!(!same_root("own", "town"));
    // A Hangul syllable whose last two bytes are equal is left whole.
    assert_eq!(root("담배"), "담배");
}
