//! Subject agreement: a changed value, a negation or a replacement only contradicts a memory
//! about the *same* subject in the same context. Templated memories ("In staging, the
//! sync-relay error budget is 5%.") share almost every word with memories about other services
//! or environments, so overlap and alignment alone would pair "the payments service timeout is
//! 30s" with "the search service timeout is 60s". When the two texts differ in a subject-like
//! span *besides* the evidence itself, they describe different subjects and the evidence is
//! dropped.
//!
//! Subject-like spans are recognised by form, never by vocabulary about a domain:
//! - identifiers: tokens glued into a compound by `-`, `.`, `_` or `/` ("sync-relay",
//!   "ledger.api", "us-east-1"), and words that mix letters and digits ("gateway2", "p99");
//! - environment qualifiers: a closed list of deployment words (production, staging, dev, …)
//!   and the word naming a cluster, region or zone ("the *eu* cluster");
//! - names (capitalised words inside a sentence, "Alice") that open a sentence, and swapped
//!   modifiers of a shared noun that open a clause's noun phrase ("The *payments* service" /
//!   "The *search* service", "*支付*服务" / "*搜索*服务"); later in a sentence such swaps are as
//!   often a second changed fact as a subject, so they do not count there;
//! - a changed value's key: common words substituted shortly before it in its clause ("the
//!   timeout for *uploads* is 30s" / "for *downloads* is 60s").
//!
//! Only substitutions count: a qualifier added on one side narrows the statement but does not
//! name another subject. Chinese has no capitals or hyphenated names, so its subjects are
//! caught as swapped modifiers.

use std::collections::HashSet;
use std::ops::Range;

use super::align::{Alignment, Hunk};
use super::evidence::At;
use super::lexicon;
use super::side::{Side, Words};
use super::tokens::Kind;
use super::values;

/// Nouns after which the preceding word names a deployment location ("the eu cluster").
const LOCATION_HEADS: &[&str] = &[
    "cluster",
    "region",
    "zone",
    "datacenter",
    "environment",
    "env",
];

/// Most content tokens a swapped modifier may have on either side.
const MAX_MODIFIER: usize = 4;

/// Most content words between a value and a substituted word that still belongs to its key
/// ("the *storage* runbook dated 2026-10-22").
const KEY_REACH: usize = 4;

/// Whether token `i` lies inside a typed value (number, date, version...).
fn in_value(side: &Side, i: usize) -> bool {
    side.values.iter().any(|v| v.first <= i && i < v.end)
}

/// Whether tokens `i` and `i + 1` are written as one compound ("sync-relay", "us-east-1").
fn glued(side: &Side, i: usize) -> bool {
    let (Some(t), Some(n)) = (side.tokens.get(i), side.tokens.get(i + 1)) else {
        return false;
    };
    n.kind != Kind::Cjk
        && t.kind != Kind::Cjk
        && matches!(&side.text[t.end..n.start], "-" | "." | "_" | "/")
}

/// Whether token `i` opens a sentence (or the text), where capitals carry no information.
fn sentence_start(side: &Side, i: usize) -> bool {
    let Some(p) = i.checked_sub(1).map(|p| &side.tokens[p]) else {
        return true;
    };
    let gap = &side.text[p.end..side.tokens[i].start];
    gap.contains([
        '.', '!', '?', '\n', ':', ';', '。', '！', '？', '"', '(', '[',
    ])
}

/// Whether token `i` identifies a subject by its form alone: an identifier ("sync-relay",
/// "gateway2", "ledger.api") or an environment qualifier. Tokens inside values never do.
pub fn is_identifier(side: &Side, i: usize) -> bool {
    let t = &side.tokens[i];
    if in_value(side, i) || t.kind == Kind::Cjk {
        return false;
    }
    if lexicon::is_environment(&t.norm) || location_word(side, i) {
        return true;
    }
    if t.kind == Kind::Number {
        return values::names_subject(&side.tokens, &side.text, i);
    }
    if !is_word(side, i) {
        return false;
    }
    let compound = glued(side, i) || (i > 0 && glued(side, i - 1));
    let mixed = t.norm.chars().any(|c| c.is_ascii_digit());
    compound || mixed || t.norm.contains(['.', '_'])
}

/// A capitalised word inside a sentence: a name, which may be a subject or an object.
fn is_name(side: &Side, i: usize) -> bool {
    let t = &side.tokens[i];
    is_word(side, i)
        && !in_value(side, i)
        && side.text[t.start..t.end]
            .chars()
            .next()
            .is_some_and(char::is_uppercase)
        && !sentence_start(side, i)
}

fn is_word(side: &Side, i: usize) -> bool {
    let t = &side.tokens[i];
    t.kind == Kind::Word && !lexicon::is_stopword(&t.norm) && !lexicon::is_reference_word(&t.norm)
}

/// Whether `at` opens the first noun phrase of its clause: nothing but grammar words since the
/// last boundary, and either a sentence start or a determiner right before ("The *payments*
/// service", "In staging, the *search* service"). A span there is what the clause is about;
/// later in the clause it is more often an object or a further fact.
fn opens_noun_phrase(side: &Side, at: usize) -> bool {
    let determined = at > 0 && lexicon::is_reference_word(&side.tokens[at - 1].norm);
    opens(side, at, clause_break) && (determined || opens_sentence(side, at))
}

/// Like [`opens_noun_phrase`], for names, which also follow commas in lists and asides ("and, most
/// recently, Spain"): only a sentence boundary counts.
fn opens_sentence(side: &Side, at: usize) -> bool {
    opens(side, at, |s, i| gap_has(s, i, SENTENCE_BREAKS))
}

/// Whether the span `r` is the subject of its sentence: only determiners before it, and no
/// definite description after it. "*Frank* is based in London" is about Frank; in
/// "*Buddhism* is the official religion" the subject is the value of a unique role.
pub fn opens_subject(side: &Side, r: Range<usize>) -> bool {
    const DETERMINERS: &[&str] = &["the", "a", "an", "this", "that", "our", "my", "your"];
    let first = &side.tokens[r.start].norm;
    if r.len() > 3 || lexicon::is_reference_word(first) {
        return false;
    }
    let mut i = r.start;
    while i > 0 && !gap_has(side, i - 1, SENTENCE_BREAKS) {
        i -= 1;
        if !DETERMINERS.contains(&side.tokens[i].norm.as_str()) {
            return false;
        }
    }
    let next = |k: usize| side.tokens.get(r.end + k).map(|t| t.norm.as_str());
    let copula = matches!(next(0), Some("is" | "was" | "are" | "were"));
    let aside = side
        .tokens
        .get(r.end)
        .is_some_and(|t| side.text[side.tokens[r.end - 1].end..t.start].contains('('));
    !(aside || (copula && next(1) == Some("the")))
}

fn opens(side: &Side, at: usize, stop: fn(&Side, usize) -> bool) -> bool {
    let mut i = at;
    while i > 0 && !stop(side, i - 1) {
        i -= 1;
        if side.tokens[i].is_content() {
            return false;
        }
    }
    true
}

/// Marks that end a sentence; colons and semicolons open lists of objects, so they only end a
/// clause.
const SENTENCE_BREAKS: &[char] = &['.', '!', '?', '\n', '。', '！', '？'];

fn clause_break(side: &Side, i: usize) -> bool {
    gap_has(side, i, SENTENCE_BREAKS) || gap_has(side, i, &[',', ';', ':', '(', '，', '；', '：'])
}

/// Whether the text between token `i` and the next holds one of `marks`.
fn gap_has(side: &Side, i: usize, marks: &[char]) -> bool {
    let (t, n) = (&side.tokens[i], &side.tokens[i + 1]);
    side.text[t.end..n.start].contains(marks)
}

/// The word naming a cluster, region or zone: "eu" in "the eu cluster".
fn location_word(side: &Side, i: usize) -> bool {
    let t = &side.tokens[i];
    t.is_content()
        && t.kind != Kind::Number
        && side
            .tokens
            .get(i + 1)
            .is_some_and(|n| LOCATION_HEADS.contains(&n.norm.as_str()))
}

/// Stems of the tokens of `side` in `r` that pass `f`.
fn stems_in(side: &Side, r: Range<usize>, f: fn(&Side, usize) -> bool) -> HashSet<&str> {
    r.filter(|&i| f(side, i))
        .map(|i| side.tokens[i].stem.as_str())
        .collect()
}

/// Content tokens outside values in `r`: what a side of a hunk says besides figures.
fn content_in(side: &Side, r: Range<usize>) -> usize {
    r.filter(|&i| {
        let t = &side.tokens[i];
        t.is_content() && !in_value(side, i) && !lexicon::is_reference_word(&t.norm)
    })
    .count()
}

fn has_value(side: &Side, r: &Range<usize>) -> bool {
    side.values
        .iter()
        .any(|v| v.first < r.end && r.start < v.end)
}

/// Whether a hunk substitutes one subject for another. Both sides must say something besides
/// figures (a pronoun for a name, or an added qualifier, is no substitution). Identifiers and
/// environments that differ name another subject wherever they stand; a different name, or a
/// swapped modifier of a noun both sides share, only where it opens its clause ("The
/// *payments* service timeout is 30s"), because later in a sentence it is as often a second
/// changed fact as a subject.
pub fn hunk_names_other_subject(old: &Side, new: &Side, h: &Hunk) -> bool {
    let (ca, cb) = (content_in(old, h.a.clone()), content_in(new, h.b.clone()));
    if ca == 0 || cb == 0 {
        return false;
    }
    let differ = |f: fn(&Side, usize) -> bool| {
        let (sa, sb) = (stems_in(old, h.a.clone(), f), stems_in(new, h.b.clone(), f));
        !sa.is_empty() && !sb.is_empty() && sa != sb
    };
    if differ(is_identifier) {
        return true;
    }
    let opens = |f: fn(&Side, usize) -> bool| f(old, h.a.start) && f(new, h.b.start);
    (differ(is_name) && opens(opens_sentence))
        || (swapped_modifier(old, new, h, ca, cb) && opens(opens_noun_phrase))
}

/// A short substitution of common words on both sides: no figures and no names, which are
/// judged by their own rule ("The *show* debuted" / "*The Office* debuted" is one referent).
fn plain_words(old: &Side, new: &Side, h: &Hunk, ca: usize, cb: usize) -> bool {
    let plain = |s: &Side, r: &Range<usize>| !has_value(s, r) && !r.clone().any(|i| is_name(s, i));
    ca <= MAX_MODIFIER && cb <= MAX_MODIFIER && plain(old, &h.a) && plain(new, &h.b)
}

/// "*payments* service" / "*search* service": a short substitution, without figures, right
/// before a content word that both sides share.
fn swapped_modifier(old: &Side, new: &Side, h: &Hunk, ca: usize, cb: usize) -> bool {
    if !plain_words(old, new, h, ca, cb) {
        return false;
    }
    fn head(s: &Side, at: usize) -> Option<&str> {
        s.tokens
            .get(at)
            .filter(|t| t.is_content() && t.kind != Kind::Number && !in_value(s, at))
            .map(|t| t.stem.as_str())
    }
    let last_content = |s: &Side, r: &Range<usize>| {
        r.clone()
            .next_back()
            .is_some_and(|i| s.tokens[i].is_content())
    };
    // Hunks are maximal unmatched runs, so the tokens after them are the same word.
    let shared = head(old, h.a.end).is_some_and(|x| head(new, h.b.end) == Some(x));
    // The modifier stands right before its noun, with no punctuation between.
    let attached = |s: &Side, r: &Range<usize>| !clause_break(s, r.end - 1);
    shared
        && attached(old, &h.a)
        && attached(new, &h.b)
        && last_content(old, &h.a)
        && last_content(new, &h.b)
        && !glued_across(old, h.a.end)
        && !glued_across(new, h.b.end)
}

/// Whether the token before `at` is glued to it: then the hunk is part of an identifier and
/// was judged as one.
fn glued_across(side: &Side, at: usize) -> bool {
    at > 0 && glued(side, at - 1)
}

/// Subject agreement of two near-duplicates with evidence `at`: false when a hunk other than
/// the evidence names another subject, when the evidence is itself a swapped subject beside
/// other changes, or when a changed value's key — the words before it in
/// its clause — was substituted ("*storage* runbook dated 2026-10-22" / "*payments* runbook
/// dated 2026-12-19"). A value's own hunk is checked with its figures set aside, so
/// "production 30s" → "staging 60s" still reads as a change of environment.
pub fn aligned_agree(old: &Side, new: &Side, al: &Alignment, at: At) -> bool {
    if !same_relatives(old, new) {
        return false;
    }
    let exempt = match at {
        At::Hunk(k) => Some(k),
        At::Text | At::Value(_) => None,
    };
    let other_subject = al
        .hunks
        .iter()
        .enumerate()
        .any(|(k, h)| Some(k) != exempt && hunk_names_other_subject(old, new, h));
    // A swapped span that is itself a subject is only the evidence when nothing else was
    // substituted, negated or refigured: "The *payments* service timeout is 30s" / "The
    // *search* service timeout is 60s" swaps the subject *and* the value.
    // Likewise a swapped key before a changed figure: "the timeout for *uploads* is 30s" /
    // "the timeout for *downloads* is 60s".
    let swapped_subject = exempt.is_some_and(|k| {
        let h = &al.hunks[k];
        let keys_a_value = al.hunks[k + 1..].iter().any(|v| {
            has_value(old, &v.a) && has_value(new, &v.b) && substitutes_key(old, new, h, v)
        });
        let other_change = al.hunks.iter().enumerate().any(|(j, v)| {
            let substituted = content_in(old, v.a.clone()) > 0 && content_in(new, v.b.clone()) > 0;
            j != k
                && (substituted
                    || (has_value(old, &v.a) && has_value(new, &v.b))
                    || old.negators(v.a.clone()) != new.negators(v.b.clone()))
        });
        (other_change && hunk_names_other_subject(old, new, h)) || keys_a_value
    });
    let other_key = match at {
        At::Value(k) => al.hunks[..k]
            .iter()
            .any(|h| substitutes_key(old, new, h, &al.hunks[k])),
        At::Text | At::Hunk(_) => false,
    };
    !other_subject && !swapped_subject && !other_key
}

/// Whether `h`, shortly before the value hunk `v` in the same clause on both sides, replaces a
/// few common words with others (not figures or names, not a mere insertion, not a rewritten
/// clause).
fn substitutes_key(old: &Side, new: &Side, h: &Hunk, v: &Hunk) -> bool {
    // No boundary between the hunk's last token and the value's first, and few words.
    let near = |s: &Side, end: usize, to: usize| {
        (end - 1..to).all(|i| !clause_break(s, i))
            && (end..to).filter(|&i| s.tokens[i].is_content()).count() <= KEY_REACH
    };
    let (ca, cb) = (content_in(old, h.a.clone()), content_in(new, h.b.clone()));
    ca > 0
        && cb > 0
        && plain_words(old, new, h, ca, cb)
        && near(old, h.a.end, v.a.start)
        && near(new, h.b.end, v.b.start)
}

/// Subject agreement of memories that are not versions of one statement: false when the
/// environments they name are disjoint or each names an identifier the other lacks.
pub fn loose_agree(old: &Side, new: &Side) -> bool {
    if !same_relatives(old, new) {
        return false;
    }
    let (ea, eb) = (&old.environments, &new.environments);
    if !ea.is_empty() && !eb.is_empty() && ea.is_disjoint(eb) {
        return false;
    }
    let (ia, ib) = (&old.identifiers, &new.identifiers);
    ia.is_subset(ib) || ib.is_subset(ia)
}

/// Stems of the environments a side names; kept on the side.
pub(super) fn environments(side: &Side) -> Words {
    (0..side.tokens.len())
        .filter(|&i| {
            !in_value(side, i)
                && (lexicon::is_environment(&side.tokens[i].norm) || location_word(side, i))
        })
        .map(|i| side.tokens[i].stem.to_string())
        .collect()
}

/// Compound and mixed letter-digit identifiers, written out whole ("sync-relay"); kept on the
/// side.
pub(super) fn identifiers(side: &Side) -> Words {
    let mut out = Words::default();
    let mut i = 0;
    while i < side.tokens.len() {
        let mut j = i;
        while glued(side, j) {
            j += 1;
        }
        let run = i..j + 1;
        let plain = run.clone().all(|k| !in_value(side, k));
        let t = &side.tokens[i];
        let single = t.kind == Kind::Word
            && (t.norm.chars().any(|c| c.is_ascii_digit()) || t.norm.contains(['.', '_']));
        if plain && (run.len() > 1 || single) {
            let (s, e) = (side.tokens[i].start, side.tokens[j].end);
            out.insert(side.text[s..e].to_lowercase());
        } else if i > 0 && values::names_subject(&side.tokens, &side.text, i) {
            // "service 3": the number is only an identifier together with its noun.
            out.insert(format!("{} {}", side.tokens[i - 1].stem, t.norm));
        }
        i = j + 1;
    }
    out
}

/// Whether both memories speak of the same relatives of their owner: "*my brother* is 30"
/// is not about the "I" of "I am 25", nor "用户*的妈妈*" about "用户". A relative counts when a
/// possessive comes right before it, so "lives with two brothers" names no subject.
fn same_relatives(old: &Side, new: &Side) -> bool {
    let (a, b) = (&old.relatives, &new.relatives);
    a.len() == b.len() && a.iter().all(|r| b.contains(r))
}

/// The relatives a side's sentences open with; kept on the side.
pub(super) fn relatives(side: &Side) -> Vec<String> {
    let ts = &side.tokens;
    let mut out = Vec::new();
    let mut opened = 0;
    for i in 0..ts.len() {
        if sentence_start(side, i) {
            opened = i;
        }
        // Only a possessive that opens its sentence names its subject: "*my brother* is 30",
        // "*用户的*妈妈"; "they visit my grandmother" is about "they".
        let opens = |k: usize| k == opened || (k == opened + 1 && ts[opened].norm == "the");
        let at_start =
            i > 0 && (opens(i - 1) || (ts[i - 1].norm == "的" && i - opened <= SUBJECT_REACH));
        if !at_start {
            continue;
        }
        let (before, t) = (ts[i - 1].norm.as_str(), ts[i].norm.as_str());
        let owned = matches!(
            before,
            "my" | "our" | "his" | "her" | "their" | "user's" | "的" | "我" | "제" | "내" | "우리"
        );
        // Chinese and Korean kinship words are two characters: "妈妈", "언니".
        if owned && lexicon::is_relative(t) {
            out.push(ts[i].stem.to_string());
        } else if owned
            && let Some(n) = ts.get(i + 1)
            && lexicon::is_relative(&side.text[ts[i].start..n.end])
        {
            out.push(ts[i].norm.to_string());
        }
    }
    out
}

/// How far into a sentence its subject may reach, in tokens.
const SUBJECT_REACH: usize = 3;

#[cfg(test)]
mod tests;
