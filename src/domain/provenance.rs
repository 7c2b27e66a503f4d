//! Provenance (contract section 14): how a memory was obtained, as its writer declares it.
//! Stored with the memory and never changed; its evidence strength reads it beside the words
//! (`domain::evidence`).

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::validate::Errors;

/// How a memory was obtained.
pub const METHODS: [&str; 7] = [
    "observed",
    "told_by_user",
    "read_from_document",
    "inferred",
    "hearsay",
    "scanned",
    "web",
];

/// What a writer declares about a memory's origin.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Whether the writer checked it (a signature, a second source); absent: not said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<bool>,
    /// Memories the writer declares this one replaces: each is queued as a conflict with it
    /// and goes through the policies like any detected one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replaces: Vec<Uuid>,
}

/// The most memories one write may declare it replaces.
pub const MAX_REPLACES: usize = 100;

impl Provenance {
    /// Checks a declared provenance; an empty one is none at all.
    pub fn parse(mut p: Provenance, errors: &mut Errors) -> Option<Provenance> {
        if let Some(m) = &p.method
            && !METHODS.contains(&m.as_str())
        {
            errors.add(
                "/provenance/method",
                format!("must be one of {}", METHODS.join(", ")),
            );
        }
        if p.replaces.len() > MAX_REPLACES {
            errors.add(
                "/provenance/replaces",
                format!("must name at most {MAX_REPLACES} memories"),
            );
        }
        // A repeat names the same memory again: kept once, in the order first named.
        let mut seen = std::collections::HashSet::new();
        p.replaces.retain(|id| seen.insert(*id));
        (p != Provenance::default()).then_some(p)
    }

    /// As stored: JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("provenance serialises")
    }

    /// As stored; text that is not a provenance reads as none (it is only ever written by
    /// [`Provenance::to_json`]).
    pub fn from_json(text: &str) -> Option<Self> {
        serde_json::from_str(text).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_method_passes_an_unknown_one_is_named_and_empty_is_none() {
        let mut errors = Errors::default();
        let p = Provenance {
            method: Some("hearsay".into()),
            verified: Some(false),
            replaces: Vec::new(),
        };
        assert_eq!(Provenance::parse(p.clone(), &mut errors), Some(p.clone()));
        assert_eq!(Provenance::from_json(&p.to_json()), Some(p));
        assert_eq!(Provenance::parse(Provenance::default(), &mut errors), None);
        assert!(errors.0.is_empty());
        let bad = Provenance {
            method: Some("telepathy".into()),
            verified: None,
            replaces: Vec::new(),
        };
        Provenance::parse(bad, &mut errors);
        assert_eq!(errors.0[0].pointer, "/provenance/method");
    }
}
