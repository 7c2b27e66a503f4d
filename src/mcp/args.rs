//! Tool arguments. The SDK's own extractor reports arguments that do not fit the input schema
//! as a failed tool result; concord's contract makes them JSON-RPC invalid params (-32602),
//! like every other invalid argument, naming each bad field by JSON Pointer.

use std::borrow::Cow;

use rmcp::ErrorData;
use rmcp::handler::server::common::FromContextPart;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::schemars::{self, JsonSchema};
use serde::de::DeserializeOwned;

use super::reply::invalid;
use crate::domain::FieldError;

/// A tool's arguments, deserialised from the call; the input schema is `T`'s.
pub struct Parameters<T>(pub T);

impl<T: JsonSchema> JsonSchema for Parameters<T> {
    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::json_schema(generator)
    }
}

impl<S, T: DeserializeOwned> FromContextPart<ToolCallContext<'_, S>> for Parameters<T> {
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, ErrorData> {
        let arguments = serde_json::Value::Object(context.arguments.take().unwrap_or_default());
        parse(arguments).map(Parameters)
    }
}

fn parse<T: DeserializeOwned>(arguments: serde_json::Value) -> Result<T, ErrorData> {
    serde_path_to_error::deserialize(arguments).map_err(|e| {
        let mut pointer = pointer(&e.path().to_string());
        let detail = e.into_inner().to_string();
        // serde reports a missing field at its parent; point at the field itself.
        if let Some(field) = detail
            .strip_prefix("missing field `")
            .and_then(|rest| rest.split('`').next())
        {
            pointer = format!("{pointer}/{field}");
        }
        invalid(vec![FieldError::new(pointer, detail)])
    })
}

/// `labels[1]` or `title` as a JSON Pointer (`/labels/1`, `/title`); `.` is the root.
fn pointer(path: &str) -> String {
    if path == "." {
        return String::new();
    }
    let mut out = String::new();
    for part in path.split('.') {
        for piece in part.split('[') {
            let piece = piece.trim_end_matches(']');
            if !piece.is_empty() {
                out.push('/');
                out.push_str(piece);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Args {
        title: String,
        labels: Option<Vec<String>>,
    }

    #[test]
    fn bad_arguments_are_invalid_params_naming_the_field() {
        let cases = [
            (serde_json::json!({"title": 5}), "/title"),
            (
                serde_json::json!({"title": "x", "labels": ["a", 3]}),
                "/labels/1",
            ),
            (serde_json::json!({}), "/title"),
        ];
        for (args, want) in cases {
            let e = parse::<Args>(args.clone()).unwrap_err();
            assert_eq!(e.code, rmcp::model::ErrorCode::INVALID_PARAMS, "{args}");
            let data = e.data.expect("field errors");
            assert_eq!(data["errors"][0]["pointer"], want, "{args}: {}", e.message);
        }
        let unknown = parse::<Args>(serde_json::json!({"title": "x", "colour": 1})).unwrap_err();
        assert!(unknown.message.contains("colour"), "{}", unknown.message);
    }
}
