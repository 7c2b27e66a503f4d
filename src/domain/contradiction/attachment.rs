//! Being without an employer or a team against working or playing for one: "is currently a
//! free agent" / "is a quarterback for the Indianapolis Colts", "The user is unemployed" /
//! "The user works at Acme", "我现在失业了" / "我在谷歌工作". One side says the subject belongs
//! nowhere, the other names where it belongs.

use super::evidence::Evidence;
use super::tokens::Token;
use super::{ConflictType, Signal};

/// Phrases (ASCII word by word, CJK character by character) that say the subject has no
/// employer or team.
const UNATTACHED: &[&[&str]] = &[
    &["free", "agent"],
    &["unemployed"],
    &["unsigned"],
    &["jobless"],
    &["out", "of", "work"],
    &["between", "jobs"],
    &["失", "业"],
    &["无", "业"],
    &["待", "业"],
    &["실", "업"],
    &["무", "직"],
];

/// Phrases that name where the subject works or plays.
const ATTACHED: &[&[&str]] = &[
    &["plays", "for"],
    &["playing", "for"],
    &["works", "at"],
    &["works", "for"],
    &["work", "at"],
    &["work", "for"],
    &["working", "at"],
    &["working", "for"],
    &["employed", "by"],
    &["employed", "at"],
    &["signed", "with"],
    &["job", "at"],
    &["工", "作"],
    &["上", "班"],
    &["에", "서", "일"],
    &["에", "서", "근", "무"],
];

fn find(tokens: &[Token], phrases: &[&[&str]]) -> Option<usize> {
    // Every pair looks both memories up: a token whose first byte opens no phrase is passed
    // over without comparing words.
    let mut opening = [0u64; 4];
    for b in phrases.iter().filter_map(|p| p.first()?.as_bytes().first()) {
        opening[usize::from(b >> 6)] |= 1 << (b & 63);
    }
    let opens = |t: &Token| {
        t.norm
            .as_bytes()
            .first()
            .is_some_and(|b| opening[usize::from(b >> 6)] & (1 << (b & 63)) != 0)
    };
    (0..tokens.len()).find(|&i| {
        opens(&tokens[i])
            && phrases.iter().any(|p| {
                p.iter()
                    .enumerate()
                    .all(|(k, w)| tokens.get(i + k).is_some_and(|t| t.norm == *w))
            })
            && !negated(tokens, i)
    })
}

fn negated(tokens: &[Token], i: usize) -> bool {
    tokens[i.saturating_sub(3)..i].iter().any(Token::is_negator)
}

/// "a quarterback *for the* Indianapolis Colts": a role held for a named team or company.
fn for_named(tokens: &[Token], text: &str) -> Option<usize> {
    (0..tokens.len().saturating_sub(2)).find(|&i| {
        tokens[i].norm == "for"
            && tokens[i + 1].norm == "the"
            && text[tokens[i + 2].start..]
                .chars()
                .next()
                .is_some_and(char::is_uppercase)
    })
}

fn attached(tokens: &[Token], text: &str) -> Option<usize> {
    find(tokens, ATTACHED).or_else(|| for_named(tokens, text))
}

/// Evidence when one side is unattached and the other names where it belongs.
pub fn changed(old: &[Token], old_text: &str, new: &[Token], new_text: &str) -> Option<Evidence> {
    let state = |ts: &[Token], text: &str| match (find(ts, UNATTACHED), attached(ts, text)) {
        (Some(i), None) => Some((false, i)),
        (None, Some(i)) => Some((true, i)),
        _ => None,
    };
    let ((ao, io), (an, inn)) = (state(old, old_text)?, state(new, new_text)?);
    if ao == an {
        return None;
    }
    let word = |ts: &[Token], i: usize| ts[i].norm.clone();
    Some(Evidence::new(
        Signal::Replacement,
        ConflictType::DirectContradiction,
        0.7,
        format!(
            "employment changed: \"{}\" vs \"{}\"",
            word(old, io),
            word(new, inn)
        ),
    ))
}
