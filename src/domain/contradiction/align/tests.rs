use super::super::tokens::tokenize;
use super::*;

fn hunks(a: &str, b: &str) -> Vec<(String, String)> {
    let (ta, tb) = (tokenize(a), tokenize(b));
    let al = align(&ta, &tb).expect("short texts align");
    let join = |t: &[Token]| {
        t.iter()
            .map(|x| x.norm.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    };
    al.hunks
        .iter()
        .map(|h| (join(&ta[h.a.clone()]), join(&tb[h.b.clone()])))
        .collect()
}

#[test]
fn a_single_substitution_is_one_hunk() {
    let got = hunks(
        "it holds a 82% rating on the site",
        "it holds a 21% rating on the site",
    );
    assert_eq!(got, [("82".to_string(), "21".to_string())]);
}

#[test]
fn inserted_negation_is_an_insertion_hunk() {
    let got = hunks(
        "the chemist loves television",
        "the chemist does not love television",
    );
    assert_eq!(got, [(String::new(), "does not".to_string())]);
}

#[test]
fn identical_texts_have_no_hunks_and_ratio_one() {
    let t = tokenize("same words here");
    let al = align(&t, &t).expect("aligns");
    assert!(al.hunks.is_empty());
    assert!((al.ratio - 1.0).abs() < 1e-9);
}

#[test]
fn very_long_different_texts_are_not_aligned() {
    let a: Vec<String> = (0..1000).map(|i| format!("a{i}")).collect();
    let b: Vec<String> = (0..1000).map(|i| format!("b{i}")).collect();
    assert!(align(&tokenize(&a.join(" ")), &tokenize(&b.join(" "))).is_none());
}
