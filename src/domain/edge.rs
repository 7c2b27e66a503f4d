//! Typed, weighted edges between nodes. `A supersedes B` means A replaced B.

use std::fmt;

use uuid::Uuid;

use super::time::{self, Timestamp};
use super::validate::{Errors, FieldError, is_slug};

/// The kinds concord itself writes.
pub const CONTRADICTS: &str = "contradicts";
pub const SUPERSEDES: &str = "supersedes";
pub const RELATES_TO: &str = "relates_to";

/// Weights of the edges a resolution writes.
pub const RESOLUTION_WEIGHT: f64 = 0.5;
pub const RESOLUTION_STRENGTH: f64 = 0.5;
pub const RESOLUTION_CONFIDENCE: f64 = 1.0;

#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    pub id: Uuid,
    pub source_id: Uuid,
    pub target_id: Uuid,
    pub kind: String,
    pub neural_weight: f64,
    pub strength: f64,
    pub confidence: f64,
    pub valid_from: Timestamp,
    pub created_at: Timestamp,
}

/// A validated edge that is not stored yet; it reads back as the same [`Edge`].
pub type NewEdge = Edge;

impl Edge {
    /// An edge written by concord itself (resolution or detection).
    pub fn system(source_id: Uuid, target_id: Uuid, kind: &str, confidence: f64) -> Self {
        let now = time::now();
        Self {
            id: Uuid::now_v7(),
            source_id,
            target_id,
            kind: kind.to_owned(),
            neural_weight: RESOLUTION_WEIGHT,
            strength: RESOLUTION_STRENGTH,
            confidence,
            valid_from: now,
            created_at: now,
        }
    }
}

/// Raw edge fields as a client sent them.
#[derive(Debug, Clone, Default)]
pub struct EdgeInput {
    pub source_id: Option<Uuid>,
    pub target_id: Option<Uuid>,
    pub kind: Option<String>,
    pub neural_weight: Option<f64>,
    pub strength: Option<f64>,
    pub confidence: Option<f64>,
    pub valid_from: Option<String>,
}

impl EdgeInput {
    pub fn parse(self) -> Result<NewEdge, Vec<FieldError>> {
        let mut e = Errors::default();
        let now = time::now();
        let source_id = self.source_id.unwrap_or_else(|| {
            e.add("/source_id", "is required");
            Uuid::nil()
        });
        let target_id = self.target_id.unwrap_or_else(|| {
            e.add("/target_id", "is required");
            Uuid::nil()
        });
        if self.source_id.is_some() && source_id == target_id {
            e.add("/target_id", "must differ from source_id");
        }
        let kind = self.kind.unwrap_or_default();
        if !is_slug(&kind, 40, |c| c.is_ascii_lowercase() || c == '_') {
            e.add("/kind", "must match [a-z_]{1,40}");
        }
        let mut unit = |pointer: &str, v: Option<f64>, default: f64| {
            let v = v.unwrap_or(default);
            if !(0.0..=1.0).contains(&v) {
                e.add(pointer, "must be a number between 0 and 1");
            }
            v
        };
        let neural_weight = unit("/neural_weight", self.neural_weight, RESOLUTION_WEIGHT);
        let strength = unit("/strength", self.strength, RESOLUTION_STRENGTH);
        let confidence = unit("/confidence", self.confidence, RESOLUTION_CONFIDENCE);
        let valid_from = match self.valid_from {
            None => now,
            Some(t) => time::parse(&t).unwrap_or_else(|| {
                e.add("/valid_from", "must be an RFC 3339 timestamp");
                now
            }),
        };
        e.finish(Edge {
            id: Uuid::now_v7(),
            source_id,
            target_id,
            kind,
            neural_weight,
            strength,
            confidence,
            valid_from,
            created_at: now,
        })
    }
}

/// Which edges of a node to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    Out,
    In,
    #[default]
    Both,
}

impl std::str::FromStr for Direction {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "out" => Ok(Self::Out),
            "in" => Ok(Self::In),
            "both" => Ok(Self::Both),
            _ => Err("must be one of out, in, both".into()),
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Out => "out",
            Self::In => "in",
            Self::Both => "both",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_resolution_weights() {
        let e = EdgeInput {
            source_id: Some(Uuid::now_v7()),
            target_id: Some(Uuid::now_v7()),
            kind: Some("depends_on".into()),
            ..Default::default()
        }
        .parse()
        .unwrap();
        assert_eq!((e.neural_weight, e.strength, e.confidence), (0.5, 0.5, 1.0));
    }

    #[test]
    fn self_loops_bad_kinds_and_weights_are_rejected() {
        let id = Uuid::now_v7();
        let errs = EdgeInput {
            source_id: Some(id),
            target_id: Some(id),
            kind: Some("Depends-On".into()),
            strength: Some(2.0),
            ..Default::default()
        }
        .parse()
        .unwrap_err();
        let pointers: Vec<_> = errs.iter().map(|e| e.pointer.as_str()).collect();
        assert_eq!(pointers, vec!["/target_id", "/kind", "/strength"]);
    }
}
