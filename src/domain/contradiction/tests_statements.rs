//! Statements judged against statements: each kind of update agents write in everyday words
//! (a preference turned round, an amount changed, the same frame with another name, a
//! frequency, a role handed over, a new value of the same kind, an ended state, a reported or
//! corrected claim), in English and Chinese, and in Korean where the kind has a form. Then the
//! must-nots: additions, many-valued attributes, other subjects, synonyms, refined values,
//! plans, questions, hypotheticals, another tool for another purpose, another aspect of one
//! key, and another key of one thing. Every pair is written as a new user does: two memories
//! under one title.

use super::*;

fn titled(old: &str, new: &str) -> Option<Verdict> {
    let labels: Vec<String> = Vec::new();
    let m = |body| Memory {
        title: "memo",
        body,
        labels: &labels,
        confidence: 0.8,
        embedding: None,
    };
    assess(&m(new), &m(old), &DetectConfig::default())
}

#[track_caller]
fn flagged(cases: &[(&str, &str)]) {
    let missed: Vec<_> = cases
        .iter()
        .filter(|(old, new)| titled(old, new).is_none())
        .collect();
    assert!(missed.is_empty(), "not flagged: {missed:#?}");
}

#[track_caller]
fn unflagged(cases: &[(&str, &str)]) {
    let flagged: Vec<_> = cases
        .iter()
        .filter_map(|(old, new)| titled(old, new).map(|v| (old, new, v.explanation)))
        .collect();
    assert!(flagged.is_empty(), "flagged: {flagged:#?}");
}

#[test]
fn a_preference_turned_round() {
    flagged(&[
        ("Prefers aisle seats", "Dislikes aisle seats"),
        ("I like spicy food", "I dislike spicy food"),
        ("I trust the nightly build", "I distrust the nightly build"),
        ("I use TypeScript", "I've never used TypeScript"),
        ("我喜欢靠过道的座位", "我讨厌靠过道的座位"),
        ("통로 좌석을 좋아해요", "통로 좌석을 싫어해요"),
    ]);
}

#[test]
fn an_amount_that_reads_like_a_year() {
    flagged(&[
        ("My rent is 1500", "My rent went up to 1800"),
        (
            "Our budget is 2000 euros",
            "Our budget was cut to 1200 euros",
        ),
        ("我的房租是1500", "我的房租涨到了1800"),
    ]);
}

#[test]
fn the_same_frame_with_other_names() {
    flagged(&[
        ("We host on Azure westeurope", "We host on AWS eu-central-1"),
        (
            "The project database is PostgreSQL 15",
            "The project database is MySQL 8.0",
        ),
        (
            "CI pipeline uses GitHub Actions",
            "CI pipeline uses Jenkins",
        ),
        ("项目的数据库是 MySQL", "项目的数据库是 PostgreSQL"),
    ]);
}

#[test]
fn a_frequency_changed() {
    flagged(&[
        ("We release every two weeks", "We now release weekly"),
        ("The backup runs daily", "The backup now runs every week"),
        ("我们每两周发布一次", "我们现在改为每周发布"),
    ]);
}

#[test]
fn a_role_handed_over() {
    flagged(&[
        (
            "Ana is the release manager",
            "Ben replaced Ana as release manager",
        ),
        (
            "Tom leads the mobile team",
            "Priya took over the mobile team from Tom",
        ),
        ("安娜是发布经理", "本接替安娜担任发布经理"),
    ]);
}

#[test]
fn a_new_value_of_the_same_kind() {
    flagged(&[
        ("I play squash", "I switched to badminton"),
        ("My favourite editor is Vim", "I've switched to Helix"),
        ("I commute by train", "I now drive to work"),
        ("The office is in Leeds", "We relocated the office to York"),
        ("I use a Kindle for reading", "I went back to paper books"),
        ("I'm a night owl", "I've become an early riser"),
        ("我打壁球", "我改打羽毛球了"),
        ("我每天喝咖啡", "我现在改喝茶了"),
        ("办公室在利兹", "我们把办公室搬到了约克"),
        ("저는 커피를 마셔요", "이제 차로 바꿨어요"),
    ]);
}

#[test]
fn an_ended_state_or_a_life_event() {
    flagged(&[
        ("I work at Initech", "I left Initech in June"),
        ("I run a bakery", "I closed the bakery to teach"),
        ("I drink coffee every morning", "I quit caffeine"),
        ("Our cat Miso is healthy", "Miso died last week"),
        ("I'm allergic to cats", "I outgrew my cat allergy"),
        ("我在 Initech 工作", "我六月从 Initech 离职了"),
        ("我每天早上喝咖啡", "我戒了咖啡"),
        ("我们的猫咪咪很健康", "咪咪上周去世了"),
        ("저는 Initech에서 일해요", "Initech를 그만뒀어요"),
    ]);
}

#[test]
fn a_claim_wrapped_in_a_report_of_evidence() {
    flagged(&[
        (
            "The printer is on floor 2",
            "The signed asset register lists the printer on floor 4",
        ),
        (
            "Someone said billing uses Stripe",
            "The billing ADR says Adyen since May; the earlier note was wrong",
        ),
        (
            "Dave is vegetarian",
            "Turns out Dave eats fish; he is pescatarian.",
        ),
        (
            "User works at Microsoft",
            "Actually, I meant Google, not Microsoft",
        ),
        ("打印机在二楼", "资产登记表显示打印机在四楼"),
    ]);
}

#[test]
fn additions_and_many_valued_attributes_stay_unflagged() {
    unflagged(&[
        ("I play squash", "I also play badminton"),
        ("I speak English", "I speak French"),
        ("I like pizza", "I like pasta"),
        ("User knows Python", "User knows Java"),
        ("I have visited Rome", "I have visited Paris"),
        ("我会说英语", "我也会说法语"),
        ("我喜欢咖啡", "我也喜欢茶"),
    ]);
}

#[test]
fn other_subjects_stay_unflagged() {
    unflagged(&[
        ("Bob lives in Berlin.", "Bob's sister lives in Munich."),
        ("I live in Berlin", "My brother lives in Munich"),
        ("Tom leads the mobile team", "Priya leads the web team"),
        ("The office is in Leeds", "The warehouse is in York"),
    ]);
}

#[test]
fn synonyms_and_refined_values_stay_unflagged() {
    unflagged(&[
        ("I love coffee", "I adore coffee"),
        ("I use Python", "I use Python 3.12"),
        ("I live in France", "I live in Paris, France"),
        ("I work at Initech", "I work at Initech as a designer"),
        ("The database is Postgres", "The database is PostgreSQL"),
    ]);
}

#[test]
fn plans_questions_and_hypotheticals_stay_unflagged() {
    unflagged(&[
        ("I play squash", "I'm going to switch to badminton"),
        ("I play squash", "Should I switch to badminton?"),
        (
            "I play squash",
            "If I moved to London I would play badminton",
        ),
        ("I work at Initech", "I'm thinking about leaving Initech"),
        ("我打壁球", "我打算改打羽毛球"),
        ("我打壁球", "要不要改打羽毛球？"),
    ]);
}

#[test]
fn another_tool_aspect_or_key_stays_unflagged() {
    unflagged(&[
        (
            "The billing service uses PostgreSQL 16.",
            "The billing service uses Redis for caching.",
        ),
        (
            "The public API rate limit is 100 requests per minute.",
            "The public API rate limit is enforced per API key.",
        ),
        (
            "The log level for service 0 is 5 units.",
            "Actually, the cache ttl for service 0 is now 7001 units.",
        ),
        ("My rent is 1500", "My salary is 1800"),
        (
            "I drink coffee every morning",
            "I drink water after running",
        ),
        ("I commute by train", "I like trains"),
    ]);
}

#[test]
fn conditions_past_states_and_events_stay_unflagged() {
    unflagged(&[
        ("I like jazz when relaxing", "I hate jazz when working"),
        ("I like coffee", "I don't like coffee when tired"),
        ("User lived in Boston", "User lived in Seattle"),
        (
            "I'm visiting Tokyo for 3 days",
            "I'm visiting Osaka for 2 days",
        ),
        (
            "If I need speed, I use Rust",
            "If I need simplicity, I use Python",
        ),
        ("超时配置不再采用 500ms。", "超时配置改为 200ms。"),
    ]);
}
