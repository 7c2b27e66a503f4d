//! Evidence: what a rule found against a pair, and where in the pair it lies.

use super::{ConflictType, Signal};

#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    pub signal: Signal,
    pub kind: ConflictType,
    pub probability: f64,
    pub explanation: String,
    /// Where in the alignment the evidence lies, for the subject check.
    pub at: At,
}

/// The place of a piece of evidence among the hunks of a near-duplicate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// A cue of the whole text (replacement, scope).
    Text,
    /// The hunk that *is* the evidence (a negated or swapped span): exempt from the check.
    Hunk(usize),
    /// The hunk holding a changed value: checked like the others (its figures aside), and the
    /// words before it in its clause are the value's key, which must not be substituted.
    Value(usize),
}

impl Evidence {
    pub fn new(signal: Signal, kind: ConflictType, probability: f64, explanation: String) -> Self {
        Evidence {
            signal,
            kind,
            probability,
            explanation,
            at: At::Text,
        }
    }

    pub fn at(mut self, at: At) -> Self {
        self.at = at;
        self
    }
}
