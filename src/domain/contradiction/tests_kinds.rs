//! The kinds of change agents write into memory, in English, Chinese and Korean, and the
//! kinds of statement that must stay unflagged. Each pair is written the way a new user does:
//! two memories with the same title.

use super::*;

fn titled(title: &str, old: &str, new: &str) -> Option<Verdict> {
    let labels: Vec<String> = Vec::new();
    let m = |body| Memory {
        title,
        body,
        labels: &labels,
        confidence: 0.8,
        embedding: None,
    };
    assess(&m(new), &m(old), &DetectConfig::default())
}

/// Without a title, as `concord eval` stores pairs: each text is its own title.
fn untitled(old: &str, new: &str) -> Option<Verdict> {
    evaluate_pair(old, new, None, &DetectConfig::default())
}

#[track_caller]
fn all_flagged(title: &str, cases: &[(&str, &str)]) {
    flagged_under_title(title, cases);
    for (old, new) in cases {
        assert!(
            untitled(old, new).is_some(),
            "not flagged without a title: {old:?} / {new:?}"
        );
    }
}

#[track_caller]
fn none_flagged(title: &str, cases: &[(&str, &str)]) {
    for (old, new) in cases {
        let (t, u) = (titled(title, old, new), untitled(old, new));
        assert!(
            t.is_none(),
            "flagged with title {title:?}: {old:?} / {new:?}: {t:?}"
        );
        assert!(
            u.is_none(),
            "flagged without a title: {old:?} / {new:?}: {u:?}"
        );
    }
}

#[test]
fn state_changes_are_flagged() {
    all_flagged(
        "note",
        &[
            (
                "The user prefers dark mode in the editor.",
                "The user switched the editor to light mode.",
            ),
            ("Standup is at 9:30 every day.", "Standup moved to 10:00."),
            (
                "The service runs on Python 3.9.",
                "The service was upgraded to Python 3.12.",
            ),
            (
                "The team deploys with Jenkins.",
                "The team migrated its deploys to GitHub Actions.",
            ),
            (
                "The launch review is on Thursday.",
                "The launch review was pushed back to next Monday.",
            ),
            (
                "The v1 search endpoint serves all clients.",
                "The v1 search endpoint is deprecated.",
            ),
            (
                "The team uses Slack for alerts.",
                "We dropped Slack for alerts.",
            ),
            (
                "Nightly builds run on the old runner.",
                "From now on nightly builds run on the new runner.",
            ),
        ],
    );
}

#[test]
fn state_changes_are_flagged_in_chinese() {
    all_flagged(
        "frontend",
        &[
            ("默认用 React", "决定用 Vue 替代 React"),
            ("前端框架是 React", "前端框架改成 Vue"),
            ("数据库用 MySQL", "不用 MySQL，改用 PostgreSQL"),
            ("站会在周一上午开", "站会推迟到周三上午"),
            ("服务部署在阿里云", "服务迁移到腾讯云"),
            ("后端运行在 Python 3.9 上", "后端升级到 Python 3.12"),
        ],
    );
}

#[test]
fn slot_replacements_without_marker_words_are_flagged() {
    all_flagged(
        "note",
        &[
            (
                "The payments team owns the billing service.",
                "The billing service is owned by the platform team since March.",
            ),
            (
                "The billing service is owned by the payments team.",
                "The platform team owns the billing service.",
            ),
            ("Alice lives in Berlin.", "Alice lives in Lisbon."),
            (
                "The main database is PostgreSQL.",
                "The main database is MySQL.",
            ),
            ("Standup is at 9:30.", "Standup is at 10:00."),
        ],
    );
}

#[test]
fn policy_reversals_and_antonyms_are_flagged() {
    all_flagged(
        "policy",
        &[
            (
                "Never deploy on Fridays.",
                "Deploying on Fridays is fine now that we have canaries.",
            ),
            (
                "Two approvals are required for every merge.",
                "Two approvals are no longer required for every merge.",
            ),
            (
                "Guest access is enabled on the wiki.",
                "Guest access is disabled on the wiki.",
            ),
            (
                "The firewall allows inbound SSH.",
                "The firewall forbids inbound SSH.",
            ),
            (
                "The ticket queue for payments is open.",
                "The ticket queue for payments is closed.",
            ),
            (
                "The agent always asks before deleting files.",
                "The agent never asks before deleting files.",
            ),
            ("周五允许发布", "周五禁止发布"),
            ("团队预算增加了", "团队预算减少了"),
            ("他总是提前到会", "他从不提前到会"),
            (
                "Notifications are turned on.",
                "Notifications are turned off.",
            ),
            ("금요일 배포는 허용", "금요일 배포는 금지"),
            ("항상 코드 리뷰를 한다", "절대 코드 리뷰를 한다"),
        ],
    );
}

#[test]
fn ending_a_state_is_flagged() {
    all_flagged(
        "people",
        &[
            ("Bob works at Acme as an engineer.", "Bob left Acme."),
            (
                "Dana is on the on-call rotation.",
                "Dana was removed from the on-call rotation.",
            ),
            (
                "The weekly sync with design is on the calendar.",
                "The weekly sync with design was cancelled.",
            ),
            ("Erin is dating Sam.", "Erin and Sam broke up."),
            ("Carl works at Initech.", "Carl no longer works at Initech."),
            ("I don't smoke.", "I started smoking again."),
            ("Frank runs every morning.", "Frank stopped running."),
            ("I own a Tesla.", "I sold my Tesla."),
            ("小王在字节跳动工作", "小王已经从字节跳动离职"),
            ("我每天喝咖啡", "我戒了咖啡"),
        ],
    );
}

#[test]
fn a_claim_inside_a_report_sentence_is_compared() {
    all_flagged(
        "access",
        &[
            (
                "Guest access is enabled.",
                "The current export shows guest access is disabled.",
            ),
            (
                "The rate limit is 20 requests per second.",
                "According to the dashboard, the rate limit is now 50 requests per second.",
            ),
            ("访客访问已开启", "最新导出显示访客访问已关闭"),
        ],
    );
}

#[test]
fn additions_are_not_flagged() {
    none_flagged(
        "hobbies",
        &[
            ("Carol likes hiking.", "Carol likes hiking and swimming."),
            ("Carol likes hiking.", "Carol likes swimming too."),
            ("Carol likes hiking.", "Carol also likes swimming."),
            (
                "The team uses Go and Rust.",
                "The team uses Go, Rust and Python.",
            ),
            ("小李喜欢爬山", "小李也喜欢游泳"),
        ],
    );
}

#[test]
fn the_same_attribute_of_different_subjects_is_not_flagged() {
    none_flagged(
        "people",
        &[
            ("Frank is based in London.", "Grace is based in London."),
            ("Frank is based in London.", "Grace is based in Paris."),
            (
                "The payments team owns billing.",
                "The search team owns ranking.",
            ),
            ("小王住在北京", "小李住在上海"),
        ],
    );
}

#[test]
fn near_synonyms_paraphrases_and_other_attributes_are_not_flagged() {
    none_flagged(
        "prefs",
        &[
            ("Henry likes jazz.", "Henry loves jazz."),
            ("Henry enjoys jazz.", "Henry likes jazz."),
            (
                "The API gateway times out after 30 seconds.",
                "Requests to the API gateway time out after 30 seconds.",
            ),
            (
                "The billing service is written in Go.",
                "The billing service is deployed on Kubernetes.",
            ),
            ("The office is in Berlin.", "The office opens at 9:00."),
            ("用户喜欢深色模式", "用户偏爱深色模式"),
        ],
    );
}

#[test]
fn the_past_against_the_present_is_not_flagged() {
    none_flagged(
        "prefs",
        &[
            ("As a kid, Ivan hated vegetables.", "Ivan loves vegetables."),
            ("Ivan used to live in Madrid.", "Ivan lives in Rome."),
            ("小时候他住在广州", "他现在住在深圳"),
        ],
    );
}

#[test]
fn different_events_scopes_and_questions_are_not_flagged() {
    none_flagged(
        "calendar",
        &[
            (
                "Judy went hiking on Saturday.",
                "Judy went swimming on Sunday.",
            ),
            (
                "The retro is on Monday at 10:00.",
                "The planning session is on Tuesday at 14:00.",
            ),
            (
                "In staging, guest access is enabled.",
                "In production, guest access is disabled.",
            ),
            (
                "The user prefers dark mode.",
                "Does the user prefer light mode?",
            ),
            (
                "The cache TTL is 30 seconds.",
                "Is the cache TTL still 30 seconds?",
            ),
            ("默认用 React", "要不要改用 Vue？"),
        ],
    );
}

#[test]
fn a_single_valued_attribute_with_another_value_is_flagged() {
    all_flagged(
        "profile",
        &[
            ("I live in Berlin.", "I moved to Lisbon last month."),
            ("User lives in San Francisco", "User lives in New York"),
            ("User is based in London", "User relocated to Paris"),
            (
                "I work at Google as a software engineer.",
                "I work at Microsoft now.",
            ),
            ("User's name is Alice", "User's name is Alicia"),
            (
                "My job title is senior engineer.",
                "My job title is engineering manager.",
            ),
            ("I use VS Code as my editor.", "I switched to Neovim."),
            ("User is a software engineer", "User is a product manager"),
            ("My birthday is March 5.", "My birthday is April 10."),
        ],
    );
}

#[test]
fn a_single_valued_attribute_with_another_value_is_flagged_in_chinese_and_korean() {
    all_flagged(
        "profile",
        &[
            ("我住在北京", "我搬到上海了"),
            ("用户在谷歌工作", "用户跳槽到了微软"),
            ("我在北京工作", "我现在在深圳工作"),
            ("我叫张三", "我叫李四"),
            ("저는 서울에 살아요", "저는 부산으로 이사했어요"),
            ("저는 구글에서 일해요", "저는 네이버에서 일해요"),
            ("사용자는 부산에 산다", "사용자는 대구로 이사했다"),
            ("用户是老师", "用户是医生"),
            ("저는 학생이에요", "저는 회사원이에요"),
        ],
    );
}

#[test]
fn exclusive_states_of_a_person_are_flagged() {
    all_flagged(
        "profile",
        &[
            ("I am vegetarian.", "I eat meat."),
            ("User is vegetarian", "User eats chicken and beef"),
            ("I am single.", "I got married in June."),
            ("我是素食主义者", "我开始吃肉了"),
            ("我单身", "我结婚了"),
            ("저는 채식주의자입니다", "저는 고기를 먹어요"),
        ],
    );
}

#[test]
fn many_valued_attributes_relatives_and_scoped_values_are_not_flagged() {
    none_flagged(
        "profile",
        &[
            ("User likes pizza", "User likes pasta"),
            ("I visited Paris.", "I visited Rome."),
            ("User speaks English", "User speaks French"),
            (
                "User is allergic to peanuts",
                "User is allergic to shellfish",
            ),
            ("I like cats.", "I like dogs."),
            ("我喜欢猫", "我喜欢狗"),
            ("我会说英语", "我会说法语"),
            ("I am 25 years old.", "My brother is 30 years old."),
            ("I live in Berlin.", "My sister lives in Lisbon."),
            ("我住在北京", "我妈妈住在上海"),
            (
                "User wakes up at 6 am on weekdays",
                "User wakes up at 9 am on weekends",
            ),
            ("I am pescatarian.", "I eat fish on Fridays."),
            ("I am vegetarian.", "I don't eat meat."),
            ("I used to live in Madrid.", "I moved to Rome."),
            ("I used to smoke.", "I don't smoke."),
            ("The user lives in Tokyo.", "The user works in Tokyo."),
            (
                "The user lives in Tokyo.",
                "The user's parents live in Osaka.",
            ),
            (
                "The user visited Rome in 2019.",
                "The user visited Paris in 2021.",
            ),
            ("I am a teacher.", "I am a teacher at a high school."),
            ("用户是老师", "用户是一名很好的老师"),
            ("저는 서울에 살아요", "제 동생은 부산에 살아요"),
        ],
    );
}

#[test]
fn a_denied_attribute_value_is_flagged() {
    all_flagged(
        "profile",
        &[
            ("我是学生", "我已经毕业了，不再是学生"),
            (
                "Lives in Berlin",
                "Since June I don't live in Berlin, I travel full time.",
            ),
        ],
    );
}

#[test]
fn korean_short_negation_before_a_predicate_is_flagged() {
    all_flagged(
        "음료",
        &[
            ("저는 커피를 좋아해요", "저는 커피를 안 좋아해요"),
            ("저는 고기를 먹어요", "저는 고기를 안 먹어요"),
        ],
    );
    // "안" as the first syllable of a word is no negator.
    none_flagged(
        "안전",
        &[
            ("점검은 매주 해요", "안전 점검은 매주 해요"),
            ("가방에 책이 있어요", "가방 안에 책이 있어요"),
        ],
    );
}

/// With one title only: the titled rules read the title as the shared subject.
#[track_caller]
fn flagged_under_title(title: &str, cases: &[(&str, &str)]) {
    for (old, new) in cases {
        assert!(
            titled(title, old, new).is_some(),
            "not flagged with title {title:?}: {old:?} / {new:?}"
        );
    }
}

#[test]
fn a_figure_outside_a_stated_bound_is_flagged() {
    flagged_under_title(
        "job queue",
        &[
            (
                "The nightly export wrote 85 broken rows and 3 warnings.",
                "The nightly export wrote more than 87 broken rows.",
            ),
            (
                "The queue held about 120 jobs at noon, with 4 workers.",
                "Fewer than 100 jobs are waiting in the queue.",
            ),
            (
                "The dashboard shows an approval rating of 17% after the survey.",
                "The approval rating on the dashboard is over 18%.",
            ),
        ],
    );
    flagged_under_title(
        "Augustus Prew",
        &[(
            "Augustus Prew born September 17, 1890, is an English actor.",
            "Augustus Prew was born after 1950 in London, England.",
        )],
    );
    flagged_under_title(
        "客服队列",
        &[("队列里有 120 个任务。", "队列里的任务少于 100 个。")],
    );
}

#[test]
fn a_figure_inside_a_stated_bound_or_of_another_measure_is_not_flagged() {
    for (old, new) in [
        (
            "The nightly export wrote 85 broken rows and 3 warnings.",
            "The nightly export wrote more than 80 broken rows.",
        ),
        // Another measure: people are not jobs.
        (
            "The queue held about 120 jobs at noon.",
            "More than 300 people use the queue.",
        ),
        // A list that holds an agreeing figure.
        (
            "The video has over 6.8 million likes and was the second to pass 5 million likes.",
            "The video has over 6.75 million likes.",
        ),
    ] {
        assert!(titled("job queue", old, new).is_none(), "{old:?} / {new:?}");
    }
}

#[test]
fn a_life_span_dates_the_birth_and_the_death() {
    flagged_under_title(
        "Ann Biderman",
        &[
            (
                "Ann Biderman (June 21, 1912 - August 15, 1950) is an American writer.",
                "Ann Biderman was born on August 15, 1951.",
            ),
            (
                "Ann Biderman (June 21, 1912 - August 15, 1950) is an American writer.",
                "Ann Biderman died in 1998.",
            ),
        ],
    );
    let old = "Ann Biderman (June 21, 1912 - August 15, 1950) is an American writer.";
    assert!(
        titled(
            "Ann Biderman",
            old,
            "Ann Biderman was born on June 21, 1912."
        )
        .is_none()
    );
}

#[test]
fn a_figure_restated_as_of_a_later_date_is_an_update() {
    all_flagged(
        "open tickets",
        &[(
            "As of 3 March 2025, the backlog holds 40 open tickets.",
            "As of 5 March 2025, the backlog holds 25 open tickets.",
        )],
    );
    // Stamped "by" a date, a figure bounds when something happened: two moments.
    none_flagged(
        "open tickets",
        &[(
            "As of 12 April 2025 there were 599 open tickets.",
            "By 20 April 2025 there were more than 700 open tickets.",
        )],
    );
}

#[test]
fn a_kind_stated_under_the_title_against_the_stored_kind_is_flagged() {
    flagged_under_title(
        "Veep",
        &[(
            "Anna Chlumsky received four Emmy nominations for her work on the series.",
            "Veep is a movie.",
        )],
    );
    // A stored memory that names two kinds says nothing of which one the subject is.
    assert!(
        titled(
            "Practical Magic",
            "Practical Magic is a film based on the novel by Alice Hoffman.",
            "Practical Magic is a novel.",
        )
        .is_none()
    );
}

#[test]
fn more_endings_and_weak_change_cues_are_flagged() {
    all_flagged(
        "",
        &[
            ("Mike is the CEO.", "Mike stepped down as CEO."),
            (
                "The user is a student at MIT.",
                "The user graduated from MIT.",
            ),
        ],
    );
    flagged_under_title(
        "wake-up time",
        &[("I wake up at 6 am.", "These days I wake up at 8 am.")],
    );
    flagged_under_title("学籍", &[("我是北京大学的学生。", "我从北京大学毕业了。")]);
    flagged_under_title(
        "직장",
        &[("저는 삼성 직원이에요.", "저는 삼성에서 사임했어요.")],
    );
}

#[test]
fn being_without_an_employer_against_working_for_one_is_flagged() {
    all_flagged(
        "",
        &[
            ("The user works at Acme.", "The user is unemployed."),
            (
                "Chad Kelly is an American football quarterback who is currently a free agent.",
                "Chad Kelly is an American football quarterback for the Indianapolis Colts.",
            ),
        ],
    );
    flagged_under_title("工作", &[("我在谷歌工作。", "我现在失业了。")]);
    // Not unemployed, and two things the user works at.
    none_flagged(
        "",
        &[
            ("The user works at Acme.", "The user is not unemployed."),
            (
                "The user works at Acme.",
                "The user also works for a charity.",
            ),
        ],
    );
}

#[test]
fn another_nationality_stated_of_one_subject_is_flagged() {
    flagged_under_title(
        "Louis Malle",
        &[
            (
                "Louis Malle was a French film director.",
                "Louis Malle was a German film director.",
            ),
            ("The user is Canadian.", "The user is Mexican."),
        ],
    );
    for (old, new) in [
        // One nation inside the other.
        (
            "Paolo Nutini is a Scottish singer.",
            "Paolo Nutini is British.",
        ),
        // The other side names the nation: both hold.
        (
            "Andrea Pirlo is an Italian footballer who plays for an American club.",
            "Andrea Pirlo is an American club's player.",
        ),
        // A people, not a nation.
        (
            "Sean Gunn is an American actor.",
            "Sean Gunn is a Native American actor.",
        ),
    ] {
        assert!(titled("profile", old, new).is_none(), "{old:?} / {new:?}");
    }
}

#[test]
fn a_once_only_event_dated_twice_and_a_rank_changed_are_flagged() {
    flagged_under_title(
        "Moscovium",
        &[(
            "It was first synthesized in 2003 by a joint team of scientists.",
            "Moscovium is a synthetic element, first synthesized in 1997.",
        )],
    );
    flagged_under_title(
        "Chennai",
        &[(
            "According to the 2011 census, it is the fourth-largest city in India.",
            "Based on the 2011 census, Chennai is the sixth-largest city in India.",
        )],
    );
    flagged_under_title(
        "Nina Jacobson",
        &[(
            "Nina Jacobson (born 1965) is an American film executive.",
            "Nina Jacobson was born in 1966.",
        )],
    );
    // Events that happen many times are not once-only: two releases, two visits.
    assert!(
        titled(
            "releases",
            "After a long beta the platform team released the app in 2019.",
            "A redesigned version was released in 2021 for tablets.",
        )
        .is_none()
    );
}

#[test]
fn a_bound_stamped_at_another_moment_is_not_flagged() {
    for (old, new) in [
        (
            "A total of 764 of these aircraft were in service in July 2017.",
            "By June 2018, under 750 Boeing 767 jets were in service.",
        ),
        (
            "With a 2014 estimated population of 156,480, it is the fourth most populous city.",
            "Fort Collins has a population of more than 160,000 as of 2015.",
        ),
        // A life span's birth date says nothing about a marriage.
        (
            "Elizabeth of York (11 February 1466 -- 11 February 1503) was queen consort from 1486.",
            "Elizabeth of York married in 1486.",
        ),
    ] {
        assert!(titled("figures", old, new).is_none(), "{old:?} / {new:?}");
    }
}
