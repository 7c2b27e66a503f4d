//! Extractors whose rejections are problem+json: malformed JSON is 400, a wrong content type
//! 415, a body over the limit 413, and well-formed but invalid values 422 with a JSON Pointer.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request};
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;
use uuid::Uuid;

use super::error::ApiError;
use crate::service;

/// Largest request body accepted.
pub use crate::config::{BODY_LIMIT, body_limit};

/// A JSON body deserialised with the exact location of any invalid value.
pub struct AppJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for AppJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        if !is_json(req.headers().get(CONTENT_TYPE)) {
            return Err(ApiError::UnsupportedMediaType);
        }
        let limit = body_limit(req.uri().path());
        let bytes = Bytes::from_request(req, state).await.map_err(|r| {
            if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::PayloadTooLarge(limit)
            } else {
                ApiError::MalformedJson(r.body_text())
            }
        })?;
        parse_json(&bytes).map(AppJson)
    }
}

/// Whether a `Content-Type` names JSON (`application/json` or `application/*+json`).
pub fn is_json(value: Option<&axum::http::HeaderValue>) -> bool {
    let Some(mime) = value.and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let essence = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

/// Parses JSON, telling syntax errors (400) from values of the wrong shape (422).
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    // Syntax first, so that a malformed document is 400 whatever shape the target has.
    serde_json::from_slice::<serde::de::IgnoredAny>(bytes)
        .map_err(|e| ApiError::MalformedJson(format!("malformed JSON: {e}")))?;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let inner = e.inner();
        if inner.is_data() {
            let detail = inner.to_string();
            ApiError::validation(&pointer(e.path(), &detail), strip_location(&detail))
        } else {
            ApiError::MalformedJson(format!("malformed JSON: {inner}"))
        }
    })?;
    de.end()
        .map_err(|e| ApiError::MalformedJson(format!("malformed JSON: {e}")))?;
    Ok(value)
}

/// `value`, a part of a body found at the pointer `at`, as `T`; a value of the wrong shape is
/// 422 pointing at it within the body (`/nodes/3/title`).
pub fn from_value_at<T: DeserializeOwned>(
    value: serde_json::Value,
    at: &str,
) -> Result<T, ApiError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let detail = e.inner().to_string();
        let pointer = format!("{at}{}", pointer(e.path(), &detail));
        ApiError::validation(&pointer, strip_location(&detail))
    })
}

/// A JSON Pointer from serde's path; a missing field points at the field itself.
fn pointer(path: &serde_path_to_error::Path, detail: &str) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for seg in path.iter() {
        let part = match seg {
            Segment::Seq { index } => index.to_string(),
            Segment::Map { key } => key.clone(),
            Segment::Enum { variant } => variant.clone(),
            Segment::Unknown => continue,
        };
        out.push('/');
        out.push_str(&part.replace('~', "~0").replace('/', "~1"));
    }
    // A missing field is reported at its parent; point at the field itself. (An unknown
    // field's path already ends with it.)
    if let Some(field) = detail
        .strip_prefix("missing field `")
        .and_then(|r| r.split('`').next())
    {
        out.push('/');
        out.push_str(&field.replace('~', "~0").replace('/', "~1"));
    }
    out
}

fn strip_location(detail: &str) -> String {
    match detail.find(" at line ") {
        Some(i) => detail[..i].to_owned(),
        None => detail.to_owned(),
    }
}

/// Query parameters; a value of the wrong type is 422 naming the parameter.
pub struct AppQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for AppQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Query::<T>::try_from_uri(&parts.uri)
            .map(|Query(v)| AppQuery(v))
            .map_err(|r| {
                let text = r.body_text();
                let detail = text
                    .strip_prefix("Failed to deserialize query string: ")
                    .unwrap_or(&text)
                    .to_owned();
                let param = detail
                    .split(':')
                    .next()
                    .filter(|p| !p.contains(' '))
                    .unwrap_or("");
                ApiError::validation(&format!("/{param}"), detail.clone())
            })
    }
}

/// An `{id}` path segment; one that is not a UUID names no resource, so it is 404.
pub struct IdPath(pub Uuid);

impl<S: Send + Sync> FromRequestParts<S> for IdPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Path(raw) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| ApiError::NoRoute)?;
        Uuid::parse_str(&raw)
            .map(IdPath)
            .map_err(|_| ApiError::from(service::Error::NotFound("resource")))
    }
}

/// A JSON body's optional integer, also when written as an integral number (`44.0`): JSON
/// Schema's `integer`, which the OpenAPI document promises, is any number without a fraction.
pub fn integral<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    use serde::Deserialize;
    use serde::de::Error;
    // 2^63: every integral f64 below it converts to i64 exactly.
    const I64_BOUND: f64 = 9_223_372_036_854_775_808.0;
    let Some(n) = Option::<serde_json::Number>::deserialize(d)? else {
        return Ok(None);
    };
    n.as_i64()
        .or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < I64_BOUND)
                .map(|f| f as i64)
        })
        .map(Some)
        .ok_or_else(|| D::Error::custom("must be an integer"))
}

/// A JSON body's optional object. serde's derive would also read a struct from an array of
/// its fields (`[null, null]`), which the OpenAPI document does not allow.
pub fn object<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: DeserializeOwned,
{
    use serde::Deserialize;
    use serde::de::Error;
    match Option::<serde_json::Value>::deserialize(d)? {
        None => Ok(None),
        Some(v @ serde_json::Value::Object(_)) => serde_json::from_value(v)
            .map(Some)
            .map_err(|e| D::Error::custom(strip_location(&e.to_string()))),
        Some(_) => Err(D::Error::custom("must be an object")),
    }
}

/// `?limit=` and `?cursor=` of every list.
pub fn page_args(
    limit: Option<i64>,
    cursor: Option<&str>,
) -> Result<(usize, Option<crate::domain::cursor::Cursor>), ApiError> {
    let limit =
        crate::domain::cursor::limit(limit).map_err(|d| ApiError::validation("/limit", d))?;
    let after = cursor
        .map(|c| {
            crate::domain::cursor::Cursor::decode(c)
                .ok_or_else(|| ApiError::validation("/cursor", "is not a cursor of this list"))
        })
        .transpose()?;
    Ok((limit, after))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_integer_may_be_written_as_an_integral_number() {
        #[derive(serde::Deserialize)]
        struct Limit {
            #[serde(default, deserialize_with = "integral")]
            limit: Option<i64>,
        }
        let limit = |json: &str| serde_json::from_str::<Limit>(json).map(|l| l.limit);
        assert_eq!(limit(r#"{"limit": 44}"#).unwrap(), Some(44));
        assert_eq!(limit(r#"{"limit": 44.0}"#).unwrap(), Some(44));
        assert_eq!(limit(r#"{"limit": -3e2}"#).unwrap(), Some(-300));
        assert_eq!(limit(r#"{"limit": null}"#).unwrap(), None);
        assert_eq!(limit("{}").unwrap(), None);
        assert!(limit(r#"{"limit": 44.5}"#).is_err());
        assert!(limit(r#"{"limit": 1e300}"#).is_err());
        assert!(limit(r#"{"limit": "44"}"#).is_err());
    }

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Body {
        title: String,
        labels: Option<Vec<String>>,
    }

    #[test]
    fn syntax_errors_are_malformed_json() {
        for bad in ["{", "{\"title\": NaN}", "[1,]", "{} {}"] {
            assert!(
                matches!(
                    parse_json::<Body>(bad.as_bytes()),
                    Err(ApiError::MalformedJson(_))
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn wrong_shapes_point_at_the_field() {
        let cases = [
            ("{}", "/title"),
            ("{\"title\": 5}", "/title"),
            ("{\"title\": \"x\", \"labels\": [\"a\", 3]}", "/labels/1"),
        ];
        for (body, want) in cases {
            match parse_json::<Body>(body.as_bytes()) {
                Err(ApiError::Validation(errs)) => assert_eq!(errs[0].pointer, want, "{body}"),
                other => panic!("{body}: {other:?}"),
            }
        }
    }

    #[test]
    fn json_media_types_are_recognised() {
        use axum::http::HeaderValue;
        assert!(is_json(Some(&HeaderValue::from_static(
            "application/json; charset=utf-8"
        ))));
        assert!(is_json(Some(&HeaderValue::from_static(
            "application/merge-patch+json"
        ))));
        assert!(!is_json(Some(&HeaderValue::from_static("text/plain"))));
        assert!(!is_json(None));
    }
}
