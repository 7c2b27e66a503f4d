use super::*;

#[test]
fn cosine_of_parallel_orthogonal_and_bad_vectors() {
    let cases: [(&[f32], &[f32], f64); 4] = [
        (&[1.0, 0.0], &[2.0, 0.0], 1.0),
        (&[1.0, 0.0], &[0.0, 3.0], 0.0),
        (&[1.0, 0.0], &[-1.0, 0.0], -1.0),
        (&[1.0], &[1.0, 2.0], 0.0),
    ];
    for (a, b, want) in cases {
        assert!((cosine(a, b) - want).abs() < 1e-9, "{a:?} {b:?}");
    }
}

#[test]
fn vector_probability_shrinks_with_similarity_and_confidence() {
    let labels = vec!["infra".to_string()];
    let (ea, eb): (&[f32], &[f32]) = (&[1.0, 0.0], &[0.6, 0.8]);
    let m = |e| Memory {
        title: "",
        body: "",
        labels: &labels,
        confidence: 0.9,
        embedding: Some(e),
    };
    let (a, mut b) = (m(ea), m(eb));
    b.confidence = 0.5;
    let v = verdict(&a, &b, 0.6, 0.0, &DetectConfig::default()).expect("in band");
    assert!((v.probability - 0.4 * 0.5).abs() < 1e-9);
}

#[test]
fn pairs_without_a_shared_label_are_not_vector_candidates() {
    let (la, lb) = (vec!["a".to_string()], vec!["b".to_string()]);
    let a = Memory {
        title: "",
        body: "",
        labels: &la,
        confidence: 1.0,
        embedding: None,
    };
    let b = Memory { labels: &lb, ..a };
    assert!(verdict(&a, &b, 0.5, 0.0, &DetectConfig::default()).is_none());
}
