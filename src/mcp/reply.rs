//! How tool outcomes reach the model: a text for it to read and the same facts as structured
//! content. A failed use case is a tool result with `isError: true` carrying the problem's
//! title and detail (the model can read it and act); invalid arguments are JSON-RPC invalid
//! params, as a malformed call is the caller's bug, not the tool's outcome.

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;
use serde_json::json;

use crate::domain::FieldError;
use crate::service;
use crate::wire::error::ApiError;

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

/// A use case's failure as a tool result (or invalid params for invalid fields), with the
/// problem details REST would answer.
pub fn failed(e: service::Error) -> ToolResult {
    if let service::Error::Invalid(errors) = e {
        return Err(invalid(errors));
    }
    let e = ApiError::from(e);
    if e.status().is_server_error() {
        // The cause goes to the log only, as for REST.
        tracing::error!(error = ?e, "tool call failed");
    }
    let problem = e.problem();
    let text = format!("{}: {}", problem.title, problem.detail);
    let value = serde_json::to_value(&problem).unwrap_or_default();
    let mut result = CallToolResult::structured_error(value);
    result.content = vec![ContentBlock::text(text)];
    Ok(result)
}
