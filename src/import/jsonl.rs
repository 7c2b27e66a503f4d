//! JSON lines in concord's own node shape: each line is the body of a `POST /nodes` (`title`
//! required; `body`, `memory_type`, `labels`, `scope`, `source`, `confidence`, `state`,
//! `observed_at`, `embedding`, `provenance` optional). A node as concord returns it (`GET /nodes` items)
//! reads too: the fields only the service sets (`id`, `created_at`, …) are passed over.
//! Blank lines are no memories; any other field is an error, as it is for `POST /nodes`.

use std::io::BufRead;

use serde::Deserialize;

use super::lines::Lines;
use super::{Location, Options, Parsed, Record, error, finish};
use crate::domain::provenance::Provenance;

/// Fields of a returned node that a write does not take.
const READ_ONLY: [&str; 8] = [
    "id",
    "created_at",
    "updated_at",
    "has_embedding",
    "valid_until",
    "corrected",
    "conflict_ids",
    "evidence",
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    title: String,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    memory_type: Option<String>,
    #[serde(default)]
    labels: Option<Vec<String>>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    source: Option<String>,
    #[serde(default)]
    confidence: Option<f64>,
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    observed_at: Option<String>,
    #[serde(default)]
    embedding: Option<Vec<f64>>,
    #[serde(default)]
    provenance: Option<Provenance>,
}

/// The memories of a JSON-lines input named `file`.
pub fn items<'a, R: BufRead + 'a>(
    file: &'a str,
    reader: R,
    opts: &'a Options,
) -> impl Iterator<Item = Parsed> + 'a {
    Lines::new(reader).filter_map(move |(n, line)| {
        let at = Location::new(file, n);
        match line {
            Err(e) => Some(error(at, e.to_string())),
            Ok(l) if l.trim().is_empty() => None,
            Ok(l) => Some(parse_line(at, &l, opts)),
        }
    })
}

/// One line: a JSON object in the node shape.
pub fn parse_line(at: Location, line: &str, opts: &Options) -> Parsed {
    let mut value: serde_json::Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return error(at, format!("malformed JSON: {e}")),
    };
    let Some(object) = value.as_object_mut() else {
        return error(at, "not a JSON object");
    };
    for key in READ_ONLY {
        object.remove(key);
    }
    let wire: Wire = match serde_path_to_error::deserialize(value) {
        Ok(w) => w,
        Err(e) => {
            let path = e.path().to_string();
            let inner = e.into_inner();
            return if path == "." {
                error(at, inner.to_string())
            } else {
                error(at, format!("{path}: {inner}"))
            };
        }
    };
    let record = Record {
        title: wire.title,
        body: wire.body,
        memory_type: wire.memory_type,
        labels: wire.labels.unwrap_or_default(),
        scope: wire.scope,
        source: wire.source,
        confidence: wire.confidence,
        state: wire.state,
        observed_at: wire.observed_at,
        embedding: wire.embedding,
        provenance: wire.provenance,
    };
    finish(at, record, opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(input: &str) -> Vec<Parsed> {
        items("m.jsonl", input.as_bytes(), &Options::default()).collect()
    }

    #[test]
    fn each_line_is_one_node_and_blank_lines_are_none() {
        let got = parse(concat!(
            r#"{"title":"Cache TTL","body":"30s","labels":["cache"],"scope":"ops"}"#,
            "\n\n",
            r#"{"title":"Region","observed_at":"2026-01-01T00:00:00Z","state":"dormant"}"#,
            "\n"
        ));
        assert_eq!(got.len(), 2);
        let a = got[0].as_ref().unwrap();
        assert_eq!(a.record.title, "Cache TTL");
        assert_eq!(a.record.scope.as_deref(), Some("ops"));
        let b = got[1].as_ref().unwrap();
        assert_eq!(b.location.line, 3);
        assert_eq!(b.record.state.as_deref(), Some("dormant"));
    }

    #[test]
    fn a_node_as_concord_returns_it_reads_back() {
        let line = r#"{"id":"0190","title":"T","body":"b","memory_type":"fact","labels":[],"scope":"default","source":null,"confidence":0.8,"state":"active","observed_at":"2026-01-01T00:00:00.000Z","created_at":"x","updated_at":"x","has_embedding":false,"valid_until":null,"corrected":false}"#;
        let got = parse(line);
        assert!(got[0].is_ok(), "{:?}", got[0]);
    }

    #[test]
    fn bad_lines_are_errors_with_their_line_and_the_rest_is_read() {
        let got = parse(concat!(
            "{not json\n",
            r#"{"title":"ok"}"#,
            "\n",
            r#"{"title":"","body":""}"#,
            "\n",
            r#"{"title":"x","colour":"red"}"#,
            "\n",
            r#"{"title":"x","confidence":"high"}"#,
            "\n",
            "[1,2]\n",
            r#"{"body":"no title"}"#,
            "\n",
            r#"{"title":"nul \u0000 inside"}"#,
            "\n",
        ));
        let lines: Vec<(u64, bool)> = got
            .iter()
            .map(|p| match p {
                Ok(i) => (i.location.line, true),
                Err(e) => (e.location.line, false),
            })
            .collect();
        assert_eq!(
            lines,
            vec![
                (1, false),
                (2, true),
                (3, false),
                (4, false),
                (5, false),
                (6, false),
                (7, false),
                (8, false)
            ]
        );
        let msg = |i: usize| got[i].as_ref().unwrap_err().message.clone();
        assert!(msg(0).starts_with("malformed JSON"), "{}", msg(0));
        assert!(msg(2).starts_with("title: "), "{}", msg(2));
        assert!(msg(3).contains("colour"), "{}", msg(3));
        assert!(msg(4).starts_with("confidence: "), "{}", msg(4));
        assert!(msg(6).contains("title"), "{}", msg(6));
        assert!(msg(7).contains("NUL"), "{}", msg(7));
    }
}
