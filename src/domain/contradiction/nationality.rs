//! Where someone or something is from, stated with a copula: "Louis Malle was a *French* film
//! director" / "… was a *German* film director", "The user is Canadian" / "The user is
//! Mexican". A person or a work has one nationality in such a statement, so two different
//! ones about one subject contradict, unless one contains the other (British and Scottish) or
//! either text names the other's country or people anywhere ("an Italian footballer who plays
//! for an American club").

use super::evidence::Evidence;
use super::tokens::Token;
use super::words::{first_copula, punctuated_before};
use super::{ConflictType, Signal};

/// Nationalities, each with the words that name its people and its country.
const NATIONS: &[&[&str]] = &[
    &["american", "america", "usa"],
    &["british", "britain", "uk"],
    &["english", "england"],
    &["scottish", "scotland"],
    &["welsh", "wales"],
    &["irish", "ireland"],
    &["french", "france"],
    &["german", "germany"],
    &["italian", "italy"],
    &["spanish", "spain"],
    &["portuguese", "portugal"],
    &["dutch", "netherlands"],
    &["belgian", "belgium"],
    &["swiss", "switzerland"],
    &["austrian", "austria"],
    &["swedish", "sweden"],
    &["norwegian", "norway"],
    &["danish", "denmark"],
    &["finnish", "finland"],
    &["polish", "poland"],
    &["czech", "czechia"],
    &["russian", "russia"],
    &["ukrainian", "ukraine"],
    &["greek", "greece"],
    &["turkish", "turkey"],
    &["chinese", "china"],
    &["japanese", "japan"],
    &["korean", "korea"],
    &["indian", "india"],
    &["pakistani", "pakistan"],
    &["australian", "australia"],
    &["canadian", "canada"],
    &["mexican", "mexico"],
    &["brazilian", "brazil"],
    &["argentine", "argentinian", "argentina"],
    &["egyptian", "egypt"],
    &["nigerian", "nigeria"],
    &["israeli", "israel"],
    &["iranian", "iran"],
    &["thai", "thailand"],
    &["vietnamese", "vietnam"],
    &["indonesian", "indonesia"],
    &["hungarian", "hungary"],
    &["romanian", "romania"],
    &["bulgarian", "bulgaria"],
];

/// Nations inside another: British covers English, Scottish and Welsh.
fn contains(outer: usize, inner: usize) -> bool {
    let name = |k: usize| NATIONS[k][0];
    name(outer) == "british" && matches!(name(inner), "english" | "scottish" | "welsh")
}

fn nation(w: &str) -> Option<usize> {
    NATIONS.iter().position(|n| n.contains(&w))
}

/// The nationality stated right after the first copula ("is an *American* actor", "was
/// *Brazilian*"), with its token index. "Native American" names a people, not a nation.
fn stated(tokens: &[Token], text: &str) -> Option<(usize, usize)> {
    let c = first_copula(tokens)?;
    for j in c + 1..tokens.len().min(c + 5) {
        if punctuated_before(tokens, text, j) {
            return None;
        }
        let t = &tokens[j];
        if let Some(k) = nation(&t.norm) {
            let native = tokens[j - 1].norm == "native";
            return (!native).then_some((k, j));
        }
        if !matches!(
            t.norm.as_str(),
            "a" | "an" | "the" | "exclusively" | "only" | "currently" | "now" | "also"
        ) && t.is_content()
            && j > c + 3
        {
            return None;
        }
    }
    None
}

/// Two different nationalities stated of one subject.
pub fn changed(old: &[Token], old_text: &str, new: &[Token], new_text: &str) -> Option<Evidence> {
    let (ko, io) = stated(old, old_text)?;
    let (kn, inn) = stated(new, new_text)?;
    let names = |ts: &[Token], k: usize| ts.iter().any(|t| nation(&t.norm) == Some(k));
    if ko == kn || contains(ko, kn) || contains(kn, ko) || names(old, kn) || names(new, ko) {
        return None;
    }
    Some(Evidence::new(
        Signal::Replacement,
        ConflictType::DirectContradiction,
        0.7,
        format!(
            "nationality changed: \"{}\" vs \"{}\"",
            old[io].norm, new[inn].norm
        ),
    ))
}
