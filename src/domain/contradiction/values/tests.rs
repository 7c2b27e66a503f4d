use super::super::tokens::tokenize;
use super::*;

fn values(text: &str) -> Vec<Value> {
    extract(&tokenize(text), text)
}

fn one(text: &str) -> Value {
    let v = values(text);
    assert_eq!(v.len(), 1, "{text}: {v:?}");
    v[0].clone()
}

#[test]
fn comparatives_bound_values_so_consistent_claims_overlap() {
    let cases = [
        ("over 64 yards", "65 yards", false),
        ("less than 570 votes", "560 votes", false),
        ("under 27 games", "27 games", true),
        ("more than 7.4 million", "less than 7.3 million", true),
        ("at least 10 users", "10 users", false),
        ("nearly 50 people", "49 people", false),
        ("about 100 staff", "300 staff", true),
    ];
    for (a, b, disjoint) in cases {
        assert_eq!(one(a).disjoint(&one(b)), disjoint, "{a} vs {b}");
    }
}

#[test]
fn units_are_normalised_before_comparison() {
    let cases = [
        ("60s", "1 minute", false),
        ("60 seconds", "2 minutes", true),
        ("30 秒", "60 秒", true),
        ("1 hour", "60 min", false),
        ("512 mb", "1 gb", true),
    ];
    for (a, b, disjoint) in cases {
        assert_eq!(one(a).disjoint(&one(b)), disjoint, "{a} vs {b}");
    }
}

#[test]
fn percentages_money_and_versions_are_typed() {
    assert_eq!(one("a 82% rating").class, Class::Percent);
    assert_eq!(one("costs $5").class, Class::Money);
    let v = one("release v1.2.3");
    assert_eq!((v.class, v.version.as_str()), (Class::Version, "1.2.3"));
    assert!(one("v1.2.3").disjoint(&one("v1.3.0")));
}

#[test]
fn dates_nest_by_precision() {
    let cases = [
        ("3 October 1635", "1635", false),
        ("3 October 1635", "1636", true),
        ("March 2021", "2021-03-15", false),
        ("2024-03-01", "2024-03-02", true),
        ("2024年3月1日", "2024-03-01", false),
        ("after 2007", "2008", false),
        ("the 1990s", "1995", false),
    ];
    for (a, b, disjoint) in cases {
        assert_eq!(one(a).disjoint(&one(b)), disjoint, "{a} vs {b}");
    }
    assert_eq!(one("in 2016").class, Class::Date);
}

#[test]
fn round_figures_carry_their_rounding_error() {
    assert!(!one("52,000 cases").disjoint(&one("52,340 cases")));
    assert!(one("52,000 cases").disjoint(&one("53,340 cases")));
}

#[test]
fn number_words_and_scales_are_read() {
    assert_eq!(one("two titles").lo, 2.0);
    assert_eq!(one("7.4 million units").lo, 7_350_000.0);
}
