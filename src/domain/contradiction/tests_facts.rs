//! Restated facts: what a thing is, where it is, when a figure was counted, and rewordings that
//! only look like swapped values. Each case is a kind of statement, not a pair from a data set.

use super::*;

fn judged(old: &str, new: &str) -> Option<Verdict> {
    evaluate_pair(old, new, None, &DetectConfig::default())
}

#[track_caller]
fn flagged(cases: &[(&str, &str)]) {
    for (old, new) in cases {
        assert!(judged(old, new).is_some(), "not flagged: {old:?} / {new:?}");
    }
}

#[track_caller]
fn unflagged(cases: &[(&str, &str)]) {
    for (old, new) in cases {
        let v = judged(old, new);
        assert!(v.is_none(), "flagged: {old:?} / {new:?}: {v:?}");
    }
}

#[test]
fn a_thing_stated_to_be_another_kind_of_thing_is_flagged() {
    flagged(&[
        (
            "Blue Harbor is a 2015 crime novel by a Norwegian writer.",
            "Blue Harbor is a film.",
        ),
        ("Eastbrook is a small town in Ohio.", "Eastbrook is a city."),
        (
            "Night Lines is the second studio album by the band.",
            "Night Lines is a silent film.",
        ),
    ]);
    let v = judged("Eastbrook is a small town in Ohio.", "Eastbrook is a city.").unwrap();
    assert!(v.explanation.contains("town"), "{}", v.explanation);
}

#[test]
fn broader_kinds_occupations_and_other_subjects_are_not_kind_changes() {
    unflagged(&[
        // A broader class restates the kind.
        (
            "Blue Harbor is a 2015 crime novel by a Norwegian writer.",
            "Blue Harbor is a book.",
        ),
        // People hold several occupations at once.
        (
            "Mara Quinn is an American singer.",
            "Mara Quinn is a painter.",
        ),
        // A film based on a novel names both kinds.
        (
            "Blue Harbor is a film based on the novel by Ann Lee.",
            "Blue Harbor is a novel.",
        ),
        // Another subject.
        ("Eastbrook is a small town in Ohio.", "Westfield is a city."),
        // Kind words only after the noun phrase describe something else.
        (
            "Blue Harbor is the first installment in the film series.",
            "Blue Harbor is a novel.",
        ),
    ]);
}

#[test]
fn a_place_swapped_for_its_negation_is_flagged() {
    flagged(&[(
        "The warehouse is located in the city limits of Leeds, next to the river.",
        "The warehouse is located outside of the city limits of Leeds, next to the river.",
    )]);
    unflagged(&[(
        "The warehouse is located in Leeds, next to the river.",
        "The warehouse is located in Leeds, next to the canal too.",
    )]);
}

#[test]
fn figures_stamped_at_different_moments_are_not_flagged() {
    unflagged(&[
        (
            "The city had 11,445 confirmed cases as of April 17, 2020.",
            "After April 17, 2020, the city had more than 11,500 confirmed cases.",
        ),
        (
            "As of 10 March 2020, there are 34 confirmed cases.",
            "Before 10 March 2020, the region had under 30 confirmed cases.",
        ),
    ]);
    // A figure with no stamp of its own is compared with a stamped one.
    flagged(&[(
        "The city had 8,030 confirmed cases as of April 4, 2020.",
        "The city had 9,500 confirmed cases.",
    )]);
}

#[test]
fn a_shared_year_in_the_title_does_not_make_two_stamps_one_moment() {
    let title = "2020 outbreak in the city";
    let m = |body| Memory {
        title,
        body,
        labels: &[],
        confidence: 0.8,
        embedding: None,
    };
    let old = m("The city had 10,538 confirmed cases as of April 13, 2020.");
    let new = m("After April 13, 2020, the city had more than 10,600 confirmed cases.");
    assert_eq!(assess(&new, &old, &DetectConfig::default()), None);
}

#[test]
fn a_count_that_reads_like_a_year_is_compared_as_a_count() {
    flagged(&[(
        "As of 22 March 2020, there are 187 confirmed cases in 15 provinces.",
        "As of 22 March 2020, there are 1870 confirmed cases in 15 provinces.",
    )]);
}

#[test]
fn rewordings_are_not_swapped_values() {
    unflagged(&[
        // The same word in another form.
        (
            "All large events in the region were banned with immediate effect.",
            "All large events in the region were banned immediately.",
        ),
        (
            "Ireland chose to opt out of the decision due to the travel area.",
            "Ireland opted out of the decision due to the travel area.",
        ),
        // A clause, not a value.
        (
            "The airline will stop operations in favour of a partner by mid 2020.",
            "The airline stops operations in favour of a partner by mid 2020, which surprised analysts.",
        ),
        // Near-synonyms.
        (
            "Mutiny Bay is a 1962 historical drama television series.",
            "Mutiny Bay is a 1962 historical drama television show.",
        ),
        (
            "A total of 6454 tests had been performed by March 27.",
            "A total of 6454 tests had been done by March 27.",
        ),
    ]);
}

#[test]
fn negations_split_at_the_apostrophe_or_implied_by_unable_still_negate() {
    unflagged(&[
        (
            "Clara wasn ’ t sure about her feelings for Esteban.",
            "Clara is not sure about her feelings for Esteban.",
        ),
        (
            "Williams did not play in the final.",
            "Williams was unable to play in the final.",
        ),
    ]);
    flagged(&[(
        "Williams is able to play in the final.",
        "Williams is unable to play in the final.",
    )]);
}
