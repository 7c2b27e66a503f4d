//! One side of a pair: a memory's analysed text, its tokens and values, and what the rules
//! read of it alone, worked out once per memory.

use std::sync::LazyLock;

use super::lexicon;
use super::tokens::{Kind, Token};
use super::value::Value;

/// A few words of a side, as a set. Hashed with foldhash: the rules look words up in the
/// sets of both sides of every pair judged, and with std's SipHash the hashing was about a
/// twentieth of a sweep's CPU (BENCHMARKS.md, session 31).
pub type Words = foldhash::HashSet<String>;

/// One side of the pair after analysis. Owned, so that it is made once per memory (see
/// `analysis`) and read by every pair.
#[derive(Debug, Clone)]
pub struct Side {
    pub text: String,
    pub tokens: Vec<Token>,
    pub values: Vec<Value>,
    /// The tokens' stem keys, sorted: bounds an alignment before it is computed.
    pub stem_keys: Vec<u64>,
    /// Which of [`lexicon::REPLACEMENT_CUES`] the text holds, one bit per cue.
    pub replacement_cues: u64,
    /// Environments and identifiers the text names (see `subjects::loose_agree`).
    pub environments: Words,
    pub identifiers: Words,
    /// The relatives its sentences open with, "*my brother* is 30" (see `subjects`).
    pub relatives: Vec<String>,
    /// What each value measures, by index into `values` (see `numeric::keyed_change`).
    pub value_keys: Vec<Key>,
    /// Tokens that open a phrase of `shifts`, in order (see `phrases::Lexed`).
    pub phrase_starts: Vec<(usize, &'static str)>,
    /// How many universal quantifiers and restrictors the text holds (see `signals::scope`).
    pub universals: usize,
    pub restrictors: usize,
}

impl Side {
    /// Tokenises a text, finds its values and works out what the rules read of it that needs
    /// no rule: the subject fields (`environments`, `identifiers`, `relatives`) and the phrase
    /// starts are left empty for whoever builds the side (see `analysis`) to fill.
    pub fn read(text: String) -> Self {
        let tokens = super::tokens::tokenize(&text);
        let values = super::values::extract(&tokens, &text);
        let mut stem_keys: Vec<u64> = tokens.iter().map(|t| t.key).collect();
        stem_keys.sort_unstable();
        let mut side = Side {
            text,
            tokens,
            values,
            stem_keys,
            replacement_cues: 0,
            environments: Default::default(),
            identifiers: Default::default(),
            relatives: Vec::new(),
            value_keys: Vec::new(),
            phrase_starts: Vec::new(),
            universals: 0,
            restrictors: 0,
        };
        // What the rules read of one side alone, worked out once per memory.
        side.replacement_cues = replacement_cues(&side);
        let count = |f: fn(&str) -> bool| side.tokens.iter().filter(|t| f(&t.norm)).count();
        (side.universals, side.restrictors) =
            (count(lexicon::is_universal), count(lexicon::is_restrictor));
        side.value_keys = keys(&side);
        side
    }

    /// Quotes tokens `r`, widened to whitespace so "us-east-1" is quoted whole.
    pub fn quote(&self, r: std::ops::Range<usize>) -> String {
        if r.is_empty() || r.end > self.tokens.len() {
            return String::new();
        }
        let (mut s, mut e) = (self.tokens[r.start].start, self.tokens[r.end - 1].end);
        let bytes = self.text.as_bytes();
        while s > 0 && !bytes[s - 1].is_ascii_whitespace() && bytes[s - 1].is_ascii() {
            s -= 1;
        }
        while e < bytes.len() && !bytes[e].is_ascii_whitespace() && bytes[e].is_ascii() {
            e += 1;
        }
        let quoted = self.text[s..e].trim_matches(|c: char| ",.;:()\"'".contains(c));
        quoted.chars().take(80).collect()
    }

    pub fn negators(&self, r: std::ops::Range<usize>) -> usize {
        self.tokens[r].iter().filter(|t| t.is_negator()).count()
    }
}

/// Context words identifying what a value measures.
#[derive(Debug, Clone)]
pub struct Key {
    pub before: Words,
    pub after: Words,
}

impl Key {
    /// About the bytes the key holds on the heap (see `Analysis::heap_bytes`).
    pub fn heap_bytes(&self) -> usize {
        let words = |s: &Words| {
            s.capacity() * (std::mem::size_of::<String>() + 8)
                + s.iter().map(|w| w.len() + 16).sum::<usize>()
        };
        words(&self.before) + words(&self.after)
    }
}

/// The key of every value of a side, in order; kept on the side.
fn keys(side: &Side) -> Vec<Key> {
    side.values.iter().map(|v| key(side, v)).collect()
}

fn key(side: &Side, v: &Value) -> Key {
    let usable = |i: &usize| {
        let t = &side.tokens[*i];
        t.is_content()
            && t.kind != Kind::Number
            && lexicon::month(&t.norm).is_none()
            && lexicon::number_word(&t.norm).is_none()
    };
    let before = (v.first.saturating_sub(6)..v.first)
        .rev()
        .take_while(|&i| !boundary(side, i))
        .filter(usable)
        .take(2);
    let after = (v.end..side.tokens.len().min(v.end + 4))
        .take_while(|&i| !boundary(side, i - 1))
        .filter(usable)
        .take(2);
    Key {
        before: before.map(|i| side.tokens[i].stem.to_string()).collect(),
        after: after.map(|i| side.tokens[i].stem.to_string()).collect(),
    }
}

/// Whether a clause ends between token `i` and the next: keys never cross it.
pub fn boundary(side: &Side, i: usize) -> bool {
    let (Some(t), Some(n)) = (side.tokens.get(i), side.tokens.get(i + 1)) else {
        return true;
    };
    side.text[t.end..n.start].contains(['\n', '.', ';', ':', ',', '!', '?', '。', '，', '；'])
}

const _: () = assert!(lexicon::REPLACEMENT_CUES.len() <= 64, "one bit per cue");

/// Which replacement cues a side holds, one bit per cue: each token is looked up once, by its
/// stem key, among the keys of the cues' first words, and only the cues it may open are
/// compared further.
fn replacement_cues(side: &Side) -> u64 {
    static BY_FIRST: LazyLock<Vec<(u64, usize)>> = LazyLock::new(|| {
        let mut by_first: Vec<(u64, usize)> = lexicon::REPLACEMENT_CUES
            .iter()
            .enumerate()
            .filter_map(|(i, cue)| {
                let first = phrase_words(cue).next()?;
                Some((super::tokens::key(&super::tokens::stem(first)), i))
            })
            .collect();
        by_first.sort_unstable();
        by_first
    });
    let mut bits = 0;
    for (at, t) in side.tokens.iter().enumerate() {
        let from = BY_FIRST.partition_point(|&(k, _)| k < t.key);
        for &(_, i) in BY_FIRST[from..].iter().take_while(|&&(k, _)| k == t.key) {
            let cue = lexicon::REPLACEMENT_CUES[i];
            if phrase_words(cue).next() == Some(t.norm.as_str()) && phrase_at(side, at, cue) {
                bits |= 1 << i;
            }
        }
    }
    bits
}

/// Whether the tokens from `at` spell `phrase`.
fn phrase_at(side: &Side, at: usize, phrase: &str) -> bool {
    let n = phrase_words(phrase).count();
    side.tokens
        .get(at..at + n)
        .is_some_and(|w| w.iter().zip(phrase_words(phrase)).all(|(t, x)| t.norm == x))
}

/// The words of an ASCII phrase, or the characters of another.
fn phrase_words(phrase: &str) -> impl Iterator<Item = &str> {
    let ascii = phrase.is_ascii();
    let words = phrase.split(' ').filter(move |_| ascii);
    let chars = phrase
        .char_indices()
        .filter(move |_| !ascii)
        .map(|(i, c)| &phrase[i..i + c.len_utf8()]);
    words.chain(chars)
}
