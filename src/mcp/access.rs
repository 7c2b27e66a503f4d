//! What each MCP tool needs of its caller's role: MCP's one permission check
//! ([`check_tool`], called for every `tools/call` before the tool runs), over the rules of
//! `domain::access`, as REST's `api::access` table is for its routes. A tool missing from the
//! table needs `admin`, and a test fails for it. Resources and prompts only read, which every
//! role may.

use rmcp::RoleServer;
use rmcp::service::RequestContext;

use crate::domain::access::{Caller, Permission};
use crate::service;

use Permission::{Read, Resolve, Write};

/// Every tool and the permission it needs.
pub const TOOLS: &[(&str, Permission)] = &[
    ("remember", Write),
    ("recall", Read),
    // Checking is an agent's step before it writes, as `POST /nodes/{id}/check` is.
    ("check_contradictions", Write),
    ("list_conflicts", Read),
    ("resolve_conflict", Resolve),
    ("memory_timeline", Read),
    ("conflict_report", Read),
];

/// What the tool `name` needs.
pub fn needs(name: &str) -> Permission {
    TOOLS
        .iter()
        .find(|(t, _)| *t == name)
        .map_or(Permission::Admin, |&(_, p)| p)
}

/// Who calls: over HTTP, the caller the HTTP rules found for the request (`None` if they found
/// none); on stdio, a local process holding the database, the anonymous admin. Inside a tool
/// (a `context: RequestContext<RoleServer>` argument) it is the caller `call_tool` checked.
pub fn caller(context: &RequestContext<RoleServer>) -> Option<Caller> {
    if let Some(checked) = context.extensions.get::<Caller>() {
        return Some(checked.clone());
    }
    match context.extensions.get::<axum::http::request::Parts>() {
        Some(parts) => parts.extensions.get::<Caller>().cloned(),
        None => Some(Caller::anonymous()),
    }
}

/// The caller a tool runs as: the one `call_tool` checked (an internal error without one,
/// which `call_tool` never lets through).
pub fn tool_caller(context: &RequestContext<RoleServer>) -> Result<Caller, service::Error> {
    caller(context).ok_or_else(|| {
        service::Error::Internal(anyhow::anyhow!("an MCP tool call without a caller"))
    })
}

/// `Ok` when the caller may call the tool `name`, else the refusal (403 `role-forbidden`).
pub fn check_tool(caller: Option<&Caller>, name: &str) -> Result<(), service::Error> {
    let needs = needs(name);
    match caller {
        Some(c) if c.may(needs) => Ok(()),
        Some(c) => Err(service::Error::Forbidden {
            role: c.role,
            needs,
            what: format!("call the tool {name}"),
        }),
        None => Err(service::Error::Internal(anyhow::anyhow!(
            "an MCP request over HTTP without a caller"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::access::{Role, Scopes};

    #[test]
    fn every_tool_has_a_permission() {
        let listed: Vec<String> = super::super::Concord::tool_router()
            .list_all()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        for name in &listed {
            assert!(
                TOOLS.iter().any(|(t, _)| t == name),
                "the MCP tool {name} has no entry in mcp::access::TOOLS"
            );
        }
        assert_eq!(listed.len(), TOOLS.len(), "a listed tool no longer exists");
    }

    #[test]
    fn a_reader_may_recall_but_not_remember() {
        let reader = Caller {
            name: "r".into(),
            role: Role::Reader,
            scopes: Scopes::all(),
        };
        assert!(check_tool(Some(&reader), "recall").is_ok());
        let e = check_tool(Some(&reader), "remember").unwrap_err();
        assert_eq!(e.kind().code(), "role-forbidden");
        assert!(check_tool(Some(&reader), "unknown_tool").is_err());
    }
}
