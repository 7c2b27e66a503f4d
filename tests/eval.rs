//! `concord eval --json` prints the contract's report shape (section 7).

use std::process::Command;

#[test]
fn eval_json_reports_overall_per_tier_and_per_source() {
    let out = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args([
            "eval",
            "--json",
            "--data",
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/pairs.jsonl"),
        ])
        .output()
        .expect("concord eval runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let overall = &report["overall"];
    for key in [
        "pairs",
        "tp",
        "fp",
        "fn",
        "tn",
        "precision",
        "recall",
        "f1",
        "pairs_per_second",
    ] {
        assert!(
            overall.get(key).is_some(),
            "overall.{key} missing: {report}"
        );
    }
    assert_eq!(overall["pairs"], 4);
    assert_eq!(
        (overall["tp"].clone(), overall["fp"].clone()),
        (2.into(), 0.into()),
        "{report}"
    );
    assert_eq!(report["by_tier"]["heuristic"]["tp"], 2);
    assert_eq!(report["by_source"]["unit"]["pairs"], 2);
    assert_eq!(report["by_source"]["other"]["pairs"], 2);
}

#[test]
fn rules_only_agrees_with_the_full_write_path() {
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_concord"))
            .args([
                "eval",
                "--json",
                "--data",
                concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/pairs.jsonl"),
            ])
            .args(extra)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (v["overall"]["tp"].clone(), v["overall"]["fp"].clone())
    };
    assert_eq!(run(&[]), run(&["--rules-only"]));
}
