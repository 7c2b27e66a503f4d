use super::*;

#[test]
fn contractions_count_as_negators() {
    for w in ["don't", "isn't", "can't", "not", "never", "不", "没"] {
        assert!(is_negator(w), "{w}");
    }
    assert!(!is_negator("note"));
}

#[test]
fn number_words_skip_the_pronoun_one() {
    assert_eq!(number_word("two"), Some(2.0));
    assert_eq!(number_word("forty"), Some(40.0));
    assert_eq!(number_word("one"), None);
}

#[test]
fn months_accept_full_and_short_names() {
    assert_eq!(month("march"), Some(3));
    assert_eq!(month("sept"), Some(9));
    assert_eq!(month("mayday"), None);
}
