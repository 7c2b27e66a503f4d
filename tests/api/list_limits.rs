//! Bounded work per request: every list field with a limit (labels, an embedding's
//! dimensions) fed at 10× and far past its limit is refused with 422 naming the field, and the
//! refusal costs no more than linear in the input (reading the JSON), never a comparison of
//! every item with every other. Times are compared with each other (medians, a generous
//! ratio), never with a wall-clock threshold.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use concord::domain::node::{MAX_EMBEDDING_DIM, MAX_LABELS};

use crate::support::TestApp;

crate::on_both_databases!(list_fields_past_their_limit_are_422_at_linear_cost);

/// A list field, its limit, how to make a list of n items, and whether PATCH takes it.
struct Case {
    field: &'static str,
    limit: usize,
    make: fn(usize) -> Value,
    patchable: bool,
}

/// Distinct labels, each a few characters.
fn labels(n: usize) -> Value {
    Value::from((0..n).map(|i| format!("l{i}")).collect::<Vec<_>>())
}

fn embedding(n: usize) -> Value {
    Value::from(vec![0.5; n])
}

/// The median time of `runs` requests, each asserted to be 422 naming `pointer`.
async fn median_422(
    app: &TestApp,
    method: axum::http::Method,
    uri: &str,
    body: &Value,
    pointer: &str,
) -> Duration {
    let mut times = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        let r = app.request(method.clone(), uri, Some(body.clone())).await;
        times.push(started.elapsed());
        assert!(
            r.pointers().iter().any(|p| p == pointer),
            "{uri} {pointer}: {}",
            &r.text[..r.text.len().min(300)]
        );
    }
    times.sort();
    times[times.len() / 2]
}

async fn list_fields_past_their_limit_are_422_at_linear_cost(app: TestApp) {
    // Arrange: a node to patch; each case is a field and the sizes it is sent at.
    let node = app.node("Limits", "A memory").await;
    let patch_uri = format!("/nodes/{}", node["id"].as_str().unwrap());
    // The embedding's largest case stays under the 2 MiB body limit ("0.5," per dimension).
    // PATCH takes no embedding (it is set by a write of the node).
    let cases = [
        Case {
            field: "labels",
            limit: MAX_LABELS,
            make: labels,
            patchable: true,
        },
        Case {
            field: "embedding",
            limit: MAX_EMBEDDING_DIM,
            make: embedding,
            patchable: false,
        },
    ];
    for Case {
        field,
        limit,
        make,
        patchable,
    } in cases
    {
        let small = limit * 10;
        let large = if field == "embedding" {
            limit * 60
        } else {
            limit * 1000
        };
        let routes = [
            (axum::http::Method::POST, "/nodes?detect=false"),
            (axum::http::Method::PATCH, patch_uri.as_str()),
        ];
        for (method, uri) in routes.into_iter().take(if patchable { 2 } else { 1 }) {
            let body = |n| {
                let mut b = json!({field: make(n)});
                if method == axum::http::Method::POST {
                    b["title"] = json!("Too many");
                }
                b
            };
            // Warm up allocator and caches, so the first case does not pay for them.
            median_422(
                &app,
                method.clone(),
                uri,
                &body(small),
                &format!("/{field}"),
            )
            .await;

            // Act
            let t_small = median_422(
                &app,
                method.clone(),
                uri,
                &body(small),
                &format!("/{field}"),
            )
            .await;
            let t_large = median_422(
                &app,
                method.clone(),
                uri,
                &body(large),
                &format!("/{field}"),
            )
            .await;

            // Assert: linear would be `large / small` times slower; quadratic, that squared.
            // The bound allows 4× linear, and a floor of 1 ms for the small case absorbs the
            // fixed cost of a request.
            let linear = (large / small) as f64;
            let ratio = t_large.as_secs_f64() / t_small.as_secs_f64().max(0.001);
            assert!(
                ratio <= 4.0 * linear,
                "{method} {uri} {field}: {large} items took {t_large:?}, {small} took \
                 {t_small:?}: {ratio:.0}× for {linear}× the input"
            );
        }
    }
    // Nothing was written by any refused request.
    let nodes = app.get("/nodes").await.json();
    assert_eq!(nodes["items"].as_array().unwrap().len(), 1);
    assert_eq!(
        app.get(&patch_uri).await.json()["labels"],
        json!([]),
        "the patch was refused whole"
    );
}
