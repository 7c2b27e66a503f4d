//! What a thing is: "The Hunger Games is a 2008 dystopian novel" / "The Hunger Games is a
//! film". Two memories about the same subject that say, each with a copula, which kind of
//! thing it is, and name kinds that exclude each other, contradict even when they share few
//! other words. Only closed classes of mutually exclusive kinds count (kinds of works, kinds of
//! places), never open ones such as occupations, where "a singer" and "a musician" are both
//! true, and never a kind and its broader class ("a novel" / "a book").

use super::evidence::Evidence;
use super::tokens::{Kind, Token};
use super::words::{first_copula, punctuated_before};
use super::{ConflictType, Signal};

/// Kinds that exclude one another, each with the words that name it.
const KINDS: &[&[&str]] = &[
    &["film", "movie", "picture"],
    &["novel", "novella"],
    &["song", "single", "track"],
    &["album", "mixtape", "ep"],
    &["game", "videogame"],
    &["series", "show", "sitcom", "programme", "program"],
    &["magazine"],
    &["newspaper"],
    &["play", "musical", "opera"],
    &["painting", "sculpture"],
    &["poem"],
    &["city"],
    &["town"],
    &["village"],
    &["country", "nation"],
    &["river"],
    &["lake"],
    &["mountain", "volcano"],
    &["island"],
];

/// Words that end the noun phrase after the copula: what follows describes, not names, the kind.
fn ends_phrase(w: &str) -> bool {
    matches!(
        w,
        "by" | "of"
            | "in"
            | "from"
            | "for"
            | "with"
            | "on"
            | "at"
            | "to"
            | "that"
            | "which"
            | "who"
            | "and"
            | "or"
            | "based"
            | "directed"
            | "written"
            | "released"
            | "produced"
            | "starring"
    )
}

fn kind_of(w: &str) -> Option<usize> {
    KINDS.iter().position(|k| k.contains(&w))
}

/// The kind a body says its subject is, with the index of the word naming it: the first kind
/// word in the noun phrase right after the first "is/was a(n)/the".
fn stated_kind(tokens: &[Token], text: &str) -> Option<(usize, usize)> {
    let c = first_copula(tokens)?;
    let mut i = c + 1;
    if tokens
        .get(i)
        .is_some_and(|t| matches!(t.norm.as_str(), "exclusively" | "only" | "just"))
    {
        i += 1;
    }
    if !matches!(tokens.get(i)?.norm.as_str(), "a" | "an" | "the") {
        return None;
    }
    for j in i + 1..tokens.len().min(i + 10) {
        let t = &tokens[j];
        let punctuated = punctuated_before(tokens, text, j);
        if t.kind != Kind::Number && (punctuated || ends_phrase(&t.norm)) {
            return None;
        }
        if let Some(k) = kind_of(&t.norm) {
            let part_of_name = tokens
                .get(j + 1)
                .is_some_and(|n| kind_of(&n.norm).is_some());
            if !part_of_name {
                return Some((k, j));
            }
        }
    }
    None
}

/// A kind stated on each side, different, with neither side naming the other's kind anywhere
/// ("a film based on the novel" keeps both).
pub fn swapped_kind(
    old: &[Token],
    old_text: &str,
    new: &[Token],
    new_text: &str,
) -> Option<Evidence> {
    let (ko, io) = stated_kind(old, old_text)?;
    let (kn, inn) = stated_kind(new, new_text)?;
    let names = |ts: &[Token], k: usize| ts.iter().any(|t| kind_of(&t.norm) == Some(k));
    if ko == kn || names(old, kn) || names(new, ko) {
        return None;
    }
    Some(Evidence::new(
        Signal::Replacement,
        ConflictType::DirectContradiction,
        0.7,
        format!(
            "kind changed: \"{}\" vs \"{}\"",
            old[io].norm, new[inn].norm
        ),
    ))
}

/// Under one title, a kind the new memory states with a copula against the one kind the stored
/// memory names anywhere ("Veep is a movie" / "… four consecutive Emmy nominations for their
/// work on the series"): the title says both are about one thing, so the stored memory need
/// not repeat the copula. A stored memory naming several kinds ("a film based on the novel")
/// says nothing about which one the subject is.
pub fn titled_kind(old: &[Token], new: &[Token], new_text: &str) -> Option<Evidence> {
    let (kn, inn) = stated_kind(new, new_text)?;
    let mut named = old.iter().enumerate().filter_map(|(i, t)| {
        let part_of_name = old.get(i + 1).is_some_and(|n| kind_of(&n.norm).is_some());
        kind_of(&t.norm).filter(|_| !part_of_name).map(|k| (k, i))
    });
    let (ko, io) = named.next()?;
    if ko == kn || named.any(|(k, _)| k != ko) || old.iter().any(|t| kind_of(&t.norm) == Some(kn)) {
        return None;
    }
    Some(Evidence::new(
        Signal::Replacement,
        ConflictType::DirectContradiction,
        0.6,
        format!(
            "kind changed: \"{}\" vs \"{}\"",
            old[io].norm, new[inn].norm
        ),
    ))
}
