//! Single-valued attributes of a person: where they live, where they work, their name, their
//! job, whether they are married, what they eat. Agents store these as short statements ("I
//! live in Berlin", "用户住在北京", "저는 서울에 살아요") and record a change by stating the new
//! value, often with nothing else in common ("I moved to Lisbon", "我搬到上海了"). Two
//! statements of one such attribute about the same subject with different values contradict
//! each other without any cue word, which is what separates them from many-valued ones
//! (likes, hobbies, places visited), where a second value is an addition.
//!
//! The subject is the part of the sentence before the attribute: "I", "my", "the user", "用户",
//! "我", "저는" and no subject at all (profile facts such as "Lives in Berlin") are the same
//! one, the user, while "my sister" or "Grace" are others.

use std::collections::HashSet;
use std::hash::BuildHasherDefault;
use std::sync::LazyLock;

use super::attributes::Dir::{After, Before};
use super::attributes::{Attr, PHRASES, Phrase};
use super::evidence::Evidence;
use super::kinds::FxHasher;
use super::lexicon;
use super::shifts;
use super::tokens::{Kind, Token};
use super::{ConflictType, Signal};

/// Copulas that may state a job: the cheap test for [`occupation`].
fn copula(w: &str) -> bool {
    matches!(w, "am" | "is" | "i'm" | "是" | "입" | "예" | "이")
}

/// Whether a token can open one of the phrases: a cheap test before any phrase is tried.
fn opens(w: &str) -> bool {
    matches!(
        w,
        "live"
            | "lives"
            | "living"
            | "based"
            | "reside"
            | "resides"
            | "moved"
            | "relocated"
            | "moving"
            | "work"
            | "new"
            | "hired"
            | "works"
            | "working"
            | "employed"
            | "job"
            | "name"
            | "name's"
            | "go"
            | "goes"
            | "title"
            | "occupation"
            | "profession"
            | "use"
            | "uses"
            | "using"
            | "switched"
            | "changed"
            | "birthday"
            | "born"
            | "email"
            | "number"
            | "address"
            | "prefer"
            | "prefers"
            | "邮"
            | "电"
            | "地"
            | "偏"
            | "更"
            | "생"
            | "住"
            | "居"
            | "定"
            | "生"
            | "搬"
            | "工"
            | "上"
            | "跳"
            | "入"
            | "叫"
            | "名"
            | "职"
            | "用"
            | "使"
            | "换"
            | "改"
            | "切"
            | "에"
            | "으"
            | "로"
            | "이"
            | "직"
            | "사"
    )
}

/// Most tokens of a value: attributes' values are names, places and short titles.
const MAX_VALUE: usize = 4;
/// Most CJK characters of a value.
const MAX_CJK_VALUE: usize = 6;

/// The attribute statements of one text, found once when a memory is analysed (every pair it
/// takes part in compares them).
#[derive(Debug, Clone, Default)]
pub struct Statements(Vec<Statement>);

impl Statements {
    pub fn of(ts: &[Token], text: &str) -> Self {
        Self(statements(ts, text))
    }

    /// The bytes the statements hold on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.0.capacity() * std::mem::size_of::<Statement>()
    }
}

/// A text's tokens with the statements found in them.
#[derive(Clone, Copy)]
pub struct Stated<'a> {
    pub tokens: &'a [Token],
    pub text: &'a str,
    pub statements: &'a Statements,
}

/// One statement of an attribute: where its subject, value and any qualifier after it lie.
#[derive(Debug, Clone)]
struct Statement {
    attr: Attr,
    change: bool,
    /// "no longer works at", "不再是": the statement denies the value.
    negated: bool,
    subject: std::ops::Range<usize>,
    value: std::ops::Range<usize>,
    /// The rest of the clause after the value ("for data work", "on weekends").
    rest: std::ops::Range<usize>,
}

/// A changed single-valued attribute: both memories state it of the same subject, with values
/// neither of which contains the other; or one denies the value the other states ("I am a
/// student" / "不再是学生", "Lives in Berlin" / "I don't live in Berlin").
pub fn replaced(old: Stated, new: Stated) -> Option<Evidence> {
    let may = |ts: &[Token]| ts.iter().any(|t| opens(&t.norm) || copula(&t.norm));
    if !may(old.tokens) || !may(new.tokens) {
        return None;
    }
    let (so, sn) = (&old.statements.0, &new.statements.0);
    let (old, old_text, new, new_text) = (old.tokens, old.text, new.tokens, new.text);
    let changed = so.iter().find_map(|a| {
        sn.iter()
            .filter(|b| b.attr == a.attr && (a.attr != Attr::Choice || a.change || b.change))
            .find_map(|b| conflict(a, old, old_text, b, new, new_text))
    });
    changed.or_else(|| {
        so.iter().find_map(|a| {
            sn.iter().find(|b| denies(a, old, b, new)).map(|_| {
                let value = text_of(&old[a.value.clone()], old_text);
                Evidence::new(
                    Signal::Negation,
                    ConflictType::DirectContradiction,
                    0.7,
                    format!("{} denied: \"{value}\"", a.attr.describe()),
                )
            })
        })
    })
}

/// Whether one statement denies the value the other states, of the same subject.
fn denies(a: &Statement, old: &[Token], b: &Statement, new: &[Token]) -> bool {
    let (va, vb) = (&old[a.value.clone()], &new[b.value.clone()]);
    a.attr == b.attr
        && a.negated != b.negated
        && subject(&old[a.subject.clone()]) == subject(&new[b.subject.clone()])
        && contains(va, vb)
        && contains(vb, va)
}

fn text_of(ts: &[Token], text: &str) -> String {
    text[ts[0].start..ts[ts.len() - 1].end].to_string()
}

fn conflict(
    a: &Statement,
    old: &[Token],
    old_text: &str,
    b: &Statement,
    new: &[Token],
    new_text: &str,
) -> Option<Evidence> {
    if a.negated || b.negated {
        return None;
    }
    if subject(&old[a.subject.clone()]) != subject(&new[b.subject.clone()]) {
        return None;
    }
    let (va, vb) = (&old[a.value.clone()], &new[b.value.clone()]);
    if contains(va, vb) || contains(vb, va) {
        return None;
    }
    // Different qualifiers make different slots: "prefers Python for data work" / "prefers
    // Rust for systems work".
    let (ra, rb) = (content(&old[a.rest.clone()]), content(&new[b.rest.clone()]));
    if !ra.is_empty() && !rb.is_empty() && ra != rb {
        return None;
    }
    let quote = |ts: &[Token], text: &str| text[ts[0].start..ts[ts.len() - 1].end].to_string();
    Some(Evidence::new(
        Signal::Replacement,
        ConflictType::DirectContradiction,
        0.7,
        format!(
            "{} changed: \"{}\" vs \"{}\"",
            a.attr.describe(),
            quote(va, old_text),
            quote(vb, new_text)
        ),
    ))
}

/// Whether every content unit of `inner` occurs in `outer` ("Google" in "Google Cloud", "上海"
/// in "上海浦东").
fn contains(outer: &[Token], inner: &[Token]) -> bool {
    inner
        .iter()
        .filter(|t| t.is_content())
        .all(|t| outer.iter().any(|o| o.stem == t.stem))
}

fn content(ts: &[Token]) -> Vec<&str> {
    ts.iter()
        .filter(|t| t.is_content() && !shifts::is_cue_word(&t.norm) && !is_time_word(&t.norm))
        .map(|t| t.stem.as_str())
        .collect()
}

/// Occupations, the job a person holds ("I am a *nurse*", "用户是*程序员*", "저는 *개발자*예요").
/// A closed class, so that "I'm a night owl" or "I am a runner" are no jobs.
const OCCUPATIONS: &[&str] = &[
    "engineer",
    "developer",
    "programmer",
    "designer",
    "manager",
    "teacher",
    "nurse",
    "doctor",
    "lawyer",
    "student",
    "accountant",
    "analyst",
    "consultant",
    "scientist",
    "researcher",
    "professor",
    "architect",
    "chef",
    "cook",
    "writer",
    "journalist",
    "editor",
    "pharmacist",
    "dentist",
    "intern",
    "freelancer",
    "founder",
    "salesperson",
    "cashier",
    "waiter",
    "driver",
    "pilot",
    "electrician",
    "plumber",
    "mechanic",
    "firefighter",
    "officer",
    "librarian",
    "photographer",
    "translator",
    "retiree",
    "工程师",
    "程序员",
    "设计师",
    "老师",
    "教师",
    "医生",
    "护士",
    "律师",
    "学生",
    "经理",
    "会计",
    "分析师",
    "研究员",
    "教授",
    "厨师",
    "作家",
    "记者",
    "司机",
    "产品经理",
    "개발자",
    "엔지니어",
    "디자이너",
    "선생님",
    "교사",
    "의사",
    "간호사",
    "변호사",
    "학생",
    "회사원",
    "매니저",
    "기자",
    "요리사",
    "작가",
];

/// Whether `word` is one of [`OCCUPATIONS`]: asked of every word of every memory analysed,
/// so one lookup instead of a scan of the list.
fn is_occupation(word: &str) -> bool {
    static WORDS: LazyLock<HashSet<&'static str, BuildHasherDefault<FxHasher>>> =
        LazyLock::new(|| OCCUPATIONS.iter().copied().collect());
    WORDS.contains(word)
}

/// Where a one- or few-character CJK occupation starting at token `i` ends.
fn cjk_occupation(ts: &[Token], text: &str, i: usize) -> Option<usize> {
    (2..=4).rev().find_map(|n| {
        let end = i + n;
        let word = &text[ts[i].start..ts.get(end - 1)?.end];
        (ts[i..end].iter().all(|t| t.kind == Kind::Cjk) && is_occupation(word)).then_some(end)
    })
}

/// "I am a software engineer", "User is a nurse", "我是学生", "저는 개발자입니다": a job stated
/// with a copula. Only the user's own job counts; others may hold several titles at once.
fn occupation(ts: &[Token], text: &str) -> Option<Statement> {
    (0..ts.len()).find_map(|i| {
        let (value, subject_end) = if ts[i].kind == Kind::Cjk {
            let end = cjk_occupation(ts, text, i)?;
            let korean = ts[i].norm.chars().all(is_hangul);
            let copula = if korean {
                // "개발자*입*니다", "개발자*예*요", "학생*이*에요"; "개발자를 만났다" states no job.
                let next = ts.get(end).map(|t| t.norm.as_str());
                matches!(next, Some("입" | "이" | "예" | "야")).then_some(i)?
            } else {
                i.checked_sub(1).filter(|&c| ts[c].norm == "是")?
            };
            (i..end, copula)
        } else {
            if !is_occupation(&ts[i].norm) {
                return None;
            }
            // Back over the title's modifiers to "a"/"an" and the copula: "am a senior *engineer*".
            let article = (i.saturating_sub(MAX_VALUE)..i)
                .rev()
                .find(|&k| matches!(ts[k].norm.as_str(), "a" | "an"))?;
            let copula = article.checked_sub(1)?;
            if !matches!(ts[copula].norm.as_str(), "am" | "is" | "i'm" | "now") {
                return None;
            }
            (article + 1..i + 1, copula)
        };
        let start = clause_start(ts, text, value.start);
        if start > subject_end || subject(&ts[start..subject_end]) != ["@"] {
            return None;
        }
        Some(Statement {
            attr: Attr::Job,
            change: false,
            negated: negated(ts, value.start),
            subject: start..subject_end,
            rest: value.end..value.end,
            value,
        })
    })
}

/// Every statement of an attribute in a text.
fn statements(ts: &[Token], text: &str) -> Vec<Statement> {
    let mut out: Vec<Statement> = occupation(ts, text).into_iter().collect();
    for i in 0..ts.len() {
        if !opens(&ts[i].norm) {
            continue;
        }
        for ph in PHRASES {
            let end = i + ph.words.len();
            let fits =
                end <= ts.len() && ph.words.iter().zip(&ts[i..end]).all(|(w, t)| t.norm == *w);
            // "用户" (user) is not "用" (use).
            let user = ph.words == ["用"] && ts.get(end).is_some_and(|t| t.norm == "户");
            if !fits || user {
                continue;
            }
            if let Some(mut s) = statement(ts, text, ph, i, end) {
                s.negated = negated(ts, i);
                out.push(s);
                break;
            }
        }
    }
    out
}

fn negated(ts: &[Token], at: usize) -> bool {
    ts[at.saturating_sub(3)..at]
        .iter()
        .any(|t| lexicon::is_negator(&t.norm) || t.norm == "안")
}

fn statement(ts: &[Token], text: &str, ph: &Phrase, from: usize, to: usize) -> Option<Statement> {
    let clause_start = clause_start(ts, text, from);
    let (subject, value, rest) = match ph.dir {
        After => {
            let mut v = to;
            // Leading determiners and particles: "the platform team", "到了上海".
            while v < ts.len()
                && !broken(ts, text, v)
                && matches!(ts[v].norm.as_str(), "the" | "a" | "an" | "my" | "了" | "是")
            {
                v += 1;
            }
            let end = value_end(ts, text, v);
            let rest_end = clause_end(ts, text, end);
            (clause_start..from, v..end, end..rest_end)
        }
        Before => {
            // Korean values open a word; Chinese "在…工作" needs its "在".
            let korean = ts[from].norm.chars().all(is_hangul);
            let mut v = from;
            while v > clause_start
                && from - v < MAX_CJK_VALUE
                && !broken(ts, text, v)
                && !(korean && spaced(ts, text, v))
                && !matches!(ts[v - 1].norm.as_str(), "在" | "는" | "은" | "가" | "도")
            {
                v -= 1;
            }
            let opened = v > clause_start && ts[v - 1].norm == "在";
            if !(opened || korean) {
                return None;
            }
            // What follows is the verb's ending ("살*아요*"), not a qualifier.
            let subject_end = if opened { v - 1 } else { v };
            (clause_start..subject_end, v..from, to..to)
        }
    };
    (!value.is_empty() && ts[value.clone()].iter().any(Token::is_content)).then_some(Statement {
        attr: ph.attr,
        change: ph.change,
        negated: false,
        subject,
        value,
        rest,
    })
}

fn is_hangul(c: char) -> bool {
    matches!(c as u32, 0xAC00..=0xD7AF)
}

/// Whether punctuation separates token `i` from the one before it.
fn broken(ts: &[Token], text: &str, i: usize) -> bool {
    i == 0
        || i >= ts.len()
        || text[ts[i - 1].end..ts[i].start]
            .chars()
            .any(|c| !c.is_whitespace() && c != '\'' && c != '’' && c != '-')
}

/// Whitespace between token `i` and the one before it (a word boundary in Korean).
fn spaced(ts: &[Token], text: &str, i: usize) -> bool {
    i > 0
        && i < ts.len()
        && ts[i - 1].end < ts[i].start
        && text[ts[i - 1].end..ts[i].start].trim().is_empty()
}

/// The first token of the clause holding token `i`.
fn clause_start(ts: &[Token], text: &str, i: usize) -> usize {
    (1..=i).rev().find(|&k| broken(ts, text, k)).unwrap_or(0)
}

fn clause_end(ts: &[Token], text: &str, from: usize) -> usize {
    (from..ts.len())
        .find(|&k| k > from && broken(ts, text, k))
        .unwrap_or(ts.len())
        .max(from)
}

/// Where a value that starts at `v` ends: at punctuation, a word that opens a qualifier, or
/// its length limit.
fn value_end(ts: &[Token], text: &str, v: usize) -> usize {
    let cjk = ts.get(v).is_some_and(|t| t.kind == Kind::Cjk);
    let limit = if cjk { MAX_CJK_VALUE } else { MAX_VALUE };
    let mut e = v;
    while e < ts.len() && e - v < limit && (e == v || !broken(ts, text, e)) {
        let w = ts[e].norm.as_str();
        let stop = if cjk {
            ts[e].kind != Kind::Cjk
                || lexicon::is_cjk_particle(w)
                || matches!(w, "啦" | "吧" | "呢")
                || ts
                    .get(e + 1)
                    .is_some_and(|n| matches!((w, n.norm.as_str()), ("工", "作") | ("上", "班")))
                || (e > v && spaced(ts, text, e))
        } else {
            ts[e].kind == Kind::Cjk || ends_value(w)
        };
        if stop {
            break;
        }
        e += 1;
    }
    e
}

/// Words that end an English value: a preposition or conjunction opening a qualifier, or an
/// adverb of time.
fn ends_value(w: &str) -> bool {
    matches!(
        w,
        "with"
            | "since"
            | "and"
            | "as"
            | "for"
            | "because"
            | "but"
            | "from"
            | "until"
            | "in"
            | "on"
            | "at"
            | "to"
            | "by"
            | "of"
            | "so"
            | "which"
            | "who"
            | "where"
            | "when"
            | "that"
            | "is"
            | "are"
            | "was"
            | "instead"
            | "over"
            | "every"
            | "each"
            | "last"
            | "this"
            | "next"
            | "these"
            | "daily"
            | "again"
    ) || shifts::is_cue_word(w)
        || is_time_word(w)
}

fn is_time_word(w: &str) -> bool {
    matches!(
        w,
        "today" | "yesterday" | "tomorrow" | "lately" | "nowadays" | "recently" | "year" | "month"
    ) || shifts::is_day_word(w)
}

/// Most tokens of a subject that are read.
const SUBJECT_TOKENS: usize = 8;

/// Who a statement is about, as comparable words: first-person words and "user" stand for the
/// user, as does an empty subject; adverbs and particles are dropped; a coordinated second
/// subject ("User and Sarah") is left out.
fn subject(ts: &[Token]) -> Vec<&str> {
    // A subject is a few words right before its attribute; a longer span is mostly the clause
    // of an encyclopedic sentence, and reading only its tail bounds the cost.
    let ts = &ts[ts.len().saturating_sub(SUBJECT_TOKENS)..];
    let mut out: Vec<&str> = Vec::new();
    let mut k = 0;
    while k < ts.len() {
        let t = &ts[k];
        let w = t.norm.as_str();
        if matches!(w, "and" | "和" | "与" | "跟") {
            break;
        }
        let user = match t.kind {
            Kind::Word => matches!(w, "i" | "i'm" | "me" | "my" | "user" | "user's" | "users"),
            Kind::Cjk => matches!(w, "我" | "저" | "제" | "나" | "내"),
            Kind::Number => false,
        };
        let user_word = |words: &[&str]| {
            ts.len() >= k + words.len() && words.iter().zip(&ts[k..]).all(|(a, b)| b.norm == *a)
        };
        if user {
            out.push("@");
        } else if user_word(&["用", "户"]) {
            out.push("@");
            k += 1;
        } else if user_word(&["사", "용", "자"]) {
            out.push("@");
            k += 2;
        } else if filler(ts, k) {
            // Adverbs and particles say nothing about who.
            if ts.get(k + 1).is_some_and(|n| adverb_pair(w, &n.norm)) {
                k += 1;
            }
        } else {
            out.push(t.stem.as_str());
        }
        k += 1;
    }
    if out.is_empty() {
        out.push("@");
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn filler(ts: &[Token], k: usize) -> bool {
    let t = &ts[k];
    let w = t.norm.as_str();
    match t.kind {
        Kind::Word => {
            !t.is_content()
                || shifts::is_cue_word(w)
                || is_copula(w)
                || is_time_word(w)
                || lexicon::month(w).is_some()
                || lexicon::is_negator(w)
                || lexicon::is_negation_filler(w)
                || matches!(
                    w,
                    "also" | "still" | "always" | "usually" | "actually" | "finally"
                )
                || w.ends_with("ly")
        }
        Kind::Cjk => {
            lexicon::is_cjk_particle(w)
                || lexicon::is_negator(w)
                || matches!(
                    w,
                    "는" | "은" | "이" | "가" | "도" | "요" | "也" | "还" | "都" | "再" | "안"
                )
                || ts.get(k + 1).is_some_and(|n| adverb_pair(w, &n.norm))
        }
        Kind::Number => false,
    }
}

/// Two-character adverbs of time in a subject span: 现在, 目前, 已经, 最近, 지금, 이제, 요즘.
fn adverb_pair(a: &str, b: &str) -> bool {
    matches!(
        (a, b),
        ("现", "在")
            | ("目", "前")
            | ("已", "经")
            | ("最", "近")
            | ("지", "금")
            | ("이", "제")
            | ("요", "즘")
    )
}

/// Closed classes of states a person is in one at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Marital,
    Diet,
}

/// Members of the classes. English adjectives count after a copula ("am single", "got
/// married"), so "a single server" is no state.
const STATES: &[(Class, u8, &[&str])] = &[
    (Class::Marital, 1, &["single"]),
    (Class::Marital, 2, &["married"]),
    (Class::Marital, 3, &["divorced"]),
    (Class::Marital, 4, &["engaged"]),
    (Class::Marital, 5, &["widowed"]),
    (Class::Marital, 1, &["单", "身"]),
    (Class::Marital, 2, &["已", "婚"]),
    (Class::Marital, 2, &["结", "婚"]),
    (Class::Marital, 3, &["离", "婚"]),
    (Class::Marital, 4, &["订", "婚"]),
    (Class::Marital, 1, &["미", "혼"]),
    (Class::Marital, 1, &["싱", "글"]),
    (Class::Marital, 2, &["기", "혼"]),
    (Class::Marital, 2, &["결", "혼"]),
    (Class::Marital, 3, &["이", "혼"]),
    (Class::Marital, 4, &["약", "혼"]),
    (Class::Diet, VEGETARIAN, &["vegetarian"]),
    (Class::Diet, VEGAN, &["vegan"]),
    (Class::Diet, PESCATARIAN, &["pescatarian"]),
    (Class::Diet, VEGETARIAN, &["素", "食"]),
    (Class::Diet, VEGETARIAN, &["吃", "素"]),
    (Class::Diet, VEGAN, &["纯", "素"]),
    (Class::Diet, VEGETARIAN, &["채", "식"]),
    (Class::Diet, VEGAN, &["비", "건"]),
];

const VEGETARIAN: u8 = 1;
const VEGAN: u8 = 2;
const PESCATARIAN: u8 = 3;
const MEAT: u8 = 4;
const FISH: u8 = 5;

/// Whether a token can open a state or an eating phrase: the cheap test before any is tried.
fn may_state(w: &str) -> bool {
    matches!(
        w,
        "single"
            | "married"
            | "divorced"
            | "engaged"
            | "widowed"
            | "vegetarian"
            | "vegan"
            | "pescatarian"
            | "eat"
            | "eats"
            | "eating"
            | "ate"
            | "单"
            | "已"
            | "结"
            | "离"
            | "订"
            | "素"
            | "吃"
            | "纯"
            | "미"
            | "싱"
            | "기"
            | "결"
            | "이"
            | "약"
            | "채"
            | "비"
            | "고"
            | "생"
    )
}

/// Whether two members of a class can hold together: someone who eats fish may be a
/// pescatarian, and may eat meat too.
fn compatible(class: Class, a: u8, b: u8) -> bool {
    a == b
        || class == Class::Diet
            && matches!((a.min(b), a.max(b)), (PESCATARIAN, FISH) | (MEAT, FISH))
}

fn is_copula(w: &str) -> bool {
    matches!(
        w,
        "am" | "is"
            | "are"
            | "i'm"
            | "be"
            | "been"
            | "got"
            | "get"
            | "became"
            | "become"
            | "now"
            | "still"
            | "currently"
            | "strictly"
            | "fully"
    )
}

/// Eating meat or fish, un-negated: "eats chicken", "started eating fish again", "吃肉",
/// "고기를 먹어요".
fn eats(ts: &[Token], i: usize) -> Option<u8> {
    let w = ts[i].norm.as_str();
    let kind_of = |food: &str| match food {
        "meat" | "chicken" | "beef" | "pork" | "steak" | "bacon" | "lamb" | "ham" | "burgers"
        | "肉" | "荤" | "고" => Some(MEAT),
        "fish" | "seafood" | "salmon" | "tuna" | "鱼" | "생" => Some(FISH),
        _ => None,
    };
    match w {
        "eat" | "eats" | "eating" | "ate" => ts[i + 1..(i + 4).min(ts.len())]
            .iter()
            .find_map(|t| kind_of(&t.norm)),
        "吃" => ts.get(i + 1).and_then(|t| kind_of(&t.norm)),
        // "고기(를) 먹", "생선(을) 먹".
        "고" | "생" => {
            let second = ts.get(i + 1).map(|t| t.norm.as_str());
            let food = matches!((w, second), ("고", Some("기")) | ("생", Some("선")));
            let eaten = ts[i + 2..(i + 5).min(ts.len())]
                .iter()
                .any(|t| t.norm == "먹");
            (food && eaten).then(|| kind_of(w)).flatten()
        }
        _ => None,
    }
}

/// The exclusive states a text puts its subjects in, with the token where each is stated.
fn states(ts: &[Token]) -> impl Iterator<Item = (Class, u8, usize)> + '_ {
    (0..ts.len()).filter_map(move |i| {
        if !may_state(&ts[i].norm) || negated(ts, i) {
            return None;
        }
        if let Some(food) = eats(ts, i) {
            return Some((Class::Diet, food, i));
        }
        STATES.iter().find_map(|&(class, id, words)| {
            let end = i + words.len();
            let fits = end <= ts.len() && words.iter().zip(&ts[i..end]).all(|(w, t)| t.norm == *w);
            let english = ts[i].kind == Kind::Word;
            let after_copula = i > 0 && is_copula(&ts[i - 1].norm);
            (fits && (!english || after_copula || class == Class::Diet)).then_some((class, id, i))
        })
    })
}

/// A person stated to be in two exclusive states: "I am single" / "I got married", "I'm
/// vegetarian" / "I eat chicken now", "我是素食主义者" / "我开始吃肉了".
pub fn exclusive_state(
    old: &[Token],
    old_text: &str,
    new: &[Token],
    new_text: &str,
) -> Option<Evidence> {
    let one = |ts: &[Token]| {
        let mut found = states(ts);
        let first = found.next()?;
        // A text that names two members of the class compares them itself.
        found
            .all(|s| s.0 != first.0 || s.1 == first.1)
            .then_some(first)
    };
    let (a, b) = (one(old)?, one(new)?);
    if a.0 != b.0 || compatible(a.0, a.1, b.1) {
        return None;
    }
    let sa = subject(&old[clause_start(old, old_text, a.2)..a.2]);
    let sb = subject(&new[clause_start(new, new_text, b.2)..b.2]);
    (sa == sb || sa == ["@"] || sb == ["@"]).then(|| {
        let what = match a.0 {
            Class::Marital => "marital status",
            Class::Diet => "diet",
        };
        Evidence::new(
            Signal::Replacement,
            ConflictType::DirectContradiction,
            0.7,
            format!(
                "{what} changed: \"{}\" vs \"{}\"",
                old[a.2].norm, new[b.2].norm
            ),
        )
    })
}

#[cfg(test)]
mod tests;
