//! How tool outcomes reach the model: a text for it to read and the same facts as structured
//! content. A failed use case is a tool result with `isError: true` carrying its title and
//! detail (the model can read it and act) and, as structured content, the problem details
//! REST answers for the same outcome: the code, title and status of its [`service::Kind`] and
//! the same extension members. Invalid arguments are JSON-RPC invalid params, as a malformed
//! call is the caller's bug, not the tool's outcome. This is MCP's one mapping of
//! [`service::Error`].

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;
use serde_json::json;

use crate::domain::FieldError;
use crate::service;
use crate::telemetry;
use crate::wire::dto::ProblemMembers;

pub type ToolResult = Result<CallToolResult, ErrorData>;

/// A successful result: `text` for the model, `value` as structured content.
pub fn ok(text: String, value: &impl Serialize) -> ToolResult {
    let value = serde_json::to_value(value)
        .map_err(|e| ErrorData::internal_error(format!("unserialisable result: {e}"), None))?;
    let mut result = CallToolResult::structured(value);
    result.content = vec![ContentBlock::text(text)];
    Ok(result)
}

/// Invalid arguments: JSON-RPC invalid params naming every bad field.
pub fn invalid(errors: Vec<FieldError>) -> ErrorData {
    let listed: Vec<String> = errors
        .iter()
        .map(|e| format!("{}: {}", e.pointer, e.detail))
        .collect();
    let data = json!({
        "errors": errors
            .iter()
            .map(|e| json!({"pointer": e.pointer, "detail": e.detail}))
            .collect::<Vec<_>>()
    });
    ErrorData::invalid_params(
        format!("invalid arguments: {}", listed.join("; ")),
        Some(data),
    )
}

/// A failed use case's structured content: problem details as REST answers them (RFC 9457
/// members and concord's extensions; invalid fields never get here).
#[derive(Serialize)]
struct Failure {
    #[serde(rename = "type")]
    kind: String,
    title: &'static str,
    status: u16,
    detail: String,
    request_id: String,
    #[serde(flatten)]
    members: ProblemMembers,
}

impl Failure {
    fn of(e: &service::Error) -> Self {
        let kind = e.kind();
        Failure {
            kind: format!("/problems/{}", kind.code()),
            title: kind.title(),
            status: kind.status(),
            detail: e.to_string(),
            request_id: telemetry::current_request_id(),
            members: e.members(),
        }
    }
}

/// A use case's failure as a tool result (or invalid params for invalid fields), with the
/// problem details REST would answer.
pub fn failed(e: service::Error) -> ToolResult {
    if let service::Error::Invalid(errors) = e {
        return Err(invalid(errors));
    }
    if e.kind().status() >= 500 {
        // The cause goes to the log only, as for REST.
        tracing::error!(error = ?e, "tool call failed");
    }
    let failure = Failure::of(&e);
    let text = format!("{}: {}", failure.title, failure.detail);
    let value = serde_json::to_value(&failure).unwrap_or_default();
    let mut result = CallToolResult::structured_error(value);
    result.content = vec![ContentBlock::text(text)];
    Ok(result)
}
