//! Phrases of `shifts` in a memory's tokens: which tokens open one (found once per memory),
//! and where a phrase matches.

use std::collections::HashSet;
use std::sync::LazyLock;

use super::shifts;
use super::side::Side;
use super::tokens::{Kind, Token};

/// Tokens with the first words of the phrases they may hold, so that the many phrases of
/// `shifts` cost a scan only when their first word occurs.
pub struct Lexed<'a> {
    tokens: &'a [Token],
    /// Index of `tokens[0]` in the side.
    from: usize,
    firsts: &'a [(usize, &'static str)],
    /// The first bytes of `firsts`, as bits: most patterns open with a byte no first word
    /// does, and are ruled out without a comparison.
    opening_bytes: [u64; 4],
}

impl<'a> Lexed<'a> {
    /// The tokens of `side` from index `from` on.
    pub fn of(side: &'a Side, from: usize) -> Self {
        let starts = &side.phrase_starts;
        let at = starts.partition_point(|(i, _)| *i < from);
        let firsts = &starts[at..];
        let mut opening_bytes = [0u64; 4];
        for (_, f) in firsts {
            if let Some(&b) = f.as_bytes().first() {
                opening_bytes[usize::from(b >> 6)] |= 1 << (b & 63);
            }
        }
        Lexed {
            tokens: &side.tokens[from..],
            from,
            firsts,
            opening_bytes,
        }
    }
}

/// The tokens that are the first word of a phrase of `shifts`, with their indices: found once
/// per memory, in one pass.
pub fn phrase_starts(tokens: &[Token]) -> Vec<(usize, &'static str)> {
    tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| t.kind != Kind::Number && t.norm.len() <= LONGEST_FIRST)
        .filter_map(|(i, t)| FIRSTS.get(t.norm.as_str()).map(|f| (i, *f)))
        .collect()
}

/// Bytes of the longest first word of a phrase: longer tokens need no lookup.
const LONGEST_FIRST: usize = 12;

/// FNV-1a: every token of every pair is looked up once, and these keys are a few bytes long,
/// where SipHash's setup dominates.
#[derive(Default)]
struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for b in bytes {
            h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

type FirstWords = HashSet<&'static str, std::hash::BuildHasherDefault<Fnv>>;

/// First words of every phrase in `shifts`.
static FIRSTS: LazyLock<FirstWords> = LazyLock::new(|| shift_phrases().map(first_part).collect());

/// Every phrase in `shifts`.
fn shift_phrases() -> impl Iterator<Item = &'static str> {
    let lists = [
        shifts::ENDING_CUES,
        shifts::PROHIBITIONS,
        shifts::PERMISSIONS,
        shifts::ADDITIONS,
        shifts::PAST,
    ];
    let state = shifts::STATE_CUES.iter().map(|(c, _)| *c);
    let antonyms = shifts::ANTONYMS.iter().flat_map(|(a, b)| [*a, *b]);
    lists
        .into_iter()
        .flatten()
        .copied()
        .chain(state)
        .chain(antonyms)
}

impl std::ops::Deref for Lexed<'_> {
    type Target = [Token];

    fn deref(&self) -> &[Token] {
        self.tokens
    }
}

fn first_part(pattern: &str) -> &str {
    let bytes = pattern.as_bytes();
    if bytes.first().is_some_and(u8::is_ascii) {
        let end = bytes.iter().position(|&b| b == b' ').unwrap_or(bytes.len());
        &pattern[..end]
    } else {
        let end = pattern.chars().next().map_or(0, char::len_utf8);
        &pattern[..end]
    }
}

/// Positions of the tokens of the first match of `pattern` in `tokens` (a gap's tokens are not
/// part of the match): ASCII patterns word by word, others character by character; `…`
/// matches a gap of one to four tokens.
pub fn find(tokens: &Lexed, pattern: &str) -> Option<Vec<usize>> {
    // A match starts at a token holding the pattern's first word: only those are tried. Most
    // first words differ from the pattern's in their first byte, which is compared before
    // calling into `memcmp`.
    let opens = |f: &str| {
        f.as_bytes().first() == pattern.as_bytes().first()
            && pattern.starts_with(f)
            && (!f.is_ascii() || pattern.as_bytes().get(f.len()).is_none_or(|b| *b == b' '))
    };
    let &first = pattern.as_bytes().first()?;
    if tokens.opening_bytes[usize::from(first >> 6)] & (1 << (first & 63)) == 0 {
        return None;
    }
    let mut starts = tokens.firsts.iter().filter(|(_, f)| opens(f)).peekable();
    starts.peek()?;
    let (parts, n) = parts(pattern);
    starts.find_map(|(i, _)| match_at(tokens.tokens, i - tokens.from, &parts[..n]))
}

/// Most words (or CJK characters) in a phrase of `shifts`.
const MAX_PARTS: usize = 8;

/// The words of an ASCII pattern, or the characters of another; every pair looks up many
/// patterns, so they are sliced, not copied.
fn parts(pattern: &str) -> ([&str; MAX_PARTS], usize) {
    let by_word = pattern.chars().all(|c| c.is_ascii() || c == '…');
    let words = pattern.split(' ').filter(|_| by_word);
    let chars = pattern
        .char_indices()
        .filter(|(_, c)| !by_word && !c.is_whitespace())
        .map(|(i, c)| &pattern[i..i + c.len_utf8()]);
    let mut out = [""; MAX_PARTS];
    let mut n = 0;
    for p in words.chain(chars) {
        out[n] = p;
        n += 1;
    }
    (out, n)
}

fn match_at(tokens: &[Token], at: usize, parts: &[&str]) -> Option<Vec<usize>> {
    let Some((first, rest)) = parts.split_first() else {
        return Some(Vec::new());
    };
    if *first == "…" {
        return (at + 1..=(at + 4).min(tokens.len())).find_map(|s| match_at(tokens, s, rest));
    }
    if tokens.get(at)?.norm != *first {
        return None;
    }
    let mut m = match_at(tokens, at + 1, rest)?;
    m.insert(0, at);
    Some(m)
}

pub fn has(tokens: &Lexed, patterns: &[&str]) -> bool {
    patterns.iter().any(|p| find(tokens, p).is_some())
}

#[cfg(test)]
mod tests;
