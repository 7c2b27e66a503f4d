//! Analyse once: everything the rules read from one memory (its analysed text, tokens, values,
//! overlap units, title), computed once and shared by every pair the memory takes part in. A
//! write judges its memory against up to fifty stored ones, so judging a pair must only compare
//! two analyses, never re-read either text.

use std::hash::{Hash, Hasher};

use compact_str::CompactString;

use super::phrases::{self, Lexed};
use super::side::Side;
use super::statement::{self, Statement};
use super::subjects;
use super::text;
use super::tokens::{self, Token};
use super::{Memory, memory_text, slots};

/// Everything the rules need from one memory. Owned, so it can be kept (in an `Arc`) beside a
/// stored memory and reused for every write that finds it as a candidate.
#[derive(Debug, Clone)]
pub struct Analysis {
    pub(super) side: Side,
    /// Index of the first body token: the title line, when analysed, comes before it.
    pub(super) body_from: usize,
    pub(super) units: Units,
    pub(super) question: bool,
    /// The memory's own title, lower-cased; none when the body starts with it.
    pub(super) own_title: Option<String>,
    /// The attribute slots of the body (`slots`).
    slots: slots::Statements,
    /// The body read into statements (`statement`).
    pub(super) statements: Vec<Statement>,
    fingerprint: u64,
}

impl Analysis {
    /// About how many bytes of memory this analysis holds, its heap included: what the
    /// analysis cache is bounded by. An estimate that grows with the text, so a long memory
    /// costs what it holds: the bytes its parts ask the allocator for (malloc's own overhead
    /// per allocation taken as 16 bytes), and a quarter more for what the allocator keeps
    /// beside them. 100,000 analyses of two-sentence memories, kept at once, ask for 4.4 KB
    /// each (counted by an allocator that adds up requests) and grow the resident set by
    /// 5.5 KB each (`VmRSS`).
    pub fn heap_bytes(&self) -> usize {
        self.requested_bytes() * 5 / 4
    }

    /// The bytes this analysis asks the allocator for, itself included.
    fn requested_bytes(&self) -> usize {
        use std::mem::size_of;
        const ALLOC: usize = 16;
        let string = |s: &str| s.len() + ALLOC;
        // A word of up to 24 bytes is held inline, with no heap of its own.
        let word = |s: &CompactString| {
            if s.is_heap_allocated() {
                s.capacity() + ALLOC
            } else {
                0
            }
        };
        let set = |s: &super::side::Words| {
            s.iter()
                .map(|x| string(x) + size_of::<String>() + 8)
                .sum::<usize>()
        };
        let side = &self.side;
        let tokens: usize = side
            .tokens
            .iter()
            .map(|t| word(&t.norm) + word(&t.stem))
            .sum();
        let values: usize = side.values.iter().map(|v| string(&v.version)).sum();
        let keys: usize = side.value_keys.iter().map(|k| k.heap_bytes()).sum();
        let units: usize = self.units.0.iter().map(|(_, u)| word(u)).sum();
        size_of::<Self>()
            + side.text.capacity()
            + side.tokens.capacity() * size_of::<Token>()
            + tokens
            + side.values.capacity() * size_of::<super::value::Value>()
            + values
            + side.stem_keys.capacity() * size_of::<u64>()
            + side.value_keys.capacity() * size_of::<super::side::Key>()
            + keys
            + side.phrase_starts.capacity() * size_of::<(usize, &str)>()
            + set(&side.environments)
            + set(&side.identifiers)
            + side
                .relatives
                .iter()
                .map(|r| string(r) + size_of::<String>())
                .sum::<usize>()
            + self.units.0.capacity() * size_of::<(u64, CompactString)>()
            + units
            + self.slots.heap_bytes()
            + self
                .statements
                .iter()
                .map(Statement::heap_bytes)
                .sum::<usize>()
            + self.own_title.as_deref().map_or(0, string)
            + 8 * ALLOC
    }

    pub fn of(m: &Memory) -> Self {
        let text = memory_text(m);
        let mut side = Side::of(text.text);
        // Kept for as long as the memory is a candidate: without the tokenizer's slack.
        side.tokens.shrink_to_fit();
        let body_from = side.tokens.partition_point(|t| t.start < text.body_at);
        Analysis {
            slots: slots::Statements::of(&side.tokens[body_from..], &side.text),
            statements: statement::read(&side.tokens[body_from..], &side.text),
            units: Units::of(&side.tokens),
            question: text::is_question(&side.text),
            body_from,
            side,
            own_title: own_title(m).map(|t| t.chars().flat_map(char::to_lowercase).collect()),
            fingerprint: fingerprint(m.title, m.body),
        }
    }

    /// [`fingerprint`] of the title and body this analysis was made from: a cache compares it
    /// with its row's to know the entry still describes that text.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// The part of the analysed text that is the memory's body.
    pub(super) fn body(&self) -> Body<'_> {
        Body {
            side: &self.side,
            from: self.body_from,
            statements: &self.slots,
        }
    }

    /// Token overlap (Jaccard of the overlap units) of two memories.
    pub fn overlap(&self, other: &Analysis) -> f64 {
        self.units.jaccard(&other.units)
    }
}

impl Side {
    /// A side with everything the rules read: [`Side::read`] and the subject fields, which
    /// need `subjects`.
    pub fn of(text: String) -> Self {
        let mut side = Side::read(text);
        side.environments = subjects::environments(&side);
        side.identifiers = subjects::identifiers(&side);
        side.relatives = subjects::relatives(&side);
        side.phrase_starts = phrases::phrase_starts(&side.tokens);
        side
    }

    /// Tokenises a text and finds its values (tests).
    #[cfg(test)]
    pub fn analyse(text: &str) -> Self {
        Side::of(text.to_owned())
    }
}

/// The part of a side that is the memory's body (its title line set aside).
pub struct Body<'s> {
    pub side: &'s Side,
    /// Index of the first body token.
    pub from: usize,
    /// The attribute statements of the body's tokens.
    pub statements: &'s slots::Statements,
}

impl<'s> Body<'s> {
    pub(super) fn tokens(&self) -> &'s [Token] {
        &self.side.tokens[self.from..]
    }

    /// The body's tokens, with the phrases of `shifts` they may hold.
    pub(super) fn lexed(&self) -> Lexed<'s> {
        Lexed::of(self.side, self.from)
    }

    pub(super) fn stated(&self) -> slots::Stated<'s> {
        slots::Stated {
            tokens: self.tokens(),
            text: &self.side.text,
            statements: self.statements,
        }
    }
}

/// Whether the first content words of the two bodies are the same word: they share a subject.
pub fn same_head(old: &Body, new: &Body) -> bool {
    fn head<'s>(b: &Body<'s>) -> Option<&'s Token> {
        b.tokens().iter().find(|t| t.is_content())
    }
    matches!((head(old), head(new)), (Some(a), Some(b)) if a.same_stem(b))
}

/// A hash of a memory's title and body, for telling whether an [`Analysis`] still matches a
/// stored row. Not stable across builds: keep it in memory only.
pub fn fingerprint(title: &str, body: &str) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    (title, body).hash(&mut h);
    h.finish()
}

/// Characters from which a title the body starts with reads as cut from the body (clients
/// and `concord eval` derive one from the first 80 characters) rather than named for it.
const DERIVED_TITLE: usize = 40;

/// The title of a memory that is its own, not cut from its body: a short name the body opens
/// with ("Veep" / "Veep is a movie") is still the memory's own title.
pub(super) fn own_title<'m>(m: &Memory<'m>) -> Option<&'m str> {
    let (t, body) = (m.title.trim(), m.body.trim());
    let derived =
        body.starts_with(t) && (t.len() == body.len() || t.chars().count() >= DERIVED_TITLE);
    (!t.is_empty() && !derived).then_some(t)
}

/// A memory's distinct overlap units, sorted by key then text: two sets intersect in one merge,
/// and the key settles almost every comparison without reading the text.
#[derive(Debug, Clone, Default)]
pub(super) struct Units(Vec<(u64, CompactString)>);

impl Units {
    fn of(tokens: &[Token]) -> Self {
        let mut units: Vec<(u64, CompactString)> = tokens::overlap_units(tokens)
            .into_iter()
            .map(|u| (tokens::key(&u), u))
            .collect();
        units.sort_unstable();
        units.dedup();
        units.shrink_to_fit();
        Units(units)
    }

    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many units both sets hold.
    pub(super) fn shared(&self, other: &Units) -> usize {
        let (a, b) = (&self.0, &other.0);
        let (mut i, mut j, mut n) = (0, 0, 0);
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    n += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        n
    }

    pub(super) fn jaccard(&self, other: &Units) -> f64 {
        if self.is_empty() && other.is_empty() {
            return 0.0;
        }
        let inter = self.shared(other);
        inter as f64 / (self.len() + other.len() - inter) as f64
    }
}

#[cfg(test)]
mod tests;
