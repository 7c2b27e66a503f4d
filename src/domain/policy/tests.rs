use super::*;

fn labels(l: &[&str]) -> Vec<String> {
    l.iter().map(|s| s.to_string()).collect()
}

/// A conflict between two sourced `fact` nodes, each with the labels given.
struct Case {
    old_labels: Vec<String>,
    new_labels: Vec<String>,
    old_source: Option<&'static str>,
    new_source: Option<&'static str>,
    old_credibility: Option<f64>,
    new_credibility: Option<f64>,
    conflict_type: &'static str,
    probability: f64,
    recommendation: &'static str,
    memory_type: &'static str,
    old_evidence: f64,
    new_evidence: f64,
    new_injection: bool,
    /// Valid time of each side, in seconds of the epoch.
    old_observed: i64,
    new_observed: i64,
}

impl Default for Case {
    fn default() -> Self {
        Self {
            old_labels: labels(&["infra"]),
            new_labels: labels(&["infra"]),
            old_source: Some("wiki"),
            new_source: Some("wiki"),
            old_credibility: None,
            new_credibility: None,
            conflict_type: "numeric-mismatch",
            probability: 0.8,
            recommendation: "prefer-recent",
            memory_type: "fact",
            old_evidence: 0.5,
            new_evidence: 0.5,
            new_injection: false,
            old_observed: 1_700_000_000,
            new_observed: 1_700_000_100,
        }
    }
}

impl Case {
    fn facts(&self) -> Facts<'_> {
        Facts {
            conflict_type: self.conflict_type,
            probability: self.probability,
            recommendation: self.recommendation,
            old: SideFacts {
                labels: &self.old_labels,
                memory_type: self.memory_type,
                source: self.old_source,
                credibility: self.old_credibility,
                evidence: self.old_evidence,
                injection: false,
                observed_at: at(self.old_observed),
            },
            new: SideFacts {
                labels: &self.new_labels,
                memory_type: self.memory_type,
                source: self.new_source,
                credibility: self.new_credibility,
                evidence: self.new_evidence,
                injection: self.new_injection,
                observed_at: at(self.new_observed),
            },
        }
    }
}

fn at(seconds: i64) -> crate::domain::time::Timestamp {
    crate::domain::time::Timestamp::from_timestamp(seconds, 0).unwrap()
}

fn rule(action: Strategy, when: Match) -> Rule {
    Rule {
        name: "r".into(),
        action: action.into(),
        when,
        match_all: false,
    }
}

fn matches(when: Match, case: &Case) -> bool {
    rule(Strategy::NewIsCurrent, when)
        .matches(&case.facts())
        .is_some()
}

#[test]
fn conflict_types_match_only_the_listed_types() {
    let when = || Match {
        conflict_types: Some(labels(&["numeric-mismatch", "temporal-mismatch"])),
        ..Match::default()
    };
    assert!(matches(when(), &Case::default()));
    let direct = Case {
        conflict_type: "direct-contradiction",
        ..Case::default()
    };
    assert!(!matches(when(), &direct));
}

#[test]
fn labels_match_a_label_on_either_side() {
    let when = || Match {
        labels: Some(labels(&["sensor"])),
        ..Match::default()
    };
    let on_old = Case {
        old_labels: labels(&["sensor"]),
        ..Case::default()
    };
    let on_new = Case {
        new_labels: labels(&["x", "sensor"]),
        ..Case::default()
    };
    assert!(matches(when(), &on_old));
    assert!(matches(when(), &on_new));
    assert!(!matches(when(), &Case::default()));
}

#[test]
fn memory_types_match_only_the_listed_types() {
    let when = || Match {
        memory_types: Some(labels(&["observation"])),
        ..Match::default()
    };
    let observation = Case {
        memory_type: "observation",
        ..Case::default()
    };
    assert!(matches(when(), &observation));
    assert!(!matches(when(), &Case::default()));
}

#[test]
fn same_source_true_needs_one_named_source_on_both_sides() {
    let when = || Match {
        same_source: Some(true),
        ..Match::default()
    };
    assert!(matches(when(), &Case::default()));
    let different = Case {
        new_source: Some("chat"),
        ..Case::default()
    };
    let unsourced = Case {
        old_source: None,
        new_source: None,
        ..Case::default()
    };
    assert!(!matches(when(), &different));
    assert!(
        !matches(when(), &unsourced),
        "no source is not the same source"
    );
}

#[test]
fn same_source_false_matches_different_or_missing_sources() {
    let when = || Match {
        same_source: Some(false),
        ..Match::default()
    };
    let different = Case {
        new_source: Some("chat"),
        ..Case::default()
    };
    let one_unsourced = Case {
        old_source: None,
        ..Case::default()
    };
    assert!(matches(when(), &different));
    assert!(matches(when(), &one_unsourced));
    assert!(!matches(when(), &Case::default()));
}

#[test]
fn recommendation_matches_only_the_listed_recommendations() {
    let when = || Match {
        recommendation: Some(labels(&["prefer-recent"])),
        ..Match::default()
    };
    assert!(matches(when(), &Case::default()));
    let escalated = Case {
        recommendation: "escalate-to-user",
        ..Case::default()
    };
    assert!(!matches(when(), &escalated));
}

#[test]
fn min_probability_is_inclusive() {
    let when = |p| Match {
        min_probability: Some(p),
        ..Match::default()
    };
    assert!(matches(when(0.8), &Case::default()));
    assert!(!matches(when(0.81), &Case::default()));
}

#[test]
fn min_credibility_gap_favours_the_side_the_action_keeps() {
    let when = || Match {
        min_credibility_gap: Some(0.2),
        ..Match::default()
    };
    // 0.6 − 0.4 is 0.19999999999999996 in floating point: still a gap of 0.2.
    let new_better = Case {
        new_credibility: Some(0.6),
        old_credibility: Some(0.4),
        ..Case::default()
    };
    let old_better = Case {
        new_credibility: Some(0.4),
        old_credibility: Some(0.6),
        ..Case::default()
    };
    let new_is_current = rule(Strategy::NewIsCurrent, when());
    let old_is_current = rule(Strategy::OldIsCurrent, when());
    let keep_both = rule(Strategy::KeepBoth, when());
    assert!(new_is_current.matches(&new_better.facts()).is_some());
    assert!(new_is_current.matches(&old_better.facts()).is_none());
    assert!(old_is_current.matches(&old_better.facts()).is_some());
    assert!(old_is_current.matches(&new_better.facts()).is_none());
    assert!(keep_both.matches(&old_better.facts()).is_some());
}

#[test]
fn a_source_without_verdicts_counts_as_neutral() {
    let when = |gap| Match {
        min_credibility_gap: Some(gap),
        ..Match::default()
    };
    let only_new_known = Case {
        new_credibility: Some(0.75),
        ..Case::default()
    };
    assert!(matches(when(0.25), &only_new_known));
    assert!(!matches(when(0.3), &only_new_known));
    assert!(!matches(when(0.1), &Case::default()));
}

#[test]
fn every_condition_must_hold() {
    let when = Match {
        conflict_types: Some(labels(&["numeric-mismatch"])),
        min_probability: Some(0.9),
        ..Match::default()
    };
    assert!(!matches(when, &Case::default()), "the probability fails");
}

#[test]
fn the_first_matching_rule_wins_and_says_why() {
    let set = RuleSet {
        rules: vec![
            Rule {
                name: "strict".into(),
                ..rule(
                    Strategy::KeepBoth,
                    Match {
                        min_probability: Some(0.95),
                        ..Match::default()
                    },
                )
            },
            Rule {
                name: "numbers".into(),
                ..rule(
                    Strategy::NewIsCurrent,
                    Match {
                        conflict_types: Some(labels(&["numeric-mismatch"])),
                        min_probability: Some(0.7),
                        ..Match::default()
                    },
                )
            },
            Rule {
                name: "rest".into(),
                match_all: true,
                ..rule(Strategy::KeepBoth, Match::default())
            },
        ],
        trust: Vec::new(),
    };
    let case = Case::default();
    let Some(Outcome::Fires(r, why)) = first_match(&set, &case.facts()) else {
        panic!("a rule fires");
    };
    assert_eq!(r.name, "numbers");
    assert_eq!(why, "conflict type numeric-mismatch, probability 0.8 ≥ 0.7");
    assert_eq!(
        r.note(&why, true),
        "policy numbers would resolve with new_is_current: conflict type numeric-mismatch, probability 0.8 ≥ 0.7"
    );
    assert_eq!(r.resolved_by(), "policy:numbers");
}

#[test]
fn value_layer_conflicts_match_no_rule() {
    let set = RuleSet {
        rules: vec![Rule {
            match_all: true,
            ..rule(Strategy::NewIsCurrent, Match::default())
        }],
        trust: Vec::new(),
    };
    assert!(matches!(
        first_match(&set, &Case::default().facts()),
        Some(Outcome::Fires(..))
    ));
    for label in ESCALATE_LABELS {
        let case = Case {
            new_labels: labels(&["infra", label]),
            ..Case::default()
        };
        let Some(Outcome::HeldBack(r, held_by)) = first_match(&set, &case.facts()) else {
            panic!("{label}: the rule is held back");
        };
        assert_eq!(held_by, format!("the conflict is labelled {label}"));
        assert!(r.held_back_note(&held_by).contains(label));
    }
}

#[test]
fn evidence_bounds_hold_on_the_side_they_name() {
    let weak_rumour = Case {
        new_evidence: 0.2,
        old_evidence: 0.8,
        ..Case::default()
    };
    let strong_update = Case {
        new_evidence: 0.8,
        old_evidence: 0.5,
        ..Case::default()
    };
    let min_new = || Match {
        new: Some(SideMatch {
            min_evidence: Some(0.5),
            ..SideMatch::default()
        }),
        ..Match::default()
    };
    let max_old = || Match {
        old: Some(SideMatch {
            max_evidence: Some(0.5),
            ..SideMatch::default()
        }),
        ..Match::default()
    };
    assert!(!matches(min_new(), &weak_rumour));
    assert!(matches(min_new(), &strong_update));
    assert!(!matches(max_old(), &weak_rumour));
    assert!(matches(max_old(), &strong_update));
    let why = rule(Strategy::NewIsCurrent, min_new())
        .matches(&strong_update.facts())
        .unwrap();
    assert_eq!(why, "new evidence 0.8 ≥ 0.5");
}

#[test]
fn new_is_later_compares_valid_time() {
    let later = Case::default();
    let earlier = Case {
        new_observed: later.old_observed - 100,
        ..Case::default()
    };
    let when = |v| Match {
        new_is_later: Some(v),
        ..Match::default()
    };
    assert!(matches(when(true), &later));
    assert!(!matches(when(true), &earlier));
    assert!(matches(when(false), &earlier));
    assert!(!matches(when(false), &later));
    let same = Case {
        new_observed: later.old_observed,
        ..Case::default()
    };
    assert!(!matches(when(true), &same) && !matches(when(false), &same));
}

#[test]
fn instruction_shaped_new_text_is_never_applied_by_a_rule() {
    let set = |action| RuleSet {
        rules: vec![Rule {
            match_all: true,
            ..rule(action, Match::default())
        }],
        trust: Vec::new(),
    };
    let injected = Case {
        new_injection: true,
        ..Case::default()
    };
    for action in [Strategy::NewIsCurrent, Strategy::Merge] {
        let Some(Outcome::HeldBack(_, why)) = first_match(&set(action), &injected.facts()) else {
            panic!("{action:?} is held back");
        };
        assert!(why.contains("instruction"), "{why}");
    }
    // Keeping the stored memory current applies nothing of the new text.
    assert!(matches!(
        first_match(&set(Strategy::OldIsCurrent), &injected.facts()),
        Some(Outcome::Fires(..))
    ));
}

#[test]
fn evidence_conditions_parse_and_are_checked() {
    let ok = r#"
[[rules]]
name = "strong-update-wins"
action = "new_is_current"
[rules.match]
new_is_later = true
[rules.match.new]
min_evidence = 0.6
[rules.match.old]
max_evidence = 0.5
"#;
    let set = RuleSet::parse(ok, Format::Toml).unwrap();
    assert_eq!(
        set.rules[0].when.new.as_ref().unwrap().min_evidence,
        Some(0.6)
    );
    let bad = ok.replace("min_evidence = 0.6", "min_evidence = 1.5");
    let e = RuleSet::parse(&bad, Format::Toml).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("match.new.min_evidence"));
    let empty = ok.replace("min_evidence = 0.6", "");
    let e = RuleSet::parse(&empty, Format::Toml).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("match.new"));
    let typo = ok.replace("min_evidence = 0.6", "min_evidnce = 0.6");
    assert!(RuleSet::parse(&typo, Format::Toml).is_err());
}

const TOML_FILE: &str = r#"
# Newer readings of the same sensor replace older ones.
[[rules]]
name = "newer-sensor-wins"
action = "new_is_current"
[rules.match]
conflict_types = ["numeric-mismatch"]
labels = ["sensor"]
same_source = true
min_probability = 0.7

[[rules]]
name = "keep-everything-else"
action = "keep_both"
match_all = true
"#;

#[test]
fn a_toml_file_loads_in_order() {
    let set = RuleSet::parse(TOML_FILE, Format::Toml).expect("valid");
    assert_eq!(set.rules.len(), 2);
    let first = &set.rules[0];
    assert_eq!(first.name, "newer-sensor-wins");
    assert_eq!(first.action, RuleAction::NewIsCurrent);
    assert_eq!(first.when.same_source, Some(true));
    assert_eq!(first.when.min_probability, Some(0.7));
    assert!(set.rules[1].match_all);
}

#[test]
fn a_json_file_loads_the_same_rules() {
    let json = r#"{"rules": [
        {"name": "newer-sensor-wins", "action": "new_is_current",
         "match": {"conflict_types": ["numeric-mismatch"], "labels": ["sensor"],
                   "same_source": true, "min_probability": 0.7}},
        {"name": "keep-everything-else", "action": "keep_both", "match_all": true}
    ]}"#;
    let from_json = RuleSet::parse(json, Format::Json).expect("valid");
    assert_eq!(from_json, RuleSet::parse(TOML_FILE, Format::Toml).unwrap());
}

#[test]
fn an_empty_rule_list_is_allowed() {
    assert!(
        RuleSet::parse("rules = []", Format::Toml)
            .unwrap()
            .rules
            .is_empty()
    );
}

#[test]
fn the_format_follows_the_extension_then_the_first_character() {
    assert_eq!(Format::of("p.JSON", ""), Format::Json);
    assert_eq!(Format::of("p.toml", "{"), Format::Toml);
    assert_eq!(Format::of("policies", " {\"rules\": []}"), Format::Json);
    assert_eq!(Format::of("policies", "[[rules]]"), Format::Toml);
}

/// Parses a one-rule JSON file and returns the error message.
fn refused(rule: &str) -> String {
    let text = format!(r#"{{"rules": [{rule}]}}"#);
    RuleSet::parse(&text, Format::Json)
        .expect_err("must be refused")
        .to_string()
}

#[test]
fn bad_rules_are_refused_naming_the_rule_and_the_field() {
    let cases = [
        (
            r#"{"name": "p", "action": "new_is_current", "match": {"min_probability": 1.5}}"#,
            r#"rule 1 ("p"): field `match.min_probability`: must be between 0 and 1"#,
        ),
        (
            r#"{"name": "p", "action": "newest", "match_all": true}"#,
            r#"rule 1 ("p"): field `action`: unknown variant `newest`"#,
        ),
        (
            r#"{"name": "p", "action": "merge", "match": {"min_prob": 0.5}}"#,
            r#"rule 1 ("p"): field `match.min_prob`: unknown field `min_prob`"#,
        ),
        (
            r#"{"name": "p", "action": "merge", "match": {"conflict_types": ["typo"]}}"#,
            r#"rule 1 ("p"): field `match.conflict_types`: `typo` is not one of"#,
        ),
        (
            r#"{"name": "p", "action": "merge", "match": {"recommendation": ["newest"]}}"#,
            r#"rule 1 ("p"): field `match.recommendation`: `newest` is not one of"#,
        ),
        (
            r#"{"name": "p", "action": "merge", "match": {"labels": []}}"#,
            r#"rule 1 ("p"): field `match.labels`: must not be empty"#,
        ),
        (
            r#"{"name": "p", "action": "merge", "match": {"memory_types": [" "]}}"#,
            r#"rule 1 ("p"): field `match.memory_types`: must not hold an empty name"#,
        ),
        (
            r#"{"name": "p", "action": "merge", "match": {"min_credibility_gap": -0.1}}"#,
            r#"rule 1 ("p"): field `match.min_credibility_gap`: must be between 0 and 1"#,
        ),
        (
            r#"{"name": "p", "action": "merge", "match": {"same_source": "yes"}}"#,
            r#"rule 1 ("p"): field `match.same_source`: invalid type"#,
        ),
        (
            r#"{"name": "p", "action": "merge"}"#,
            r#"rule 1 ("p"): field `match`: has no condition; set `match_all = true`"#,
        ),
        (
            r#"{"name": "p", "action": "merge", "match_all": true, "match": {"labels": ["x"]}}"#,
            r#"rule 1 ("p"): field `match_all`: cannot be combined"#,
        ),
        (
            r#"{"name": "has space", "action": "merge", "match_all": true}"#,
            r#"rule 1 ("has space"): field `name`: may hold only"#,
        ),
        (
            r#"{"action": "merge", "match_all": true}"#,
            "rule 1: missing field `name`",
        ),
    ];
    for (rule, expected) in cases {
        let message = refused(rule);
        assert!(
            message.starts_with(expected),
            "for {rule}\n  got:      {message}\n  expected: {expected}…"
        );
    }
}

#[test]
fn a_duplicate_name_is_refused_on_the_later_rule() {
    let text = r#"{"rules": [
        {"name": "a", "action": "merge", "match_all": true},
        {"name": "a", "action": "keep_both", "match_all": true}]}"#;
    let e = RuleSet::parse(text, Format::Json).unwrap_err();
    assert_eq!(e.rule.as_deref(), Some(r#"rule 2 ("a")"#));
    assert_eq!(e.field.as_deref(), Some("name"));
}

#[test]
fn malformed_files_are_refused() {
    for (text, format, expected) in [
        ("[[rules]\nname = ", Format::Toml, "TOML parse error"),
        ("{\"rules\": [", Format::Json, "EOF while parsing"),
        ("[]", Format::Json, "expected a table with a `rules` list"),
        ("rule = []", Format::Toml, "unknown key `rule`"),
        ("", Format::Toml, "missing `rules`"),
        ("rules = 3", Format::Toml, "`rules` must be a list"),
    ] {
        let e = RuleSet::parse(text, format).unwrap_err();
        assert!(
            e.rule.is_none() && e.to_string().contains(expected),
            "{text:?}: {e}"
        );
    }
}

#[test]
fn trust_bounds_read_the_sides_credibility() {
    let anonymous_new = Case {
        new_credibility: Some(0.2),
        old_credibility: Some(0.9),
        ..Case::default()
    };
    let when = |min| Match {
        new: Some(SideMatch {
            min_trust: Some(min),
            ..SideMatch::default()
        }),
        ..Match::default()
    };
    assert!(!matches(when(0.5), &anonymous_new));
    assert!(matches(when(0.2), &anonymous_new));
    assert!(
        matches(when(0.5), &Case::default()),
        "an unknown source counts as 0.5"
    );
}

#[test]
fn a_trust_table_gives_sources_a_starting_trust() {
    let file = r#"
[trust]
"signed:*" = 0.9
"signed:draft-bot" = 0.4
"user:*" = 0.7
"*" = 0.45
anonymous = 0.2
"#;
    let set = RuleSet::parse(file, Format::Toml).unwrap();
    assert!(set.rules.is_empty());
    assert_eq!(set.trust_of("signed:dr-lee"), Some(0.9));
    assert_eq!(
        set.trust_of("signed:draft-bot"),
        Some(0.4),
        "exact beats prefix"
    );
    assert_eq!(set.trust_of("anonymous"), Some(0.2));
    assert_eq!(
        set.trust_of("web:forum"),
        Some(0.45),
        "`*` holds every source"
    );
    let without_catch_all = RuleSet::parse(&file.replace("\"*\" = 0.45\n", ""), Format::Toml);
    assert_eq!(without_catch_all.unwrap().trust_of("web:forum"), None);
    for (bad, field) in [
        ("\"sig*ned\" = 0.5", "trust.sig*ned"),
        ("anonymous = 1.5", "trust.anonymous"),
        ("anonymous = \"low\"", "trust.anonymous"),
    ] {
        let e = RuleSet::parse(&format!("[trust]\n{bad}\n"), Format::Toml).unwrap_err();
        assert_eq!(e.field.as_deref(), Some(field), "{bad}: {e}");
    }
}

#[test]
fn a_quarantine_holds_back_even_a_value_layer_or_instruction_conflict() {
    let rules = r#"
[[rules]]
name = "hold"
action = "quarantine"
match_all = true
"#;
    let set = RuleSet::parse(rules, Format::Toml).expect("quarantine is an action");
    assert_eq!(set.rules[0].action, RuleAction::Quarantine);
    assert_eq!(set.rules[0].action.strategy(), None);
    let labelled = Case {
        new_labels: labels(&["security"]),
        ..Case::default()
    };
    // It resolves nothing and makes nothing current, so nothing holds it back.
    let Some(Outcome::Fires(r, why)) = first_match(&set, &labelled.facts()) else {
        panic!("a quarantine fires on a value-layer conflict");
    };
    assert_eq!(
        r.note(&why, false),
        "policy hold quarantined the new memory until a reviewer promotes (new_is_current) or \
         rejects (old_is_current) it: matches every conflict"
    );
    assert!(
        r.note(&why, true)
            .starts_with("policy hold would quarantine")
    );
    let injected = Case {
        new_injection: true,
        ..Case::default()
    };
    assert!(matches!(
        first_match(&set, &injected.facts()),
        Some(Outcome::Fires(..))
    ));
}

#[test]
fn a_quarantine_needs_the_old_side_the_more_credible_for_a_credibility_gap() {
    let mut r = rule(
        Strategy::OldIsCurrent,
        Match {
            min_credibility_gap: Some(0.2),
            ..Match::default()
        },
    );
    r.action = RuleAction::Quarantine;
    let old_better = Case {
        old_credibility: Some(0.9),
        new_credibility: Some(0.3),
        ..Case::default()
    };
    let new_better = Case {
        old_credibility: Some(0.3),
        new_credibility: Some(0.9),
        ..Case::default()
    };
    assert!(r.matches(&old_better.facts()).is_some());
    assert!(r.matches(&new_better.facts()).is_none());
}
