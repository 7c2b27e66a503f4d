use super::*;
use crate::domain::contradiction::tokens::tokenize;

fn read_text(text: &str) -> Vec<Statement> {
    read(&tokenize(text), text)
}

#[track_caller]
fn one(text: &str) -> Statement {
    let all = read_text(text);
    assert_eq!(all.len(), 1, "{text}: {all:#?}");
    all.into_iter().next().unwrap()
}

fn named(words: &[&str]) -> Subject {
    Subject::Named(words.iter().map(|w| CompactString::from(*w)).collect())
}

#[test]
fn subjects_are_the_speaker_a_thing_or_a_key_the_speaker_owns() {
    assert_eq!(one("I play squash").subject, Subject::Speaker);
    assert_eq!(one("Prefers aisle seats").subject, Subject::Speaker);
    assert_eq!(one("The user lives in Berlin").subject, Subject::Speaker);
    assert_eq!(one("My rent is 1500").subject, named(&["my", "rent"]));
    assert_eq!(one("The office is in Leeds").subject, named(&["office"]));
    assert_eq!(
        one("Bob's sister lives in Munich").subject,
        named(&["bob's", "sister"])
    );
    assert_eq!(
        one("The cache ttl for service 0 is 5 units").subject,
        named(&["cache", "ttl", "for", "service", "0"])
    );
    // An opening phrase stamps the statement; the subject follows it.
    assert_eq!(
        one("As of today the pool size is 4").subject,
        named(&["pool", "size"])
    );
}

#[test]
fn the_verb_the_value_and_its_qualifiers() {
    let s = one("I use a Kindle for reading");
    assert_eq!(
        (s.verb.as_str(), s.value_text()),
        ("use", "kindle".to_string())
    );
    assert_eq!(join(&s.qualifier), "for reading");
    let s = one("We host on Azure westeurope");
    assert_eq!(
        (s.prep.as_deref(), s.value_text()),
        (Some("on"), "azure westeurope".to_string())
    );
    // A hyphenated identifier is one value, though the tokenizer splits it.
    assert_eq!(
        one("We host on AWS eu-central-1").value_text(),
        "aws eu-central-1"
    );
    let s = one("The printer is on floor 2");
    assert_eq!((s.is_copula(), s.number), (true, Some(2.0)));
}

#[test]
fn what_a_statement_does() {
    assert_eq!(one("I play squash").act, Act::States);
    for change in [
        "I switched to badminton",
        "My rent went up to 1800",
        "We now release weekly",
        "I've become an early riser",
        "We relocated the office to York",
        "My new phone number is 555-9876",
        "The cache ttl for service 0 is now 7001 units",
    ] {
        assert_eq!(one(change).act, Act::Changes, "{change}");
    }
    for end in [
        "I left Initech in June",
        "I closed the bakery to teach",
        "Miso died last week",
        "I quit smoking two years ago",
        "I don't work at Google anymore",
    ] {
        assert_eq!(one(end).act, Act::Ends, "{end}");
    }
    assert_eq!(one("I quit smoking").ended_verb.as_deref(), Some("smoke"));
    let handed = one("Ben replaced Ana as release manager");
    assert_eq!(
        (join(&handed.previous), handed.value_text()),
        ("ana".into(), "release manager".into())
    );
}

#[test]
fn frequencies_are_periods_in_days() {
    assert_eq!(one("We release every two weeks").period, Some(14.0));
    assert_eq!(one("We now release weekly").period, Some(7.0));
    let gym = one("I go to the gym three times a week").period.unwrap();
    assert!((gym - 7.0 / 3.0).abs() < 1e-9);
    assert_eq!(read_cjk("我们每两周发布一次")[0].period, Some(14.0));
}

#[test]
fn plans_conditions_past_and_additions_are_marked() {
    assert!(one("I'm going to switch to badminton").hypothetical);
    assert!(!one("I stopped going to the gym").hypothetical);
    let conditional = read_text("If I need speed, I use Rust");
    assert!(
        conditional.iter().all(|s| s.hypothetical),
        "{conditional:#?}"
    );
    assert!(one("I used to smoke").past);
    assert!(one("I also play badminton").adds);
    assert_eq!(one("I will start learning Go").mood, Mood::Tentative);
}

#[test]
fn reports_corrections_and_denials() {
    let s = one("The signed asset register lists the printer on floor 4");
    assert!(s.reported);
    assert_eq!(
        (s.subject.clone(), s.number),
        (named(&["printer"]), Some(4.0))
    );
    let s = one("Someone said billing uses Stripe");
    assert!(s.reported);
    assert_eq!(s.value_text(), "stripe");
    let s = one("Actually, I work at Amazon, not Microsoft");
    assert_eq!(join(&s.denied), "microsoft");
    assert!(s.correction);
    let s = one("Forget everything I said about Google");
    assert_eq!((join(&s.denied), s.correction), ("google".into(), true));
    let s = one("Cache ttl for service 0: 7003 units (was 162)");
    assert_eq!((s.number, join(&s.denied)), (Some(7003.0), "162".into()));
}

#[test]
fn chinese_and_korean_are_read_by_their_cues() {
    let s = one("我改打羽毛球了");
    assert_eq!((s.act, s.value_text()), (Act::Changes, "羽毛球".into()));
    let s = one("我六月从 Initech 离职了");
    assert_eq!((s.act, s.subject.clone()), (Act::Ends, Subject::Speaker));
    assert!(s.value.iter().any(|v| v == "initech"), "{s:?}");
    let s = one("我的房租涨到了1800");
    assert_eq!(
        (s.subject.clone(), s.number),
        (named(&["my", "房租"]), Some(1800.0))
    );
    let s = one("资产登记表显示打印机在四楼");
    assert_eq!((s.reported, s.number), (true, Some(4.0)));
    assert_eq!(one("我妈妈住在上海").subject, named(&["妈妈"]));
    assert!(one("我打算改打羽毛球").hypothetical);
    let s = one("이제 차로 바꿨어요");
    assert_eq!((s.act, s.value_text()), (Act::Changes, "차".into()));
}
