//! Reading memories from files for `concord import`: each format turns its input into
//! [`Item`]s (a node to write, where it came from, and a content fingerprint) or
//! [`ItemError`]s (what is wrong, and where), one per memory, so one bad line never stops the
//! rest. Pure: it reads from any `BufRead` and names only `domain`; writing, progress and the
//! resume state belong to the command.

pub mod graphiti;
pub mod jsonl;
pub mod lines;
mod listing;
pub mod markdown;
pub mod mem0;
pub mod text;

use crate::domain::provenance::Provenance;
use std::fmt;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::domain::node::{NewNode, NodeInput};
use crate::domain::time;

/// Where a memory starts: the file as named on the command line (`-` for stdin) and its
/// 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: u64,
}

impl Location {
    pub fn new(file: &str, line: u64) -> Self {
        Self {
            file: file.to_owned(),
            line,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// The fields of one `POST /nodes` (and of one `POST /nodes/batch` item), as they go on the
/// wire: absent fields take the service's defaults.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Record {
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_type: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
}

impl Record {
    /// The same fields as the service's raw input.
    pub fn to_input(&self) -> NodeInput {
        NodeInput {
            title: Some(self.title.clone()),
            body: self.body.clone(),
            memory_type: self.memory_type.clone(),
            labels: (!self.labels.is_empty()).then(|| self.labels.clone()),
            scope: self.scope.clone(),
            source: self.source.clone(),
            confidence: self.confidence,
            state: self.state.clone(),
            observed_at: self.observed_at.clone(),
            embedding: self.embedding.clone(),
            provenance: self.provenance.clone(),
        }
    }
}

/// A memory ready to write.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub location: Location,
    pub record: Record,
    pub fingerprint: Fingerprint,
}

/// A memory that cannot be written, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemError {
    pub location: Location,
    pub message: String,
}

impl fmt::Display for ItemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

/// What a format yields for each memory it finds.
pub type Parsed = Result<Item, ItemError>;

/// sha256 of a memory's normalised content (see [`Fingerprint::of`]), 128 bits in hex.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(pub String);

impl Fingerprint {
    /// Over what makes two memories the same memory: scope, type, title, body, labels, state
    /// and observation time, each normalised the way the service stores it (trimmed, labels
    /// lowercased and sorted, defaults filled in). Where it came from (`source`) and how sure
    /// the writer was (`confidence`) are left out, so the same memory found in two places is
    /// one memory, and moving a file does not make its memories new.
    pub fn of(r: &Record) -> Self {
        let mut labels: Vec<String> = r.labels.iter().map(|l| l.trim().to_lowercase()).collect();
        labels.sort();
        labels.dedup();
        let observed = r
            .observed_at
            .as_deref()
            .and_then(time::parse)
            .map(|t| time::format(&t));
        let fields = serde_json::json!([
            r.scope.as_deref().map_or("default", str::trim),
            r.memory_type.as_deref().unwrap_or("fact"),
            r.title.trim(),
            r.body.as_deref().unwrap_or("").trim(),
            labels,
            r.state.as_deref().unwrap_or("active"),
            observed,
        ]);
        let digest = Sha256::digest(fields.to_string().as_bytes());
        Self(digest[..16].iter().map(|b| format!("{b:02x}")).collect())
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The input formats `concord import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One node per line in concord's own shape (the body of `POST /nodes`).
    Jsonl,
    /// Plain text: one memory per line or per paragraph.
    Text,
    /// Markdown: one memory per heading section.
    Markdown,
    /// mem0's memory listing (`get_all`, `search`, the REST list).
    Mem0,
    /// Graphiti's facts (entity edges, or the server's `facts` results).
    Graphiti,
}

impl Format {
    pub const NAMES: &'static str = "jsonl, text, markdown, mem0, graphiti";

    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "jsonl" | "ndjson" => Self::Jsonl,
            "text" | "txt" => Self::Text,
            "markdown" | "md" => Self::Markdown,
            "mem0" => Self::Mem0,
            "graphiti" => Self::Graphiti,
            _ => return None,
        })
    }

    /// Guesses a file's format from its name and its first bytes: a folder or `.md` is
    /// markdown; JSON whose first object has `memory` is mem0's, with `fact` Graphiti's,
    /// anything else JSON is JSON lines; the rest is text.
    pub fn detect(name: &str, is_dir: bool, head: &[u8]) -> Self {
        let lower = name.to_ascii_lowercase();
        if is_dir || lower.ends_with(".md") || lower.ends_with(".markdown") {
            return Self::Markdown;
        }
        let json_name = [".jsonl", ".ndjson", ".json"]
            .iter()
            .any(|e| lower.ends_with(e));
        let text = String::from_utf8_lossy(head);
        let start = text.trim_start();
        if !(json_name || start.starts_with('{') || start.starts_with('[')) {
            return Self::Text;
        }
        // The first key that names a format decides; keys are read as `"key":` anywhere in
        // the head, which is enough to tell three shapes whose keys do not overlap.
        let first = ["\"memory\"", "\"fact\"", "\"title\""]
            .iter()
            .filter_map(|k| {
                start
                    .find(&format!("{k}:"))
                    .or_else(|| start.find(&format!("{k} :")))
                    .map(|at| (at, *k))
            })
            .min();
        match first.map(|(_, k)| k) {
            Some("\"memory\"") => Self::Mem0,
            Some("\"fact\"") => Self::Graphiti,
            _ => Self::Jsonl,
        }
    }
}

/// Options shared by the formats that have to invent part of a node.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Text: a paragraph (lines up to a blank line) is one memory, instead of each line.
    pub paragraphs: bool,
    /// Text: titles are the file's name instead of the memory's first words.
    pub title_from_file: bool,
    /// Scope for memories that name none.
    pub scope: Option<String>,
    /// Labels added to every memory.
    pub labels: Vec<String>,
}

/// How long a title made from a memory's first words may be.
pub const TITLE_WORDS_CHARS: usize = 80;

/// The first words of `text`, on one line, up to [`TITLE_WORDS_CHARS`] characters (a single
/// longer word is cut).
pub fn first_words(text: &str) -> String {
    let mut out = String::new();
    for word in text.split_whitespace() {
        let needed = out.chars().count() + usize::from(!out.is_empty()) + word.chars().count();
        if needed > TITLE_WORDS_CHARS {
            if out.is_empty() {
                out = word.chars().take(TITLE_WORDS_CHARS).collect();
            }
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// An RFC 3339 instant as the service reads it; a timestamp without an offset (as Python's
/// `isoformat()` writes naive datetimes) is taken as UTC. `None` when it is no instant.
pub fn instant(text: &str) -> Option<String> {
    if let Some(t) = time::parse(text) {
        return Some(time::format(&t));
    }
    let naive = chrono::NaiveDateTime::parse_from_str(text.trim(), "%Y-%m-%dT%H:%M:%S%.f")
        .or_else(|_| chrono::NaiveDateTime::parse_from_str(text.trim(), "%Y-%m-%d %H:%M:%S%.f"))
        .ok()?;
    time::parse(&format!("{}Z", naive.format("%Y-%m-%dT%H:%M:%S%.3f"))).map(|t| time::format(&t))
}

/// Applies the shared options, validates the record exactly as a write would, and
/// fingerprints it: the one way every format makes an item.
pub fn finish(location: Location, mut record: Record, opts: &Options) -> Parsed {
    if record.scope.is_none() {
        record.scope.clone_from(&opts.scope);
    }
    for l in &opts.labels {
        if !record
            .labels
            .iter()
            .any(|have| have.eq_ignore_ascii_case(l))
        {
            record.labels.push(l.clone());
        }
    }
    if let Err(errors) = NewNode::parse(record.to_input(), time::now()) {
        let message = errors
            .iter()
            .map(|e| format!("{}: {}", e.pointer.trim_start_matches('/'), e.detail))
            .collect::<Vec<_>>()
            .join("; ");
        return Err(ItemError { location, message });
    }
    let fingerprint = Fingerprint::of(&record);
    Ok(Item {
        location,
        record,
        fingerprint,
    })
}

/// An error at `location`.
pub fn error(location: Location, message: impl Into<String>) -> Parsed {
    Err(ItemError {
        location,
        message: message.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(title: &str, body: &str) -> Record {
        Record {
            title: title.into(),
            body: Some(body.into()),
            ..Record::default()
        }
    }

    #[test]
    fn a_fingerprint_ignores_whitespace_label_case_and_where_a_memory_came_from() {
        let a = record("Cache TTL", "The TTL is 30s");
        let mut b = record("  Cache TTL ", "The TTL is 30s\n");
        b.source = Some("file:notes.txt:3".into());
        b.confidence = Some(0.4);
        assert_eq!(Fingerprint::of(&a), Fingerprint::of(&b));
        let mut la = a.clone();
        la.labels = vec!["Cache".into(), "ops".into()];
        let mut lb = a.clone();
        lb.labels = vec!["ops".into(), "cache ".into()];
        assert_eq!(Fingerprint::of(&la), Fingerprint::of(&lb));
    }

    #[test]
    fn a_fingerprint_changes_with_content_scope_state_and_time() {
        let a = record("Cache TTL", "The TTL is 30s");
        let base = Fingerprint::of(&a);
        let mut body = a.clone();
        body.body = Some("The TTL is 60s".into());
        let mut scope = a.clone();
        scope.scope = Some("team-b".into());
        let mut state = a.clone();
        state.state = Some("dormant".into());
        let mut when = a.clone();
        when.observed_at = Some("2026-01-01T00:00:00Z".into());
        for other in [body, scope, state, when] {
            assert_ne!(Fingerprint::of(&other), base, "{other:?}");
        }
        assert_eq!(base.0.len(), 32);
    }

    #[test]
    fn formats_are_told_apart_by_name_and_first_keys() {
        assert_eq!(Format::detect("notes", true, b""), Format::Markdown);
        assert_eq!(Format::detect("a.md", false, b"# x"), Format::Markdown);
        assert_eq!(Format::detect("a.txt", false, b"hello"), Format::Text);
        assert_eq!(
            Format::detect("a.jsonl", false, br#"{"title":"x","body":"memory: y"}"#),
            Format::Jsonl
        );
        assert_eq!(
            Format::detect("-", false, br#"[{"id":"1","memory":"likes tea"}]"#),
            Format::Mem0
        );
        assert_eq!(
            Format::detect(
                "x.json",
                false,
                br#"{"facts":[{"uuid":"u","fact":"A works at B"}]}"#
            ),
            Format::Graphiti
        );
    }

    #[test]
    fn first_words_stop_before_the_title_limit() {
        assert_eq!(
            first_words("  The cache\nTTL is 30s "),
            "The cache TTL is 30s"
        );
        let long = "word ".repeat(40);
        let t = first_words(&long);
        assert!(t.chars().count() <= TITLE_WORDS_CHARS && t.ends_with("word"));
        assert_eq!(
            first_words(&"x".repeat(200)).chars().count(),
            TITLE_WORDS_CHARS
        );
    }

    #[test]
    fn naive_timestamps_are_read_as_utc() {
        assert_eq!(
            instant("2024-07-25T23:57:00.108367-07:00").as_deref(),
            Some("2024-07-26T06:57:00.108Z")
        );
        assert_eq!(
            instant("2024-07-25T10:00:00.5").as_deref(),
            Some("2024-07-25T10:00:00.500Z")
        );
        assert_eq!(instant("yesterday"), None);
    }

    #[test]
    fn finishing_validates_like_a_write_and_applies_the_shared_options() {
        let opts = Options {
            scope: Some("imported".into()),
            labels: vec!["from-file".into()],
            ..Options::default()
        };
        let item = finish(Location::new("f", 1), record("T", "b"), &opts).unwrap();
        assert_eq!(item.record.scope.as_deref(), Some("imported"));
        assert_eq!(item.record.labels, vec!["from-file"]);
        let bad = finish(Location::new("f", 2), record("   ", "b"), &opts).unwrap_err();
        assert_eq!(bad.location.line, 2);
        assert!(bad.message.starts_with("title: "), "{}", bad.message);
    }
}
