//! What each REST operation needs of its caller's role: the one table REST checks
//! ([`needs`], called by `auth::require_key` for every request), over the rules of
//! `domain::access`. `tests/openapi.rs` derives the operations from the OpenAPI document and
//! fails for one missing here, so a new route cannot slip through unguarded; a route missing
//! anyway (one outside the document) needs `admin`.

use axum::http::Method;

use crate::domain::access::{Permission, Role};

use Permission::{Admin, Read, Resolve, Write};

/// Every documented operation: method, path template (as routed and documented), permission.
pub const OPERATIONS: &[(&str, &str, Permission)] = &[
    ("GET", "/nodes", Read),
    ("POST", "/nodes", Write),
    ("POST", "/nodes/batch", Write),
    ("GET", "/nodes/{id}", Read),
    ("PATCH", "/nodes/{id}", Write),
    ("DELETE", "/nodes/{id}", Write),
    ("POST", "/nodes/{id}/check", Write),
    ("GET", "/nodes/{id}/edges", Read),
    ("GET", "/nodes/{id}/timeline", Read),
    ("GET", "/nodes/{id}/versions", Read),
    ("GET", "/nodes/{id}/versions/{version}", Read),
    ("POST", "/edges", Write),
    ("GET", "/conflicts", Read),
    ("POST", "/conflicts", Write),
    // A topic report only reads (the report it keeps is for reading later).
    ("POST", "/conflicts/check", Read),
    ("GET", "/conflicts/stats", Read),
    ("GET", "/conflicts/wake", Read),
    ("GET", "/conflicts/{id}", Read),
    ("GET", "/conflicts/{id}/history", Read),
    ("POST", "/conflicts/{id}/resolve", Resolve),
    ("POST", "/conflicts/{id}/revert", Resolve),
    ("POST", "/contradiction/resolve", Resolve),
    ("GET", "/events", Read),
    ("GET", "/recall", Read),
    ("GET", "/reports", Read),
    ("GET", "/sources", Read),
    ("GET", "/policies", Admin),
    ("GET", "/keys", Admin),
    ("POST", "/keys", Admin),
    ("DELETE", "/keys/{name}", Admin),
    ("GET", "/audit", Admin),
    // Every key may ask who it is.
    ("GET", "/me", Read),
    ("POST", "/sweeps", Admin),
    ("GET", "/sweeps", Read),
    ("GET", "/sweeps/{id}", Read),
    ("DELETE", "/sweeps/{id}", Admin),
    ("GET", "/metrics", Read),
    // Open to every request (`auth::require_key` lets them through before any key).
    ("GET", "/healthz", Read),
    ("GET", "/readyz", Read),
];

/// Routes outside the OpenAPI document. MCP's tools are checked one by one by the MCP door.
const UNDOCUMENTED: &[(&str, Permission)] = &[
    ("/mcp", Read),
    ("/openapi.json", Read),
    ("/docs", Read),
    ("/docs/", Read),
    ("/docs/{*rest}", Read),
];

/// What a request to the route `path` (its template, axum's `MatchedPath`) with `method`
/// needs. `None` for a method the route does not have (it answers 405 by itself).
pub fn needs(method: &Method, path: &str) -> Option<Permission> {
    if let Some(&(_, p)) = UNDOCUMENTED.iter().find(|(t, _)| *t == path) {
        return Some(p);
    }
    let mut known_path = false;
    for &(m, t, p) in OPERATIONS {
        if t == path {
            if m == method.as_str() {
                return Some(p);
            }
            known_path = true;
        }
    }
    // An unlisted route needs everything; a listed route's other methods get their 405.
    (!known_path).then_some(Admin)
}

/// Marks each operation of the OpenAPI document with the roles that may call it
/// (`x-roles`); the open ones (`/healthz`, `/readyz`) get none, since they need no key.
pub fn annotate(doc: &mut serde_json::Value) {
    let Some(paths) = doc["paths"].as_object_mut() else {
        return;
    };
    for (path, ops) in paths.iter_mut() {
        let Some(ops) = ops.as_object_mut() else {
            continue;
        };
        for (method, op) in ops.iter_mut() {
            let method = method.to_uppercase();
            let open = matches!(path.as_str(), "/healthz" | "/readyz");
            let Some(&(_, _, needs)) = OPERATIONS
                .iter()
                .find(|(m, t, _)| *m == method && t == path)
            else {
                continue;
            };
            if open {
                continue;
            }
            let roles: Vec<&str> = Role::ALL
                .into_iter()
                .filter(|r| r.allows(needs))
                .map(Role::as_str)
                .collect();
            op["x-roles"] = serde_json::json!(roles);
        }
    }
}

/// An operation's name in a refusal: `POST /conflicts/{id}/resolve`.
pub fn describe(method: &Method, path: &str) -> String {
    format!("call {method} {path}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unlisted_route_needs_admin_and_another_method_passes_to_its_405() {
        assert_eq!(needs(&Method::GET, "/secret"), Some(Admin));
        assert_eq!(needs(&Method::PUT, "/nodes"), None);
        assert_eq!(needs(&Method::POST, "/nodes"), Some(Write));
        assert_eq!(needs(&Method::POST, "/mcp"), Some(Read));
    }

    #[test]
    fn every_operation_is_listed_once() {
        for (i, (m, t, _)) in OPERATIONS.iter().enumerate() {
            assert!(
                !OPERATIONS[i + 1..]
                    .iter()
                    .any(|(m2, t2, _)| m == m2 && t == t2),
                "{m} {t} twice"
            );
        }
    }
}
