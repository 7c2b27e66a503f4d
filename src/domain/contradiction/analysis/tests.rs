use super::*;
use crate::verdicts::memory;

#[test]
fn an_analysis_weighs_more_than_its_text_and_grows_with_it() {
    let sentence = "The billing service listens on port 8080 since the March release. ";
    let short = Analysis::of(&memory("Billing port", sentence));
    let long = Analysis::of(&memory("Billing port", &sentence.repeat(20)));
    let (s, l) = (short.heap_bytes(), long.heap_bytes());
    eprintln!("one sentence: {s} bytes; twenty: {l} bytes");
    assert!(
        s > sentence.len() * 4,
        "tokens, stems and units weigh more than the text"
    );
    assert!(l > s * 10, "twenty sentences weigh about twenty times one");
}

#[test]
fn overlap_is_the_jaccard_of_the_overlap_units() {
    let a = Analysis::of(&memory("", "the service uses redis for caching"));
    let b = Analysis::of(&memory("", "the service uses memcached for caching"));
    let (ua, ub) = (
        tokens::unit_set(&a.side.tokens),
        tokens::unit_set(&b.side.tokens),
    );
    assert!((a.overlap(&b) - tokens::jaccard(&ua, &ub)).abs() < 1e-12);
    assert!((a.overlap(&a) - 1.0).abs() < 1e-12);
}

#[test]
fn a_title_the_body_starts_with_is_not_analysed_twice() {
    // A short name the body opens with is still the memory's own title.
    let a = Analysis::of(&memory("Cache", "Cache TTL is 30 seconds."));
    assert_eq!((a.body_from, a.own_title.as_deref()), (0, Some("cache")));
    // A title cut from the body's first characters is not.
    let body = "The cache TTL of the billing service is 30 seconds in production.";
    let cut = Analysis::of(&memory(&body[..45], body));
    assert_eq!((cut.body_from, cut.own_title.as_deref()), (0, None));
    let whole = Analysis::of(&memory(body, body));
    assert_eq!(whole.own_title.as_deref(), None);
    let b = Analysis::of(&memory("Cache", "The TTL is 30 seconds."));
    assert_eq!((b.body_from, b.own_title.as_deref()), (1, Some("cache")));
}

#[test]
fn fingerprints_tell_texts_apart() {
    let a = Analysis::of(&memory("t", "body"));
    assert_eq!(a.fingerprint(), fingerprint("t", "body"));
    assert_ne!(fingerprint("t", "body"), fingerprint("tb", "ody"));
    assert_ne!(fingerprint("t", "body"), fingerprint("t", "body."));
}
