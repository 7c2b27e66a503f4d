//! Graphiti's facts: the entity edges of `graphiti_core` (as `model_dump()` writes them) and
//! the `FactResult`s its server returns (`{"facts": [...]}` from `/search` and
//! `/get-memory`), as a list, wrapped, or as JSON lines. Each fact maps as `docs/import.md`
//! tables it:
//!
//! | Graphiti | concord |
//! |---|---|
//! | `fact` | `body`; its first words are the `title` |
//! | `name` (the relation, `WORKS_AT`) | a label, lowercased (`works_at`) |
//! | `uuid` | `source` = `graphiti:<uuid>` |
//! | `group_id` | `scope` |
//! | `valid_at`, else `created_at` | `observed_at` |
//! | `invalid_at` or `expired_at` set | `state` = `dormant` |
//!
//! A write cannot end a node's valid time, so a fact Graphiti already invalidated arrives
//! as what a `new_is_current` resolution leaves of the memory it supersedes: dormant, out of
//! current reads and detection, kept in history. The endpoints (`source_node_uuid`,
//! `target_node_uuid`), `episodes`, `attributes` and `fact_embedding` (from a model whose
//! dimension the store need not share) are passed over.

use serde_json::{Map, Value};

use super::listing::{self, object};
use super::{Location, Options, Parsed, Record, error, finish, first_words, instant};

const LIST_KEYS: [&str; 2] = ["facts", "edges"];

/// The facts of a Graphiti listing read whole into `doc`.
pub fn items(file: &str, doc: &[u8], opts: &Options) -> Vec<Parsed> {
    match listing::elements(doc, &LIST_KEYS) {
        Err((line, message)) => vec![error(Location::new(file, line), message)],
        Ok(elements) => elements
            .into_iter()
            .map(|(line, bytes)| {
                let at = Location::new(file, line);
                match bytes.and_then(object) {
                    Ok(m) => item(at, &m, opts),
                    Err(message) => error(at, message),
                }
            })
            .collect(),
    }
}

fn set(m: &Map<String, Value>, key: &str) -> bool {
    m.get(key).is_some_and(|v| !v.is_null())
}

fn item(at: Location, m: &Map<String, Value>, opts: &Options) -> Parsed {
    let text = match m.get("fact") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_owned(),
        Some(Value::String(_)) => return error(at, "fact: is empty"),
        Some(_) => return error(at, "fact: must be a string"),
        None => return error(at, "fact: is missing (not a Graphiti fact)"),
    };
    let when = ["valid_at", "created_at"]
        .iter()
        .find_map(|k| m.get(*k).and_then(Value::as_str).map(|t| (*k, t)));
    let observed_at = match when {
        None => None,
        Some((key, t)) => match instant(t) {
            Some(t) => Some(t),
            None => return error(at, format!("{key}: {t:?} is not a timestamp")),
        },
    };
    for key in ["invalid_at", "expired_at"] {
        if let Some(t) = m.get(key).and_then(Value::as_str)
            && instant(t).is_none()
        {
            return error(at, format!("{key}: {t:?} is not a timestamp"));
        }
    }
    let superseded = set(m, "invalid_at") || set(m, "expired_at");
    let labels = m
        .get("name")
        .and_then(Value::as_str)
        .map(|n| n.trim().to_lowercase())
        .filter(|n| !n.is_empty())
        .into_iter()
        .collect();
    let record = Record {
        title: first_words(&text),
        body: Some(text),
        labels,
        scope: m.get("group_id").and_then(Value::as_str).map(str::to_owned),
        source: m
            .get("uuid")
            .and_then(Value::as_str)
            .map(|u| format!("graphiti:{u}")),
        state: superseded.then(|| "dormant".to_owned()),
        observed_at,
        ..Record::default()
    };
    finish(at, record, opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two facts as the server's `/search` returns them (`FactResult`, times in UTC), the
    /// second one already invalidated by a later episode.
    const SEARCH: &str = r#"{"facts": [
  {"uuid": "e1", "name": "WORKS_AT", "fact": "Alice works at Acme as an engineer",
   "valid_at": "2024-03-01T00:00:00+00:00", "invalid_at": null,
   "created_at": "2024-03-02T10:00:00+00:00", "expired_at": null},
  {"uuid": "e2", "name": "LIVES_IN", "fact": "Alice lives in Berlin",
   "valid_at": null, "invalid_at": "2025-01-01T00:00:00+00:00",
   "created_at": "2024-03-02T10:00:00.123456+00:00", "expired_at": "2025-01-02T00:00:00+00:00"}
]}"#;

    #[test]
    fn facts_map_field_by_field() {
        let got = items("g.json", SEARCH.as_bytes(), &Options::default());
        let a = got[0].as_ref().unwrap();
        assert_eq!(a.location.line, 2);
        assert_eq!(
            a.record.body.as_deref(),
            Some("Alice works at Acme as an engineer")
        );
        assert_eq!(a.record.labels, vec!["works_at"]);
        assert_eq!(a.record.source.as_deref(), Some("graphiti:e1"));
        assert_eq!(
            a.record.observed_at.as_deref(),
            Some("2024-03-01T00:00:00.000Z")
        );
        assert_eq!(a.record.state, None);
        let b = got[1].as_ref().unwrap();
        assert_eq!(b.location.line, 5);
        assert_eq!(b.record.state.as_deref(), Some("dormant"));
        assert_eq!(
            b.record.observed_at.as_deref(),
            Some("2024-03-02T10:00:00.123Z")
        );
    }

    #[test]
    fn an_entity_edge_dump_takes_its_group_as_scope() {
        let line = r#"{"uuid":"e3","group_id":"team-a","source_node_uuid":"n1","target_node_uuid":"n2","name":"USES","fact":"The API uses Postgres 16","episodes":["ep1"],"fact_embedding":[0.1,0.2],"attributes":{},"created_at":"2024-05-05T12:00:00","valid_at":null,"invalid_at":null,"expired_at":null}"#;
        let got = items("g.jsonl", line.as_bytes(), &Options::default());
        let a = got[0].as_ref().unwrap();
        assert_eq!(a.record.scope.as_deref(), Some("team-a"));
        assert_eq!(a.record.embedding, None);
        assert_eq!(
            a.record.observed_at.as_deref(),
            Some("2024-05-05T12:00:00.000Z")
        );
    }

    #[test]
    fn a_fact_without_text_or_with_a_bad_time_is_an_error() {
        let doc = "{\"uuid\":\"1\",\"fact\":\"\"}\n{\"uuid\":\"2\",\"fact\":\"x\",\"invalid_at\":\"soon\"}\n";
        let got = items("g", doc.as_bytes(), &Options::default());
        assert!(
            got[0]
                .as_ref()
                .unwrap_err()
                .message
                .contains("fact: is empty")
        );
        assert!(got[1].as_ref().unwrap_err().message.contains("invalid_at"));
    }
}
