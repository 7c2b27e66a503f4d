use super::*;

#[test]
fn index_tokens_are_cut_to_a_prefix_both_full_text_indexes_hold() {
    let long = "é".repeat(2_000);
    let tokens = index_tokens("", &format!("short {long}"));
    assert_eq!(tokens[0], "short");
    assert!(tokens[1].len() <= MAX_INDEX_TOKEN_BYTES);
    assert!(long.starts_with(&tokens[1]));
    assert_eq!(index_tokens("", &long), vec![tokens[1].clone()]);
}

fn norms(text: &str) -> Vec<String> {
    tokenize(text)
        .into_iter()
        .map(|t| t.norm.to_string())
        .collect()
}

#[test]
fn english_words_are_case_folded_and_numbers_typed() {
    let toks = tokenize("Timeout is 30 Seconds");
    assert_eq!(
        norms("Timeout is 30 Seconds"),
        ["timeout", "is", "30", "seconds"]
    );
    assert_eq!(toks[2].kind, Kind::Number);
}

#[test]
fn chinese_is_split_into_characters_and_latin_runs_kept_whole() {
    assert_eq!(norms("服务使用Redis"), ["服", "务", "使", "用", "redis"]);
}

#[test]
fn chinese_overlap_uses_bigrams() {
    let units = overlap_units(&tokenize("超时时间"));
    assert_eq!(units, ["超时", "时时", "时间"]);
}

#[test]
fn stemmer_only_strips_plural_endings() {
    let cases = [
        ("loves", "love"),
        ("cities", "city"),
        ("class", "class"),
        ("bus", "bus"),
    ];
    for (word, want) in cases {
        assert_eq!(stem(word), want, "{word}");
    }
}

#[test]
fn jaccard_of_identical_texts_is_one() {
    let a = unit_set(&tokenize("the service uses redis"));
    assert!((jaccard(&a, &a) - 1.0).abs() < 1e-9);
}

#[test]
fn index_tokens_are_plain_words_without_punctuation() {
    let toks = index_tokens("Deploy", "Version v1.2.3 runs in us-east-1, 服务使用缓存.");
    assert!(
        toks.iter()
            .all(|t| t.chars().all(|c| c.is_alphanumeric() || c == '_'))
    );
    assert!(toks.contains(&"v1_2_3".to_string()));
    assert!(toks.contains(&"服务".to_string()));
}

#[test]
fn index_tokens_are_capped() {
    let body: Vec<String> = (0..1000).map(|i| format!("word{i}")).collect();
    assert!(index_tokens("t", &body.join(" ")).len() <= MAX_INDEX_TOKENS);
}

proptest::proptest! {
    #[test]
    fn ascii_words_are_the_unicode_words(text in "[aZ09_.,;:'\" \n!-]{0,24}") {
        let fast: Vec<(usize, &str)> = ascii_words(&text).collect();
        let slow: Vec<(usize, &str)> = text.unicode_word_indices().collect();
        proptest::prop_assert_eq!(fast, slow);
    }
}

#[test]
fn clip_respects_char_boundaries() {
    let long = "缓".repeat(MAX_TEXT_BYTES);
    assert!(clip(&long).len() <= MAX_TEXT_BYTES);
}
