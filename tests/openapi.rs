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

/// The role check's table (`api::access::OPERATIONS`) against the document: an operation
/// without an entry, or an entry for no operation, fails here. Each operation also names the
/// roles that may call it (`x-roles`).
#[test]
fn every_operation_has_a_permission_entry() {
    use concord::api::access::OPERATIONS;
    let doc: serde_json::Value = serde_json::from_str(&concord::api::openapi_json()).unwrap();
    let mut documented = Vec::new();
    for (path, ops) in doc["paths"].as_object().expect("paths") {
        for (method, op) in ops.as_object().unwrap() {
            let method = method.to_uppercase();
            assert!(
                OPERATIONS.iter().any(|(m, t, _)| *m == method && t == path),
                "{method} {path} has no entry in api::access::OPERATIONS: add the permission \
                 it needs (read, write, resolve or admin)"
            );
            if !matches!(path.as_str(), "/healthz" | "/readyz") {
                assert!(op["x-roles"].is_array(), "{method} {path} lists no x-roles");
            }
            documented.push((method, path.clone()));
        }
    }
    for (m, t, _) in OPERATIONS {
        assert!(
            documented.iter().any(|(dm, dt)| dm == m && dt == t),
            "api::access::OPERATIONS lists {m} {t}, which the document does not have"
        );
    }
    assert_eq!(documented.len(), OPERATIONS.len());
}

mod parameters {
    //! Every documented parameter against the router: path parameters are exactly the path's
    //! `{placeholders}`, everything else is an optional query parameter (or a header), and
    //! the router really reads each query parameter from the query string: a value outside its
    //! schema is 422 naming it.

    use std::sync::Arc;

    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use http_body_util::BodyExt;
    use serde_json::Value;
    use tower::ServiceExt;

    use concord::config::Settings;
    use concord::store::Store;
    use concord::store::postgres::PgStore;
    use concord::store::sqlite::SqliteStore;

    fn doc() -> Value {
        serde_json::from_str(&concord::api::openapi_json()).unwrap()
    }

    fn placeholders(path: &str) -> Vec<String> {
        path.split('/')
            .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .map(str::to_owned)
            .collect()
    }

    /// A value the parameter's schema forbids, percent-encoded.
    fn invalid_value(schema: &Value) -> &'static str {
        if schema.get("$ref").is_some() {
            // An enumeration (`NodeStateDto`).
            return "bogus";
        }
        match schema["type"].as_str() {
            Some("integer") => "1.5",
            Some("boolean") => "maybe",
            // Every free-text parameter excludes NUL; enumerations exclude it too.
            Some("string") => "%00",
            other => panic!("no invalid value for a parameter of type {other:?}"),
        }
    }

    #[test]
    fn path_parameters_are_the_placeholders_and_the_rest_are_optional_query_parameters_but_recall_q()
     {
        let doc = doc();
        let mut query_params = 0;
        for (path, ops) in doc["paths"].as_object().unwrap() {
            for (method, op) in ops.as_object().unwrap() {
                let params = op["parameters"].as_array().cloned().unwrap_or_default();
                let in_path: Vec<String> = params
                    .iter()
                    .filter(|p| p["in"] == "path")
                    .map(|p| {
                        assert_eq!(p["required"], true, "{method} {path}: {p}");
                        p["name"].as_str().unwrap().to_owned()
                    })
                    .collect();
                assert_eq!(in_path, placeholders(path), "{method} {path}");
                for p in params.iter().filter(|p| p["in"] != "path") {
                    assert!(
                        p["in"] == "query" || p["in"] == "header",
                        "{method} {path}: {p}"
                    );
                    // `/recall` has nothing to search for without `q`; every other is optional.
                    let required = p["required"] == true;
                    assert_eq!(
                        required,
                        (path.as_str(), p["name"].as_str().unwrap()) == ("/recall", "q"),
                        "{method} {path}: {p}"
                    );
                    query_params += usize::from(p["in"] == "query");
                }
            }
        }
        assert!(query_params >= 28, "only {query_params} query parameters");
    }

    /// The server refuses U+0000 in every query parameter, so no pattern may admit it: each
    /// is the NUL rule (blank or not), an enumeration, or the cursor's alphabet.
    #[test]
    fn no_query_parameter_pattern_admits_nul() {
        let doc = doc();
        for (path, ops) in doc["paths"].as_object().unwrap() {
            for (method, op) in ops.as_object().unwrap() {
                let params = op["parameters"].as_array().cloned().unwrap_or_default();
                for p in params.iter().filter(|p| p["in"] == "query") {
                    let Some(pattern) = p["schema"]["pattern"].as_str() else {
                        continue;
                    };
                    let enumeration = pattern.starts_with("^(") && pattern.ends_with(")$");
                    assert!(
                        [
                            "^[^\\u0000]*$",
                            "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$",
                            "^[A-Za-z0-9_-]+$"
                        ]
                        .contains(&pattern)
                            || enumeration,
                        "{method} {path} {}: {pattern}",
                        p["name"]
                    );
                }
            }
        }
    }

    async fn the_router_reads_every_documented_query_parameter(store: Arc<dyn Store>) {
        let router = concord::app(concord::AppState::new(
            store,
            Settings::for_database("sqlite://test"),
        ));
        let doc = doc();
        let id = uuid::Uuid::now_v7().to_string();
        let mut checked = 0;
        for (path, ops) in doc["paths"].as_object().unwrap() {
            let concrete = path.replace("{id}", &id);
            for (method, op) in ops.as_object().unwrap() {
                let params = op["parameters"].as_array().cloned().unwrap_or_default();
                for p in params.iter().filter(|p| p["in"] == "query") {
                    let name = p["name"].as_str().unwrap();
                    let uri = format!("{concrete}?{name}={}", invalid_value(&p["schema"]));
                    let req = Request::builder()
                        .method(method.to_uppercase().as_str())
                        .uri(&uri)
                        .header("content-type", "application/json")
                        .body(Body::from("{}"))
                        .unwrap();
                    let res = router.clone().oneshot(req).await.unwrap();
                    let status = res.status();
                    let bytes = res.into_body().collect().await.unwrap().to_bytes();
                    let body: Value = serde_json::from_slice(&bytes).unwrap_or_default();
                    assert_eq!(
                        status,
                        StatusCode::UNPROCESSABLE_ENTITY,
                        "{method} {uri}: {body}"
                    );
                    assert_eq!(
                        body["errors"][0]["pointer"],
                        format!("/{name}"),
                        "{method} {uri}: {body}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked >= 28, "only {checked} parameters checked");
    }

    #[sqlx::test(migrations = "migrations/sqlite")]
    async fn sqlite_router_reads_every_documented_query_parameter(pool: sqlx::SqlitePool) {
        the_router_reads_every_documented_query_parameter(Arc::new(SqliteStore::from_pool(pool)))
            .await
    }

    #[sqlx::test(migrations = "migrations/postgres")]
    #[ignore = "needs PostgreSQL; scripts/test runs it with --include-ignored"]
    async fn postgres_router_reads_every_documented_query_parameter(pool: sqlx::PgPool) {
        the_router_reads_every_documented_query_parameter(Arc::new(PgStore::from_pool(pool))).await
    }
}
