//! Tokenisation: every comparison in the engine works on the same token stream, produced by
//! Unicode word segmentation with case folding, so that English, numbers and CJK text share one
//! notion of "word". CJK runs are split into single characters for alignment and into character
//! bigrams for overlap, because Chinese has no spaces and single characters are too ambiguous to
//! signal a shared topic.

use compact_str::CompactString;
use std::collections::HashSet;
use unicode_segmentation::UnicodeSegmentation;

use super::lexicon;

/// Texts longer than this are truncated before analysis: memories state their facts early, and
/// a bound keeps `assess` linear-time on bodies of up to a mebibyte.
pub const MAX_TEXT_BYTES: usize = 16 * 1024;

/// Most tokens returned by [`index_tokens`]; the full-text column only needs the distinctive ones.
const MAX_INDEX_TOKENS: usize = 256;
/// Longest index token, in bytes. PostgreSQL's full-text index silently drops words over
/// 2 047 bytes (SQLite's keeps them), so longer words are cut, at a character boundary, to a
/// prefix both indexes hold; a query is cut the same way and still finds them.
const MAX_INDEX_TOKEN_BYTES: usize = 255;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Word,
    Number,
    Cjk,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// Lower-cased surface form.
    pub norm: CompactString,
    /// Light stem used for matching ("loves" ~ "love").
    pub stem: CompactString,
    /// [`key`] of `stem`: stems with different keys differ, so most comparisons of two
    /// tokens never read the strings.
    pub key: u64,
    pub kind: Kind,
    /// Whether the token carries content (see [`Token::is_content`]), settled once here
    /// because every rule asks it of most tokens.
    pub content: bool,
    /// Whether the token is a negator (`lexicon::is_negator`), likewise settled once.
    pub negator: bool,
    /// Byte span in the source text, for quoting spans in explanations.
    pub start: usize,
    pub end: usize,
}

impl Token {
    /// Numbers, and words that are not grammar words.
    pub fn is_content(&self) -> bool {
        self.content
    }

    pub fn is_negator(&self) -> bool {
        self.negator
    }
}

fn carries_content(kind: Kind, norm: &str) -> bool {
    match kind {
        Kind::Number => true,
        Kind::Cjk => !lexicon::is_cjk_particle(norm),
        Kind::Word => !lexicon::is_stopword(norm),
    }
}

pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0xAC00..=0xD7AF)
}

fn is_hangul(c: char) -> bool {
    matches!(c as u32, 0xAC00..=0xD7AF)
}

/// Cuts `text` to at most [`MAX_TEXT_BYTES`] on a char boundary.
pub fn clip(text: &str) -> &str {
    if text.len() <= MAX_TEXT_BYTES {
        return text;
    }
    let mut end = MAX_TEXT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

pub fn tokenize(text: &str) -> Vec<Token> {
    let text = clip(text);
    let mut out = Vec::with_capacity(text.len() / 5 + 1);
    if text.is_ascii() {
        // Most memories are plain ASCII: the same words, found without the Unicode tables.
        for (start, word) in ascii_words(text) {
            out.push(make_token(start, word));
        }
        return out;
    }
    let mut words = text.unicode_word_indices().peekable();
    while let Some((start, word)) = words.next() {
        if word == "안" && words.peek().is_some_and(|(_, w)| w.starts_with(is_hangul)) {
            // Korean short negation: "안" standing alone before a predicate ("안 좋아해요",
            // "안 먹어요"). As the first syllable of a word (안전, 안에) it negates nothing.
            push_mixed(&mut out, start, word);
            if let Some(t) = out.last_mut() {
                t.negator = true;
            }
        } else if word.chars().any(is_cjk) {
            push_mixed(&mut out, start, word);
        } else {
            out.push(make_token(start, word));
        }
    }
    out
}

/// Word-break classes of ASCII characters (Unicode Standard Annex #29).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wb {
    Letter,
    Digit,
    /// `_`: joins letters and digits on either side.
    Joiner,
    /// `:`: between two letters only.
    MidLetter,
    /// `,` `;`: between two digits only.
    MidNum,
    /// `.` `'`: between two letters or two digits.
    MidBoth,
    Other,
}

fn wb(b: u8) -> Wb {
    match b {
        b'a'..=b'z' | b'A'..=b'Z' => Wb::Letter,
        b'0'..=b'9' => Wb::Digit,
        b'_' => Wb::Joiner,
        b':' => Wb::MidLetter,
        b',' | b';' => Wb::MidNum,
        b'.' | b'\'' => Wb::MidBoth,
        _ => Wb::Other,
    }
}

/// The words of an ASCII text with their byte offsets: exactly what `unicode_word_indices`
/// yields for it (letters, digits and `_` join; `:` joins two letters, `,` `;` two digits,
/// `.` `'` either; a segment counts when it holds a letter or digit), without its tables.
fn ascii_words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let b = text.as_bytes();
    let word = |c: Wb| matches!(c, Wb::Letter | Wb::Digit | Wb::Joiner);
    let mut i = 0;
    std::iter::from_fn(move || {
        loop {
            while i < b.len() && !word(wb(b[i])) {
                i += 1;
            }
            if i >= b.len() {
                return None;
            }
            let start = i;
            let mut alnum = wb(b[i]) != Wb::Joiner;
            let mut j = i;
            while j + 1 < b.len() {
                let (cur, next) = (wb(b[j]), wb(b[j + 1]));
                if word(next) {
                    alnum |= next != Wb::Joiner;
                    j += 1;
                    continue;
                }
                let after = b.get(j + 2).map_or(Wb::Other, |&c| wb(c));
                let joins = match (cur, next) {
                    (Wb::Letter, Wb::MidLetter | Wb::MidBoth) => after == Wb::Letter,
                    (Wb::Digit, Wb::MidNum | Wb::MidBoth) => after == Wb::Digit,
                    _ => false,
                };
                if !joins {
                    break;
                }
                j += 2;
            }
            i = j + 1;
            if alnum {
                return Some((start, &text[start..i]));
            }
        }
    })
}

/// Splits a word containing CJK characters into one token per CJK character, keeping any
/// non-CJK run (e.g. "api") whole.
fn push_mixed(out: &mut Vec<Token>, start: usize, word: &str) {
    let mut run_start: Option<usize> = None;
    for (i, c) in word.char_indices() {
        if is_cjk(c) {
            if let Some(rs) = run_start.take() {
                out.push(make_token(start + rs, &word[rs..i]));
            }
            let s = start + i;
            let norm = CompactString::from(&*c.encode_utf8(&mut [0; 4]));
            out.push(Token {
                key: key(&norm),
                content: carries_content(Kind::Cjk, &norm),
                negator: lexicon::is_negator(&norm),
                stem: norm.clone(),
                norm,
                kind: Kind::Cjk,
                start: s,
                end: s + c.len_utf8(),
            });
        } else if run_start.is_none() {
            run_start = Some(i);
        }
    }
    if let Some(rs) = run_start {
        out.push(make_token(start + rs, &word[rs..]));
    }
}

fn make_token(start: usize, word: &str) -> Token {
    let norm = if word.is_ascii() {
        let mut norm = CompactString::from(word);
        norm.make_ascii_lowercase();
        norm
    } else {
        let lower = word.to_lowercase();
        CompactString::from(if lower.contains('’') {
            lower.replace('’', "'")
        } else {
            lower
        })
    };
    let kind = if norm.starts_with(|c: char| c.is_ascii_digit()) {
        Kind::Number
    } else {
        Kind::Word
    };
    let stem = if kind == Kind::Word {
        stem(&norm)
    } else {
        norm.clone()
    };
    Token {
        key: key(&stem),
        content: carries_content(kind, &norm),
        negator: lexicon::is_negator(&norm),
        norm,
        stem,
        kind,
        start,
        end: start + word.len(),
    }
}

impl Token {
    /// Whether two tokens have the same stem, settled by the keys unless they are equal.
    pub fn same_stem(&self, other: &Token) -> bool {
        self.key == other.key && self.stem == other.stem
    }
}

/// A 64-bit key of a short string (FNV-1a with a final mix): equal strings have equal keys,
/// and different ones almost never do, so a key comparison rejects unequal words at once.
pub fn key(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

/// A deliberately light English stemmer: strips plural/third-person "s" and "ies" only, which
/// is enough to align "loves" with "does not love" without conflating unrelated words.
pub fn stem(word: &str) -> CompactString {
    let n = word.len();
    if n > 4 && word.ends_with("ies") {
        let mut stem = CompactString::from(&word[..n - 3]);
        stem.push('y');
        return stem;
    }
    let keep = ["ss", "us", "is", "'s"];
    if n > 3 && word.ends_with('s') && !keep.iter().any(|k| word.ends_with(k)) {
        return CompactString::from(&word[..n - 1]);
    }
    if let Some(base) = word.strip_suffix("'s") {
        return CompactString::from(base);
    }
    CompactString::from(word)
}

/// Overlap units of a token stream: stems of content words and numbers, plus bigrams of
/// consecutive CJK characters (a lone CJK character counts as itself).
pub fn overlap_units(tokens: &[Token]) -> Vec<CompactString> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i].kind == Kind::Cjk {
            let mut j = i;
            while j < tokens.len() && tokens[j].kind == Kind::Cjk && adjacent(tokens, j, i) {
                j += 1;
            }
            push_bigrams(&mut out, &tokens[i..j]);
            i = j;
            continue;
        }
        if tokens[i].is_content() {
            out.push(tokens[i].stem.clone());
        }
        i += 1;
    }
    out
}

fn adjacent(tokens: &[Token], j: usize, run_start: usize) -> bool {
    j == run_start || tokens[j - 1].end == tokens[j].start
}

fn push_bigrams(out: &mut Vec<CompactString>, run: &[Token]) {
    if run.len() == 1 {
        out.push(run[0].norm.clone());
        return;
    }
    for w in run.windows(2) {
        let mut bigram = w[0].norm.clone();
        bigram.push_str(&w[1].norm);
        out.push(bigram);
    }
}

/// The plain set of overlap units: the reference the sorted units of `analysis` are checked
/// against.
#[cfg(test)]
pub fn unit_set(tokens: &[Token]) -> HashSet<String> {
    overlap_units(tokens)
        .iter()
        .map(|u| u.to_string())
        .collect()
}

#[cfg(test)]
pub fn jaccard(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 0.0;
    }
    let inter = a.intersection(b).count();
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// Index tokens in first-seen order, restricted to `[a-z0-9_\p{L}]`, keeping the longest
/// (usually rarest) ones when there are too many.
pub fn index_tokens(title: &str, body: &str) -> Vec<String> {
    let text = format!("{title} {body}");
    let mut seen = HashSet::new();
    let mut units: Vec<String> = Vec::new();
    for unit in overlap_units(&tokenize(&text)) {
        let clean: String = unit
            .chars()
            .map(|c| if c.is_alphanumeric() { c } else { '_' })
            .collect();
        let clean = truncate_bytes(clean.trim_matches('_'), MAX_INDEX_TOKEN_BYTES).to_string();
        if !clean.is_empty() && seen.insert(clean.clone()) {
            units.push(clean);
        }
    }
    if units.len() > MAX_INDEX_TOKENS {
        let mut by_len: Vec<usize> = (0..units.len()).collect();
        by_len.sort_by_key(|&i| std::cmp::Reverse(units[i].chars().count()));
        let mut keep: Vec<usize> = by_len.into_iter().take(MAX_INDEX_TOKENS).collect();
        keep.sort_unstable();
        units = keep.into_iter().map(|i| units[i].clone()).collect();
    }
    units
}

/// The longest prefix of `s` of at most `max` bytes that ends at a character boundary.
fn truncate_bytes(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests;
