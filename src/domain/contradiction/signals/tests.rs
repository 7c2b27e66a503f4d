use super::super::align;
use super::*;

fn aligned(
    a: &str,
    b: &str,
    f: fn(&Side, &Side, &Alignment) -> Option<Evidence>,
) -> Option<Evidence> {
    let (sa, sb) = (Side::analyse(a), Side::analyse(b));
    let al = align::align(&sa.tokens, &sb.tokens)?;
    f(&sa, &sb, &al)
}

#[test]
fn negation_inside_the_differing_span_is_strong() {
    let e = aligned(
        "my classmates have loved chocolate",
        "my classmates have not loved chocolate",
        aligned_negation,
    );
    assert!(e.is_some_and(|e| e.probability > 0.9));
}

#[test]
fn loose_negation_needs_the_negated_word_on_the_other_side() {
    let hit = loose_negation(
        &Side::analyse("Nginx serves static files."),
        &Side::analyse("In production nginx does not serve files."),
    );
    assert!(hit.is_some());
    let miss = loose_negation(
        &Side::analyse("Nginx serves static files."),
        &Side::analyse("The proxy does not cache responses."),
    );
    assert!(miss.is_none());
}

#[test]
fn swaps_of_pronouns_or_additions_are_not_enum_swaps() {
    let cases = [
        (
            "Alice owns the billing service today.",
            "She owns the billing service today.",
        ),
        (
            "The service uses Redis for caching.",
            "The service uses Redis cluster for caching.",
        ),
    ];
    for (a, b) in cases {
        assert!(aligned(a, b, enum_swap).is_none(), "{b}");
    }
}

#[test]
fn replacement_cue_already_in_the_stored_memory_is_not_new() {
    let old = Side::analyse("We switched to Postgres last year.");
    assert!(replacement(&old, &Side::analyse("We switched to Postgres in 2023.")).is_none());
    assert!(
        replacement(
            &Side::analyse("We use Postgres."),
            &Side::analyse("We switched to MySQL.")
        )
        .is_some()
    );
}

#[test]
fn scope_outside_near_duplicates_stays_below_the_flag() {
    let e = scope(
        &Side::analyse("All regions replicate the data nightly."),
        &Side::analyse("Only Europe keeps a copy offline."),
        None,
    );
    assert!(e.is_some_and(|e| e.probability < 0.5));
}
