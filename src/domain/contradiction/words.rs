//! Word helpers shared by the rules: a light root for word forms, the objects of many-valued
//! verbs, swapped day words, and the copula that opens what a subject is.

use super::align::Alignment;
use super::shifts;
use super::side::Side;
use super::tokens::{Kind, Token};

/// A light root for matching word forms: "deploying" ~ "deploy", "owned" ~ "owns".
pub fn root(w: &str) -> &str {
    // Suffixes and doubled consonants are English spelling; slicing other scripts by byte
    // would cut a character in two.
    if !w.is_ascii() {
        return w;
    }
    let mut s = w;
    for suffix in ["ing", "ed", "es", "s"] {
        if s.len() > suffix.len() + 2 && s.ends_with(suffix) {
            s = &s[..s.len() - suffix.len()];
            break;
        }
    }
    let b = s.as_bytes();
    let n = b.len();
    if n >= 4 && b[n - 1] == b[n - 2] && !b"aeiouls".contains(&b[n - 1]) {
        s = &s[..n - 1];
    }
    s
}

pub fn same_root(a: &str, b: &str) -> bool {
    if !a.is_ascii() || !b.is_ascii() {
        // A lone CJK character left by a removed cue matches the pairs that contain it.
        let lone = |x: &str, y: &str| x.chars().count() == 1 && y.contains(x);
        return a == b || lone(a, b) || lone(b, a);
    }
    let (ra, rb) = (root(a), root(b));
    if ra == rb {
        return true;
    }
    let (short, long) = if ra.len() <= rb.len() {
        (ra, rb)
    } else {
        (rb, ra)
    };
    short.is_ascii() && short.len() >= 4 && long.starts_with(short) && long.len() - short.len() <= 2
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

/// The first "is/was/are/were": what follows says what the subject is.
pub fn first_copula(tokens: &[Token]) -> Option<usize> {
    tokens
        .iter()
        .position(|t| matches!(t.norm.as_str(), "is" | "was" | "are" | "were"))
}

/// Whether punctuation stands between token `j` and the one before it: the phrase that says
/// what the subject is has ended.
pub fn punctuated_before(tokens: &[Token], text: &str, j: usize) -> bool {
    text[tokens[j - 1].end..tokens[j].start].contains([',', ';', '(', '.', ':'])
}

#[cfg(test)]
mod tests;
