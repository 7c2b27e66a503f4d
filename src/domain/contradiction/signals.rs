//! Opposing signals in words: asymmetric negation of shared content, replacement cues in the new
//! memory, universal-versus-restricted scope, and enum swaps (one short span substituted in an
//! otherwise identical statement). Each signal is judged at the place where the two memories
//! differ, never on the mere presence of a cue word, because cue words are common in agreeing
//! text too.

use std::sync::LazyLock;

use super::align::{Alignment, Hunk};
use super::change;
use super::lexicon;
use super::shifts;
use super::slots;
use super::subjects;
use super::tokens::{Kind, Token};
use super::values::Value;
use super::{ConflictType, Signal};

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
    pub environments: std::collections::HashSet<String>,
    pub identifiers: std::collections::HashSet<String>,
    /// The relatives its sentences open with, "*my brother* is 30" (see `subjects`).
    pub relatives: Vec<String>,
    /// What each value measures, by index into `values` (see `numeric::keyed_change`).
    pub value_keys: Vec<super::numeric::Key>,
    /// Tokens that open a phrase of `shifts`, in order (see `change::Lexed`).
    pub phrase_starts: Vec<(usize, &'static str)>,
    /// How many universal quantifiers and restrictors the text holds (see [`scope`]).
    pub universals: usize,
    pub restrictors: usize,
}

impl Side {
    /// Tokenises a text and finds its values.
    #[cfg(test)]
    pub fn analyse(text: &str) -> Self {
        Side::of(text.to_owned())
    }

    pub fn of(text: String) -> Self {
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
        side.environments = subjects::environments(&side);
        side.identifiers = subjects::identifiers(&side);
        side.relatives = subjects::relatives(&side);
        side.value_keys = super::numeric::keys(&side);
        side.phrase_starts = change::phrase_starts(&side.tokens);
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

/// Alignment ratio above which two memories are versions of one statement.
pub const NEAR_DUPLICATE: f64 = 0.55;

/// Negation whose count differs inside one hunk of a near-duplicate: "loves" vs "does not love".
pub fn aligned_negation(old: &Side, new: &Side, al: &Alignment) -> Option<Evidence> {
    if al.ratio < NEAR_DUPLICATE {
        return None;
    }
    let differs = |h: &Hunk| {
        old.negators(h.a.clone()) != new.negators(h.b.clone())
            || opposite_place(&old.tokens[h.a.clone()], &new.tokens[h.b.clone()])
    };
    let k = al.hunks.iter().position(differs)?;
    let (neg, plain) = negated_first(old, new, &al.hunks[k]);
    let p = 0.8 + 0.15 * al.ratio;
    let e = Evidence::new(
        Signal::Negation,
        ConflictType::DirectContradiction,
        p,
        format!("negation: \"{neg}\" vs \"{plain}\""),
    );
    Some(e.at(At::Hunk(k)))
}

/// "in England" / "outside of England": a place preposition swapped for its negation.
fn opposite_place(a: &[Token], b: &[Token]) -> bool {
    let inward =
        |ts: &[Token]| ts.len() == 1 && matches!(ts[0].norm.as_str(), "in" | "inside" | "within");
    let outward = |ts: &[Token]| {
        ts.first().is_some_and(|t| t.norm == "outside") && ts[1..].iter().all(|t| t.norm == "of")
    };
    (inward(a) && outward(b)) || (outward(a) && inward(b))
}

/// Quotes the hunk with context: the negated side first, then the plain side.
fn negated_first(old: &Side, new: &Side, h: &Hunk) -> (String, String) {
    let widen = |side: &Side, r: &std::ops::Range<usize>| {
        let end = (r.end + 1).min(side.tokens.len());
        side.quote(r.start.saturating_sub(usize::from(r.is_empty()))..end)
    };
    let (qa, qb) = (widen(old, &h.a), widen(new, &h.b));
    if new.negators(h.b.clone()) > old.negators(h.a.clone()) {
        (qb, qa)
    } else {
        (qa, qb)
    }
}

/// Negation over shared content in memories that are not versions of each other: the word a
/// negator governs must occur un-negated on the other side.
pub fn loose_negation(old: &Side, new: &Side) -> Option<Evidence> {
    negated_head(new, old).or_else(|| negated_head(old, new))
}

fn negated_head(neg: &Side, plain: &Side) -> Option<Evidence> {
    for (k, t) in neg.tokens.iter().enumerate() {
        if !is_strong_negator(t) {
            continue;
        }
        let Some(h) = head_after(&neg.tokens, k) else {
            continue;
        };
        let stem = &neg.tokens[h].stem;
        let hit = plain
            .tokens
            .iter()
            .enumerate()
            .find(|(j, p)| p.stem == *stem && !negated_at(&plain.tokens, *j));
        if let Some((j, _)) = hit {
            let expl = format!(
                "negation: \"{}\" vs \"{}\"",
                neg.quote(k..h + 1),
                plain.quote(j..j + 1)
            );
            return Some(Evidence::new(
                Signal::Negation,
                ConflictType::DirectContradiction,
                0.6,
                expl,
            ));
        }
    }
    None
}

/// "without" and "no" are usually determiners of a new noun, not negations of a claim.
fn is_strong_negator(t: &Token) -> bool {
    t.is_negator()
        && !matches!(
            t.norm.as_str(),
            "without" | "no" | "none" | "无" | "非" | "nothing"
        )
}

fn head_after(tokens: &[Token], k: usize) -> Option<usize> {
    (k + 1..tokens.len().min(k + 4))
        .find(|&i| !lexicon::is_negation_filler(&tokens[i].norm))
        .filter(|&i| tokens[i].is_content() && tokens[i].kind != Kind::Number)
}

fn negated_at(tokens: &[Token], j: usize) -> bool {
    tokens[j.saturating_sub(3)..j]
        .iter()
        .any(|t| t.is_negator())
}

const _: () = assert!(lexicon::REPLACEMENT_CUES.len() <= 64, "one bit per cue");

/// A replacement cue in the new memory that the stored one lacks.
pub fn replacement(old: &Side, new: &Side) -> Option<Evidence> {
    let fresh = new.replacement_cues & !old.replacement_cues;
    let cue = lexicon::REPLACEMENT_CUES.get(fresh.trailing_zeros() as usize)?;
    let weak = cue.ends_with(" now") || cue.starts_with("is ") || cue.starts_with("are ");
    let p = if weak { 0.55 } else { 0.72 };
    Some(Evidence::new(
        Signal::Replacement,
        ConflictType::DirectContradiction,
        p,
        format!("replacement: \"{cue}\""),
    ))
}

/// Which replacement cues a side holds, one bit per cue: each token is looked up once, by its
/// stem key, among the keys of the cues' first words, and only the cues it may open are
/// compared further.
pub(super) fn replacement_cues(side: &Side) -> u64 {
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

/// Universal quantifier on one side and a restrictor on the other. Inside a hunk of a near
/// duplicate this is a real narrowing; elsewhere it is weak (Wikipedia-style text says "the
/// only" constantly), so it stays below the flagging threshold.
pub fn scope(old: &Side, new: &Side, al: Option<&Alignment>) -> Option<Evidence> {
    let (ua, ra) = (old.universals, old.restrictors);
    let (ub, rb) = (new.universals, new.restrictors);
    let narrowed = ua > ub && rb > ra;
    let widened = ub > ua && ra > rb;
    if !narrowed && !widened {
        return None;
    }
    let near = al.is_some_and(|a| a.ratio >= NEAR_DUPLICATE);
    let p = if near { 0.75 } else { 0.45 };
    let word = |s: &Side, f: fn(&str) -> bool| {
        s.tokens
            .iter()
            .find(|t| f(&t.norm))
            .map(|t| t.norm.clone())
            .unwrap_or_default()
    };
    let (u, r) = if narrowed {
        (
            word(old, lexicon::is_universal),
            word(new, lexicon::is_restrictor),
        )
    } else {
        (
            word(new, lexicon::is_universal),
            word(old, lexicon::is_restrictor),
        )
    };
    Some(Evidence::new(
        Signal::ScopeChange,
        ConflictType::ScopeMismatch,
        p,
        format!("scope: \"{u}\" vs \"{r}\""),
    ))
}

/// Below this alignment ratio a one-span substitution is as likely a paraphrase ("headed" /
/// "went") as a changed fact, so it stays under the flagging threshold.
const SWAP_FLOOR: f64 = 0.625;

/// Most tokens on either side of a hunk for it to count as one substituted value.
const MAX_SWAP: usize = 4;

/// Enum swap: a short span substituted in an otherwise identical statement ("Serie B" →
/// "Serie A", "comedy" → "drama"). Insertions and deletions are additive, not contradictory,
/// and a pronoun replaced by a name is the same referent.
pub fn enum_swap(old: &Side, new: &Side, al: &Alignment) -> Option<Evidence> {
    if al.ratio < NEAR_DUPLICATE {
        return None;
    }
    // Each hunk is judged once: `is_swap` is the costliest test of a near duplicate.
    let swapped: Vec<bool> = al.hunks.iter().map(|h| is_swap(old, new, h)).collect();
    let k = swapped.iter().position(|&s| s)?;
    let swap = &al.hunks[k];
    // A swapped day beside another swapped detail is another event on another day ("went
    // hiking on Saturday" / "went swimming on Sunday"), not a changed fact.
    let swapped_days = al
        .hunks
        .iter()
        .filter(|h| {
            let day = |s: &Side, r: &std::ops::Range<usize>| {
                s.tokens[r.clone()]
                    .iter()
                    .any(|t| shifts::is_day_word(&t.norm))
            };
            day(old, &h.a) && day(new, &h.b)
        })
        .count();
    let refigured = al.hunks.iter().any(|h| {
        let has = |s: &Side, r: &std::ops::Range<usize>| {
            s.values.iter().any(|v| v.first < r.end && r.start < v.end)
        };
        has(old, &h.a) && has(new, &h.b)
    });
    let swaps = swapped.iter().filter(|&&s| s).count();
    if swapped_days > 0 && (swaps > swapped_days || refigured) {
        return None;
    }
    // Another object of a many-valued verb is a further value: "likes pizza" / "likes pasta",
    // "is allergic to peanuts" / "to shellfish", "喜欢猫" / "喜欢狗".
    if many_valued_object(old, swap.a.start) {
        return None;
    }
    // Another attribute's verb says a second thing: "lives in Tokyo" / "works in Tokyo".
    if let ([a], [b]) = (&old.tokens[swap.a.clone()], &new.tokens[swap.b.clone()])
        && slots::other_attribute(&a.norm, &b.norm)
    {
        return None;
    }
    // A swap that opens the sentence swaps its subject: "Frank is based in London" / "Grace
    // is based in London" are facts about two people.
    if subjects::opens_subject(old, swap.a.clone()) && subjects::opens_subject(new, swap.b.clone())
    {
        return None;
    }
    let p = (0.5 + 0.4 * (al.ratio - SWAP_FLOOR) / (1.0 - SWAP_FLOOR)).clamp(0.0, 0.9);
    let expl = format!(
        "changed: \"{}\" vs \"{}\"",
        old.quote(swap.a.clone()),
        new.quote(swap.b.clone())
    );
    let e = Evidence::new(
        Signal::Replacement,
        ConflictType::DirectContradiction,
        p,
        expl,
    );
    Some(e.at(At::Hunk(k)))
}

/// Whether the span starting at `at` is the object of a many-valued verb: the verb right
/// before it, or before a preposition or a second CJK character ("allergic to", "喜欢").
pub fn many_valued_object(s: &Side, at: usize) -> bool {
    let before = |k: usize| at.checked_sub(k).map(|i| s.tokens[i].norm.as_str());
    let many = |w: Option<&str>| w.is_some_and(shifts::is_many_valued);
    let cjk_verb = matches!(
        (before(2), before(1)),
        (Some("喜"), Some("欢"))
            | (Some("喜"), Some("爱"))
            | (Some("去"), Some("过"))
            | (Some("会"), Some("说"))
    );
    (many(before(1)) && s.tokens[at - 1].kind == Kind::Word)
        || (matches!(before(1), Some("to" | "in" | "of")) && many(before(2)))
        || cjk_verb
}

/// Whether some hunk swaps one day word for another ("on weekdays" / "on weekends").
pub fn days_swapped(old: &Side, new: &Side, al: &Alignment) -> bool {
    let day = |s: &Side, r: &std::ops::Range<usize>| {
        s.tokens[r.clone()]
            .iter()
            .any(|t| shifts::is_day_word(&t.norm))
    };
    al.hunks.iter().any(|h| day(old, &h.a) && day(new, &h.b))
}

fn is_swap<'a>(old: &'a Side, new: &'a Side, h: &Hunk) -> bool {
    let (ta, tb) = (&old.tokens[h.a.clone()], &new.tokens[h.b.clone()]);
    let content = |ts: &[Token]| ts.iter().filter(|t| t.is_content()).count();
    if ta.is_empty()
        || tb.is_empty()
        || content(ta) > MAX_SWAP
        || content(tb) > MAX_SWAP
        || ta.len().max(tb.len()) > 2 * MAX_SWAP
    {
        return false;
    }
    let has_value = |s: &Side, r: &std::ops::Range<usize>| {
        s.values.iter().any(|v| v.first < r.end && r.start < v.end)
    };
    if has_value(old, &h.a) || has_value(new, &h.b) {
        return false;
    }
    let keys = |s: &'a Side, r: &std::ops::Range<usize>| -> Vec<&'a str> {
        r.clone()
            .filter(|&i| is_name_like(s, i))
            .map(|i| s.tokens[i].stem.as_str())
            .collect()
    };
    let (ka, kb) = (keys(old, &h.a), keys(new, &h.b));
    // A member still stated elsewhere on the other side was reordered, not replaced ("Go and
    // Rust" / "Go, Rust and Python"); a near-synonym restates the fact ("likes" / "loves").
    let stated = |k: &str, s: &Side| s.tokens.iter().any(|t| t.stem == k);
    let joined = |ts: &[Token]| ts.iter().map(|t| t.norm.as_str()).collect::<String>();
    let grown = new.tokens.len() > old.tokens.len() && (in_list(old, &h.a) || in_list(new, &h.b));
    if (grown && ka.iter().all(|&k| stated(k, new)))
        || ka.iter().any(|a| kb.iter().any(|b| shifts::synonyms(a, b)))
        || shifts::synonyms(&joined(ta), &joined(tb))
    {
        return false;
    }
    if reworded(ta, tb) {
        return false;
    }
    !ka.is_empty()
        && !kb.is_empty()
        && !ka.iter().all(|k| kb.contains(k))
        && !kb.iter().all(|k| ka.contains(k))
}

/// Whether two swapped spans say one thing in other words rather than swap one value for
/// another: a word of one in another form on the other ("choose to opt" / "opted", "with
/// immediate effect" / "immediately"), or a clause rather than a value (a modal or a relative
/// pronoun: "will stop", "which put pressure on").
fn reworded<'a>(ta: &'a [Token], tb: &'a [Token]) -> bool {
    let content = |ts: &'a [Token]| -> Vec<&'a str> {
        ts.iter()
            .filter(|t| t.is_content() && t.kind == Kind::Word)
            .map(|t| t.norm.as_str())
            .collect()
    };
    let (ca, cb) = (content(ta), content(tb));
    let shared_root = ca
        .iter()
        .any(|a| cb.iter().any(|b| change::same_root(a, b)));
    let clause = |ts: &[Token]| ts.iter().any(|t| lexicon::is_clause_word(&t.norm));
    shared_root || clause(ta) || clause(tb)
}

/// Whether the span `r` is a member of a list: a conjunction or a comma right before it.
/// Together with a longer new side and the old member still stated, a list grew.
fn in_list(s: &Side, r: &std::ops::Range<usize>) -> bool {
    r.start > 0
        && (matches!(
            s.tokens[r.start - 1].norm.as_str(),
            "and" | "or" | "和" | "与" | "及"
        ) || s.text[s.tokens[r.start - 1].end..s.tokens[r.start].start]
            .contains([',', '、', '，']))
}

/// Content words, plus capitalised single letters inside a sentence ("Serie *A*", "Plan *B*").
fn is_name_like(s: &Side, i: usize) -> bool {
    let t = &s.tokens[i];
    if lexicon::is_reference_word(&t.norm)
        && !(i > 0 && t.norm.len() == 1 && s.text[t.start..t.end].chars().all(char::is_uppercase))
    {
        return false;
    }
    t.is_content() || t.norm.len() == 1
}

#[cfg(test)]
mod tests {
    use super::super::align;
    use super::*;

    fn aligned(
        a: &str,
        b: &str,
        f: fn(&Side, &Side, &Alignment) -> Option<Evidence>,
    ) -> Option<Evidence> {
        let (sa, sb) = (Side::analyse(a), Side::analyse(b));
        let al = align::align(&sa.tokens, &sb.tokens)?;
        f(&sa, &sb, &al)
    }

    #[test]
    fn negation_inside_the_differing_span_is_strong() {
        let e = aligned(
            "my classmates have loved chocolate",
            "my classmates have not loved chocolate",
            aligned_negation,
        );
        assert!(e.is_some_and(|e| e.probability > 0.9));
    }

    #[test]
    fn loose_negation_needs_the_negated_word_on_the_other_side() {
        let hit = loose_negation(
            &Side::analyse("Nginx serves static files."),
            &Side::analyse("In production nginx does not serve files."),
        );
        assert!(hit.is_some());
        let miss = loose_negation(
            &Side::analyse("Nginx serves static files."),
            &Side::analyse("The proxy does not cache responses."),
        );
        assert!(miss.is_none());
    }

    #[test]
    fn swaps_of_pronouns_or_additions_are_not_enum_swaps() {
        let cases = [
            (
                "Alice owns the billing service today.",
                "She owns the billing service today.",
            ),
            (
                "The service uses Redis for caching.",
                "The service uses Redis cluster for caching.",
            ),
        ];
        for (a, b) in cases {
            assert!(aligned(a, b, enum_swap).is_none(), "{b}");
        }
    }

    #[test]
    fn replacement_cue_already_in_the_stored_memory_is_not_new() {
        let old = Side::analyse("We switched to Postgres last year.");
        assert!(replacement(&old, &Side::analyse("We switched to Postgres in 2023.")).is_none());
        assert!(
            replacement(
                &Side::analyse("We use Postgres."),
                &Side::analyse("We switched to MySQL.")
            )
            .is_some()
        );
    }

    #[test]
    fn scope_outside_near_duplicates_stays_below_the_flag() {
        let e = scope(
            &Side::analyse("All regions replicate the data nightly."),
            &Side::analyse("Only Europe keeps a copy offline."),
            None,
        );
        assert!(e.is_some_and(|e| e.probability < 0.5));
    }
}
