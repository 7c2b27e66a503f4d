//! Nodes: one piece of an agent's knowledge, and the rules a node must satisfy before it is
//! stored (field limits, label normalisation, embedding encoding).

use std::fmt;
use std::str::FromStr;

use uuid::Uuid;

use super::provenance::Provenance;
use super::time::{self, Timestamp};
use super::valid_time::Validity;
use super::validate::{Errors, FieldError, NUL_DETAIL, check_text, has_nul, is_slug};

pub const MAX_TITLE_CHARS: usize = 500;
pub const MAX_BODY_BYTES: usize = 1024 * 1024;
pub const MAX_LABELS: usize = 32;
pub const MAX_LABEL_CHARS: usize = 64;
pub const MAX_SOURCE_CHARS: usize = 500;
pub const MAX_SCOPE_CHARS: usize = 200;
pub const MAX_EMBEDDING_DIM: usize = 8192;

/// Lifecycle of a node. Only `active` nodes take part in detection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeState {
    Active,
    Dormant,
    Archived,
    /// Stored but not current until a reviewer promotes it: a policy held it back
    /// (contract section 14).
    Quarantined,
}

impl NodeState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Dormant => "dormant",
            Self::Archived => "archived",
            Self::Quarantined => "quarantined",
        }
    }
}

impl FromStr for NodeState {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "active" => Ok(Self::Active),
            "dormant" => Ok(Self::Dormant),
            "archived" => Ok(Self::Archived),
            "quarantined" => Ok(Self::Quarantined),
            _ => Err("must be one of active, dormant, archived, quarantined".into()),
        }
    }
}

impl fmt::Display for NodeState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A stored node as every read returns it.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub id: Uuid,
    pub title: String,
    pub body: String,
    pub memory_type: String,
    pub labels: Vec<String>,
    pub scope: String,
    pub source: Option<String>,
    pub confidence: f64,
    pub state: NodeState,
    pub observed_at: Timestamp,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub has_embedding: bool,
    /// How it stands in valid time: until when it held, or that it never did.
    pub validity: Validity,
    /// Pending conflicts that involve this node (filled by reads that are conflict-aware).
    pub conflict_ids: Vec<Uuid>,
    /// How it was obtained, as its writer declared (contract section 14).
    pub provenance: Option<Provenance>,
}

/// Raw, unvalidated fields of a node as a client sent them.
#[derive(Debug, Clone, Default)]
pub struct NodeInput {
    pub title: Option<String>,
    pub body: Option<String>,
    pub memory_type: Option<String>,
    pub labels: Option<Vec<String>>,
    pub scope: Option<String>,
    pub source: Option<String>,
    pub confidence: Option<f64>,
    pub state: Option<String>,
    pub observed_at: Option<String>,
    pub embedding: Option<Vec<f64>>,
    pub provenance: Option<Provenance>,
}

/// A validated node that is not stored yet.
#[derive(Debug, Clone, PartialEq)]
pub struct NewNode {
    pub id: Uuid,
    pub title: String,
    pub body: String,
    pub memory_type: String,
    pub labels: Vec<String>,
    pub scope: String,
    pub source: Option<String>,
    pub confidence: f64,
    pub state: NodeState,
    pub observed_at: Timestamp,
    pub created_at: Timestamp,
    pub embedding: Option<Vec<f32>>,
    pub provenance: Option<Provenance>,
    /// Who writes it (an API key's name, `mcp:<client>`): what its first version records.
    pub changed_by: Option<String>,
    /// The name of the key that writes it (null without keys): its first version's `key`.
    pub changed_key: Option<String>,
}

impl NewNode {
    /// Parses client input into a node, collecting every field error.
    pub fn parse(input: NodeInput, now: Timestamp) -> Result<Self, Vec<FieldError>> {
        let mut errors = Errors::default();
        let title = match input.title {
            Some(t) => parse_title(&t, &mut errors),
            None => {
                errors.add("/title", "is required");
                String::new()
            }
        };
        let body = input.body.unwrap_or_default();
        check_body(&body, &mut errors);
        let memory_type = input.memory_type.unwrap_or_else(|| "fact".into());
        check_memory_type(&memory_type, &mut errors);
        let labels = normalize_labels(input.labels.unwrap_or_default(), &mut errors);
        let scope = parse_scope(input.scope.as_deref().unwrap_or("default"), &mut errors);
        let source = parse_source(input.source, &mut errors);
        let confidence = parse_confidence(input.confidence.unwrap_or(0.8), &mut errors);
        let state = parse_state(input.state.as_deref().unwrap_or("active"), &mut errors);
        let observed_at = match input.observed_at {
            Some(t) => parse_observed_at(&t, &mut errors),
            None => now,
        };
        let embedding = input.embedding.map(|e| parse_embedding(&e, &mut errors));
        let provenance = (input.provenance).and_then(|p| Provenance::parse(p, &mut errors));
        errors.finish(Self {
            id: Uuid::now_v7(),
            title,
            body,
            memory_type,
            labels,
            scope,
            source,
            confidence,
            state,
            observed_at,
            created_at: now,
            embedding,
            provenance,
            changed_by: None,
            changed_key: None,
        })
    }

    /// The node as it reads back right after being stored.
    pub fn to_node(&self) -> Node {
        Node {
            id: self.id,
            title: self.title.clone(),
            body: self.body.clone(),
            memory_type: self.memory_type.clone(),
            labels: self.labels.clone(),
            scope: self.scope.clone(),
            source: self.source.clone(),
            confidence: self.confidence,
            state: self.state,
            observed_at: self.observed_at,
            created_at: self.created_at,
            updated_at: self.created_at,
            has_embedding: self.embedding.is_some(),
            validity: Validity::default(),
            conflict_ids: Vec::new(),
            provenance: self.provenance.clone(),
        }
    }
}

/// A validated partial update. `source: Some(None)` clears the source.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodePatch {
    pub title: Option<String>,
    pub body: Option<String>,
    pub labels: Option<Vec<String>>,
    pub confidence: Option<f64>,
    pub state: Option<NodeState>,
    pub source: Option<Option<String>>,
    pub scope: Option<String>,
    pub observed_at: Option<Timestamp>,
    /// Who makes the change: what its version records.
    pub changed_by: Option<String>,
    /// The name of the key that makes it (null without keys).
    pub changed_key: Option<String>,
}

/// Raw patch fields; `source: Some(None)` means an explicit JSON null.
#[derive(Debug, Clone, Default)]
pub struct PatchInput {
    pub title: Option<String>,
    pub body: Option<String>,
    pub labels: Option<Vec<String>>,
    pub confidence: Option<f64>,
    pub state: Option<String>,
    pub source: Option<Option<String>>,
    pub scope: Option<String>,
    pub observed_at: Option<String>,
}

impl NodePatch {
    pub fn parse(input: PatchInput) -> Result<Self, Vec<FieldError>> {
        let mut e = Errors::default();
        let patch = Self {
            title: input.title.map(|t| parse_title(&t, &mut e)),
            body: input.body.inspect(|b| check_body(b, &mut e)),
            labels: input.labels.map(|l| normalize_labels(l, &mut e)),
            confidence: input.confidence.map(|c| parse_confidence(c, &mut e)),
            state: input.state.map(|s| parse_state(&s, &mut e)),
            source: input.source.map(|s| parse_source(s, &mut e)),
            scope: input.scope.map(|s| parse_scope(&s, &mut e)),
            observed_at: input.observed_at.map(|t| parse_observed_at(&t, &mut e)),
            changed_by: None,
            changed_key: None,
        };
        e.finish(patch)
    }

    /// Whether the patch names no field to change (who would make it does not count).
    pub fn is_empty(&self) -> bool {
        Self {
            changed_by: None,
            changed_key: None,
            ..self.clone()
        } == Self::default()
    }

    /// Applies the patch to a node read inside the same transaction, and says whether it
    /// changed anything. A patch that changes nothing leaves `updated_at` alone: it is not an
    /// edit, so it neither moves the node's time nor blocks undoing a resolution.
    pub fn apply(&self, node: &mut Node, now: Timestamp) -> bool {
        let before = node.clone();
        if let Some(v) = &self.title {
            node.title = v.clone();
        }
        if let Some(v) = &self.body {
            node.body = v.clone();
        }
        if let Some(v) = &self.labels {
            node.labels = v.clone();
        }
        if let Some(v) = self.confidence {
            node.confidence = v;
        }
        if let Some(v) = self.state {
            node.state = v;
        }
        if let Some(v) = &self.source {
            node.source = v.clone();
        }
        if let Some(v) = &self.scope {
            node.scope = v.clone();
        }
        if let Some(v) = self.observed_at {
            node.observed_at = v;
        }
        let changed = *node != before;
        if changed {
            node.updated_at = now;
        }
        changed
    }
}

fn parse_title(raw: &str, e: &mut Errors) -> String {
    check_text(e, "/title", raw);
    let t = raw.trim();
    let n = t.chars().count();
    if n == 0 || n > MAX_TITLE_CHARS {
        e.add(
            "/title",
            format!("must be 1..{MAX_TITLE_CHARS} characters after trimming"),
        );
    }
    t.to_owned()
}

fn check_body(body: &str, e: &mut Errors) {
    if body.len() > MAX_BODY_BYTES {
        e.add("/body", "must be at most 1 MiB");
    }
    check_text(e, "/body", body);
}

fn check_memory_type(memory_type: &str, e: &mut Errors) {
    let ok = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-';
    if !is_slug(memory_type, 40, ok) {
        e.add("/memory_type", "must match [a-z0-9_-]{1,40}");
    }
}

/// A scope as every body names it (`/scope`): trimmed, 1..200 characters, no NUL.
pub fn parse_scope(raw: &str, e: &mut Errors) -> String {
    check_text(e, "/scope", raw);
    let s = raw.trim();
    let n = s.chars().count();
    if n == 0 || n > MAX_SCOPE_CHARS {
        e.add("/scope", format!("must be 1..{MAX_SCOPE_CHARS} characters"));
    }
    s.to_owned()
}

fn parse_source(raw: Option<String>, e: &mut Errors) -> Option<String> {
    let s = raw?.trim().to_owned();
    check_text(e, "/source", &s);
    if s.chars().count() > MAX_SOURCE_CHARS {
        e.add(
            "/source",
            format!("must be at most {MAX_SOURCE_CHARS} characters"),
        );
    }
    (!s.is_empty()).then_some(s)
}

fn parse_confidence(c: f64, e: &mut Errors) -> f64 {
    if !(0.0..=1.0).contains(&c) {
        e.add("/confidence", "must be a number between 0 and 1");
    }
    c
}

fn parse_state(raw: &str, e: &mut Errors) -> NodeState {
    raw.parse().unwrap_or_else(|msg: String| {
        e.add("/state", msg);
        NodeState::Active
    })
}

fn parse_observed_at(raw: &str, e: &mut Errors) -> Timestamp {
    time::parse(raw).unwrap_or_else(|| {
        e.add("/observed_at", "must be an RFC 3339 timestamp");
        time::now()
    })
}

/// Labels are trimmed, lowercased and deduplicated, keeping first-seen order.
pub fn normalize_labels(raw: Vec<String>, e: &mut Errors) -> Vec<String> {
    if raw.len() > MAX_LABELS {
        e.add("/labels", format!("at most {MAX_LABELS} labels"));
    }
    // Past the limit the request is refused anyway: only the first MAX_LABELS are read, so the
    // work (a comparison with every label kept) is capped by the limit, never by the input.
    let mut out: Vec<String> = Vec::with_capacity(raw.len().min(MAX_LABELS));
    for (i, label) in raw.iter().take(MAX_LABELS).enumerate() {
        let l = label.trim().to_lowercase();
        let n = l.chars().count();
        if has_nul(&l) {
            e.add(&format!("/labels/{i}"), NUL_DETAIL);
        } else if n == 0 || n > MAX_LABEL_CHARS {
            e.add(
                &format!("/labels/{i}"),
                format!("must be 1..{MAX_LABEL_CHARS} characters"),
            );
        } else if !out.contains(&l) {
            out.push(l);
        }
    }
    out
}

/// The union of two label lists, first list first.
pub fn union_labels(a: &[String], b: &[String]) -> Vec<String> {
    let mut out = a.to_vec();
    for l in b {
        if !out.contains(l) {
            out.push(l.clone());
        }
    }
    out
}

fn parse_embedding(raw: &[f64], e: &mut Errors) -> Vec<f32> {
    if raw.is_empty() || raw.len() > MAX_EMBEDDING_DIM {
        e.add(
            "/embedding",
            format!("must have 1..{MAX_EMBEDDING_DIM} dimensions"),
        );
    }
    if raw
        .iter()
        .any(|x| !x.is_finite() || x.abs() > f32::MAX as f64)
    {
        e.add("/embedding", "must contain finite numbers only");
    }
    raw.iter().map(|&x| x as f32).collect()
}

/// Embeddings are stored as little-endian f32 bytes.
pub fn embedding_to_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn embedding_from_bytes(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// What a write did.
#[derive(Debug)]
pub enum Remembered {
    /// A new memory, with the conflicts its write queued.
    Written {
        node: Node,
        conflicts: Vec<super::conflict::Conflict>,
    },
    /// The text was an active memory's of the same scope and title, whitespace and case
    /// aside: nothing new was stored, and the write's source (when it named one other than
    /// the memory's own) was recorded as corroborating it.
    Restated {
        node: Node,
        /// Every source that restated the memory, oldest first.
        corroborated_by: Vec<String>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_past_the_limit_are_refused_after_reading_only_the_limit() {
        // Distinct labels, and empty ones that would each add an error: either way the work
        // and the reply are bounded by the limit, not by the 100,000 labels sent.
        for label in [|i: usize| format!("label-{i}"), |_| String::new()] {
            let raw: Vec<String> = (0..100_000).map(label).collect();
            let mut e = Errors::default();
            let kept = normalize_labels(raw, &mut e);
            assert!(kept.len() <= MAX_LABELS);
            assert!(e.0.iter().any(|f| f.pointer == "/labels"));
            assert!(e.0.len() <= MAX_LABELS + 1, "{} errors", e.0.len());
        }
    }

    fn input(title: &str) -> NodeInput {
        NodeInput {
            title: Some(title.into()),
            ..Default::default()
        }
    }

    #[test]
    fn defaults_fill_every_optional_field() {
        let now = time::now();
        let n = NewNode::parse(input("  Cache size  "), now).unwrap();
        assert_eq!(n.title, "Cache size");
        assert_eq!(n.memory_type, "fact");
        assert_eq!(n.scope, "default");
        assert_eq!(n.confidence, 0.8);
        assert_eq!(n.state, NodeState::Active);
        assert_eq!(n.observed_at, now);
    }

    #[test]
    fn labels_are_trimmed_lowercased_and_deduplicated() {
        let mut e = Errors::default();
        let l = normalize_labels(vec![" Cache ".into(), "cache".into(), "DB".into()], &mut e);
        assert_eq!(l, vec!["cache", "db"]);
        assert!(e.0.is_empty());
    }

    #[test]
    fn every_invalid_field_is_reported_with_its_pointer() {
        let raw = NodeInput {
            title: Some("   ".into()),
            memory_type: Some("Fact!".into()),
            labels: Some(vec!["".into()]),
            confidence: Some(1.5),
            state: Some("gone".into()),
            observed_at: Some("later".into()),
            embedding: Some(vec![f64::NAN]),
            source: Some("x".repeat(501)),
            ..Default::default()
        };
        let errs = NewNode::parse(raw, time::now()).unwrap_err();
        let pointers: Vec<_> = errs.iter().map(|e| e.pointer.as_str()).collect();
        for p in [
            "/title",
            "/memory_type",
            "/labels/0",
            "/confidence",
            "/state",
            "/observed_at",
            "/embedding",
            "/source",
        ] {
            assert!(pointers.contains(&p), "{p} missing from {pointers:?}");
        }
    }

    #[test]
    fn nul_in_any_text_field_is_reported_with_its_pointer() {
        let raw = NodeInput {
            title: Some("a\0b".into()),
            body: Some("\0".into()),
            labels: Some(vec!["ok".into(), "x\0".into()]),
            scope: Some("s\0".into()),
            source: Some("\0src".into()),
            ..Default::default()
        };
        let errs = NewNode::parse(raw, time::now()).unwrap_err();
        let pointers: Vec<_> = errs.iter().map(|e| e.pointer.as_str()).collect();
        assert_eq!(
            pointers,
            ["/title", "/body", "/labels/1", "/scope", "/source"],
            "{errs:?}"
        );
        let patch = NodePatch::parse(PatchInput {
            title: Some("\0".into()),
            source: Some(Some("\0".into())),
            ..Default::default()
        });
        assert_eq!(patch.unwrap_err().len(), 2);
    }

    #[test]
    fn a_title_of_five_hundred_characters_is_accepted_and_one_more_is_not() {
        assert!(NewNode::parse(input(&"é".repeat(500)), time::now()).is_ok());
        assert!(NewNode::parse(input(&"é".repeat(501)), time::now()).is_err());
    }

    #[test]
    fn too_many_labels_are_rejected() {
        let mut e = Errors::default();
        normalize_labels((0..33).map(|i| i.to_string()).collect(), &mut e);
        assert_eq!(e.0[0].pointer, "/labels");
    }

    #[test]
    fn embeddings_round_trip_through_bytes() {
        let v = vec![0.25f32, -1.5, 3.0];
        assert_eq!(embedding_from_bytes(&embedding_to_bytes(&v)), v);
    }

    #[test]
    fn a_patch_with_nothing_in_it_is_empty() {
        assert!(NodePatch::parse(PatchInput::default()).unwrap().is_empty());
        let p = NodePatch::parse(PatchInput {
            source: Some(None),
            ..Default::default()
        })
        .unwrap();
        assert!(!p.is_empty());
    }
}
