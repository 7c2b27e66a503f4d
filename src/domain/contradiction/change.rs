//! Change language: the everyday ways an agent records that a fact stopped being true. A new
//! memory that says the old value was replaced ("moved to", "改成"), that a state ended
//! ("left", "离职"), that a policy was reversed ("never X" / "X is fine now"), or that states
//! the antonym of the stored word (enabled / disabled, 允许 / 禁止, 허용 / 금지) contradicts a
//! stored memory about the same subject, even when the two share few words: such statements
//! are short and rarely repeat the old value.
//!
//! Every signal here needs the same subject — one of the first content words of each memory
//! in common, or agreeing titles with a word in common — and a substitution (each side says
//! something the other does not), so that additions ("also", "too") and restatements stay
//! unflagged. A memory about the past ("used to", "小时候") opposes nothing in the present.

use super::evidence::Evidence;
use super::lexicon;
use super::phrases::{Lexed, find, has};
use super::shifts;

use super::tokens::{Kind, Token};
use super::words::{root, same_root};
use super::{ConflictType, Signal};

/// How many content units at the start of a memory name its subject.
const HEAD: usize = 3;

/// Content units of a body outside `skip`: roots of content words and numbers, and CJK
/// character pairs (a lone CJK character counts as itself).
fn units(tokens: &[Token], skip: &[usize]) -> Vec<String> {
    let kept: Vec<Token> = tokens
        .iter()
        .enumerate()
        .filter(|(i, t)| {
            !skip.contains(i)
                && !(t.kind == Kind::Word && (shifts::is_cue_word(&t.norm) || t.is_negator()))
        })
        .map(|(_, t)| t.clone())
        .collect();
    super::tokens::overlap_units(&kept)
        .into_iter()
        .map(|u| root(&u).to_string())
        .collect()
}

fn shares(a: &[String], b: &[String]) -> bool {
    a.iter().any(|x| b.iter().any(|y| same_root(x, y)))
}

fn unique(a: &[String], b: &[String]) -> bool {
    a.iter().any(|x| !b.iter().any(|y| same_root(x, y)))
}

/// What the pair has in common, measured once per pair.
struct Pair {
    old: Vec<String>,
    new: Vec<String>,
    topical: bool,
}

impl Pair {
    fn same_subject(&self) -> bool {
        let head = |u: &[String]| u.iter().take(HEAD).cloned().collect::<Vec<_>>();
        shares(&head(&self.old), &head(&self.new)) || (self.topical && shares(&self.old, &self.new))
    }

    fn substituted(&self) -> bool {
        unique(&self.old, &self.new) && unique(&self.new, &self.old)
    }
}

/// Whether a memory states a present state rather than narrating past events: a stored state
/// can end or be replaced; "released three albums" or "was announced" cannot.
fn present(tokens: &[Token]) -> bool {
    !tokens.iter().enumerate().any(|(i, t)| {
        let aux = i > 0
            && matches!(
                tokens[i - 1].norm.as_str(),
                "is" | "are" | "be" | "been" | "being" | "get" | "gets" | "has" | "have"
            );
        matches!(
            t.norm.as_str(),
            "was" | "were" | "had" | "did" | "曾" | "过"
        ) || (t.kind == Kind::Word && t.norm.len() > 4 && t.norm.ends_with("ed") && !aux)
    })
}

/// What change language says about a pair.
pub struct Changes {
    pub evidence: Vec<Evidence>,
    /// The new memory presents itself as an addition: no replacement evidence stands.
    pub adds: bool,
    /// One memory speaks of the past ("used to"), the other of the present: nothing the two
    /// say opposes the other.
    pub past: bool,
}

/// Change evidence for a pair from change language alone (the rules that run beside it are
/// listed in `heuristic`, `mod.rs`). `topical` says the pair already passed the overlap gate;
/// `titled` that the memories carry the same title or a shared label, which lets an explicit
/// replacement ("用 Vue 替代 React") through on any shared word.
pub fn collect(to: &Lexed, tn: &Lexed, topical: bool, titled: bool) -> Changes {
    // A new memory that marks itself as an addition ("also", "too", "也") the stored one does
    // not: a different object is a further one, not a replacement.
    let adds = has(tn, shifts::ADDITIONS) && !has(to, shifts::ADDITIONS);
    if has(to, shifts::PAST) != has(tn, shifts::PAST) {
        return Changes {
            evidence: Vec::new(),
            adds,
            past: true,
        };
    }
    let mut out = Vec::new();
    out.extend(state_change(to, tn, topical, titled));
    out.extend(ending(to, tn, topical));
    out.extend(policy(to, tn, topical).or_else(|| policy(tn, to, topical)));
    out.extend(antonym(to, tn, topical));
    out.extend(voice(to, tn).or_else(|| voice(tn, to)));
    Changes {
        evidence: out,
        adds,
        past: false,
    }
}

fn pair(old: &Lexed, new: &Lexed, skip: &[usize], topical: bool) -> Pair {
    Pair {
        old: units(old, &[]),
        new: units(new, skip),
        topical,
    }
}

fn state_change(old: &Lexed, new: &Lexed, topical: bool, titled: bool) -> Option<Evidence> {
    if !present(old) {
        return None;
    }
    let (cue, strong, at) = shifts::STATE_CUES.iter().find_map(|(c, strong)| {
        let at = find(new, c)?;
        find(old, c).is_none().then_some((*c, *strong, at))
    })?;
    let p = pair(old, new, &at, topical || (titled && strong));
    let named = strong && names_replaced(old, new, &at);
    let ok = (p.same_subject() || named) && p.substituted() && (strong || topical);
    ok.then(|| {
        let prob = if strong { 0.72 } else { 0.6 };
        Evidence::new(
            Signal::Replacement,
            ConflictType::DirectContradiction,
            prob,
            format!("state change: \"{cue}\""),
        )
    })
}

/// Whether the word right before or after a replacement cue is one the stored memory states:
/// "用 Vue 替代 *React*", "*React* 改成 Vue", "instead of *React*" name the replaced value.
fn names_replaced(old: &Lexed, new: &Lexed, at: &[usize]) -> bool {
    let (first, last) = (at[0], at[at.len() - 1]);
    let near = [first.checked_sub(1), Some(last + 1)];
    near.into_iter().flatten().any(|i| {
        new.get(i).is_some_and(|t| {
            t.kind != Kind::Cjk && t.is_content() && old.iter().any(|o| o.stem == t.stem)
        })
    })
}

fn ending(old: &Lexed, new: &Lexed, topical: bool) -> Option<Evidence> {
    let (cue, at) = shifts::ENDING_CUES.iter().find_map(|c| {
        let at = find(new, c)?;
        let spatial = c == &"left"
            && at[0] > 0
            && matches!(new[at[0] - 1].norm.as_str(), "the" | "on" | "to" | "at");
        (find(old, c).is_none() && !spatial).then_some((*c, at))
    })?;
    if !present(old) || (cue.ends_with("again") && !old.iter().any(|t| t.is_negator())) {
        return None;
    }
    let p = pair(old, new, &at, topical);
    let shared = p
        .new
        .iter()
        .filter(|x| p.old.iter().any(|y| same_root(x, y)))
        .count();
    let covered = !p.new.is_empty() && !unique(&p.new, &p.old);
    (p.same_subject() && (shared >= 2 || covered)).then(|| {
        Evidence::new(
            Signal::Negation,
            ConflictType::DirectContradiction,
            0.7,
            format!("ended: \"{cue}\""),
        )
    })
}

/// One side forbids what the other allows: "Never deploy on Fridays" / "Deploying on Fridays
/// is fine now".
fn policy(forbids: &Lexed, allows: &Lexed, topical: bool) -> Option<Evidence> {
    let no = shifts::PROHIBITIONS
        .iter()
        .find_map(|c| find(forbids, c).map(|at| (*c, at)))?;
    let yes = shifts::PERMISSIONS.iter().find_map(|c| {
        let at = find(allows, c)?;
        let negated = allows[at[0].saturating_sub(2)..at[0]]
            .iter()
            .any(|t| t.is_negator());
        (!negated && find(forbids, c).is_none()).then_some((*c, at))
    })?;
    if has(allows, shifts::PROHIBITIONS) {
        return None;
    }
    let p = Pair {
        old: units(forbids, &no.1),
        new: units(allows, &yes.1),
        topical,
    };
    (p.same_subject() || shares(&p.old, &p.new)).then(|| {
        Evidence::new(
            Signal::Negation,
            ConflictType::DirectContradiction,
            0.75,
            format!("policy reversed: \"{}\" vs \"{}\"", no.0, yes.0),
        )
    })
}

fn antonym(old: &Lexed, new: &Lexed, topical: bool) -> Option<Evidence> {
    let hit = shifts::ANTONYMS.iter().find_map(|&(x, y)| {
        [(x, y), (y, x)].into_iter().find_map(|(a, b)| {
            let (ia, ib) = (find(old, a)?, find(new, b)?);
            let negated = |ts: &[Token], at: usize| {
                ts[at.saturating_sub(2)..at].iter().any(|t| t.is_negator())
            };
            let clean = find(new, a).is_none()
                && find(old, b).is_none()
                && !negated(old, ia[0])
                && !negated(new, ib[0]);
            clean.then_some((a, b, ia, ib))
        })
    });
    let (a, b, ia, ib) = hit?;
    let p = Pair {
        old: units(old, &ia),
        new: units(new, &ib),
        topical,
    };
    (p.same_subject() && shares(&p.old, &p.new)).then(|| {
        Evidence::new(
            Signal::Negation,
            ConflictType::DirectContradiction,
            0.75,
            format!("opposite: \"{a}\" vs \"{b}\""),
        )
    })
}

/// "The payments team owns the billing service" / "The billing service is owned by the
/// platform team": the same relation and object in the other voice, with another agent.
fn voice(active: &Lexed, passive: &Lexed) -> Option<Evidence> {
    let v = (1..passive.len().saturating_sub(1)).find(|&i| {
        passive[i + 1].norm == "by"
            && passive[i].kind == Kind::Word
            && passive[i].norm.ends_with("ed")
            && matches!(
                passive[i - 1].norm.as_str(),
                "is" | "are" | "was" | "were" | "been" | "be"
            )
    })?;
    let verb = &passive[v].norm;
    let j = (1..active.len()).find(|&j| {
        active[j].kind == Kind::Word
            && active[j].norm != *verb
            && root(&active[j].norm) == root(verb)
            && !lexicon::is_reference_word(&active[j - 1].norm)
            && active.get(j + 1).is_none_or(|t| t.norm != "by")
    })?;
    if !present(active) {
        return None;
    }
    let content = |ts: &[Token]| -> Vec<String> {
        ts.iter()
            .filter(|t| t.is_content())
            .map(|t| root(&t.stem).to_string())
            .collect()
    };
    let agent = content(&passive[v + 2..(v + 6).min(passive.len())]);
    let object = content(&passive[..v - 1]);
    let subject = content(&active[..j]);
    let target = content(&active[j + 1..(j + 5).min(active.len())]);
    let other_agent = unique(&agent, &subject) && unique(&subject, &agent);
    (shares(&object, &target) && other_agent && !subject.is_empty()).then(|| {
        Evidence::new(
            Signal::Replacement,
            ConflictType::DirectContradiction,
            0.7,
            format!("\"{}\" changed hands", passive[v].norm),
        )
    })
}
