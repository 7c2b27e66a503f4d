//! Write-time contradiction detection between a new memory and a stored one. The rule: two
//! memories conflict when they talk about the same thing (token overlap at or above the
//! configured threshold, or embeddings in the similarity band with a shared label) *and* the
//! text carries an opposing signal at the place where they differ — a negation, a replacement,
//! a changed value, or a narrowed scope. Similarity alone is never a contradiction under the
//! default sensitivity, because agreeing memories are just as similar as conflicting ones.
//! The signal must also concern the same subject: when the texts differ in a subject-like span
//! besides the evidence (another identifier, environment or named subject; see `subjects`),
//! the pair is about two things and is not flagged.
//!
//! Balanced sensitivity flags scope mismatches only when they come from a near-duplicate whose
//! differing span swaps a universal for a restrictor ("always" → "only on Linux"): outside such
//! pairs "only"/"all" are too common in agreeing text to be worth a reviewer's time.

mod align;
mod analysis;
mod attachment;
mod attributes;
mod bounds;
mod categories;
mod change;
mod comparatives;
mod dates;
mod evidence;
mod figures;
mod judge;
pub mod kinds;
mod lexicon;
mod nationality;
mod numeric;
mod phrases;
mod screen;
mod shifts;
mod side;
mod signals;
mod slots;
mod statement;
mod subjects;
mod text;
mod tokens;
mod value;
mod values;
mod vector;
mod words;

use std::fmt;
use std::str::FromStr;

use evidence::Evidence;
use side::Side;

use analysis::{Body, Units, same_head};

pub use analysis::{Analysis, fingerprint};
pub use screen::{LlmJudgement, Screen, llm_verdict, screen, screen_analysed};
pub use vector::cosine;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Sensitivity {
    Strict,
    #[default]
    Balanced,
    Lenient,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConflictType {
    DirectContradiction,
    NumericMismatch,
    TemporalMismatch,
    ScopeMismatch,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Signal {
    Negation,
    Replacement,
    ValueChange,
    ScopeChange,
    VectorSimilarity,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tier {
    Heuristic,
    Vector,
    Llm,
}

/// The name was not one of the accepted spellings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName(pub String);

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown name: {:?}", self.0)
    }
}

impl std::error::Error for UnknownName {}

/// `as_str` and `FromStr` from one table so the two can never disagree.
macro_rules! named {
    ($ty:ident { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self { $($ty::$variant => $name),+ }
            }
        }

        impl FromStr for $ty {
            type Err = UnknownName;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $ty::ALL.iter().copied().find(|v| v.as_str() == s).ok_or_else(|| UnknownName(s.to_string()))
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

named!(Sensitivity { Strict => "strict", Balanced => "balanced", Lenient => "lenient" });
named!(ConflictType {
    DirectContradiction => "direct-contradiction",
    NumericMismatch => "numeric-mismatch",
    TemporalMismatch => "temporal-mismatch",
    ScopeMismatch => "scope-mismatch",
});
named!(Signal {
    Negation => "negation",
    Replacement => "replacement",
    ValueChange => "value_change",
    ScopeChange => "scope_change",
    VectorSimilarity => "vector_similarity",
});
named!(Tier { Heuristic => "heuristic", Vector => "vector", Llm => "llm" });

#[derive(Debug, Clone, Copy)]
pub struct Memory<'a> {
    pub title: &'a str,
    pub body: &'a str,
    pub labels: &'a [String],
    pub confidence: f64,
    pub embedding: Option<&'a [f32]>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DetectConfig {
    pub min_overlap: f64,
    pub cosine_band: (f64, f64),
    pub sensitivity: Sensitivity,
}

impl Default for DetectConfig {
    fn default() -> Self {
        DetectConfig {
            min_overlap: 0.3,
            cosine_band: (0.30, 0.95),
            sensitivity: Sensitivity::Balanced,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub tier: Tier,
    pub conflict_type: ConflictType,
    pub probability: f64,
    pub signals: Vec<Signal>,
    pub overlap: f64,
    pub similarity: Option<f64>,
    pub explanation: String,
}

/// Probability above which a verdict is a contradiction.
const FLAG: f64 = 0.5;
/// Lenient sensitivity's stricter bar.
const LENIENT_FLAG: f64 = 0.7;
/// Balanced sensitivity's bar for scope mismatches (only near-duplicate swaps reach it).
const SCOPE_FLAG: f64 = 0.7;
/// Raise for a text verdict whose embeddings agree the memories share a topic.
const IN_BAND_BONUS: f64 = 0.03;

/// Some(verdict) only when the pair is a contradiction at the configured sensitivity
/// (probability > 0.5 and the sensitivity's rules).
pub fn assess(new: &Memory, old: &Memory, cfg: &DetectConfig) -> Option<Verdict> {
    let (an, ao) = (analyse(new), analyse(old));
    assess_analysed(Analysed::new(*new, &an), Analysed::new(*old, &ao), cfg)
}

/// Everything the rules read from one memory's title and body, for [`assess_analysed`].
pub fn analyse(m: &Memory) -> Analysis {
    Analysis::of(m)
}

/// A memory with its analysis: what judging a pair reads of each side. The analysis must be
/// of this memory's title and body (see [`Analysis::fingerprint`]).
#[derive(Debug, Clone, Copy)]
pub struct Analysed<'a> {
    pub memory: Memory<'a>,
    pub analysis: &'a Analysis,
}

impl<'a> Analysed<'a> {
    pub fn new(memory: Memory<'a>, analysis: &'a Analysis) -> Self {
        debug_assert_eq!(
            analysis.fingerprint(),
            fingerprint(memory.title, memory.body),
            "an analysis of another text"
        );
        Analysed { memory, analysis }
    }
}

/// [`assess`] of two memories analysed beforehand: each memory is analysed once, however many
/// pairs it is judged in.
pub fn assess_analysed(new: Analysed, old: Analysed, cfg: &DetectConfig) -> Option<Verdict> {
    let (new_a, old_a) = (new.analysis, old.analysis);
    let (new, old) = (&new.memory, &old.memory);
    let similarity = vector::similarity(new, old);
    let titled = titles_agree(old, old_a, new, new_a);
    let mut text = heuristic(old_a, new_a, cfg, titled);
    if let (Some(v), Some(sim)) = (text.as_mut(), similarity) {
        v.similarity = Some(sim);
        if vector::in_band(sim, cfg) {
            v.probability = (v.probability + IN_BAND_BONUS).min(0.99);
        }
    }
    let accepted = text.filter(|v| accepts(cfg.sensitivity, v));
    if accepted.is_some() || cfg.sensitivity != Sensitivity::Strict {
        return accepted;
    }
    let overlap = old_a.overlap(new_a);
    vector::verdict(new, old, similarity?, overlap, cfg).filter(|v| v.probability > FLAG)
}

fn accepts(sensitivity: Sensitivity, v: &Verdict) -> bool {
    match sensitivity {
        Sensitivity::Strict => v.probability > FLAG,
        Sensitivity::Balanced => {
            let bar = if v.conflict_type == ConflictType::ScopeMismatch {
                SCOPE_FLAG
            } else {
                FLAG
            };
            v.probability > bar
        }
        Sensitivity::Lenient => {
            let kind_ok = matches!(
                v.conflict_type,
                ConflictType::DirectContradiction | ConflictType::NumericMismatch
            );
            kind_ok && v.probability > LENIENT_FLAG
        }
    }
}

/// Convenience for offline evaluation: `a` is stored, `b` is new; without a title each
/// memory's first ~80 characters serve as its title.
pub fn evaluate_pair(a: &str, b: &str, title: Option<&str>, cfg: &DetectConfig) -> Option<Verdict> {
    let title_of =
        |t: &str| -> String { title.map_or_else(|| t.chars().take(80).collect(), str::to_string) };
    let (ta, tb) = (title_of(a), title_of(b));
    let old = Memory {
        title: &ta,
        body: a,
        labels: &[],
        confidence: 0.8,
        embedding: None,
    };
    let new = Memory {
        title: &tb,
        body: b,
        ..old
    };
    assess(&new, &old, cfg)
}

/// Normalized index tokens of `title + " " + body`, deduplicated, at most ~256.
pub fn index_tokens(title: &str, body: &str) -> Vec<String> {
    tokens::index_tokens(title, body)
}

/// Numbers among the index tokens that name the memory's subject ("3" in "the cache ttl for
/// service 3"): candidates are looked up by them like words, since facts about numbered
/// subjects differ in nothing else.
pub fn subject_names(title: &str, body: &str) -> Vec<String> {
    let text = format!("{title} {body}");
    let tokens = tokens::tokenize(&text);
    let mut out: Vec<String> = (0..tokens.len())
        .filter(|&i| values::names_subject(&tokens, &text, i))
        .map(|i| tokens[i].norm.to_string())
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The text analysed for a memory: the title is dropped when the body already starts with it,
/// so a title derived from the body does not duplicate its words in the alignment. A report
/// sentence is reduced to the claim it reports.
fn memory_text(m: &Memory) -> Text {
    let title = m.title.trim();
    let body = text::claim(tokens::clip(m.body));
    if title.is_empty() || m.body.trim_start().starts_with(title) {
        Text {
            text: body.to_string(),
            body_at: 0,
        }
    } else {
        Text {
            text: format!("{title}\n{body}"),
            body_at: title.len() + 1,
        }
    }
}

/// A memory's analysed text and the byte offset where its body starts.
struct Text {
    text: String,
    body_at: usize,
}

/// Whether the two memories carry the same title of their own (not one derived from the body)
/// or share a label: then they are about the same thing even when their texts share few words.
fn titles_agree(a: &Memory, aa: &Analysis, b: &Memory, ab: &Analysis) -> bool {
    let same_title = matches!((&aa.own_title, &ab.own_title), (Some(x), Some(y)) if x == y);
    same_title || a.labels.iter().any(|l| b.labels.contains(l))
}

/// Heuristic tier: the overlap gate, then the strongest opposing signal. Change language
/// (a replaced value, an ended state, a reversed policy, an antonym) is also judged below the
/// gate when the memories share their subject, because such statements are short and rarely
/// repeat the old value. A question, stored or new, asserts nothing.
fn heuristic(old: &Analysis, new: &Analysis, cfg: &DetectConfig, titled: bool) -> Option<Verdict> {
    if new.question || old.question {
        return None;
    }
    let (so, sn) = (&old.side, &new.side);
    // What statements rule out is read from short memories only: a long text's one statement
    // is rarely all it says.
    let short = |a: &Analysis| a.side.tokens.len() - a.body_from <= SHORT_STATEMENT;
    if short(old) && short(new) && judge::vetoes(&old.statements, &new.statements) {
        return None;
    }
    let overlap = old.overlap(new);
    let (bo, bn) = (old.body(), new.body());
    let gated = overlap >= cfg.min_overlap || short_restatement(&bo, &bn);
    let mut evidence = if gated {
        collect(so, sn)
    } else if contained(&old.units, &new.units) {
        // A short restatement of part of a long memory: only a keyed value can oppose it.
        numeric::keyed_change(so, sn)
            .filter(|_| subjects::loose_agree(so, sn))
            .into_iter()
            .collect()
    } else {
        Vec::new()
    };
    let agree = subjects::loose_agree(so, sn);
    if titled && evidence.is_empty() && agree {
        evidence.extend(bounds::violated(so, sn));
    }
    // Change language counts only where the subjects agree, and it can only take evidence
    // away otherwise: with none yet and other subjects, the pair has no verdict. Most
    // candidates a write is judged against end here, before the costliest rules.
    // Statements judge themselves (their own past, plans and additions included), so their
    // evidence is added after the text-wide guards below.
    // They are judged only where their verdict can count: a pair the text rules already
    // flagged keeps the text rules' verdict.
    let mut judged: Option<Option<Evidence>> = None;
    let mut said = || {
        judged
            .get_or_insert_with(|| judge::judge(&old.statements, &new.statements))
            .clone()
    };
    if evidence.is_empty() && !agree && said().is_none() {
        return None;
    }
    let changes = changes(&bo, &bn, gated, titled);
    if !changes.evidence.is_empty() && agree {
        evidence.extend(changes.evidence);
    }
    if changes.adds {
        evidence.retain(|e| e.signal != Signal::Replacement);
    }
    if changes.past {
        evidence.clear();
    }
    // Statements speak where the text rules found nothing: a pair both read keeps the text
    // rules' verdict, type and signals.
    if !evidence.iter().any(|e| e.probability > FLAG) {
        evidence.extend(said());
    }
    combine(evidence, overlap)
}

/// The rules that read what a new memory says has changed: change language (`change`), then
/// attribute slots, exclusive states, attachments, nationalities and kinds of things. A memory
/// about the past opposes nothing in the present: then none but change language runs.
fn changes(old: &Body, new: &Body, topical: bool, titled: bool) -> change::Changes {
    let mut changes = change::collect(&old.lexed(), &new.lexed(), topical, titled);
    if changes.past {
        return changes;
    }
    let out = &mut changes.evidence;
    let (o, n) = (old.tokens(), new.tokens());
    out.extend(slots::replaced(old.stated(), new.stated()));
    out.extend(slots::exclusive_state(o, &old.side.text, n, &new.side.text));
    if topical || titled || same_head(old, new) {
        out.extend(attachment::changed(o, &old.side.text, n, &new.side.text));
        out.extend(nationality::changed(o, &old.side.text, n, &new.side.text));
    }
    if same_head(old, new) {
        out.extend(categories::swapped_kind(
            o,
            &old.side.text,
            n,
            &new.side.text,
        ));
    } else if titled {
        out.extend(categories::titled_kind(o, n, &new.side.text));
    }
    changes
}

/// Most body tokens of a memory whose statements may rule a pair out (see `judge::vetoes`).
const SHORT_STATEMENT: usize = 16;

/// Share of the shorter memory's overlap units that the longer one must hold for the shorter
/// to count as a restatement of part of it.
const CONTAINED: f64 = 0.75;

/// Whether the shorter memory is mostly made of the longer one's words ("Dan Brown was born
/// June 22, 1961" against a biography that says "born June 22, 1964"): Jaccard is small only
/// because the stored memory says much more.
fn contained(ua: &Units, ub: &Units) -> bool {
    let (short, long) = if ua.len() <= ub.len() {
        (ua, ub)
    } else {
        (ub, ua)
    };
    !short.is_empty() && short.shared(long) as f64 / short.len() as f64 >= CONTAINED
}

/// Most tokens of a memory short enough that its grammar words outweigh its content.
const SHORT: usize = 12;

/// Two short memories that are versions of one statement about the same subject ("Standup is
/// at 9:30." / "Standup is at 10:00."): their few content words overlap too little for the
/// gate, though everything but the value lines up.
fn short_restatement(old: &Body, new: &Body) -> bool {
    let (a, b) = (&old.side.tokens[old.from..], &new.side.tokens[new.from..]);
    if a.len() > SHORT || b.len() > SHORT || !same_head(old, new) {
        return false;
    }
    align::align(a, b).is_some_and(|al| al.ratio >= align::NEAR_DUPLICATE)
}

fn collect(old: &Side, new: &Side) -> Vec<Evidence> {
    // Only a near-duplicate's alignment is read (the scope check reads its ratio alone), so
    // pairs that share too few stems to be one skip the diff.
    let al = align::could_reach(&old.stem_keys, &new.stem_keys, align::NEAR_DUPLICATE)
        .then(|| align::align(&old.tokens, &new.tokens))
        .flatten();
    let near = al.as_ref().filter(|a| a.ratio >= align::NEAR_DUPLICATE);
    let mut out = Vec::new();
    if let Some(a) = near {
        out.extend(signals::aligned_negation(old, new, a));
        out.extend(numeric::aligned_change(old, new, a));
        out.extend(signals::enum_swap(old, new, a));
    } else {
        out.extend(signals::loose_negation(old, new));
        out.extend(numeric::keyed_change(old, new));
    }
    out.extend(signals::replacement(old, new));
    out.extend(signals::scope(old, new, al.as_ref()));
    // A value, negation or replacement only opposes a memory about the same subject.
    out.retain(|e| match near {
        Some(a) => subjects::aligned_agree(old, new, a, e.at),
        None => subjects::loose_agree(old, new),
    });
    out
}

/// The strongest evidence decides type and explanation; each further independent signal that
/// would flag on its own adds a little confidence.
fn combine(mut evidence: Vec<Evidence>, overlap: f64) -> Option<Verdict> {
    evidence.sort_by(|a, b| b.probability.total_cmp(&a.probability));
    let best = evidence.first()?.clone();
    let mut signals = vec![best.signal];
    let mut probability = best.probability;
    for e in &evidence[1..] {
        if e.probability > FLAG && !signals.contains(&e.signal) {
            signals.push(e.signal);
            probability = (probability + 0.05).min(0.99);
        }
    }
    Some(Verdict {
        tier: Tier::Heuristic,
        conflict_type: best.kind,
        probability,
        signals,
        overlap,
        similarity: None,
        explanation: best.explanation,
    })
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_facts;
#[cfg(test)]
mod tests_kinds;
#[cfg(test)]
mod tests_statements;
