//! mem0's memory listings: what `Memory.get_all()` and `search()` return (`{"results":
//! [...]}`, or a bare list from older versions), the platform's `GET /v1/memories/` and
//! `POST /v2/memories/` (a list, or `{"count", "next", "results"}` when paged), one memory
//! fetched by id, or JSON lines of such items. Each item maps as `docs/import.md` tables it:
//!
//! | mem0 | concord |
//! |---|---|
//! | `memory` | `body`; its first words are the `title` |
//! | `id` | `source` = `mem0:<id>` |
//! | `user_id`, else `agent_id`, `app_id`, `run_id` | `scope` |
//! | `updated_at`, else `created_at` | `observed_at` |
//! | `categories`, `metadata.category` | `labels` |
//!
//! `hash`, `score`, `role`, `actor_id`, `immutable`, `expiration_date` and the rest of
//! `metadata` have no place in a node and are passed over.

use serde_json::{Map, Value};

use super::listing::{self, object};
use super::{Location, Options, Parsed, Record, error, finish, first_words, instant};

/// Keys under which a listing holds its memories.
const LIST_KEYS: [&str; 2] = ["results", "memories"];

/// The memories of a mem0 listing read whole into `doc`.
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

fn item(at: Location, m: &Map<String, Value>, opts: &Options) -> Parsed {
    let text = match m.get("memory") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_owned(),
        Some(Value::String(_)) => return error(at, "memory: is empty"),
        Some(_) => return error(at, "memory: must be a string"),
        None => return error(at, "memory: is missing (not a mem0 memory)"),
    };
    let scope = ["user_id", "agent_id", "app_id", "run_id"]
        .iter()
        .find_map(|k| {
            m.get(*k)
                .and_then(Value::as_str)
                .filter(|s| !s.trim().is_empty())
        })
        .map(str::to_owned);
    let when = ["updated_at", "created_at"]
        .iter()
        .find_map(|k| m.get(*k).and_then(Value::as_str).map(|t| (*k, t)));
    let observed_at = match when {
        None => None,
        Some((key, t)) => match instant(t) {
            Some(t) => Some(t),
            None => return error(at, format!("{key}: {t:?} is not a timestamp")),
        },
    };
    let mut labels: Vec<String> = m
        .get("categories")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();
    if let Some(c) = m
        .get("metadata")
        .and_then(|md| md.get("category"))
        .and_then(Value::as_str)
    {
        labels.push(c.to_owned());
    }
    let source = m.get("id").and_then(|id| match id {
        Value::String(s) => Some(format!("mem0:{s}")),
        Value::Number(n) => Some(format!("mem0:{n}")),
        _ => None,
    });
    let record = Record {
        title: first_words(&text),
        body: Some(text),
        labels,
        scope,
        source,
        observed_at,
        ..Record::default()
    };
    finish(at, record, opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `Memory.get_all(user_id="alex")` printed in mem0's documentation, wrapped the way
    /// version 1.1 of its output wraps it.
    const GET_ALL: &str = r#"{"results": [
   {
      "id":"f38b689d-6b24-45b7-bced-17fbb4d8bac7",
      "memory":"travelling to Paris",
      "user_id":"alex",
      "hash":"62bc074f56d1f909f1b4c2b639f56f6a",
      "metadata":null,
      "created_at":"2023-02-25T23:57:00.108347-07:00",
      "updated_at":"2024-07-25T23:57:00.108367-07:00"
   },
   {
      "id":"2",
      "memory":"Likes tea",
      "agent_id":"helper",
      "categories":["food"],
      "metadata":{"category":"preferences","mood":"calm"},
      "created_at":"2024-01-01T00:00:00Z"
   }
]}"#;

    #[test]
    fn get_all_items_map_field_by_field() {
        let got = items("mem0.json", GET_ALL.as_bytes(), &Options::default());
        let a = got[0].as_ref().unwrap();
        assert_eq!(a.location.line, 2);
        assert_eq!(a.record.title, "travelling to Paris");
        assert_eq!(a.record.body.as_deref(), Some("travelling to Paris"));
        assert_eq!(a.record.scope.as_deref(), Some("alex"));
        assert_eq!(
            a.record.source.as_deref(),
            Some("mem0:f38b689d-6b24-45b7-bced-17fbb4d8bac7")
        );
        assert_eq!(
            a.record.observed_at.as_deref(),
            Some("2024-07-26T06:57:00.108Z")
        );
        let b = got[1].as_ref().unwrap();
        assert_eq!(b.record.scope.as_deref(), Some("helper"));
        assert_eq!(b.record.labels, vec!["food", "preferences"]);
        assert_eq!(
            b.record.observed_at.as_deref(),
            Some("2024-01-01T00:00:00.000Z")
        );
    }

    #[test]
    fn a_bare_list_json_lines_and_a_paged_reply_all_read() {
        let bare = r#"[{"id":"1","memory":"a"},{"id":"2","memory":"b"}]"#;
        let lines = "{\"id\":\"1\",\"memory\":\"a\"}\n{\"id\":\"2\",\"memory\":\"b\"}\n";
        let paged = r#"{"count":2,"next":null,"previous":null,"results":[{"id":"1","memory":"a"},{"id":"2","memory":"b"}]}"#;
        for doc in [bare, lines, paged] {
            let got = items("m", doc.as_bytes(), &Options::default());
            assert_eq!(got.len(), 2, "{doc}");
            assert!(got.iter().all(Result::is_ok), "{doc}: {got:?}");
        }
    }

    #[test]
    fn empty_missing_and_badly_dated_memories_are_errors() {
        let doc = concat!(
            "{\"id\":\"1\",\"memory\":\"  \"}\n",
            "{\"id\":\"2\",\"text\":\"x\"}\n",
            "{\"id\":\"3\",\"memory\":\"x\",\"created_at\":\"last week\"}\n",
            "{\"id\":\"4\",\"memory\":\"fine\"}\n",
        );
        let got = items("m", doc.as_bytes(), &Options::default());
        let errs: Vec<String> = got
            .iter()
            .filter_map(|p| p.as_ref().err().map(ToString::to_string))
            .collect();
        assert_eq!(errs.len(), 3, "{errs:?}");
        assert!(errs[0].starts_with("m:1: memory: is empty"));
        assert!(errs[1].starts_with("m:2: memory: is missing"));
        assert!(errs[2].starts_with("m:3: created_at"));
        assert!(got[3].is_ok());
    }
}
