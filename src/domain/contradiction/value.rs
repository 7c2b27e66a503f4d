//! The value types: a value's class, a bare figure as read ([`Raw`]) and the typed interval it
//! becomes ([`Value`]). Shared by the readers of values (`values`, `dates`, `comparatives`)
//! and every rule that compares figures.

use super::tokens::Token;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Count,
    Percent,
    Duration,
    Bytes,
    Money,
    Date,
    Version,
    /// A time of day, in minutes after midnight.
    Clock,
}

impl Class {
    /// Dates and versions are temporal facts; the rest are quantities.
    pub fn is_temporal(self) -> bool {
        matches!(self, Class::Date | Class::Version | Class::Clock)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Value {
    pub class: Class,
    /// Closed interval in the class's canonical unit (seconds, bytes, day number...).
    pub lo: f64,
    pub hi: f64,
    /// Normalised version string; only for [`Class::Version`].
    pub version: String,
    /// Token range covering comparative, number and unit: `first..end`.
    pub first: usize,
    pub end: usize,
    /// Whether a comparative or approximation turned the value into a bound.
    pub bounded: bool,
    /// The stated figure in canonical units, ignoring comparatives and rounding.
    pub nominal: f64,
    /// The comparative phrase applied, "" when none.
    pub comparative: &'static str,
}

impl Value {
    pub fn disjoint(&self, other: &Value) -> bool {
        if self.class == Class::Version {
            return self.version != other.version;
        }
        self.hi < other.lo || other.hi < self.lo
    }

    /// Whether the stated figures differ under the same comparative: "over 10 million" and
    /// "over 15 million" are compatible bounds but different statements of one fact.
    pub fn restated_differently(&self, other: &Value) -> bool {
        if self.class == Class::Version || self.class == Class::Date {
            return self.disjoint(other);
        }
        let scale = self.nominal.abs().max(other.nominal.abs()).max(1e-12);
        self.comparative == other.comparative && (self.nominal - other.nominal).abs() / scale > 1e-9
    }
}

/// A bare number read from one or more tokens, before comparatives and units are applied.
pub struct Raw {
    pub class: Class,
    pub lo: f64,
    pub hi: f64,
    pub nominal: f64,
    pub version: String,
    pub end: usize,
}

pub fn next_is(tokens: &[Token], i: usize, words: &[&str]) -> bool {
    tokens
        .get(i)
        .is_some_and(|t| words.contains(&t.norm.as_str()))
}
