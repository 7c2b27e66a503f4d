use super::*;

#[test]
fn keyed_values_conflict_only_on_the_same_counted_noun() {
    let cases = [
        (
            "The report lists 399 deaths and 3,286 recoveries.",
            "Officials confirmed 350 deaths.",
            true,
        ),
        (
            "The report lists 399 deaths and 3,286 recoveries.",
            "Officials confirmed 350 tests.",
            false,
        ),
        (
            "The report lists 399 deaths and 3,286 recoveries.",
            "Officials confirmed over 390 deaths.",
            false,
        ),
    ];
    for (a, b, want) in cases {
        assert_eq!(
            keyed_change(&Side::analyse(a), &Side::analyse(b)).is_some(),
            want,
            "{b}"
        );
    }
}

#[test]
fn a_list_containing_a_consistent_value_does_not_conflict() {
    let old = Side::analyse("The bot answers in 2 languages in Asia and 5 languages in Europe.");
    assert!(keyed_change(&old, &Side::analyse("The bot answers in 5 languages.")).is_none());
}

#[test]
fn figures_stamped_with_different_dates_are_different_moments() {
    let old = Side::analyse("As of 12 April 2020 there were 599 cases.");
    let new = Side::analyse("By 20 April 2020 there were more than 700 cases.");
    assert!(different_moments(&old, &new));
    assert!(keyed_change(&old, &new).is_none());
}
