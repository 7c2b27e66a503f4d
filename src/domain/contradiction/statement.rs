//! Reading a memory into statements: who it is about (the subject, or the implicit speaker of
//! first-person and subjectless memories), what about them (the relation: a verb with its
//! particle, or the key of "X is V"), the value and what kind of thing it is, whether it is
//! denied, and what the sentence does with it: states it, announces that it changed
//! ("switched to", "went up to", "now"), says it ended ("left", "quit", "closed", "died"), or
//! reports another source's claim ("the register lists …"). Statements are read once per
//! memory, kept with its analysis, and judged against each other by `judge`.
//!
//! English is read word by word from the tokens; Chinese and Korean, which the tokenizer splits
//! into characters, are read from the text by their cue phrases (`read_cjk`).

use std::borrow::Cow;
use std::collections::HashSet;
use std::hash::BuildHasherDefault;
use std::sync::LazyLock;

use compact_str::CompactString;

use super::kinds::{self, FxHasher};
use super::tokens::{Kind as TokenKind, Token};

/// Who a statement is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// The writer or the user: "I", "we", "my", "the user", or no subject at all.
    Speaker,
    /// A thing or a person named by its words (stems of the noun phrase's content words; the
    /// last is its head).
    Named(Vec<CompactString>),
}

/// What a statement does with its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    States,
    /// Announces that the value changed to this one.
    Changes,
    /// Says that the state named by the value ended.
    Ends,
}

/// How sure the statement is of itself: plans, questions and hypotheticals assert nothing yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mood {
    Asserted,
    Tentative,
}

/// One statement of a memory.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    pub subject: Subject,
    /// For "X is V": the key is the subject's words and `verb` is "be". Otherwise the verb's
    /// lemma.
    pub verb: CompactString,
    /// The preposition that introduces the value ("in" of "lives in", "by" of "commute by").
    pub prep: Option<CompactString>,
    /// The value's words, lower-cased, articles and possessives dropped.
    pub value: Vec<CompactString>,
    /// Trailing qualifiers ("for reading", "when tired", "every morning"), as words.
    pub qualifier: Vec<CompactString>,
    /// The first number of the value, when it holds one.
    pub number: Option<f64>,
    /// A frequency as its period in days ("weekly" = 7, "every two weeks" = 14).
    pub period: Option<f64>,
    pub negated: bool,
    pub act: Act,
    pub mood: Mood,
    /// Attitude of a preference verb: +1 (likes, prefers), -1 (dislikes, hates), 0 otherwise.
    pub attitude: i8,
    /// A role handed over: the previous holder named ("Ben replaced *Ana* as …", "took over …
    /// from *Tom*").
    pub previous: Vec<CompactString>,
    /// Read from a report of another source ("the register lists …", "someone said …").
    pub reported: bool,
    /// The statement corrects an earlier one ("actually", "turns out", "was wrong").
    pub correction: bool,
    /// The statement marks itself as an addition ("also", "too", "as well").
    pub adds: bool,
    /// A statement about the past ("used to", "as a kid"): it opposes nothing in the present.
    pub past: bool,
    /// A plan or a supposition ("if", "would", "going to", "thinking about"): it asserts
    /// nothing, so it can oppose nothing.
    pub hypothetical: bool,
    /// "X is enforced / measured / …": a passive verb, not a copula with a value.
    pub passive: bool,
    /// The verb is in the past tense ("was", "closed", "announced"): a narrated event, not a
    /// state that can end or be replaced.
    pub past_tense: bool,
    /// The value is a measure: it opens with a number ("is 100 requests per minute").
    pub measure: bool,
    /// The value is bounded, not exact ("less than 570", "over 64", "about 30").
    pub bounded: bool,
    /// What an ending ends when it names an activity: "smoke" of "quit smoking", "go" of
    /// "stopped going to the gym".
    pub ended_verb: Option<CompactString>,
    /// Part of the memory's text was not read into statements: what the statements leave out
    /// may still differ, so they cannot rule a pair out.
    pub partial: bool,
    /// A value the statement denies beside its own: "Amazon, *not Microsoft*", "34, *not
    /// 32*", "rather than the office".
    pub denied: Vec<CompactString>,
}

impl Statement {
    fn new(subject: Subject) -> Self {
        Statement {
            subject,
            verb: CompactString::const_new(""),
            prep: None,
            value: Vec::new(),
            qualifier: Vec::new(),
            number: None,
            period: None,
            negated: false,
            act: Act::States,
            mood: Mood::Asserted,
            attitude: 0,
            previous: Vec::new(),
            reported: false,
            correction: false,
            adds: false,
            past: false,
            hypothetical: false,
            passive: false,
            past_tense: false,
            measure: false,
            bounded: false,
            denied: Vec::new(),
            ended_verb: None,
            partial: false,
        }
    }

    /// The value as one lower-case phrase.
    pub fn value_text(&self) -> String {
        join(&self.value)
    }

    /// Whether this is "X is V" (the subject's words are the attribute's key).
    pub fn is_copula(&self) -> bool {
        self.verb == "be"
    }

    pub(super) fn heap_bytes(&self) -> usize {
        let words = |v: &Vec<CompactString>| {
            v.capacity() * std::mem::size_of::<CompactString>()
                + v.iter()
                    .filter(|w| w.is_heap_allocated())
                    .map(|w| w.capacity() + 16)
                    .sum::<usize>()
        };
        let subject = match &self.subject {
            Subject::Named(w) => words(w),
            Subject::Speaker => 0,
        };
        std::mem::size_of::<Self>()
            + subject
            + words(&self.value)
            + words(&self.qualifier)
            + words(&self.previous)
            + words(&self.denied)
    }
}

pub(super) fn join(words: &[CompactString]) -> String {
    let mut s = String::new();
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(w);
    }
    s
}

/// The statements of a text (a memory's body).
pub fn read(tokens: &[Token], text: &str) -> Vec<Statement> {
    if tokens.iter().any(|t| t.kind == TokenKind::Cjk) {
        return read_cjk(&text[tokens[0].start..]);
    }
    let mut out = Vec::new();
    let mut last_subject: Option<Subject> = None;
    let mut memory_correction = false;
    let mut condition = false;
    // A key with no verb before a colon ("Cache ttl for service 0: 7003 units"): the next
    // clause is its value.
    let mut pending_key: Option<Vec<W>> = None;
    let mut unread = false;
    for clause in clauses(tokens, text) {
        let words = expand(&clause);
        if words.is_empty() {
            continue;
        }
        if words.iter().all(|w| is_discourse(&w.w)) {
            // "Update:", "Correction:", "Actually," alone: a marker, not a statement.
            memory_correction |= corrects(&words);
            continue;
        }
        if let Some(key) = pending_key.take()
            && let Some(s) = keyed_value(&key, &words)
        {
            unread = false;
            last_subject = Some(s.subject.clone());
            out.push(s);
            continue;
        }
        // "If I need speed, I use Rust": the clause after a condition holds only under it.
        let conditional = std::mem::replace(&mut condition, words[0].is("if"));
        if let Some(mut s) = read_clause(&words, last_subject.as_ref()) {
            s.hypothetical |= conditional;
            memory_correction |= s.correction;
            s.correction |= memory_correction;
            last_subject = Some(s.subject.clone());
            out.push(s);
        } else if corrects(&words) {
            memory_correction = true;
            for s in &mut out {
                s.correction = true;
            }
        } else {
            unread = true;
            if words.len() <= 8 && !is_discourse(&words[0].w) {
                pending_key = Some(words);
            }
        }
    }
    if unread {
        for s in &mut out {
            s.partial = true;
        }
    }
    out.shrink_to_fit();
    out
}

/// "KEY: VALUE (was OLD)" read as "KEY is VALUE", with the old value denied.
fn keyed_value(key: &[W], value: &[W]) -> Option<Statement> {
    let named: Vec<CompactString> = key
        .iter()
        .filter(|w| !is_determiner(&w.w))
        .map(|w| content_stem(&w.w))
        .collect();
    if named.is_empty()
        || !value
            .first()
            .is_some_and(|w| w.num.is_some() || value.len() <= 4)
    {
        return None;
    }
    let mut s = Statement::new(Subject::Named(named));
    s.verb = CompactString::const_new("be");
    let was = value.iter().position(|w| w.is("was") || w.is("previously"));
    let (now, before) = value.split_at(was.unwrap_or(value.len()));
    fill_value(&mut s, now);
    if !before.is_empty() {
        s.denied = words_of(&before[1..]);
        s.act = Act::Changes;
    }
    (!s.value.is_empty()).then_some(s)
}

/// A word of a clause: lower-cased, with whether it was capitalised and its number.
#[derive(Debug, Clone)]
struct W {
    w: CompactString,
    cap: bool,
    num: Option<f64>,
    /// A comma stands right before the word.
    comma: bool,
}

impl W {
    fn is(&self, s: &str) -> bool {
        self.w == s
    }
}

/// Clauses: the tokens between sentence breaks (. ! ? ; : newline) and between a comma and a
/// clause-opening word ("…, I prefer …", "…, but …").
/// A clause's token with whether it is capitalised, follows a comma, and is glued to the one
/// before by a hyphen.
type Piece<'t> = (&'t Token, bool, bool, bool);

fn clauses<'t>(tokens: &'t [Token], text: &'t str) -> Vec<Vec<Piece<'t>>> {
    let mut out: Vec<Vec<Piece<'t>>> = vec![Vec::new()];
    for (i, t) in tokens.iter().enumerate() {
        if i > 0 {
            let gap = &text[tokens[i - 1].end..t.start];
            let hard = gap.contains(['.', '!', '?', ';', '\n']) || gap.contains(": ");
            let soft = gap.contains(',')
                && matches!(
                    t.norm.as_str(),
                    "i" | "i'm" | "i've" | "we" | "but" | "and" | "so" | "he" | "she" | "they"
                );
            let lone_dot = gap.trim() == "." && t.kind == TokenKind::Number;
            if (hard && !lone_dot) || soft {
                out.push(Vec::new());
            }
        }
        let cap = text[t.start..t.end]
            .chars()
            .next()
            .is_some_and(char::is_uppercase);
        let gap = if i > 0 {
            &text[tokens[i - 1].end..t.start]
        } else {
            " "
        };
        let comma = gap.contains(',');
        // "eu-central-1", "e-reader": one value, though the tokenizer splits it.
        let glued = matches!(gap, "-" | "_" | "/") && !out.last().is_none_or(|c| c.is_empty());
        out.last_mut().unwrap().push((t, cap, comma, glued));
    }
    out.retain(|c| !c.is_empty());
    out
}

/// The clause's words, with contractions opened ("i'm" → "i am", "don't" → "do not") and
/// possessives split off ("bob's" → "bob 's").
fn expand(clause: &[Piece]) -> Vec<W> {
    let mut out: Vec<W> = Vec::with_capacity(clause.len() + 4);
    for &(t, cap, comma, glued) in clause {
        if glued && let Some(last) = out.last_mut() {
            last.w.push('-');
            last.w.push_str(&t.norm);
            last.num = None;
            continue;
        }
        let mut first = true;
        let mut push = |w: &str, cap: bool, num: Option<f64>| {
            out.push(W {
                w: CompactString::from(w),
                cap,
                num,
                comma: comma && first,
            });
            first = false;
        };
        let w: Cow<str> = if t.norm.contains('’') {
            Cow::Owned(t.norm.replace('’', "'"))
        } else {
            Cow::Borrowed(&t.norm)
        };
        let num = (t.kind == TokenKind::Number).then(|| number(&w)).flatten();
        let parts: &[&str] = match &*w {
            "i'm" => &["i", "am"],
            "i've" => &["i", "have"],
            "i'd" => &["i", "would"],
            "i'll" => &["i", "will"],
            "we're" => &["we", "are"],
            "we've" => &["we", "have"],
            "we'll" => &["we", "will"],
            "they're" => &["they", "are"],
            "you're" => &["you", "are"],
            "it's" => &["it", "is"],
            "he's" => &["he", "is"],
            "she's" => &["she", "is"],
            "that's" => &["that", "is"],
            "don't" => &["do", "not"],
            "doesn't" => &["does", "not"],
            "didn't" => &["did", "not"],
            "can't" | "cannot" => &["can", "not"],
            "won't" => &["will", "not"],
            "isn't" => &["is", "not"],
            "aren't" => &["are", "not"],
            "wasn't" => &["was", "not"],
            "haven't" => &["have", "not"],
            "hasn't" => &["has", "not"],
            "shouldn't" => &["should", "not"],
            "wouldn't" => &["would", "not"],
            _ => &[],
        };
        if !parts.is_empty() {
            for (k, p) in parts.iter().enumerate() {
                push(p, cap && k == 0, None);
            }
        } else if let Some(base) = w.strip_suffix("'s").filter(|b| !b.is_empty()) {
            push(base, cap, None);
            push("'s", false, None);
        } else {
            push(&w, cap, num);
        }
    }
    out
}

/// A number token's value, thousands separators dropped ("1,800").
fn number(w: &str) -> Option<f64> {
    if w.contains(',') {
        w.replace(',', "").parse().ok()
    } else {
        w.parse().ok()
    }
}

/// Discourse words that open a clause without being part of it.
fn is_discourse(w: &str) -> bool {
    matches!(
        w,
        "actually"
            | "wait"
            | "no"
            | "yes"
            | "yeah"
            | "so"
            | "well"
            | "oh"
            | "ok"
            | "okay"
            | "update"
            | "correction"
            | "fyi"
            | "btw"
            | "note"
            | "hmm"
            | "hi"
            | "hey"
            | "hello"
            | "also"
            | "and"
            | "but"
            | "anyway"
            | "apparently"
            | "honestly"
            | "now"
            | "currently"
            | "recently"
            | "today"
            | "nowadays"
            | "lately"
            | "then"
    )
}

fn corrects(words: &[W]) -> bool {
    let opens = |w: &W| w.is("actually") || w.is("correction");
    marked(words) && (words.first().is_some_and(opens) || holds(words, CORRECTIONS))
}

/// Whether any word of a clause may open a marker (see [`MARKER_WORDS`]).
fn marked(words: &[W]) -> bool {
    words.iter().any(|w| MARKER_WORDS.contains(w.w.as_str()))
}

/// Phrases that say an earlier statement was wrong.
const CORRECTIONS: &[&[&str]] = &[
    &["turns", "out"],
    &["turned", "out"],
    &["was", "wrong"],
    &["is", "wrong"],
    &["was", "incorrect"],
    &["not", "right"],
    &["i", "meant"],
    &["was", "mistaken"],
    &["is", "outdated"],
    &["was", "outdated"],
];

/// Words of a plan or a supposition: such a statement asserts nothing yet.
const HYPOTHETICAL: &[&str] = &[
    "if",
    "might",
    "maybe",
    "perhaps",
    "considering",
    "planning",
    "hoping",
    "thinking",
    "wondering",
    "whether",
    "unless",
];

/// Words of a statement that is not yet a settled fact (a plan, a wish, a guess).
const TENTATIVE: &[&str] = &[
    "plan", "plans", "hope", "will", "shall", "should", "could", "probably", "possibly", "soon",
];

const PAST_MARKERS: &[&[&str]] = &[
    &["used", "to"],
    &["as", "a", "kid"],
    &["as", "a", "child"],
    &["back", "then"],
    &["years", "ago"],
    &["previously"],
    &["formerly"],
    &["in", "the", "past"],
    &["when", "i", "was"],
];

const ADDITION_MARKERS: &[&[&str]] = &[
    &["also"],
    &["too"],
    &["as", "well"],
    &["in", "addition"],
    &["another"],
    &["additionally"],
];

/// The words a marker of [`read_clause`] opens with: most clauses hold none, and are read as
/// unmarked after one lookup per word instead of a scan per marker.
static MARKER_WORDS: LazyLock<HashSet<&'static str, BuildHasherDefault<FxHasher>>> =
    LazyLock::new(|| {
        let phrases = [CORRECTIONS, PAST_MARKERS, ADDITION_MARKERS, PLANS];
        let firsts = phrases.into_iter().flatten().map(|p| p[0]);
        let words = HYPOTHETICAL.iter().chain(TENTATIVE).copied();
        firsts
            .chain(words)
            .chain(["actually", "correction", "going"])
            .collect()
    });

/// Phrases of a plan about to be carried out.
const PLANS: &[&[&str]] = &[&["about", "to"], &["plan", "to"]];

fn holds(words: &[W], phrases: &[&[&str]]) -> bool {
    phrases.iter().any(|p| {
        words
            .windows(p.len())
            .any(|win| win.iter().zip(p.iter()).all(|(w, s)| w.is(s)))
    })
}

/// Verbs of reporting: "X lists / says / shows …" wraps a claim.
fn is_report_verb(w: &str) -> bool {
    matches!(
        w,
        "lists"
            | "listed"
            | "records"
            | "recorded"
            | "shows"
            | "showed"
            | "says"
            | "said"
            | "states"
            | "stated"
            | "reports"
            | "reported"
            | "notes"
            | "noted"
            | "indicates"
            | "confirms"
            | "confirmed"
            | "claims"
            | "claimed"
            | "mentions"
            | "mentioned"
            | "puts"
            | "places"
    )
}

/// Reporters whose word is only hearsay.
fn is_hearsay(w: &str) -> bool {
    matches!(
        w,
        "someone" | "somebody" | "people" | "they" | "rumor" | "rumour" | "a" | "colleague"
    )
}

fn is_determiner(w: &str) -> bool {
    matches!(
        w,
        "a" | "an"
            | "the"
            | "my"
            | "our"
            | "your"
            | "his"
            | "her"
            | "their"
            | "its"
            | "this"
            | "that"
            | "these"
            | "those"
            | "some"
            | "any"
            | "'s"
    )
}

fn is_preposition(w: &str) -> bool {
    matches!(
        w,
        "in" | "at"
            | "on"
            | "by"
            | "for"
            | "from"
            | "to"
            | "with"
            | "as"
            | "of"
            | "into"
            | "onto"
            | "via"
            | "near"
            | "inside"
            | "under"
            | "over"
            | "about"
            | "during"
            | "since"
            | "until"
            | "after"
            | "before"
            | "than"
    )
}

/// Words that end a value and open a qualifier.
fn opens_qualifier(w: &str) -> bool {
    matches!(
        w,
        "for"
            | "when"
            | "while"
            | "during"
            | "because"
            | "since"
            | "until"
            | "every"
            | "each"
            | "daily"
            | "weekly"
            | "monthly"
            | "in"
            | "on"
            | "at"
            | "from"
            | "with"
            | "to"
            | "last"
            | "this"
            | "next"
            | "but"
            | "and"
            | "instead"
            | "after"
            | "before"
            | "as"
            | "so"
            | "now"
            | "anymore"
            | "again"
            | "there"
    )
}

fn is_aux(w: &str) -> bool {
    matches!(
        w,
        "am" | "is"
            | "are"
            | "was"
            | "were"
            | "be"
            | "been"
            | "have"
            | "has"
            | "had"
            | "do"
            | "does"
            | "did"
            | "will"
            | "would"
            | "can"
            | "could"
            | "should"
            | "shall"
            | "may"
            | "might"
            | "must"
            | "get"
            | "got"
    )
}

fn is_copula(w: &str) -> bool {
    matches!(w, "am" | "is" | "are" | "was" | "were" | "be" | "been")
}

fn is_adverb(w: &str) -> bool {
    matches!(
        w,
        "now"
            | "currently"
            | "still"
            | "just"
            | "recently"
            | "also"
            | "really"
            | "always"
            | "usually"
            | "often"
            | "mostly"
            | "actually"
            | "finally"
            | "officially"
            | "already"
            | "primarily"
            | "mainly"
            | "generally"
            | "totally"
            | "completely"
            | "definitely"
            | "typically"
            | "normally"
            | "sometimes"
            | "rarely"
            | "frequently"
            | "only"
            | "then"
            | "eventually"
            | "lately"
            | "nowadays"
            | "permanently"
            | "exclusively"
            | "strongly"
            | "absolutely"
            | "truly"
            | "even"
            | "all"
    )
}

/// Words that are not verbs though they end in -s or follow a subject.
fn never_verb(w: &str) -> bool {
    is_determiner(w)
        || is_preposition(w)
        || matches!(
            w,
            "this" | "is" | "has" | "was" | "his" | "its" | "us" | "yes" | "as" | "less" | "plus"
        )
}

/// The lemma of a verb form: irregular forms from a table, then -ies/-es/-s/-ed/-ing.
fn lemma(w: &str) -> CompactString {
    let irregular = match w {
        "left" => "leave",
        "went" | "goes" | "gone" | "going" => "go",
        "took" | "taken" => "take",
        "became" => "become",
        "ran" => "run",
        "drove" | "driven" => "drive",
        "sold" => "sell",
        "outgrew" | "outgrown" => "outgrow",
        "rose" | "risen" => "rise",
        "fell" | "fallen" => "fall",
        "gave" | "given" => "give",
        "began" | "begun" => "begin",
        "bought" => "buy",
        "built" => "build",
        "grew" | "grown" => "grow",
        "got" | "gotten" => "get",
        "made" => "make",
        "wrote" | "written" => "write",
        "ate" | "eaten" => "eat",
        "drank" | "drunk" => "drink",
        "swam" => "swim",
        "rode" | "ridden" => "ride",
        "flew" | "flown" => "fly",
        "led" => "lead",
        "held" => "hold",
        "kept" => "keep",
        "met" => "meet",
        "paid" => "pay",
        "spent" => "spend",
        "quit" | "quits" | "quitting" => "quit",
        "has" | "had" => "have",
        "does" | "did" | "done" => "do",
        "is" | "are" | "am" | "was" | "were" | "been" => "be",
        "lives" | "lived" | "living" => "live",
        "moves" | "moved" | "moving" => "move",
        "uses" | "used" | "using" => "use",
        "loves" | "loved" | "loving" => "love",
        "likes" | "liked" | "liking" => "like",
        "dislikes" | "disliked" => "dislike",
        "hates" | "hated" => "hate",
        "prefers" | "preferred" | "preferring" => "prefer",
        "closed" | "closes" | "closing" => "close",
        "died" | "dies" | "dying" => "die",
        "changed" | "changes" | "changing" => "change",
        "relocated" | "relocates" => "relocate",
        "replaced" | "replaces" => "replace",
        "commutes" | "commuted" => "commute",
        "releases" | "released" => "release",
        "leads" | "leading" => "lead",
        "drives" | "driving" => "drive",
        "serves" | "served" => "serve",
        "becomes" | "becoming" => "become",
        "retired" | "retires" => "retire",
        "resigned" | "resigns" => "resign",
        "stopped" | "stops" | "stopping" => "stop",
        "dropped" | "drops" => "drop",
        "promoted" => "promote",
        "increased" | "increases" => "increase",
        "decreased" | "decreases" => "decrease",
        "upgraded" => "upgrade",
        "downgraded" => "downgrade",
        "migrated" => "migrate",
        "switched" | "switches" => "switch",
        "cancelled" | "canceled" => "cancel",
        "hosted" | "hosts" => "host",
        "raised" => "raise",
        "reduced" => "reduce",
        "renamed" => "rename",
        "rebranded" => "rebrand",
        "adopted" => "adopt",
        "joined" => "join",
        "succeeded" => "succeed",
        "handed" => "hand",
        "shut" => "shut",
        "taking" => "take",
        "making" => "make",
        "having" => "have",
        "giving" => "give",
        "leaving" => "leave",
        "writing" => "write",
        "coming" => "come",
        "saving" => "save",
        "hiking" => "hike",
        "baking" => "bake",
        "riding" => "ride",
        "smoking" => "smoke",
        "serving" => "serve",
        "hating" => "hate",
        _ => "",
    };
    if !irregular.is_empty() {
        return CompactString::from(irregular);
    }
    let n = w.len();
    if n > 4 && w.ends_with("ies") {
        return CompactString::from(format!("{}y", &w[..n - 3]));
    }
    if n > 4 && (w.ends_with("ches") || w.ends_with("shes") || w.ends_with("sses")) {
        return CompactString::from(&w[..n - 2]);
    }
    if n > 5 && w.ends_with("ing") {
        return CompactString::from(&w[..n - 3]);
    }
    if n > 4 && w.ends_with("ed") {
        let stem = &w[..n - 2];
        // "graduated" → "graduate", "created" → "create": a dropped final e comes back.
        let e_final = [
            "at", "iz", "is", "iv", "ov", "ur", "ir", "uc", "ag", "ut", "ot", "ud",
        ]
        .iter()
        .any(|x| stem.ends_with(x));
        return if e_final {
            CompactString::from(format!("{stem}e"))
        } else {
            CompactString::from(stem)
        };
    }
    if n > 3 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") {
        return CompactString::from(&w[..n - 1]);
    }
    CompactString::from(w)
}

/// Verbs that announce a change of the value that follows them (with the particle that
/// introduces it, when it needs one).
fn change_verb(lemma: &str) -> Option<&'static [&'static str]> {
    Some(match lemma {
        "switch" | "move" | "relocate" | "migrate" | "upgrade" | "downgrade" | "transition"
        | "convert" | "shift" | "pivot" | "promote" | "rename" | "rebrand" | "raise" | "cut"
        | "reduce" | "increase" | "decrease" | "lower" | "bump" | "jump" | "climb" | "rise"
        | "fall" | "drop" | "reschedule" | "postpone" | "push" => &["to", "into", "as"],
        "change" => &["to", "into", "from"],
        "replace" | "succeed" | "swap" | "trade" => &["as", "with", "for", "by"],
        "become" | "adopt" | "choose" | "pick" | "take" | "start" | "begin" | "join" => &[],
        _ => return None,
    })
}

/// Verbs that end the state named by their object (or by their subject: "Miso died").
fn end_verb(lemma: &str) -> bool {
    matches!(
        lemma,
        "leave"
            | "quit"
            | "close"
            | "sell"
            | "cancel"
            | "die"
            | "outgrow"
            | "stop"
            | "retire"
            | "resign"
            | "shut"
            | "divorce"
            | "abandon"
            | "ditch"
            | "drop"
            | "exit"
            | "decommission"
            | "discontinue"
            | "deprecate"
            | "end"
            | "graduate"
    )
}

/// Preference verbs and their attitude.
pub(super) fn attitude(lemma: &str) -> i8 {
    match lemma {
        "like" | "love" | "enjoy" | "prefer" | "adore" | "favor" | "favour" | "trust"
        | "support" | "accept" | "agree" | "want" | "approve" | "appreciate" => 1,
        "dislike" | "hate" | "detest" | "loathe" | "avoid" | "distrust" | "oppose" | "reject"
        | "disagree" | "mind" | "despise" | "disapprove" | "resent" => -1,
        _ => 0,
    }
}

/// A verb-like word at the start of a subjectless memory ("Prefers aisle seats", "Lives in
/// Berlin").
fn opens_subjectless(w: &W) -> bool {
    let s = w.w.as_str();
    if never_verb(s) || w.num.is_some() {
        return false;
    }
    attitude(&lemma(s)) != 0
        || end_verb(&lemma(s))
        || change_verb(&lemma(s)).is_some()
        || matches!(
            s,
            "lives"
                | "works"
                | "uses"
                | "drinks"
                | "plays"
                | "commutes"
                | "drives"
                | "owns"
                | "speaks"
                | "eats"
                | "runs"
                | "studies"
                | "has"
                | "wants"
                | "needs"
                | "reads"
                | "writes"
                | "codes"
                | "wakes"
                | "goes"
                | "attends"
                | "teaches"
        )
}

/// Relatives and other people named through the speaker ("my sister"): another subject.
pub(super) fn is_other_person(w: &str) -> bool {
    super::lexicon::is_relative(w)
        || matches!(
            w,
            "friend"
                | "friends"
                | "colleague"
                | "colleagues"
                | "boss"
                | "coworker"
                | "neighbor"
                | "neighbour"
                | "roommate"
                | "partner"
                | "kid"
                | "kids"
                | "child"
                | "children"
                | "team"
        )
}

fn content_stem(w: &str) -> CompactString {
    super::tokens::stem(w)
}

/// Reads one clause.
fn read_clause(words: &[W], previous_subject: Option<&Subject>) -> Option<Statement> {
    let marked = marked(words);
    let correction = marked && corrects(words);
    let past = marked && holds(words, PAST_MARKERS);
    let adds = marked && holds(words, ADDITION_MARKERS);
    // "going to switch" is a plan; "going to the gym" is a place.
    let plan = marked
        && words.windows(3).any(|w| {
            w[0].is("going")
                && w[1].is("to")
                && !is_determiner(&w[2].w)
                && !w[2].cap
                && !matches!(
                    w[2].w.as_str(),
                    "work" | "school" | "bed" | "church" | "class"
                )
        });
    let hypothetical = marked
        && (words.iter().any(|w| HYPOTHETICAL.contains(&w.w.as_str()))
            || plan
            || holds(words, PLANS));
    let tentative =
        hypothetical || marked && words.iter().any(|w| TENTATIVE.contains(&w.w.as_str()));
    let mut i = 0;
    while i < words.len() && is_discourse(&words[i].w) {
        i += 1;
    }
    // "turns out (that)", "it turns out", "i meant", "to clarify"
    for p in [
        &["it", "turns", "out"][..],
        &["turns", "out"],
        &["it", "turned", "out"],
        &["turned", "out"],
        &["i", "meant"],
        &["to", "clarify"],
        &["in", "fact"],
    ] {
        if words.len() >= i + p.len() && words[i..i + p.len()].iter().zip(p).all(|(w, s)| w.is(s)) {
            i += p.len();
            if words.get(i).is_some_and(|w| w.is("that")) {
                i += 1;
            }
            while i < words.len() && is_discourse(&words[i].w) {
                i += 1;
            }
        }
    }
    let mut words = &words[i..];
    let mut denied = Vec::new();
    let cut = (1..words.len()).find(|&j| {
        words[j].is("not") && words[j].comma
            || words[j].is("rather") && words.get(j + 1).is_some_and(|w| w.is("than"))
            || words[j].is("instead") && words.get(j + 1).is_some_and(|w| w.is("of"))
    });
    if let Some(j) = cut {
        let skip = if words[j].is("not") { 1 } else { 2 };
        denied = words_of(&words[(j + skip).min(words.len())..]);
        words = &words[..j];
    }
    if words.len() < 2 && denied.is_empty() {
        return None;
    }
    let bare = || {
        // "Actually, I meant Google, not Microsoft": a value and the value it denies.
        let mut s = Statement::new(Subject::Named(Vec::new()));
        s.value = words_of(words);
        (!denied.is_empty() && !s.value.is_empty() && words.len() <= 4).then_some(s)
    };
    if let Some(s) = retraction(words) {
        return Some(s);
    }
    let mut s = reported(words)
        .or_else(|| plain(words, previous_subject))
        .or_else(bare)?;
    s.denied = denied;
    s.correction |= correction;
    s.past |= past;
    s.adds |= adds;
    if tentative {
        s.mood = Mood::Tentative;
    }
    if s.act == Act::Ends && !holds(words, &[&["used", "to"]]) {
        // "I quit smoking two years ago": the ending is past, the state it left holds now.
        s.past = false;
    }
    s.hypothetical = hypothetical;
    Some(s)
}

/// "Forget everything I said about Google", "Ignore the note about Stripe": the speaker
/// takes back what was said of a value; read as a correction denying it.
fn retraction(words: &[W]) -> Option<Statement> {
    if !matches!(words[0].w.as_str(), "forget" | "ignore" | "disregard") {
        return None;
    }
    let about = words
        .iter()
        .position(|w| w.is("about") || w.is("regarding"));
    let object = &words[about.map_or(1, |a| a + 1)..];
    let mut s = Statement::new(Subject::Speaker);
    s.denied = words_of(object);
    s.correction = true;
    (!s.denied.is_empty() && s.denied.len() <= 4).then_some(s)
}

/// "The signed asset register lists the printer on floor 4", "Someone said billing uses
/// Stripe", "The billing ADR says Adyen since May": the claim, read as a statement.
fn reported(words: &[W]) -> Option<Statement> {
    let v = (1..words.len().min(7)).find(|&k| {
        is_report_verb(&words[k].w)
            && !words[..k]
                .iter()
                .any(|w| is_aux(&w.w) || w.is("i") || w.is("we"))
    })?;
    let reporter = &words[..v];
    let hearsay = reporter.iter().any(|w| is_hearsay(&w.w));
    let document = reporter.len() >= 2 || reporter.iter().any(|w| w.cap) || hearsay;
    if !document || reporter.iter().any(|w| is_other_person(&w.w)) {
        return None;
    }
    let mut rest = &words[v + 1..];
    if rest.first().is_some_and(|w| w.is("that")) {
        rest = &rest[1..];
    }
    if rest.is_empty() {
        return None;
    }
    let reporter_words: Vec<CompactString> = reporter
        .iter()
        .filter(|w| !is_determiner(&w.w) && !is_hearsay(&w.w))
        .map(|w| content_stem(&w.w))
        .collect();
    let mut s = match plain(rest, None) {
        Some(s) if !s.value.is_empty() => s,
        _ => {
            // A noun phrase with where it is ("the printer on floor 4") or a bare value
            // ("Adyen since May"): the thing is the reporter's subject.
            let p = rest
                .iter()
                .position(|w| is_preposition(&w.w) && !w.is("of"));
            let (np, tail) = match p {
                Some(p) if p > 0 => (&rest[..p], &rest[p..]),
                _ => (rest, &rest[rest.len()..]),
            };
            let np_words = words_of(np);
            let mut s;
            if tail.is_empty() || np.iter().all(|w| w.cap) {
                s = Statement::new(Subject::Named(reporter_words.clone()));
                s.verb = CompactString::const_new("be");
                fill_value(&mut s, np);
                s.qualifier = words_of(tail);
            } else {
                s = Statement::new(Subject::Named(
                    np_words.iter().map(|w| content_stem(w)).collect(),
                ));
                s.verb = CompactString::const_new("be");
                s.prep = Some(tail[0].w.clone());
                fill_value(&mut s, &tail[1..]);
            }
            s
        }
    };
    s.reported = true;
    if hearsay && let Subject::Named(words) = &mut s.subject {
        words.retain(|w| !is_hearsay(w));
    }
    Some(s)
}

fn words_of(ws: &[W]) -> Vec<CompactString> {
    ws.iter()
        .filter(|w| !is_determiner(&w.w))
        .map(|w| w.w.clone())
        .collect()
}

/// Reads "SUBJECT [aux] [not] VERB [particle] VALUE [qualifier]" and "SUBJECT is VALUE".
fn plain(words: &[W], previous_subject: Option<&Subject>) -> Option<Statement> {
    let (subject, mut k) = subject(words, previous_subject)?;
    let mut s = Statement::new(subject);
    // "My *new* phone number is …", "the *updated* limit is …": a change of the key's value.
    if words[..k]
        .iter()
        .any(|w| matches!(w.w.as_str(), "new" | "updated" | "latest"))
    {
        s.act = Act::Changes;
    }
    // An opening phrase ("On 15 March 2019, …") stamps the statement: kept as a qualifier.
    let intro: Vec<CompactString> = if is_preposition(&words[0].w) {
        words[..k]
            .iter()
            .take_while(|w| !w.comma)
            .map(|w| w.w.clone())
            .collect()
    } else {
        Vec::new()
    };
    // Auxiliaries, negation and adverbs before the verb.
    let mut copula = false;
    let mut now = false;
    while k < words.len() {
        let w = words[k].w.as_str();
        if w == "not"
            || w == "never"
            || w == "no" && words.get(k + 1).is_some_and(|n| n.is("longer"))
        {
            if w == "no" {
                s.act = Act::Ends;
                k += 2;
                continue;
            }
            s.negated = true;
        } else if w == "now" {
            now = true;
        } else if is_copula(w) {
            copula = true;
            s.past_tense |= matches!(w, "was" | "were");
        } else if matches!(w, "had" | "did") {
            s.past_tense = true;
        } else if w == "used" && words.get(k + 1).is_some_and(|n| n.is("to")) {
            s.past = true;
            k += 2;
            continue;
        } else if !(is_aux(w) || is_adverb(w)) {
            break;
        }
        k += 1;
    }
    if k >= words.len() {
        return None;
    }
    let head = &words[k];
    let verb_like = !never_verb(&head.w) && head.num.is_none();
    if copula && !participle(&head.w) || !verb_like {
        // "X is V": the value is what follows the copula.
        if !copula {
            return None;
        }
        s.verb = CompactString::const_new("be");
        let mut rest = &words[k..];
        // "is now 7001", "went": a change of the keyed value.
        if let Some(first) = rest.first()
            && is_preposition(&first.w)
            && !first.is("of")
        {
            s.prep = Some(first.w.clone());
            rest = &rest[1..];
        }
        // "is the new release manager"
        if rest.len() > 1 && rest[0].is("the") && rest[1].is("new") {
            s.act = Act::Changes;
        }
        fill_value(&mut s, rest);
        if now || rest.iter().any(|w| w.is("now")) || holds(words, &[&["from", "now", "on"]]) {
            s.act = Act::Changes;
        }
        if s.negated && words.iter().any(|w| w.is("anymore")) {
            s.act = Act::Ends;
            s.negated = false;
        }
        return (!s.value.is_empty() || s.period.is_some()).then_some(s);
    }
    s.verb = lemma(&head.w);
    s.attitude = attitude(&s.verb);
    s.passive = copula;
    s.past_tense |= !copula && past_form(&head.w);
    k += 1;
    // Phrasal verbs: "went up to", "took over", "gave up", "passed away", "went back to".
    let next = |k: usize| words.get(k).map(|w| w.w.as_str()).unwrap_or("");
    match (s.verb.as_str(), next(k)) {
        ("go", "up" | "down" | "back") => {
            s.act = Act::Changes;
            k += 1;
        }
        ("take" | "hand", "over") => {
            s.verb = CompactString::from(format!("{} over", s.verb));
            s.act = Act::Changes;
            k += 1;
        }
        ("give", "up")
        | ("pass", "away")
        | ("break", "up")
        | ("shut", "down")
        | ("move", "out") => {
            s.verb = CompactString::from(format!("{} {}", s.verb, next(k)));
            s.act = Act::Ends;
            k += 1;
        }
        _ => {}
    }
    // "started using X", "switched to using X"
    if matches!(s.verb.as_str(), "start" | "begin") && next(k).ends_with("ing") && next(k).len() > 4
    {
        s.verb = lemma(next(k));
        s.act = Act::Changes;
        k += 1;
    }
    if s.act == Act::States {
        if let Some(particles) = change_verb(&s.verb) {
            let to = (k..words.len()).find(|&j| particles.contains(&words[j].w.as_str()));
            let always = matches!(s.verb.as_str(), "replace" | "succeed" | "swap" | "trade");
            if particles.is_empty() || to.is_some() || always {
                s.act = Act::Changes;
            }
            // "replaced Ana as release manager", "took over the team from Tom",
            // "moved the office to York", "changed the theme from X to Y"
            if let Some(j) = to
                && words[j].w != "from"
            {
                let object = &words[k..j];
                s.previous = words_of(object);
                s.prep = Some(words[j].w.clone());
                k = j + 1;
            }
        } else if end_verb(&s.verb) {
            s.act = Act::Ends;
        } else if now {
            s.act = Act::Changes;
        }
    }
    // "quit smoking", "stopped going to the gym", "gave up learning Spanish": the activity ended.
    if s.act == Act::Ends && next(k).len() >= 5 && next(k).ends_with("ing") {
        s.ended_verb = Some(lemma(next(k)));
        k += 1;
    }
    if s.act == Act::Ends && s.negated {
        // "didn't leave", "never quit": nothing ended.
        s.act = Act::States;
    } else if s.negated && words.iter().any(|w| w.is("anymore")) {
        // "I don't work at Google anymore": the state ended.
        s.act = Act::Ends;
        s.negated = false;
    }
    // "want to learn Rust", "love to cook": the infinitive is the value.
    if s.attitude != 0 && next(k) == "to" {
        k += 1;
    }
    // The value, introduced by a preposition or direct.
    if s.prep.is_none()
        && let Some(first) = words.get(k)
        && is_preposition(&first.w)
        && !first.is("of")
    {
        s.prep = Some(first.w.clone());
        k += 1;
    }
    fill_value(&mut s, &words[k.min(words.len())..]);
    s.qualifier.extend(intro);
    // "took over the mobile team from Tom": the previous holder.
    if let Some(f) = s.qualifier.iter().position(|w| w == "from") {
        let holder: Vec<CompactString> = s.qualifier[f + 1..]
            .iter()
            .take_while(|w| !is_preposition(w))
            .cloned()
            .collect();
        if matches!(s.verb.as_str(), "take over" | "take") && !holder.is_empty() {
            s.previous = holder;
        }
    }
    Some(s)
}

/// A simple-past verb form ("closed", "left", "announced").
fn past_form(w: &str) -> bool {
    (w.len() > 4 && w.ends_with("ed"))
        || matches!(
            w,
            "left"
                | "went"
                | "took"
                | "became"
                | "ran"
                | "drove"
                | "sold"
                | "outgrew"
                | "rose"
                | "fell"
                | "gave"
                | "began"
                | "bought"
                | "built"
                | "grew"
                | "got"
                | "made"
                | "wrote"
                | "ate"
                | "drank"
                | "swam"
                | "rode"
                | "flew"
                | "led"
                | "held"
                | "kept"
                | "met"
                | "paid"
                | "spent"
                | "won"
                | "lost"
                | "said"
                | "told"
                | "came"
                | "saw"
        )
}

fn participle(w: &str) -> bool {
    (w.len() > 4 && (w.ends_with("ed") || w.ends_with("ing")))
        || matches!(
            w,
            "left" | "gone" | "taken" | "become" | "sold" | "quit" | "outgrown"
        )
}

/// The value and its qualifiers from the words after the verb.
fn fill_value(s: &mut Statement, rest: &[W]) {
    let mut end = rest.len();
    for (j, w) in rest.iter().enumerate() {
        // "three times a week", "twice a day": a frequency, not part of the value.
        let counted = rest.get(j + 1).is_some_and(|n| n.is("times"))
            || matches!(w.w.as_str(), "once" | "twice" | "thrice");
        if opens_qualifier(&w.w) || counted {
            end = j;
            break;
        }
    }
    let (value, qualifier) = rest.split_at(end);
    s.measure = value.first().is_some_and(|w| w.num.is_some());
    s.bounded = value.iter().any(|w| {
        matches!(
            w.w.as_str(),
            "less"
                | "more"
                | "fewer"
                | "under"
                | "over"
                | "about"
                | "around"
                | "nearly"
                | "almost"
                | "approximately"
                | "roughly"
                | "least"
                | "most"
                | "above"
                | "below"
                | "up"
                | "than"
                | "some"
                | "several"
                | "many"
                | "few"
        )
    });
    s.value = value
        .iter()
        .enumerate()
        // "Serie *A*": a capital letter after the first word is a name, not an article.
        .filter(|(j, w)| {
            (w.cap && *j > 0 || !is_determiner(&w.w)) && !is_adverb(&w.w) && !w.is("new")
        })
        .map(|(_, w)| w.w.clone())
        .collect();
    s.value.shrink_to_fit();
    s.qualifier = qualifier
        .iter()
        .filter(|w| !is_determiner(&w.w) && !w.is("now") && !w.is("anymore"))
        .map(|w| w.w.clone())
        .collect();
    s.qualifier.shrink_to_fit();
    s.number = value.iter().find_map(|w| w.num);
    s.period = period(rest);
}

/// A frequency in the words, as its period in days.
fn period(words: &[W]) -> Option<f64> {
    let unit = |w: &str| -> Option<f64> {
        Some(match w.trim_end_matches('s') {
            "day" | "night" | "morning" | "evening" => 1.0,
            "week" => 7.0,
            "fortnight" => 14.0,
            "month" => 30.0,
            "quarter" => 91.0,
            "year" => 365.0,
            "hour" => 1.0 / 24.0,
            _ => return None,
        })
    };
    for (j, w) in words.iter().enumerate() {
        match w.w.as_str() {
            "daily" | "nightly" => return Some(1.0),
            "weekly" => return Some(7.0),
            "biweekly" | "fortnightly" => return Some(14.0),
            "monthly" => return Some(30.0),
            "quarterly" => return Some(91.0),
            "yearly" | "annually" => return Some(365.0),
            "hourly" => return Some(1.0 / 24.0),
            "every" | "each" => {
                let n = words.get(j + 1)?;
                if let Some(u) = unit(&n.w) {
                    return Some(u);
                }
                let count = n.num.or_else(|| super::lexicon::number_word(&n.w))?;
                let u = unit(&words.get(j + 2)?.w)?;
                return Some(count * u);
            }
            "times" if j > 0 => {
                let n = &words[j - 1];
                let count = n.num.or_else(|| super::lexicon::number_word(&n.w))?;
                let a = words.get(j + 1)?;
                if !(a.is("a") || a.is("per") || a.is("every") || a.is("each")) {
                    return None;
                }
                return Some(unit(&words.get(j + 2)?.w)? / count);
            }
            "once" | "twice" | "thrice" => {
                let times = match w.w.as_str() {
                    "once" => 1.0,
                    "twice" => 2.0,
                    _ => 3.0,
                };
                let a = words.get(j + 1)?;
                if !(a.is("a") || a.is("per") || a.is("every")) {
                    return None;
                }
                return Some(unit(&words.get(j + 2)?.w)? / times);
            }
            _ => {}
        }
    }
    None
}

/// The subject and the index of the first word after it.
fn subject(words: &[W], previous: Option<&Subject>) -> Option<(Subject, usize)> {
    if is_preposition(&words[0].w) {
        // "On 15 March 2019, the country announced …": the subject follows the comma; "As of
        // today the …", "From now on the …": it opens at the first determiner.
        let after = words.iter().skip(1).position(|w| w.comma).or_else(|| {
            words
                .iter()
                .skip(1)
                .position(|w| w.is("the") || w.is("our") || w.is("my"))
        })? + 1;
        let (s, k) = subject(&words[after..], previous)?;
        return Some((s, after + k));
    }
    let first = &words[0];
    match first.w.as_str() {
        "i" | "we" | "me" => return Some((Subject::Speaker, 1)),
        "he" | "she" | "they" | "it" => {
            let s = previous.cloned().unwrap_or(Subject::Named(Vec::new()));
            return Some((s, 1));
        }
        "user" if !words.get(1).is_some_and(|w| w.is("'s")) => {
            return Some((Subject::Speaker, 1));
        }
        "the"
            if words.get(1).is_some_and(|w| w.is("user"))
                && !words.get(2).is_some_and(|w| w.is("'s")) =>
        {
            return Some((Subject::Speaker, 2));
        }
        _ => {}
    }
    if opens_subjectless(first) {
        return Some((Subject::Speaker, 0));
    }
    // A noun phrase up to the verb: at most six words, none of them a verb form we know.
    let mut k = 0;
    let mut np: Vec<&W> = Vec::new();
    let mut possessed_by_speaker = false;
    let mut apposition = false;
    while k < words.len() && k < 9 {
        let w = &words[k];
        let s = w.w.as_str();
        // "His widow, Elizabeth, was …": an apposition between commas names the same thing.
        if k > 0 && w.comma && (apposition || w.cap) {
            apposition = !apposition;
        }
        if apposition {
            k += 1;
            continue;
        }
        if k > 0 && (is_aux(s) || is_adverb(s) || s == "not" || s == "never") {
            break;
        }
        if k > 0 && looks_like_verb(w, np.last().copied(), words.get(k + 1)) {
            break;
        }
        if matches!(s, "my" | "our") || (s == "user" || s == "the") && k == 0 {
            possessed_by_speaker |= matches!(s, "my" | "our" | "user");
        }
        if s == "'s" && np.last().is_some_and(|p| p.is("user")) {
            possessed_by_speaker = true;
            np.clear();
            k += 1;
            continue;
        }
        if s == "'s" {
            // "Bob's sister": the possessed thing is the subject; the owner qualifies it.
            np.push(w);
            k += 1;
            continue;
        }
        np.push(w);
        k += 1;
    }
    if k >= words.len() || np.is_empty() {
        return None;
    }
    // "Bob's sister" → [bob, 's, sister]: the head is after the possessive.
    let after_possessive = np.iter().rposition(|w| w.is("'s")).map_or(0, |p| p + 1);
    let mut stems: Vec<CompactString> = Vec::new();
    if after_possessive > 0 {
        // The owner is kept, marked, so that "Bob" and "Bob's sister" differ.
        for w in &np[..after_possessive - 1] {
            if !is_determiner(&w.w) {
                stems.push(CompactString::from(format!("{}'s", w.w)));
            }
        }
    }
    for w in &np[after_possessive..] {
        if !is_determiner(&w.w) && !matches!(w.w.as_str(), "user" | "new" | "updated" | "latest") {
            stems.push(content_stem(&w.w));
        }
    }
    if possessed_by_speaker && !stems.iter().any(|s| is_other_person(s)) {
        // "my rent", "our office": the speaker's key, marked as the speaker's ("my"), so that
        // "my rent is" and "my rent went up" share it and the speaker's own changes reach it.
        stems.insert(0, CompactString::const_new("my"));
        return Some((Subject::Named(stems), k));
    }
    if stems.is_empty() {
        return None;
    }
    Some((Subject::Named(stems), k))
}

/// Whether a word after a noun phrase opens its verb phrase.
fn looks_like_verb(w: &W, prev: Option<&W>, next: Option<&W>) -> bool {
    let s = w.w.as_str();
    if prev.is_some_and(|p| is_determiner(&p.w)) {
        // "my *rent*", "the *rent*": a noun follows a determiner.
        return false;
    }
    // "his group members *play*", "my classmates *do not* …": a plural noun ends the noun
    // phrase, and the verb comes after it.
    let verb_follows = next.is_some_and(|n| {
        is_aux(&n.w)
            || n.is("not")
            || n.is("never")
            || is_adverb(&n.w) && !n.is("now")
            || looks_like_base_verb(&n.w)
    });
    if s.ends_with('s') && verb_follows && !s.ends_with("ss") {
        return false;
    }
    if w.num.is_some() || never_verb(s) || w.cap && prev.is_some_and(|p| p.cap) {
        return false;
    }
    let l = lemma(s);
    attitude(&l) != 0
        || end_verb(&l)
        || change_verb(&l).is_some()
        || looks_like_base_verb(&l)
        || past_form(s)
        || matches!(
            l.as_str(),
            "go" | "come" | "become" | "get" | "make" | "give"
        )
        || matches!(
            l.as_str(),
            "live"
                | "work"
                | "use"
                | "lead"
                | "run"
                | "host"
                | "drink"
                | "eat"
                | "play"
                | "commute"
                | "drive"
                | "release"
                | "own"
                | "manage"
                | "deploy"
                | "speak"
                | "list"
                | "say"
                | "show"
                | "record"
                | "require"
                | "support"
                | "cost"
                | "earn"
                | "weigh"
                | "meet"
                | "wake"
                | "serve"
                | "handle"
                | "store"
                | "study"
                | "teach"
                | "read"
                | "write"
                | "need"
                | "have"
                | "keep"
                | "ship"
                | "send"
                | "report"
                | "belong"
                | "sit"
                | "stay"
                | "attend"
                | "practice"
                | "train"
                | "hold"
                | "pay"
                | "charge"
                | "reside"
        )
        || (s.ends_with("ed") && s.len() > 4)
        || (s.ends_with('s')
            && !s.ends_with("ss")
            && prev.is_some()
            && !w.cap
            && s.len() > 3
            && !plural_noun(s))
}

/// A verb's base form that commonly follows a plural subject.
fn looks_like_base_verb(w: &str) -> bool {
    attitude(w) != 0
        || matches!(
            w,
            "play"
                | "visit"
                | "eat"
                | "drink"
                | "live"
                | "work"
                | "use"
                | "collect"
                | "need"
                | "rent"
                | "own"
                | "have"
                | "run"
                | "lead"
                | "read"
                | "write"
                | "want"
                | "go"
                | "speak"
                | "know"
                | "host"
                | "deploy"
                | "ship"
                | "release"
                | "meet"
                | "take"
        )
}

fn plural_noun(s: &str) -> bool {
    matches!(
        s,
        "units"
            | "seats"
            | "books"
            | "users"
            | "services"
            | "tests"
            | "days"
            | "weeks"
            | "years"
            | "months"
            | "hours"
            | "minutes"
            | "seconds"
            | "requests"
            | "nodes"
            | "logs"
            | "settings"
            | "notes"
            | "docs"
            | "records"
            | "results"
            | "limits"
            | "keys"
    )
}

/// Chinese and Korean: statements read from cue phrases. A report ("…显示…") is read as the
/// claim it reports; a change cue ("改打", "换成", "搬到", "涨到", "接替", "로 바꿨") or an
/// ending ("离职", "关了", "去世", "戒了", "그만") takes the words after it as the value and the
/// words before it as the subject; otherwise a frame ("X是V", "X在V", "X用V") gives subject and
/// value; otherwise the values the kinds table knows are the statement's values.
fn read_cjk(text: &str) -> Vec<Statement> {
    const REPORTS: &[&str] = &["显示", "表明", "记录", "列出", "写着", "에 따르면"];
    const CHANGES: &[&str] = &[
        "改打",
        "改喝",
        "改用",
        "换成",
        "换到",
        "改成",
        "改为",
        "搬到",
        "搬去",
        "转到",
        "涨到",
        "涨至",
        "降到",
        "降至",
        "升到",
        "升至",
        "跳槽到",
        "跳槽去",
        "变成",
        "成了",
        "迁到",
        "迁移到",
        "切换到",
        "接替",
        "接手",
        "取代",
        "转为",
        "으로 바꿨",
        "로 바꿨",
        "으로 이사",
        "로 이사",
        "으로 옮겼",
        "로 옮겼",
    ];
    const ENDS: &[&str] = &[
        "离职", "离开", "辞去", "退出", "关掉", "关了", "戒了", "戒掉", "不再", "去世", "死了",
        "卖掉", "卖了", "取消", "停止", "停了", "그만", "퇴사", "끊었", "죽었", "팔았",
    ];
    const FRAMES: &[&str] = &["是", "在", "为", "使用", "用", "很"];
    let hangul = text.chars().any(is_hangul);
    let spaced = text.trim();
    let mut t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut reported = false;
    if let Some((at, r)) = REPORTS
        .iter()
        .filter_map(|r| t.find(r).map(|at| (at, *r)))
        .min()
        && at >= 2 * 3
    {
        t = t[at + r.len()..].to_string();
        reported = true;
    }
    let mut s = Statement::new(Subject::Speaker);
    s.reported = reported;
    s.correction = ["其实", "实际上", "原来", "更正", "搞错"]
        .iter()
        .any(|c| t.contains(c));
    s.past = ["以前", "小时候", "曾经", "过去", "예전에"]
        .iter()
        .any(|c| t.contains(c));
    s.adds = ["也", "还", "另外"].iter().any(|c| t.contains(c));
    if [
        "打算", "准备", "可能", "如果", "想要", "考虑", "吗", "？", "?", "것 같", "할까",
    ]
    .iter()
    .any(|c| t.contains(c))
    {
        s.mood = Mood::Tentative;
        s.hypothetical = true;
    }
    s.period = cjk_period(&t);
    let value_after = |at: usize| -> Option<CompactString> {
        let rest = t[at..].trim_start_matches(['了', '到', '为']);
        let end = rest
            .find(['。', '，', '！', '；', ',', '.', '了', '的'])
            .unwrap_or(rest.len());
        (end > 0).then(|| CompactString::from(rest[..end].to_lowercase()))
    };
    let cue = |list: &[&'static str]| {
        list.iter()
            .filter_map(|c| {
                if c.contains(' ') {
                    spaced.find(c)?;
                    t.find(&c.replace(' ', "")).map(|at| (at, *c))
                } else {
                    t.find(c).map(|at| (at, *c))
                }
            })
            .min()
    };
    if let Some((at, c)) = cue(CHANGES) {
        s.act = Act::Changes;
        s.verb = CompactString::from(c);
        s.subject = cjk_subject(&t[..at], hangul);
        if hangul {
            // Korean: the value comes before its particle ("차로 바꿨어요").
            let before = spaced[..spaced.find(c).unwrap_or(0)]
                .split_whitespace()
                .last();
            s.value = before
                .map(|w| w.trim_end_matches(['으', '로']))
                .filter(|w| !w.is_empty())
                .map(CompactString::from)
                .into_iter()
                .collect();
        } else {
            s.value = value_after(at + c.len()).into_iter().collect();
        }
        if matches!(c, "接替" | "接手" | "取代") {
            s.previous = s.value.clone();
        }
    } else if let Some((at, c)) = cue(ENDS) {
        s.act = Act::Ends;
        s.verb = CompactString::from(c);
        s.subject = cjk_subject(&t[..at], hangul);
        // What precedes the cue also names what ended ("从 Initech 离职", "Initech를 그만").
        let mut value = kinds_in(&t[..at]);
        value.extend(value_after(at + c.len()));
        s.value = value;
    } else if let Some((at, c)) = FRAMES
        .iter()
        .filter_map(|c| t.find(c).map(|at| (at, *c)))
        .filter(|(at, _)| *at > 0)
        .min()
    {
        s.verb = CompactString::from(c);
        s.subject = cjk_subject(&t[..at], hangul);
        s.value = value_after(at + c.len()).into_iter().collect();
        if s.value.is_empty() {
            return Vec::new();
        }
    } else {
        let found = kinds_in(&t);
        if found.is_empty() && s.period.is_none() {
            return Vec::new();
        }
        s.verb = CompactString::const_new("cjk");
        s.value = found;
    }
    s.number = s.value.iter().find_map(|v| cjk_number(v));
    vec![s]
}

fn is_hangul(c: char) -> bool {
    matches!(c as u32, 0xAC00..=0xD7AF)
}

/// The subject of a Chinese clause from the words before its verb: the speaker ("我",
/// "我们", "用户"), the speaker's own key ("我的房租" → my 房租), or the thing named. Korean
/// memories are mostly subjectless: the speaker.
fn cjk_subject(before: &str, hangul: bool) -> Subject {
    const TIME: &[&str] = &[
        "上周",
        "昨天",
        "今天",
        "去年",
        "今年",
        "上个月",
        "最近",
        "现在",
        "已经",
        "每天",
        "早上",
    ];
    let mut b = before.trim_end_matches(['把', '从', '在', '已', '经', '都', '就']);
    for w in TIME {
        b = b.trim_end_matches(w);
    }
    if hangul || b.is_empty() {
        return Subject::Speaker;
    }
    for mine in ["我们的", "我的", "用户的"] {
        if let Some(key) = b.strip_prefix(mine) {
            return Subject::Named(vec![
                CompactString::const_new("my"),
                CompactString::from(key),
            ]);
        }
    }
    const RELATIVES: &[&str] = &[
        "妈妈",
        "爸爸",
        "母亲",
        "父亲",
        "哥哥",
        "姐姐",
        "妹妹",
        "弟弟",
        "朋友",
        "老婆",
        "老公",
        "妻子",
        "丈夫",
        "女儿",
        "儿子",
        "同事",
        "男朋友",
        "女朋友",
        "家人",
        "孩子",
    ];
    if let Some(rel) = RELATIVES.iter().find(|r| b.contains(*r)) {
        // "我妈妈住在上海": another person, named through the speaker.
        return Subject::Named(vec![CompactString::from(*rel)]);
    }
    if ["我们", "我", "用户"].iter().any(|p| b.starts_with(p)) {
        // "我六月从 Initech": the speaker, with when and whence.
        return Subject::Speaker;
    }
    Subject::Named(vec![CompactString::from(b)])
}

/// The number in a CJK value: Arabic digits, or a Chinese numeral ("四楼" → 4).
fn cjk_number(v: &str) -> Option<f64> {
    let digits: String = v
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    if let Ok(n) = digits.parse() {
        return Some(n);
    }
    v.chars().find_map(|c| {
        "零一二三四五六七八九十"
            .chars()
            .position(|d| d == c)
            .map(|p| p as f64)
    })
}

/// A frequency in Chinese: "每周" = 7 days, "每两周" = 14, "每天" = 1.
fn cjk_period(t: &str) -> Option<f64> {
    let at = t.find('每')?;
    let rest: Vec<char> = t[at + '每'.len_utf8()..].chars().take(3).collect();
    let unit = |c: char| match c {
        '天' | '日' => Some(1.0),
        '周' | '星' => Some(7.0),
        '月' => Some(30.0),
        '年' => Some(365.0),
        _ => None,
    };
    let first = *rest.first()?;
    if let Some(u) = unit(first) {
        return Some(u);
    }
    let n = match first {
        '两' | '二' => 2.0,
        '三' => 3.0,
        '四' => 4.0,
        '半' => 0.5,
        c => c.to_digit(10)? as f64,
    };
    let next = rest
        .get(1)
        .copied()
        .filter(|c| *c != '个')
        .or(rest.get(2).copied())?;
    Some(n * unit(next)?)
}

/// Substrings of a CJK text the kinds table knows, longest first at each position.
fn kinds_in(t: &str) -> Vec<CompactString> {
    let chars: Vec<(usize, char)> = t.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let mut hit = None;
        for len in (2..=4).rev() {
            if i + len > chars.len() {
                continue;
            }
            let end = chars.get(i + len).map_or(t.len(), |c| c.0);
            let piece = &t[chars[i].0..end];
            if !kinds::kinds_of(piece).is_empty() {
                hit = Some((len, piece));
                break;
            }
        }
        if let Some((len, piece)) = hit {
            out.push(CompactString::from(piece));
            i += len;
        } else {
            i += 1;
        }
    }
    // ASCII names inside CJK text ("MySQL", "Initech").
    for w in t.split(|c: char| !c.is_ascii_alphanumeric() && c != '-' && c != '.') {
        if w.len() >= 3 && w.chars().any(|c| c.is_ascii_alphabetic()) {
            out.push(CompactString::from(w.to_lowercase()));
        }
    }
    out
}

#[cfg(test)]
mod tests;
