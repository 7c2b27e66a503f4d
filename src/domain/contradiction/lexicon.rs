//! Closed-class word lists. The engine only ever consults grammar words (negators, quantifiers,
//! comparatives, units, update cues), never content vocabulary, so that rules generalise to
//! memories about any subject. Lists are `match`es rather than slices scanned word by word:
//! every token of every memory is looked up in several of them.

pub fn is_stopword(w: &str) -> bool {
    matches!(
        w,
        "a" | "an"
            | "the"
            | "of"
            | "in"
            | "on"
            | "at"
            | "to"
            | "for"
            | "by"
            | "with"
            | "from"
            | "as"
            | "and"
            | "or"
            | "but"
            | "is"
            | "are"
            | "was"
            | "were"
            | "be"
            | "been"
            | "being"
            | "has"
            | "have"
            | "had"
            | "do"
            | "does"
            | "did"
            | "it"
            | "its"
            | "this"
            | "that"
            | "these"
            | "those"
            | "he"
            | "she"
            | "they"
            | "his"
            | "her"
            | "their"
            | "him"
            | "them"
            | "we"
            | "our"
            | "you"
            | "your"
            | "i"
            | "my"
            | "me"
            | "which"
            | "who"
            | "whom"
            | "whose"
            | "there"
            | "than"
            | "then"
            | "so"
            | "such"
            | "also"
            | "into"
            | "will"
            | "would"
            | "can"
            | "could"
            | "should"
            | "may"
            | "might"
            | "shall"
            | "must"
            | "it's"
            | "i'm"
            | "s"
            | "what"
            | "when"
            | "where"
            | "how"
            | "while"
            | "both"
            | "each"
            | "other"
            | "own"
            | "same"
            | "very"
            | "just"
            | "about"
            | "over"
            | "under"
            | "more"
            | "less"
            | "most"
            | "after"
            | "before"
            | "during"
            | "since"
            | "until"
            | "up"
            | "out"
            | "all"
            | "any"
            | "some"
            | "only"
            | "too"
            | "now"
            | "not"
            | "no"
            | "never"
    )
}

/// Pronouns and determiners: a span made only of these is a re-reference, not a new value.
pub fn is_reference_word(w: &str) -> bool {
    matches!(
        w,
        "he" | "she"
            | "it"
            | "they"
            | "his"
            | "her"
            | "its"
            | "their"
            | "him"
            | "them"
            | "this"
            | "that"
            | "these"
            | "those"
            | "the"
            | "a"
            | "an"
            | "we"
            | "our"
            | "i"
            | "my"
            | "you"
            | "your"
            | "one"
            | "who"
            | "which"
            | "there"
            | "here"
    )
}

pub fn is_cjk_particle(w: &str) -> bool {
    matches!(
        w,
        "的" | "了" | "是" | "在" | "和" | "与" | "也" | "都" | "就" | "将" | "把" | "被"
    )
}

/// Relatives and close people of a memory's owner, who are other subjects than the owner.
pub fn is_relative(w: &str) -> bool {
    matches!(
        w,
        "brother"
            | "brothers"
            | "sister"
            | "sisters"
            | "mother"
            | "mom"
            | "mum"
            | "father"
            | "dad"
            | "parents"
            | "wife"
            | "husband"
            | "partner"
            | "girlfriend"
            | "boyfriend"
            | "son"
            | "daughter"
            | "kids"
            | "children"
            | "child"
            | "friend"
            | "friends"
            | "boss"
            | "colleague"
            | "roommate"
            | "grandmother"
            | "grandfather"
            | "哥哥"
            | "姐姐"
            | "弟弟"
            | "妹妹"
            | "妈妈"
            | "母亲"
            | "爸爸"
            | "父亲"
            | "妻子"
            | "老婆"
            | "丈夫"
            | "老公"
            | "儿子"
            | "女儿"
            | "孩子"
            | "朋友"
            | "同事"
            | "老板"
            | "형"
            | "누나"
            | "언니"
            | "오빠"
            | "동생"
            | "엄마"
            | "아빠"
            | "아내"
            | "남편"
            | "아들"
            | "딸"
            | "친구"
    )
}

/// Negators. `strong` excludes words that also occur in affirmative idioms ("stopped" as a
/// narrative verb, "无" inside compounds such as "无线").
pub fn is_negator(w: &str) -> bool {
    matches!(
        w,
        "not"
            | "no"
            | "never"
            | "none"
            | "nobody"
            | "nothing"
            | "neither"
            | "nor"
            | "cannot"
            | "without"
            | "nowhere"
            | "stopped"
            | "ceased"
            | "discontinued"
            | "unable"
            | "failed"
            | "failing"
            // Contractions some sources split at the apostrophe ("wasn ’ t").
            | "isn"
            | "wasn"
            | "aren"
            | "weren"
            | "doesn"
            | "didn"
            | "hasn"
            | "haven"
            | "hadn"
            | "couldn"
            | "wouldn"
            | "shouldn"
            | "不"
            | "没"
            | "未"
            | "无"
            | "非"
            | "别"
            | "否"
    ) || w.ends_with("n't")
}

/// Words that open a clause inside a span (a modal, a relative pronoun, "due to"): a span
/// holding one is a rewording of a statement, not a swapped value.
pub fn is_clause_word(w: &str) -> bool {
    matches!(
        w,
        "will"
            | "would"
            | "shall"
            | "should"
            | "can"
            | "could"
            | "may"
            | "might"
            | "which"
            | "who"
            | "whom"
            | "whose"
            | "due"
    )
}

/// Tokens after a negator that belong to the negated phrase but carry no content ("does not
/// *really* love", "不*再*使用", "没*有*").
pub fn is_negation_filler(w: &str) -> bool {
    matches!(
        w,
        "longer"
            | "any"
            | "anymore"
            | "ever"
            | "really"
            | "be"
            | "been"
            | "have"
            | "has"
            | "do"
            | "does"
            | "did"
            | "is"
            | "are"
            | "was"
            | "were"
            | "to"
            | "a"
            | "an"
            | "the"
            | "再"
            | "有"
            | "会"
            | "能"
            | "要"
            | "是"
            | "在"
            | "用"
            | "可"
    )
}

/// Phrases announcing that a fact replaced an earlier one. Matched against the new memory only.
/// At most 64: a side records the ones it holds as bits.
pub const REPLACEMENT_CUES: &[&str] = &[
    "instead of",
    "switched to",
    "switch to",
    "switching to",
    "switched from",
    "replaced by",
    "replaced with",
    "replaces",
    "migrated to",
    "migrating to",
    "moved to",
    "changed to",
    "changed from",
    "in favor of",
    "in favour of",
    "superseded by",
    "no longer",
    "now uses",
    "now use",
    "now using",
    "is now",
    "are now",
    "was moved",
    "pushed back to",
    "moved from",
    "改用",
    "替代",
    "换成",
    "取代",
    "改为",
    "换为",
    "迁移到",
    "切换到",
    "不再",
    "现在改",
];

/// Deployment environments: a memory about one says nothing about another. (Chinese ones,
/// "生产环境" / "测试环境", are caught as swapped modifiers of a shared noun.)
pub fn is_environment(w: &str) -> bool {
    matches!(
        w,
        "production"
            | "prod"
            | "staging"
            | "stage"
            | "development"
            | "dev"
            | "test"
            | "testing"
            | "qa"
            | "uat"
            | "canary"
            | "sandbox"
            | "preprod"
            | "preproduction"
    )
}

/// Universal quantifiers on one side versus restrictors on the other mark a scope change.
pub fn is_universal(w: &str) -> bool {
    matches!(
        w,
        "always"
            | "all"
            | "every"
            | "everywhere"
            | "everyone"
            | "any"
            | "总是"
            | "所有"
            | "全部"
            | "任何"
            | "一直"
    )
}

pub fn is_restrictor(w: &str) -> bool {
    matches!(
        w,
        "only"
            | "except"
            | "excluding"
            | "solely"
            | "exclusively"
            | "sometimes"
            | "仅"
            | "只"
            | "除了"
            | "有时"
    )
}

/// Cardinal number words that commonly quantify nouns ("won two titles"). "one" is left out
/// because it is more often a pronoun.
pub fn number_word(w: &str) -> Option<f64> {
    // A match, not a scan of a list: every word of every memory is looked up.
    Some(match w {
        "zero" => 0.0,
        "two" => 2.0,
        "three" => 3.0,
        "four" => 4.0,
        "five" => 5.0,
        "six" => 6.0,
        "seven" => 7.0,
        "eight" => 8.0,
        "nine" => 9.0,
        "ten" => 10.0,
        "eleven" => 11.0,
        "twelve" => 12.0,
        "thirteen" => 13.0,
        "fourteen" => 14.0,
        "fifteen" => 15.0,
        "sixteen" => 16.0,
        "seventeen" => 17.0,
        "eighteen" => 18.0,
        "nineteen" => 19.0,
        // Ordinals rank ("the sixth-largest city"); "first" is left out, since it opens
        // too many phrases that rank nothing ("first time", "at first").
        "second" => 2.0,
        "third" => 3.0,
        "fourth" => 4.0,
        "fifth" => 5.0,
        "sixth" => 6.0,
        "seventh" => 7.0,
        "eighth" => 8.0,
        "ninth" => 9.0,
        "tenth" => 10.0,
        "twenty" => 20.0,
        "thirty" => 30.0,
        "forty" => 40.0,
        "fifty" => 50.0,
        "sixty" => 60.0,
        "seventy" => 70.0,
        "eighty" => 80.0,
        "ninety" => 90.0,
        _ => return None,
    })
}

pub fn scale_word(w: &str) -> Option<f64> {
    match w {
        "hundred" => Some(1e2),
        "thousand" => Some(1e3),
        "million" | "millions" => Some(1e6),
        "billion" | "billions" => Some(1e9),
        "trillion" => Some(1e12),
        "万" => Some(1e4),
        "亿" => Some(1e8),
        _ => None,
    }
}

pub fn month(w: &str) -> Option<u32> {
    Some(match w {
        "january" | "jan" => 1,
        "february" | "feb" => 2,
        "march" | "mar" => 3,
        "april" | "apr" => 4,
        "may" => 5,
        "june" | "jun" => 6,
        "july" | "jul" => 7,
        "august" | "aug" => 8,
        "september" | "sep" | "sept" => 9,
        "october" | "oct" => 10,
        "november" | "nov" => 11,
        "december" | "dec" => 12,
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
