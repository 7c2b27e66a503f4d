//! The committed OpenAPI document must equal what the code generates.

#[test]
fn the_committed_openapi_document_matches_the_code() {
    let generated = concord::api::openapi_json();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json");
    if std::env::var_os("UPDATE_OPENAPI").is_some() {
        std::fs::write(path, &generated).expect("write openapi/openapi.json");
        return;
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == generated,
        "openapi/openapi.json is out of date. If the change is intended, run \
         `cargo run -- openapi > openapi/openapi.json` (or `UPDATE_OPENAPI=1 cargo test --test openapi`) \
         and commit the result."
    );
}

#[test]
fn every_operation_documents_a_summary_and_its_problems() {
    let doc: serde_json::Value = serde_json::from_str(&concord::api::openapi_json()).unwrap();
    let paths = doc["paths"].as_object().expect("paths");
    assert!(paths.len() >= 14, "only {} paths documented", paths.len());
    for (path, ops) in paths {
        for (method, op) in ops.as_object().unwrap() {
            assert!(
                op.get("summary").is_some(),
                "{method} {path} has no summary"
            );
            let responses = op["responses"].as_object().unwrap();
            let problem_documented = responses
                .keys()
                .any(|k| k.starts_with('4') || k.starts_with('5'));
            if !matches!(path.as_str(), "/healthz" | "/metrics") {
                assert!(
                    problem_documented,
                    "{method} {path} documents no error response"
                );
            }
        }
    }
}
