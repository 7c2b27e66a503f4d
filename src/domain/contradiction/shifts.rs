//! Closed-class phrases of change, as data: how agents say that a fact stopped being true, that
//! a policy was reversed, or that a state ended, in English, Chinese and Korean. Patterns are
//! matched against tokens: ASCII patterns word by word, CJK patterns character by character,
//! and `…` stands for a gap of a few tokens ("switched *the editor* to").

/// A statement that the old fact was replaced: the new one fills the same slot differently.
/// The second field says whether the cue alone is strong evidence; weak ones ("now", "since")
/// also occur in statements that only add a detail.
pub const STATE_CUES: &[(&str, bool)] = &[
    ("switched … to", true),
    ("switched to", true),
    ("switched from", true),
    ("moved to", true),
    ("moved … to", true),
    ("changed to", true),
    ("changed … to", true),
    ("upgraded to", true),
    ("upgraded … to", true),
    ("downgraded to", true),
    ("downgraded … to", true),
    ("migrated to", true),
    ("migrated … to", true),
    ("pushed back to", true),
    ("postponed to", true),
    ("moved up to", true),
    ("rescheduled to", true),
    ("replaced by", true),
    ("replaced with", true),
    ("replaced … with", true),
    ("instead of", true),
    ("in favor of", true),
    ("in favour of", true),
    ("from now on", true),
    ("starting monday", true),
    ("starting tuesday", true),
    ("starting wednesday", true),
    ("starting thursday", true),
    ("starting friday", true),
    ("starting next", true),
    ("starting today", true),
    ("starting tomorrow", true),
    ("going forward", true),
    ("no longer", true),
    ("anymore", true),
    ("now", false),
    ("these days", false),
    ("nowadays", false),
    ("since", false),
    ("as of", false),
    ("改为", true),
    ("改成", true),
    ("换成", true),
    ("换为", true),
    ("改用", true),
    ("替代", true),
    ("取代", true),
    ("代替", true),
    ("迁移到", true),
    ("迁到", true),
    ("搬到", true),
    ("升级到", true),
    ("升级为", true),
    ("降级到", true),
    ("切换到", true),
    ("推迟到", true),
    ("延期到", true),
    ("改到", true),
    ("提前到", true),
    ("不再", true),
    ("从…起", true),
    ("从…开始", true),
    ("现在", false),
    ("目前", false),
    ("변경", true),
    ("바꿨", true),
    ("바뀌었", true),
    ("옮겼", true),
    ("이전했", true),
    ("더 이상", true),
    ("이제", false),
];

/// The end of a membership, an assignment, a status or a habit.
pub const ENDING_CUES: &[&str] = &[
    "deprecated",
    "dropped",
    "removed",
    "left",
    "quit",
    "resigned",
    "retired",
    "removed from",
    "closed down",
    "shut down",
    "got cancelled",
    "cancelled",
    "canceled",
    "broke up",
    "split up",
    "divorced",
    "stopped",
    "gave up",
    "stepped down",
    "former",
    "graduated",
    "laid off",
    "got fired",
    "was fired",
    "moved out",
    "sold my",
    "sold our",
    "got rid of",
    "gave away",
    "no longer",
    "started … again",
    "离职",
    "辞职",
    "退出",
    "取消",
    "关闭",
    "分手",
    "离婚",
    "戒了",
    "戒掉",
    "戒烟",
    "戒酒",
    "不再",
    "停止",
    "离开",
    "毕业",
    "卸任",
    "辞去",
    "被解雇",
    "퇴사",
    "그만",
    "취소",
    "헤어졌",
    "끊었",
    "졸업",
    "사임",
    "해고",
];

/// Words that forbid what follows them, and words that allow it.
pub const PROHIBITIONS: &[&str] = &[
    "never",
    "must not",
    "mustn't",
    "do not",
    "don't",
    "forbidden",
    "prohibited",
    "banned",
    "not allowed",
    "not permitted",
    "disallowed",
    "禁止",
    "不允许",
    "不准",
    "不要",
    "不能",
    "从不",
    "절대",
    "금지",
    "안 된",
];

pub const PERMISSIONS: &[&str] = &[
    "fine",
    "allowed",
    "ok",
    "okay",
    "permitted",
    "acceptable",
    "允许",
    "可以",
    "没问题",
    "허용",
    "괜찮",
    "가능",
];

/// Pairs of words of opposite meaning: one on each side, with the rest about the same thing,
/// states the opposite fact.
pub const ANTONYMS: &[(&str, &str)] = &[
    ("enabled", "disabled"),
    ("enable", "disable"),
    ("allow", "forbid"),
    ("allows", "forbids"),
    ("allowed", "forbidden"),
    ("allowed", "prohibited"),
    ("increase", "decrease"),
    ("increased", "decreased"),
    ("increases", "decreases"),
    ("open", "closed"),
    ("opened", "closed"),
    ("always", "never"),
    ("true", "false"),
    ("public", "private"),
    ("available", "unavailable"),
    ("active", "inactive"),
    ("required", "optional"),
    ("mandatory", "optional"),
    ("accepted", "rejected"),
    ("approved", "rejected"),
    ("likes", "dislikes"),
    ("like", "dislike"),
    ("loves", "hates"),
    ("love", "hate"),
    ("likes", "hates"),
    ("like", "hate"),
    ("enjoys", "hates"),
    ("enjoy", "hate"),
    ("online", "offline"),
    ("turned on", "turned off"),
    ("switched on", "switched off"),
    ("locked", "unlocked"),
    ("增加", "减少"),
    ("增长", "下降"),
    ("上升", "下降"),
    ("允许", "禁止"),
    ("总是", "从不"),
    ("开启", "关闭"),
    ("打开", "关闭"),
    ("启用", "禁用"),
    ("喜欢", "讨厌"),
    ("公开", "私有"),
    ("必须", "不必"),
    ("同意", "拒绝"),
    ("허용", "금지"),
    ("항상", "절대"),
    ("활성화", "비활성화"),
    ("증가", "감소"),
    ("좋아", "싫어"),
    ("공개", "비공개"),
];

/// Words that mark a statement as an addition to what is stored, not a replacement of it.
pub const ADDITIONS: &[&str] = &[
    "too",
    "also",
    "as well",
    "in addition",
    "additionally",
    "another",
    "也",
    "还",
    "另外",
    "此外",
    "도",
];

/// Words that place a statement in the past: it does not oppose one about the present.
pub const PAST: &[&str] = &[
    "used to",
    "as a kid",
    "as a child",
    "as a teenager",
    "when i was",
    "when he was",
    "when she was",
    "when they were",
    "when we were",
    "back then",
    "in college",
    "in school",
    "years ago",
    "previously",
    "formerly",
    "小时候",
    "以前",
    "过去",
    "曾经",
    "当年",
    "예전에",
    "어렸을",
    "옛날",
];

/// Phrases that wrap a claim in a report of where it was read ("The export shows …",
/// "According to the dashboard, …"); the claim is what follows.
pub const REPORT_WRAPPERS: &[&str] = &[
    "shows",
    "show",
    "showed",
    "says",
    "said",
    "reports",
    "reported",
    "indicates",
    "confirms",
    "states",
    "suggests",
    "显示",
    "表明",
    "提到",
    "에 따르면",
];

/// What a report reads from: a wrapper only counts after one of these ("The current *export*
/// shows …"), so "The album shows jazz influences" keeps its words.
pub const REPORT_SOURCES: &[&str] = &[
    "export",
    "dashboard",
    "report",
    "log",
    "logs",
    "data",
    "audit",
    "config",
    "metrics",
    "survey",
    "doc",
    "docs",
    "page",
    "ticket",
    "screen",
    "output",
    "result",
    "results",
    "check",
    "scan",
    "monitor",
    "email",
    "message",
    "readme",
    "wiki",
    "status",
    "record",
    "records",
    "console",
    "query",
    "graph",
    "chart",
    "alert",
    "admin",
    "panel",
    "settings",
    "snapshot",
    "导出",
    "报告",
    "日志",
    "仪表盘",
    "数据",
    "监控",
    "配置",
    "页面",
];

/// Weekdays and relative days: a swapped day with another swapped detail is another event.
pub fn is_day_word(w: &str) -> bool {
    matches!(
        w,
        "monday"
            | "tuesday"
            | "wednesday"
            | "thursday"
            | "friday"
            | "saturday"
            | "sunday"
            | "today"
            | "tomorrow"
            | "yesterday"
            | "weekend"
            | "weekends"
            | "weekday"
            | "weekdays"
            | "weeknights"
            | "周一"
            | "周二"
            | "周三"
            | "周四"
            | "周五"
            | "周六"
            | "周日"
    )
}

/// Groups of near-synonyms: a swap inside a group restates the fact.
pub const SYNONYMS: &[&[&str]] = &[
    &[
        "like",
        "likes",
        "liked",
        "love",
        "loves",
        "loved",
        "enjoy",
        "enjoys",
        "enjoyed",
        "prefer",
        "prefers",
        "preferred",
        "adore",
        "adores",
        "fond",
    ],
    &["dislike", "dislikes", "hate", "hates", "detest", "detests"],
    &["big", "large", "huge"],
    &["small", "little", "tiny"],
    &["fast", "quick", "rapid"],
    &["begin", "begins", "start", "starts"],
    &["uses", "use", "utilizes", "employs"],
    &["show", "series", "programme", "program"],
    &["film", "movie"],
    &["stop", "stops", "cease", "ceases", "halt", "halts"],
    &["went", "headed", "travelled", "traveled"],
    &["done", "performed", "conducted", "carried"],
    &["喜欢", "喜爱", "偏爱", "爱", "热爱"],
];

pub fn synonyms(a: &str, b: &str) -> bool {
    SYNONYMS.iter().any(|g| g.contains(&a) && g.contains(&b))
}

/// Verbs whose object is one of many ("likes pizza" and "likes pasta" are both true), so a
/// swapped object after one adds a value rather than replacing it.
pub fn is_many_valued(w: &str) -> bool {
    matches!(
        w,
        "like"
            | "likes"
            | "love"
            | "loves"
            | "enjoy"
            | "enjoys"
            | "visited"
            | "speak"
            | "speaks"
            | "play"
            | "plays"
            | "read"
            | "reads"
            | "watch"
            | "watches"
            | "collect"
            | "collects"
            | "know"
            | "knows"
            | "own"
            | "owns"
            | "allergic"
            | "喜"
            | "爱"
            | "过"
            | "说"
    )
}

/// Adverbs of time that accompany change cues but say nothing about the fact itself.
pub fn is_cue_word(w: &str) -> bool {
    matches!(
        w,
        "now" | "again" | "already" | "currently" | "anymore" | "still" | "just" | "recently"
    )
}
