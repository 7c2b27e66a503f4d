//! What the OpenAPI document states beyond what the derives can say, applied once to the
//! generated document: rules that span fields (one of `new_node_id` / `new_content`,
//! `merged_content` only with `merge`, `reason` only with a side kept), the 422s that depend
//! on stored state (a cursor not issued, an id naming no node, another embedding dimension),
//! the NUL rule on every text field of a request body and every free-text query parameter,
//! label items, and the links between operations that let a client (or a stateful fuzzer) go
//! from a created node to its conflicts, their resolution and its revert.

use serde_json::{Value, json};

/// A JSON Schema pattern for text without U+0000 (the domain's NUL rule).
const NO_NUL: &str = "^[^\\u0000]*$";
/// The same, with at least one non-space character.
const NO_NUL_NOT_BLANK: &str = "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$";

/// The generated document with the refinements applied.
pub fn refine(doc: &utoipa::openapi::OpenApi) -> Value {
    let mut doc = serde_json::to_value(doc).expect("the document serialises");
    if let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        batch_item_is_a_node(schemas);
        for (name, schema) in schemas.iter_mut() {
            if name.ends_with("Request") || name.ends_with("Body") {
                text_rules(schema);
            }
        }
        one_new_side(&mut schemas["CreateConflictRequest"]);
        for name in ["ResolveRequest", "ResolveBody"] {
            merged_content_only_with_merge(&mut schemas[name]);
        }
    }
    // Request bodies that carry a `known_at`, bounded by the clock like the query parameter.
    let clock_bound: Vec<String> = doc["components"]["schemas"]
        .as_object()
        .map(|schemas| {
            let with_known_at = schemas
                .iter()
                .filter(|(_, s)| s["properties"].get("known_at").is_some());
            with_known_at
                .map(|(name, _)| format!("#/components/schemas/{name}"))
                .collect()
        })
        .unwrap_or_default();
    if let Some(paths) = doc["paths"].as_object_mut() {
        for op in paths.values_mut().filter_map(Value::as_object_mut) {
            for op in op.values_mut() {
                query_text_rules(op);
                state_dependent_rejections(op, &clock_bound);
                describe_responses(op);
            }
        }
    }
    links(&mut doc);
    doc
}

/// The NUL rule on free-text query parameters (`limits::utf8_query` enforces it), also on
/// those that must not be blank.
fn query_text_rules(op: &mut Value) {
    let Some(params) = op.get_mut("parameters").and_then(Value::as_array_mut) else {
        return;
    };
    for p in params.iter_mut().filter(|p| p["in"] == "query") {
        let schema = &mut p["schema"];
        if !is_free_text(schema) {
            continue;
        }
        // As for body fields: an unanchored pattern (`\S`, not blank) gains the NUL rule.
        let pattern = match schema.get("pattern").and_then(Value::as_str) {
            Some(p) if p.starts_with('^') => continue,
            Some(_) => NO_NUL_NOT_BLANK,
            None => NO_NUL,
        };
        schema["pattern"] = json!(pattern);
    }
}

/// Whether a property schema admits a string (possibly null) without a format of its own.
fn is_free_text(prop: &Value) -> bool {
    let string = match &prop["type"] {
        Value::String(t) => t == "string",
        Value::Array(ts) => ts.iter().any(|t| t == "string"),
        _ => false,
    };
    string && prop.get("format").is_none()
}

/// The NUL rule on every free-text property, and the item rules of labels and key scopes.
fn text_rules(schema: &mut Value) {
    let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    for (name, prop) in props.iter_mut() {
        if name == "labels" {
            prop["items"] = json!({
                "type": "string", "minLength": 1, "maxLength": 64, "pattern": NO_NUL_NOT_BLANK,
            });
            continue;
        }
        if name == "scopes" {
            // A key's scope patterns (`domain::access::ScopePattern::parse`): trimmed, 1..201
            // characters, no control characters, `*` only at the end. The length is in the
            // pattern, as the server counts it after trimming.
            prop["items"] = json!({
                "type": "string", "minLength": 1,
                "pattern": "^\\s*(?=\\S)(?:[^\\x00-\\x1f\\x7f-\\x9f*]{0,200}\\*|[^\\x00-\\x1f\\x7f-\\x9f*]{1,201})\\s*$",
            });
            continue;
        }
        if !is_free_text(prop) {
            continue;
        }
        let pattern = match prop.get("pattern").and_then(Value::as_str) {
            // Slugs and enumerations exclude NUL already.
            Some(p) if p.starts_with('^') => continue,
            Some(_) => NO_NUL_NOT_BLANK,
            None => NO_NUL,
        };
        prop["pattern"] = json!(pattern);
    }
}

/// An item of `POST /nodes/batch` is `POST /nodes`'s body with a `ref` beside its fields. The
/// derive states it as `allOf` the node and the `ref`, which no item satisfies: the node's
/// schema admits no other property. One schema with both says it.
fn batch_item_is_a_node(schemas: &mut serde_json::Map<String, Value>) {
    let reference = schemas["BatchNodeRequest"]["allOf"][1]["properties"]["ref"].take();
    let description = schemas["BatchNodeRequest"]["description"].take();
    let mut item = schemas["CreateNodeRequest"].clone();
    item["properties"]["ref"] = reference;
    item["description"] = description;
    schemas["BatchNodeRequest"] = item;
}

/// OpenAPI requires a description on every response; the derives leave it out where the
/// handler gives none, so it is the status's reason phrase.
fn describe_responses(op: &mut Value) {
    let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
        return;
    };
    for (status, response) in responses.iter_mut() {
        if response.get("description").is_none() {
            let reason = status
                .parse::<u16>()
                .ok()
                .and_then(|s| axum::http::StatusCode::from_u16(s).ok())
                .and_then(|s| s.canonical_reason())
                .unwrap_or(match status.chars().next() {
                    Some('4') => "Client error (a problem document)",
                    _ => "Server error (a problem document)",
                });
            response["description"] = json!(reason);
        }
    }
}

/// `POST /conflicts`: exactly one of `new_node_id` and `new_content`.
fn one_new_side(schema: &mut Value) {
    schema["oneOf"] = json!([
        {"required": ["new_node_id"],
         "properties": {"new_node_id": {"type": "string"}, "new_content": {"type": "null"}}},
        {"required": ["new_content"],
         "properties": {"new_content": {"type": "string"}, "new_node_id": {"type": "null"}}},
    ]);
}

/// Resolution: `merged_content` is allowed with `merge` only, `reason` with `new_is_current`
/// (either) and `old_is_current` (only `correction`: the new memory never held) only.
fn merged_content_only_with_merge(schema: &mut Value) {
    schema["oneOf"] = json!([
        {"properties": {"resolution": {"const": "merge"}, "reason": {"type": "null"}}},
        {"properties": {
            "resolution": {"const": "new_is_current"},
            "merged_content": {"type": "null"},
        }},
        {"properties": {
            "resolution": {"const": "old_is_current"},
            "merged_content": {"type": "null"},
            "reason": {"enum": ["correction", null]},
        }},
        {"properties": {
            "resolution": {"const": "keep_both"},
            "merged_content": {"type": "null"},
            "reason": {"type": "null"},
        }},
    ]);
}

/// The 422s no schema can rule out, because they depend on what the store holds (or on the
/// clock): a `cursor` this list did not issue, an id in the body that names no node, an
/// embedding whose dimension differs from the stored ones, a `known_at` in the future (a query
/// parameter, or a field of a body schema in `clock_bound`). Each operation that has one declares it as its
/// own 422 response; `x-state-dependent` lists the pointers such a refusal names, so a
/// client (or a fuzzer, `scripts/fuzz_seed.py`) can tell it from a refusal of the request's
/// shape, which the schema states.
fn state_dependent_rejections(op: &mut Value, clock_bound: &[String]) {
    let mut pointers = Vec::new();
    let mut reasons = Vec::new();
    let has_query = |name: &str| {
        op["parameters"]
            .as_array()
            .is_some_and(|ps| ps.iter().any(|p| p["in"] == "query" && p["name"] == name))
    };
    if has_query("cursor") {
        pointers.push("/cursor");
        reasons.push("`cursor` is not one this list issued (send back a `next_cursor`)");
    }
    let body = op["requestBody"]["content"]["application/json"]["schema"]["$ref"].as_str();
    if has_query("known_at") || body.is_some_and(|r| clock_bound.iter().any(|b| b == r)) {
        // The bound moves with the clock: no schema can state it.
        pointers.push("/known_at");
        reasons.push("`known_at` is later than the server's clock");
    }
    match op["operationId"].as_str() {
        Some("create_node") => {
            pointers.extend(["/embedding", "/provenance/replaces/*"]);
            reasons.push("`embedding` has another dimension than the embeddings stored already");
            reasons.push(
                "a `provenance.replaces` id names no current memory of the new memory's scope",
            );
        }
        Some("create_conflict") => {
            pointers.extend(["/old_node_id", "/new_node_id"]);
            reasons.push("`old_node_id` or `new_node_id` names no node");
        }
        Some("create_batch") => {
            // `*` stands for an item's index.
            pointers.extend([
                "/nodes/*/embedding",
                "/nodes/*/provenance/replaces/*",
                "/nodes/*/ref",
                "/edges/*/source",
                "/edges/*/target",
            ]);
            reasons.push(
                "an `embedding` has another dimension than the batch's first or those stored \
                 already; a `provenance.replaces` id names no current memory of its item's \
                 scope; a `ref` repeats an earlier node's or is a UUID; or an edge's \
                 `source` or `target` is neither a `ref` of the batch nor a stored node's id",
            );
        }
        Some("create_edge") => {
            pointers.extend(["/source_id", "/target_id"]);
            reasons.push("`source_id` or `target_id` names no node");
        }
        Some("patch_node") => {
            pointers.push("/scope");
            reasons.push(
                "`scope` would move a memory that has conflicts (a conflict stays in the scope \
                 of its memories)",
            );
        }
        _ => {}
    }
    if pointers.is_empty() {
        return;
    }
    op["responses"]["422"] = json!({
        "description": format!(
            "Invalid (a problem document with `errors`), also when {}",
            reasons.join("; or when ")
        ),
        "x-state-dependent": pointers,
        "content": {"application/problem+json": {
            "schema": {"$ref": "#/components/schemas/Problem"},
        }},
    });
}

/// Links: a created node leads to its reads, its edges, a conflict about it and the
/// resolution of what its write detected; a queued conflict leads to its resolution, a
/// resolution to its revert, and a revert to resolving again.
fn links(doc: &mut Value) {
    let by_node = |pointer: &str| {
        json!({
            "GetNode": {"operationId": "get_node", "parameters": {"path.id": pointer}},
            "PatchNode": {"operationId": "patch_node", "parameters": {"path.id": pointer}},
            "CheckNode": {"operationId": "check_node", "parameters": {"path.id": pointer}},
            "ListEdges": {"operationId": "list_edges", "parameters": {"path.id": pointer}},
        })
    };
    let node = "$response.body#/node/id";
    let mut created = by_node(node);
    created["QueueConflict"] = json!({
        "operationId": "create_conflict", "requestBody": {"old_node_id": node},
    });
    created["CreateEdge"] = json!({
        "operationId": "create_edge", "requestBody": {"source_id": node},
    });
    created["ResolveDetected"] = json!({
        "operationId": "resolve_conflict",
        "parameters": {"path.id": "$response.body#/conflicts/0/conflict_id"},
    });
    created["DeleteNode"] = json!({"operationId": "delete_node", "parameters": {"path.id": node}});
    let conflict = "$response.body#/id";
    let queued = json!({
        "GetConflict": {"operationId": "get_conflict", "parameters": {"path.id": conflict}},
        "ResolveConflict": {"operationId": "resolve_conflict", "parameters": {"path.id": conflict}},
        "ResolveContradiction": {
            "operationId": "resolve_contradiction", "requestBody": {"conflict_id": conflict},
        },
        "GetOldNode": {
            "operationId": "get_node", "parameters": {"path.id": "$response.body#/old_node/id"},
        },
    });
    let resolved = json!({
        "GetResolvedConflict": {
            "operationId": "get_conflict", "parameters": {"path.id": "$response.body#/conflict_id"},
        },
        "GetOldNode": {
            "operationId": "get_node", "parameters": {"path.id": "$response.body#/old_node_id"},
        },
        "RevertResolution": {
            "operationId": "revert_conflict",
            "parameters": {"path.id": "$response.body#/conflict_id"},
        },
    });
    let reverted = json!({
        "GetRevertedConflict": {
            "operationId": "get_conflict", "parameters": {"path.id": "$response.body#/conflict_id"},
        },
        "ResolveAgain": {
            "operationId": "resolve_conflict",
            "parameters": {"path.id": "$response.body#/conflict_id"},
        },
    });
    let edge = json!({
        "ListSourceEdges": {
            "operationId": "list_edges", "parameters": {"path.id": "$response.body#/source_id"},
        },
    });
    for (path, method, status, links) in [
        ("/nodes", "post", "201", created),
        ("/conflicts", "post", "201", queued.clone()),
        ("/conflicts", "post", "200", queued),
        ("/conflicts/{id}/resolve", "post", "200", resolved.clone()),
        ("/contradiction/resolve", "post", "200", resolved),
        ("/conflicts/{id}/revert", "post", "200", reverted),
        ("/edges", "post", "201", edge),
        ("/nodes/{id}", "get", "200", by_node("$response.body#/id")),
    ] {
        let pointer = format!(
            "/paths/{}/{method}/responses/{status}",
            path.replace('~', "~0").replace('/', "~1")
        );
        let response = doc
            .pointer_mut(&pointer)
            .unwrap_or_else(|| panic!("no response documented at {pointer}"));
        response["links"] = links;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_at_in_a_body_is_declared_as_bounded_by_the_clock() {
        let topic = "#/components/schemas/TopicCheckRequest".to_owned();
        let mut op = json!({
            "operationId": "check_topic",
            "requestBody": {"content": {"application/json": {"schema": {"$ref": topic}}}},
            "responses": {},
        });
        state_dependent_rejections(&mut op, std::slice::from_ref(&topic));
        assert_eq!(
            op["responses"]["422"]["x-state-dependent"],
            json!(["/known_at"])
        );
        // A body without one declares nothing.
        let mut other = op.clone();
        other["responses"] = json!({});
        state_dependent_rejections(&mut other, &[]);
        assert!(other["responses"].get("422").is_none());
    }
}
