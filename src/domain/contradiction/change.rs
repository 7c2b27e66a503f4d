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

use super::attachment;
use super::categories;
use super::evidence::Evidence;
use super::lexicon;
use super::nationality;
use super::shifts;
use super::side::Side;
use super::slots;
use std::collections::HashSet;
use std::sync::LazyLock;

use super::tokens::{Kind, Token};
use super::words::{root, same_root};
use super::{ConflictType, Signal};

/// How many content units at the start of a memory name its subject.
const HEAD: usize = 3;

/// The part of a side that is the memory's body (its title line set aside).
pub struct Body<'s> {
    pub side: &'s Side,
    /// Index of the first body token.
    pub from: usize,
    /// The attribute statements of the body's tokens.
    pub statements: &'s slots::Statements,
}

impl<'s> Body<'s> {
    fn tokens(&self) -> &'s [Token] {
        &self.side.tokens[self.from..]
    }

    fn stated(&self) -> slots::Stated<'s> {
        slots::Stated {
            tokens: self.tokens(),
            text: &self.side.text,
            statements: self.statements,
        }
    }
}

/// Whether the first content words of the two bodies are the same word: they share a subject.
pub fn same_head(old: &Body, new: &Body) -> bool {
    fn head<'s>(b: &Body<'s>) -> Option<&'s Token> {
        b.tokens().iter().find(|t| t.is_content())
    }
    matches!((head(old), head(new)), (Some(a), Some(b)) if a.same_stem(b))
}

/// Whether the new memory is a question: it asserts nothing.
pub fn is_question(text: &str) -> bool {
    let t = text.trim_end();
    t.ends_with(['?', '？']) || t.ends_with('吗') || t.ends_with("吗。") || t.ends_with('까')
}

/// The claim of a report sentence: "The current export shows guest access is disabled" →
/// "guest access is disabled"; "According to the dashboard, the limit is 50" → "the limit is
/// 50". Other texts are returned whole.
pub fn claim(text: &str) -> &str {
    // Wrappers open their sentence: only the head is looked at.
    let head = &text[..floor_boundary(text, 120)];
    let starts = |p: &str| {
        head.get(..p.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(p))
    };
    if starts("according to ")
        && let Some(comma) = head.find(',')
    {
        return text[comma + 1..].trim_start();
    }
    if (starts("根据") || starts("据"))
        && let Some(comma) = head.find('，')
    {
        return text[comma + '，'.len_utf8()..].trim_start();
    }
    let Some((at, w)) = wrapper(head) else {
        return text;
    };
    let before = head[..at].to_lowercase();
    let source = shifts::REPORT_SOURCES.iter().any(|s| {
        if s.is_ascii() {
            before
                .split(|c: char| !c.is_alphanumeric())
                .any(|x| x == *s)
        } else {
            before.contains(s)
        }
    });
    let short = before.split_whitespace().count() <= 6 && !before.contains([',', '.']);
    if !(source && short) {
        return text;
    }
    let rest = text[at + w.len()..].trim_start_matches([' ', ',', ':', '，', '：']);
    rest.strip_prefix("that ").unwrap_or(rest)
}

/// The first report verb of a head and its byte offset: a whole word after the
/// first one, or a CJK phrase anywhere.
fn wrapper(head: &str) -> Option<(usize, &'static str)> {
    let mut words = head
        .split_ascii_whitespace()
        .map(|w| (w.as_ptr() as usize - head.as_ptr() as usize, w));
    words.next();
    let english = words.find_map(|(at, w)| {
        let w = w.trim_end_matches([',', ':']);
        let verb = shifts::REPORT_WRAPPERS
            .iter()
            .find(|v| v.is_ascii() && v.eq_ignore_ascii_case(w))?;
        Some((at, *verb))
    });
    english.or_else(|| {
        let cjk = shifts::REPORT_WRAPPERS.iter().filter(|v| !v.is_ascii());
        (!head.is_ascii())
            .then(|| cjk.filter_map(|v| head.find(v).map(|at| (at, *v))).min())
            .flatten()
    })
}

fn floor_boundary(s: &str, mut at: usize) -> usize {
    at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Tokens with the first words of the phrases they may hold, so that the many phrases of
/// `shifts` cost a scan only when their first word occurs.
pub struct Lexed<'a> {
    tokens: &'a [Token],
    /// Index of `tokens[0]` in the side.
    from: usize,
    firsts: &'a [(usize, &'static str)],
}

impl<'a> Lexed<'a> {
    fn of(body: &Body<'a>) -> Self {
        let starts = &body.side.phrase_starts;
        let from = starts.partition_point(|(i, _)| *i < body.from);
        Lexed {
            tokens: body.tokens(),
            from: body.from,
            firsts: &starts[from..],
        }
    }
}

/// The tokens that are the first word of a phrase of `shifts`, with their indices: found once
/// per memory, in one pass.
pub(super) fn phrase_starts(tokens: &[Token]) -> Vec<(usize, &'static str)> {
    tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| t.kind != Kind::Number && t.norm.len() <= LONGEST_FIRST)
        .filter_map(|(i, t)| FIRSTS.get(t.norm.as_str()).map(|f| (i, *f)))
        .collect()
}

/// Bytes of the longest first word of a phrase: longer tokens need no lookup.
const LONGEST_FIRST: usize = 12;

/// FNV-1a: every token of every pair is looked up once, and these keys are a few bytes long,
/// where SipHash's setup dominates.
#[derive(Default)]
struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for b in bytes {
            h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

type FirstWords = HashSet<&'static str, std::hash::BuildHasherDefault<Fnv>>;

/// First words of every phrase in `shifts`.
static FIRSTS: LazyLock<FirstWords> = LazyLock::new(|| shift_phrases().map(first_part).collect());

/// Every phrase in `shifts`.
fn shift_phrases() -> impl Iterator<Item = &'static str> {
    let lists = [
        shifts::ENDING_CUES,
        shifts::PROHIBITIONS,
        shifts::PERMISSIONS,
        shifts::ADDITIONS,
        shifts::PAST,
    ];
    let state = shifts::STATE_CUES.iter().map(|(c, _)| *c);
    let antonyms = shifts::ANTONYMS.iter().flat_map(|(a, b)| [*a, *b]);
    lists
        .into_iter()
        .flatten()
        .copied()
        .chain(state)
        .chain(antonyms)
}

impl std::ops::Deref for Lexed<'_> {
    type Target = [Token];

    fn deref(&self) -> &[Token] {
        self.tokens
    }
}

fn first_part(pattern: &str) -> &str {
    let bytes = pattern.as_bytes();
    if bytes.first().is_some_and(u8::is_ascii) {
        let end = bytes.iter().position(|&b| b == b' ').unwrap_or(bytes.len());
        &pattern[..end]
    } else {
        let end = pattern.chars().next().map_or(0, char::len_utf8);
        &pattern[..end]
    }
}

/// Positions of the tokens of the first match of `pattern` in `tokens` (a gap's tokens are not
/// part of the match): ASCII patterns word by word, others character by character; `…`
/// matches a gap of one to four tokens.
fn find(tokens: &Lexed, pattern: &str) -> Option<Vec<usize>> {
    // A match starts at a token holding the pattern's first word: only those are tried. Most
    // first words differ from the pattern's in their first byte, which is compared before
    // calling into `memcmp`.
    let opens = |f: &str| {
        f.as_bytes().first() == pattern.as_bytes().first()
            && pattern.starts_with(f)
            && (!f.is_ascii() || pattern.as_bytes().get(f.len()).is_none_or(|b| *b == b' '))
    };
    let mut starts = tokens.firsts.iter().filter(|(_, f)| opens(f)).peekable();
    starts.peek()?;
    let (parts, n) = parts(pattern);
    starts.find_map(|(i, _)| match_at(tokens.tokens, i - tokens.from, &parts[..n]))
}

/// Most words (or CJK characters) in a phrase of `shifts`.
const MAX_PARTS: usize = 8;

/// The words of an ASCII pattern, or the characters of another; every pair looks up many
/// patterns, so they are sliced, not copied.
fn parts(pattern: &str) -> ([&str; MAX_PARTS], usize) {
    let by_word = pattern.chars().all(|c| c.is_ascii() || c == '…');
    let words = pattern.split(' ').filter(|_| by_word);
    let chars = pattern
        .char_indices()
        .filter(|(_, c)| !by_word && !c.is_whitespace())
        .map(|(i, c)| &pattern[i..i + c.len_utf8()]);
    let mut out = [""; MAX_PARTS];
    let mut n = 0;
    for p in words.chain(chars) {
        out[n] = p;
        n += 1;
    }
    (out, n)
}

fn match_at(tokens: &[Token], at: usize, parts: &[&str]) -> Option<Vec<usize>> {
    let Some((first, rest)) = parts.split_first() else {
        return Some(Vec::new());
    };
    if *first == "…" {
        return (at + 1..=(at + 4).min(tokens.len())).find_map(|s| match_at(tokens, s, rest));
    }
    if tokens.get(at)?.norm != *first {
        return None;
    }
    let mut m = match_at(tokens, at + 1, rest)?;
    m.insert(0, at);
    Some(m)
}

fn has(tokens: &Lexed, patterns: &[&str]) -> bool {
    patterns.iter().any(|p| find(tokens, p).is_some())
}

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

/// Change evidence for a pair. `topical` says the pair already passed the overlap gate;
/// `titled` that the memories carry the same title or a shared label, which lets an explicit
/// replacement ("用 Vue 替代 React") through on any shared word.
pub fn collect(old: &Body, new: &Body, topical: bool, titled: bool) -> Changes {
    let (lo, ln) = (Lexed::of(old), Lexed::of(new));
    let (to, tn) = (&lo, &ln);
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
    let (o, n) = (old.tokens(), new.tokens());
    out.extend(slots::replaced(old.stated(), new.stated()));
    out.extend(slots::exclusive_state(o, &old.side.text, n, &new.side.text));
    if topical || titled || same_head(old, new) {
        out.extend(attachment::changed(o, &old.side.text, n, &new.side.text));
        out.extend(nationality::changed(o, &old.side.text, n, &new.side.text));
    }
    if same_head(old, new) {
        let (o, n) = (old.tokens(), new.tokens());
        out.extend(categories::swapped_kind(
            o,
            &old.side.text,
            n,
            &new.side.text,
        ));
    } else if titled {
        out.extend(categories::titled_kind(o, n, &new.side.text));
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_wrappers_give_way_to_their_claim() {
        let cases = [
            (
                "The current export shows guest access is disabled.",
                "guest access is disabled.",
            ),
            (
                "According to the dashboard, the limit is now 50.",
                "the limit is now 50.",
            ),
            (
                "The album shows jazz influences.",
                "The album shows jazz influences.",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(claim(text), want);
        }
    }

    #[test]
    fn roots_match_word_forms() {
        for (a, b) in [
            ("deploying", "deploy"),
            ("owned", "owns"),
            ("smoking", "smoke"),
        ] {
            assert!(same_root(a, b), "{a} {b}");
        }
        assert!(!same_root("own", "town"));
        // A Hangul syllable whose last two bytes are equal is left whole.
        assert_eq!(root("담배"), "담배");
    }

    #[test]
    fn every_phrase_fits_the_parts_buffer() {
        for p in shift_phrases() {
            let (words, n) = parts(p);
            assert_eq!(words[..n].concat().replace(' ', ""), p.replace(' ', ""));
            // `find` starts matches only at tokens holding a pattern's first part.
            assert_eq!(words[0], first_part(p), "{p}");
        }
    }

    #[test]
    fn questions_are_recognised() {
        assert!(is_question("Is the cache TTL still 30 seconds?"));
        assert!(is_question("要不要改用 Vue？"));
        assert!(!is_question("The cache TTL is 30 seconds."));
    }
}
