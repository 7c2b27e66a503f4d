use super::super::tokens::tokenize;
use super::*;

fn changed(old: &str, new: &str) -> bool {
    let (to, tn) = (tokenize(old), tokenize(new));
    let (so, sn) = (Statements::of(&to, old), Statements::of(&tn, new));
    let side = |tokens, text, statements| Stated {
        tokens,
        text,
        statements,
    };
    replaced(side(&to, old, &so), side(&tn, new, &sn)).is_some()
}

#[test]
fn values_are_read_in_each_language() {
    let value = |text: &str| {
        let ts = tokenize(text);
        let s = statements(&ts, text);
        let v = s.first().expect("a statement").value.clone();
        text[ts[v.start].start..ts[v.end - 1].end].to_string()
    };
    assert_eq!(value("I moved to Lisbon last month."), "Lisbon");
    assert_eq!(value("User lives in New York"), "New York");
    assert_eq!(value("我搬到上海了"), "上海");
    assert_eq!(value("我在谷歌工作"), "谷歌");
    assert_eq!(value("저는 부산으로 이사했어요"), "부산");
    assert_eq!(value("저는 서울에 살아요"), "서울");
}

#[test]
fn the_user_is_one_subject_however_named() {
    assert!(changed("I live in Berlin.", "User lives in Lisbon."));
    assert!(changed("Lives in Berlin", "I moved to Lisbon."));
    assert!(changed("用户住在北京", "我搬到上海了"));
    assert!(!changed("I live in Berlin.", "My sister lives in Lisbon."));
    assert!(!changed("Frank lives in London.", "Grace lives in Paris."));
}

#[test]
fn exclusive_states_oppose_each_other() {
    let opposed =
        |old: &str, new: &str| exclusive_state(&tokenize(old), old, &tokenize(new), new).is_some();
    assert!(opposed("I am single.", "I got married last year."));
    assert!(opposed("User is vegetarian", "User eats chicken and beef"));
    assert!(opposed("我是素食主义者", "我开始吃肉了"));
    assert!(opposed("저는 채식주의자입니다", "저는 고기를 먹어요"));
    assert!(!opposed("I am pescatarian.", "I eat fish on Fridays."));
    assert!(!opposed("I am vegetarian.", "I don't eat meat."));
    // An adjective without a copula is no state.
    assert!(!opposed(
        "The app has a single login page.",
        "User got married."
    ));
}

#[test]
fn a_tool_counts_as_replaced_only_when_a_side_says_so() {
    assert!(changed(
        "I use VS Code as my editor.",
        "I switched to Neovim."
    ));
    assert!(!changed("I use Go at work.", "I use Rust at work."));
}
