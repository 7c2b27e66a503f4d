//! Opposing signals in words: asymmetric negation of shared content, replacement cues in the new
//! memory, universal-versus-restricted scope, and enum swaps (one short span substituted in an
//! otherwise identical statement). Each signal is judged at the place where the two memories
//! differ, never on the mere presence of a cue word, because cue words are common in agreeing
//! text too.

use super::align::{Alignment, Hunk, NEAR_DUPLICATE};
use super::attributes;
use super::evidence::{At, Evidence};
use super::lexicon;
use super::shifts;
use super::side::Side;
use super::subjects;
use super::tokens::{Kind, Token};
use super::words::{many_valued_object, same_root};
use super::{ConflictType, Signal};

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
        && attributes::other_attribute(&a.norm, &b.norm)
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
    let shared_root = ca.iter().any(|a| cb.iter().any(|b| same_root(a, b)));
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
mod tests;
