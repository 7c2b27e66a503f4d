use super::*;

fn memory<'a>(text: &'a str, labels: &'a [String], embedding: Option<&'a [f32]>) -> Memory<'a> {
    Memory {
        title: "",
        body: text,
        labels,
        confidence: 0.9,
        embedding,
    }
}

fn judgement(kind: ConflictType, probability: f64) -> LlmJudgement {
    LlmJudgement {
        contradiction: true,
        probability,
        conflict_type: Some(kind),
        explanation: "30 s vs 60 s".into(),
    }
}

const SCREENED: Screen = Screen {
    overlap: 0.6,
    similarity: None,
};

#[test]
fn overlapping_text_passes_the_filters() {
    let s = screen(
        &memory("The request timeout is 60 seconds.", &[], None),
        &memory("The request timeout is 30 seconds.", &[], None),
        &DetectConfig::default(),
    )
    .expect("overlap");
    assert!(s.overlap >= 0.3 && s.similarity.is_none());
}

#[test]
fn unrelated_text_without_embeddings_is_filtered_out() {
    let s = screen(
        &memory("Lunch is served at noon in the cafeteria.", &[], None),
        &memory("The deploy pipeline uses blue-green releases.", &[], None),
        &DetectConfig::default(),
    );
    assert_eq!(s, None);
}

#[test]
fn vector_band_needs_a_shared_label() {
    let (shared, other) = (vec!["infra".to_string()], vec!["food".to_string()]);
    let (ea, eb): (&[f32], &[f32]) = (&[1.0, 0.0], &[0.6, 0.8]);
    let old = memory(
        "Deploys happen through the blue pipeline.",
        &shared,
        Some(ea),
    );
    let new = memory("Rollouts go via canary stages.", &shared, Some(eb));
    let cfg = DetectConfig::default();
    let s = screen(&new, &old, &cfg).expect("in band with a shared label");
    assert_eq!(s.similarity.map(|x| (x * 100.0).round()), Some(60.0));
    let stranger = Memory {
        labels: &other,
        ..new
    };
    assert_eq!(screen(&stranger, &old, &cfg), None);
}

#[test]
fn llm_verdicts_follow_the_sensitivity_rules() {
    use ConflictType::*;
    use Sensitivity::*;
    let cases = [
        (Balanced, DirectContradiction, 0.55, true),
        (Balanced, ScopeMismatch, 0.55, true),
        (Balanced, NumericMismatch, 0.5, false),
        (Strict, TemporalMismatch, 0.51, true),
        (Lenient, NumericMismatch, 0.71, true),
        (Lenient, NumericMismatch, 0.7, false),
        (Lenient, ScopeMismatch, 0.95, false),
        (Lenient, TemporalMismatch, 0.95, false),
    ];
    for (sensitivity, kind, p, flags) in cases {
        let v = llm_verdict(&judgement(kind, p), &SCREENED, sensitivity);
        assert_eq!(v.is_some(), flags, "{sensitivity} {kind} {p}");
    }
}

#[test]
fn an_llm_verdict_is_tier_llm_and_keeps_the_filter_measures() {
    let v = llm_verdict(
        &judgement(ConflictType::NumericMismatch, 0.9),
        &SCREENED,
        Sensitivity::Balanced,
    )
    .expect("flags");
    assert_eq!((v.tier, v.overlap, v.probability), (Tier::Llm, 0.6, 0.9));
    assert_eq!(v.explanation, "llm: 30 s vs 60 s");
}

#[test]
fn a_no_contradiction_answer_never_flags() {
    let mut j = judgement(ConflictType::DirectContradiction, 0.9);
    j.contradiction = false;
    for s in Sensitivity::ALL {
        assert_eq!(llm_verdict(&j, &SCREENED, *s), None, "{s}");
    }
}
