//! End-to-end behaviour of `assess` through the public API.

use super::*;

fn check(old: &str, new: &str) -> Option<Verdict> {
    evaluate_pair(old, new, Some("memory"), &DetectConfig::default())
}

fn flagged_as(old: &str, new: &str) -> ConflictType {
    check(old, new)
        .unwrap_or_else(|| panic!("expected a conflict: {old:?} / {new:?}"))
        .conflict_type
}

#[test]
fn negation_is_flagged_in_english_and_chinese() {
    let cases = [
        (
            "The service supports streaming uploads.",
            "The service does not support streaming uploads.",
        ),
        (
            "the chemist loves television",
            "the chemist does not love television",
        ),
        ("We deploy on Fridays.", "We never deploy on Fridays."),
        ("The API is rate limited.", "The API isn't rate limited."),
        ("服务使用 Redis 作为缓存", "服务不再使用 Redis 作为缓存"),
        ("用户喜欢深色模式", "用户不喜欢深色模式"),
    ];
    for (old, new) in cases {
        assert_eq!(
            flagged_as(old, new),
            ConflictType::DirectContradiction,
            "{new}"
        );
        assert!(
            check(old, new).is_some_and(|v| v.signals.contains(&Signal::Negation)),
            "{new}"
        );
    }
}

#[test]
fn negation_explanation_quotes_both_spans() {
    let v = check(
        "The service supports streaming uploads.",
        "The service does not support streaming uploads.",
    );
    let text = v.expect("negation").explanation;
    assert!(
        text.starts_with("negation: \"") && text.contains("does not support"),
        "{text}"
    );
}

#[test]
fn replacement_cues_are_flagged_in_english_and_chinese() {
    let cases = [
        (
            "The team uses MySQL as the primary database.",
            "The team switched to PostgreSQL as the primary database.",
        ),
        (
            "Builds run on Jenkins for the main repo.",
            "Builds for the main repo migrated to GitHub Actions.",
        ),
        (
            "我们使用 MySQL 作为主数据库",
            "我们改用 PostgreSQL 作为主数据库",
        ),
        (
            "前端使用 Webpack 打包",
            "前端打包工具换成 Vite 替代 Webpack",
        ),
    ];
    for (old, new) in cases {
        let v = check(old, new).unwrap_or_else(|| panic!("{new}"));
        assert!(v.signals.contains(&Signal::Replacement), "{new}: {v:?}");
    }
}

#[test]
fn value_changes_are_typed_by_kind_of_value() {
    let cases = [
        (
            "The request timeout is 30 seconds.",
            "The request timeout is 60 seconds.",
            ConflictType::NumericMismatch,
        ),
        (
            "The request timeout is 60 seconds.",
            "The request timeout is 2 minutes.",
            ConflictType::NumericMismatch,
        ),
        (
            "超时时间是 30 秒",
            "超时时间是 60 秒",
            ConflictType::NumericMismatch,
        ),
        (
            "On the site it holds a 82% rating.",
            "On the site it holds a 21% rating.",
            ConflictType::NumericMismatch,
        ),
        (
            "The cache holds 512 MB per node.",
            "The cache holds 2 GB per node.",
            ConflictType::NumericMismatch,
        ),
        (
            "The launch is set for 2024-03-01.",
            "The launch is set for 2024-04-15.",
            ConflictType::TemporalMismatch,
        ),
        (
            "He returned home in 1966 to run the firm.",
            "He returned home in 1967 to run the firm.",
            ConflictType::TemporalMismatch,
        ),
        (
            "Production runs version v1.2.3 of the agent.",
            "Production runs version v1.4.0 of the agent.",
            ConflictType::TemporalMismatch,
        ),
        (
            "发布日期是 2024年3月1日",
            "发布日期是 2024年5月1日",
            ConflictType::TemporalMismatch,
        ),
    ];
    for (old, new, want) in cases {
        assert_eq!(flagged_as(old, new), want, "{new}");
    }
}

#[test]
fn value_change_explanation_names_both_values() {
    let v = check(
        "Disk usage alert fires at 80% full.",
        "Disk usage alert fires at 60% full.",
    )
    .expect("flag");
    assert_eq!(v.explanation, "value changed: \"80%\" vs \"60%\"");
    assert_eq!(v.signals, [Signal::ValueChange]);
}

#[test]
fn comparatives_consistent_with_the_value_are_not_flagged() {
    let cases = [
        (
            "The longest field goal was 65 yards.",
            "The longest field goal was over 64 yards.",
        ),
        (
            "The bill passed with 560 votes in favour.",
            "The bill passed with less than 570 votes in favour.",
        ),
        (
            "The album sold 7.4 million copies worldwide.",
            "The album sold more than 7 million copies worldwide.",
        ),
        (
            "Germany reported 127,854 cases in total.",
            "Germany reported less than 128,000 cases in total.",
        ),
    ];
    for (old, new) in cases {
        assert!(check(old, new).is_none(), "{new}: {:?}", check(old, new));
    }
}

#[test]
fn comparatives_that_exclude_the_value_are_flagged() {
    let cases = [
        (
            "The team won its 27th consecutive game.",
            "The team won under 27 consecutive games.",
        ),
        (
            "Ted has 198 reviews on the site.",
            "Ted has less than 198 reviews on the site.",
        ),
        (
            "The album sold over 10 million copies.",
            "The album sold over 15 million copies.",
        ),
    ];
    for (old, new) in cases {
        assert_eq!(flagged_as(old, new), ConflictType::NumericMismatch, "{new}");
    }
}

#[test]
fn equal_values_in_other_units_are_not_flagged() {
    let cases = [
        (
            "The health check interval is 60s.",
            "The health check interval is 1 minute.",
        ),
        (
            "Sessions expire after 1 hour.",
            "Sessions expire after 60 minutes.",
        ),
        (
            "Uploads are capped at 1 GB.",
            "Uploads are capped at 1024 MB.",
        ),
    ];
    for (old, new) in cases {
        assert!(check(old, new).is_none(), "{new}");
    }
}

#[test]
fn enum_swaps_in_otherwise_identical_statements_are_flagged() {
    let cases = [
        (
            "The club plays in Serie B this season.",
            "The club plays in Serie A this season.",
        ),
        (
            "The primary database runs in us-east-1 today.",
            "The primary database runs in eu-west-1 today.",
        ),
        (
            "The user prefers dark mode in the editor.",
            "The user prefers light mode in the editor.",
        ),
    ];
    for (old, new) in cases {
        assert_eq!(
            flagged_as(old, new),
            ConflictType::DirectContradiction,
            "{new}"
        );
    }
}

#[test]
fn near_duplicates_are_still_checked_for_value_changes() {
    let old = "On Rotten Tomatoes, it holds a 82% rating, with an average score of 7.1/10, based on 68 reviews.";
    let new = "On Rotten Tomatoes, it holds a 21% rating, with an average score of 7.1/10, based on 68 reviews.";
    let v = check(old, new).expect("near-duplicate with a changed value");
    assert!(v.overlap > 0.8 && v.probability > 0.9, "{v:?}");
}

#[test]
fn must_not_flag_agreeing_or_unrelated_memories() {
    let cases = [
        (
            "The service uses Redis.",
            "The service uses Redis for caching sessions too.",
        ),
        ("The service uses Redis.", "The service uses Redis."),
        (
            "The API gateway has 3 replicas.",
            "Lunch on Friday is at 12 with 8 people from the design team.",
        ),
        (
            "The API gateway has 3 replicas.",
            "The API gateway has 3 replicas and was set up in 2021.",
        ),
        (
            "Alice leads the payments team.",
            "She leads the payments team.",
        ),
        ("服务使用 Redis 作为缓存", "服务使用 Redis 作为会话缓存"),
    ];
    for (old, new) in cases {
        assert!(check(old, new).is_none(), "{new}: {:?}", check(old, new));
    }
}

#[test]
fn scope_narrowing_is_flagged_as_scope_mismatch() {
    let v = check(
        "The agent always runs the nightly backup.",
        "The agent only runs the nightly backup on Linux.",
    );
    assert_eq!(
        v.map(|v| v.conflict_type),
        Some(ConflictType::ScopeMismatch)
    );
}

#[test]
fn lenient_drops_weak_and_temporal_verdicts() {
    let cfg = DetectConfig {
        sensitivity: Sensitivity::Lenient,
        ..DetectConfig::default()
    };
    let dated = evaluate_pair(
        "He returned home in 1966.",
        "He returned home in 1967.",
        None,
        &cfg,
    );
    assert!(dated.is_none());
    let numeric = evaluate_pair(
        "The timeout is 30 seconds.",
        "The timeout is 90 seconds.",
        None,
        &cfg,
    );
    assert!(numeric.is_some_and(|v| v.probability > 0.7));
}

fn embedded<'a>(body: &'a str, labels: &'a [String], e: &'a [f32]) -> Memory<'a> {
    Memory {
        title: "note",
        body,
        labels,
        confidence: 0.9,
        embedding: Some(e),
    }
}

#[test]
fn vector_evidence_alone_flags_only_under_strict() {
    let labels = vec!["infra".to_string()];
    let (ea, eb): (&[f32], &[f32]) = (&[1.0, 0.0], &[0.35, 0.937]);
    let old = embedded("Deploys happen through the blue pipeline.", &labels, ea);
    let new = embedded("Rollouts go via canary stages.", &labels, eb);
    let strict = DetectConfig {
        sensitivity: Sensitivity::Strict,
        ..DetectConfig::default()
    };
    let v = assess(&new, &old, &strict).expect("strict flags vector candidates");
    assert_eq!(
        (v.tier, v.signals.as_slice()),
        (Tier::Vector, [Signal::VectorSimilarity].as_slice())
    );
    assert!(assess(&new, &old, &DetectConfig::default()).is_none());
}

#[test]
fn text_verdicts_record_similarity_and_get_a_small_in_band_raise() {
    let labels = vec!["infra".to_string()];
    let (ea, eb): (&[f32], &[f32]) = (&[1.0, 0.0], &[0.8, 0.6]);
    let old = embedded("The request timeout is 30 seconds.", &labels, ea);
    let new = embedded("The request timeout is 60 seconds.", &labels, eb);
    let with = assess(&new, &old, &DetectConfig::default()).expect("flag");
    let plain =
        evaluate_pair(old.body, new.body, Some("note"), &DetectConfig::default()).expect("flag");
    assert_eq!(with.similarity.map(|s| (s * 100.0).round()), Some(80.0));
    assert!(with.probability > plain.probability);
}

#[test]
fn names_round_trip_through_from_str() {
    for s in Sensitivity::ALL {
        assert_eq!(s.as_str().parse::<Sensitivity>(), Ok(*s));
    }
    for c in ConflictType::ALL {
        assert_eq!(c.as_str().parse::<ConflictType>(), Ok(*c));
    }
    assert_eq!(Signal::ValueChange.as_str(), "value_change");
    assert_eq!(Tier::Vector.as_str(), "vector");
    assert!("sometimes".parse::<Sensitivity>().is_err());
    assert_eq!(Sensitivity::default(), Sensitivity::Balanced);
}

#[test]
fn probabilities_stay_in_the_unit_interval() {
    let v = check(
        "The service supports v1.2 and 30 seconds timeout.",
        "The service does not support v1.3 and 90 seconds timeout.",
    );
    assert!(v.is_some_and(|v| (0.0..=1.0).contains(&v.probability)));
}

#[test]
fn megabyte_bodies_are_assessed_quickly() {
    let body = "word ".repeat(200_000) + "timeout is 30 seconds";
    let start = std::time::Instant::now();
    let _ = evaluate_pair(
        &body,
        &body.replace("30", "60"),
        None,
        &DetectConfig::default(),
    );
    assert!(start.elapsed().as_secs_f64() < 2.0);
}

#[test]
fn values_of_different_subjects_are_not_flagged() {
    let cases = [
        (
            "The payments service timeout is 30s.",
            "The search service timeout is 60s.",
        ),
        (
            "In production, the error budget is 5%.",
            "In development, the error budget is 7%.",
        ),
        (
            "In the us cluster, the pricing-worker client library version is 7.4.18. Set by the \
             data team on 2024-06-28. The on-call engineer can override it with a feature flag.",
            "In the us cluster, the sync-relay client library version is 7.5.2. Set by the data \
             team on 2024-06-28. The on-call engineer can override it with a feature flag.",
        ),
        (
            "In development, the sync-relay error budget is 5%. Set by the security team on \
             2025-10-07.",
            "In development, the ledger-api error budget is 9%. Set by the security team on \
             2025-10-07.",
        ),
        (
            "In staging, the sync-relay error budget is 5%.",
            "In canary, the sync-relay error budget is 9%.",
        ),
        (
            "The primary database in us-east-1 has 5 replicas.",
            "The primary database in eu-west-1 has 7 replicas.",
        ),
        (
            "Alice reviews 12 pull requests a week.",
            "Bob reviews 20 pull requests a week.",
        ),
        (
            "The timeout for uploads is 30 seconds.",
            "The timeout for downloads is 60 seconds.",
        ),
        (
            "error budget of vault-store (production): 48%, last reviewed 2026-04-28.",
            "error budget of session-store (production): 12%, last reviewed 2026-08-04.",
        ),
        ("支付服务的超时时间是 30 秒", "搜索服务的超时时间是 60 秒"),
        ("生产环境的错误预算是 5%", "测试环境的错误预算是 7%"),
    ];
    for (old, new) in cases {
        assert!(check(old, new).is_none(), "{new}: {:?}", check(old, new));
    }
}

#[test]
fn values_of_the_same_subject_are_still_flagged() {
    let cases = [
        (
            "The payments service timeout is 30s.",
            "The payments service timeout is 60s.",
        ),
        (
            "In production, the error budget is 5%.",
            "In production, the error budget is 7%.",
        ),
        (
            "In the us cluster, the pricing-worker client library version is 7.4.18. Set by the \
             data team on 2024-06-28.",
            "In the us cluster, the pricing-worker client library version is 7.5.2. Updated by \
             the data team on 2024-06-28.",
        ),
        (
            "In development, the sync-relay error budget is 5%.",
            "In development, the sync-relay error budget is 9%.",
        ),
        // A qualifier added on one side narrows the statement; it names no other subject.
        (
            "The error budget is 5%.",
            "In production, the error budget is 7%.",
        ),
        ("支付服务的超时时间是 30 秒", "支付服务的超时时间是 60 秒"),
        ("生产环境的错误预算是 5%", "生产环境的错误预算是 7%"),
    ];
    for (old, new) in cases {
        assert!(check(old, new).is_some(), "{new}");
    }
}

#[test]
fn negations_and_swaps_about_other_subjects_are_not_flagged() {
    let cases = [
        (
            "The payments service supports streaming uploads.",
            "The search service does not support streaming uploads.",
        ),
        (
            "In production, the sync-relay retries failed writes.",
            "In staging, the sync-relay does not retry failed writes.",
        ),
        (
            "The fraud-scanner is owned by the storage team and pages the identity rotation.",
            "The session-cron is owned by the infra team and pages the search rotation.",
        ),
        (
            "The payments service uses Postgres.",
            "The search service uses MySQL.",
        ),
        ("支付服务支持流式上传", "搜索服务不支持流式上传"),
    ];
    for (old, new) in cases {
        assert!(check(old, new).is_none(), "{new}: {:?}", check(old, new));
    }
    // The same subjects still conflict.
    let same = [
        (
            "The payments service supports streaming uploads.",
            "The payments service does not support streaming uploads.",
        ),
        (
            "The fraud-scanner is owned by the storage team.",
            "The fraud-scanner is owned by the infra team.",
        ),
        ("支付服务支持流式上传", "支付服务不支持流式上传"),
    ];
    for (old, new) in same {
        assert!(check(old, new).is_some(), "{new}");
    }
}

#[test]
fn several_swapped_objects_of_one_subject_are_still_flagged() {
    // Swapped names later in the sentence are further changed facts, not another subject.
    let cases = [
        (
            "Bonaire was part of the Netherlands Antilles until 2010, when the island became a \
             municipality within the country of the Netherlands.",
            "Bonaire was part of the Caribbean Antilles until 2010, when the island became a \
             municipality within the country of Venezuela.",
        ),
        (
            "Their principal world rivals are Mexico and, most recently, Spain.",
            "Their principal continental rivals are South Korea and, most recently, Australia.",
        ),
    ];
    for (old, new) in cases {
        assert!(check(old, new).is_some(), "{new}");
    }
}

#[test]
fn a_number_naming_the_subject_is_not_the_changed_value() {
    let stored = |n: u32| format!("The cache ttl for service {n} is {} units.", 9000 + n);
    let new = "The cache ttl for service 3 is 7777 units.";
    for n in [0, 1, 2, 4, 13, 30, 300, 1999] {
        assert!(
            check(&stored(n), new).is_none(),
            "service {n}: {:?}",
            check(&stored(n), new)
        );
    }
    assert_eq!(flagged_as(&stored(3), new), ConflictType::NumericMismatch);
    let others = [
        (
            "Room 12 is booked for the retro.",
            "Room 14 is booked for the retro.",
        ),
        (
            "The deploy window for team-payments is 30 minutes.",
            "The deploy window for team-search is 45 minutes.",
        ),
        (
            "Order ORTAND-88 ships in 3 days.",
            "Order ORTAND-91 ships in 5 days.",
        ),
        (
            "Replicas in us-east-1: 3 per shard.",
            "Replicas in eu-west-1: 5 per shard.",
        ),
    ];
    for (old, new) in others {
        let v = check(old, new);
        assert!(
            v.as_ref()
                .is_none_or(|v| !v.signals.contains(&Signal::ValueChange)),
            "{new}: {v:?}"
        );
    }
}
