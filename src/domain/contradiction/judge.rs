//! Judging statements against statements (see `statement`): the same subject and attribute
//! with an incompatible value; a change announcement whose attribute, value kind or old value
//! matches a stored statement; an ending of a stored state; a role handed over; a reported or
//! corrected claim judged as the claim it reports. And the must-nots that statements can tell:
//! another subject ("Bob" / "Bob's sister"), another key of the same thing ("the log level" /
//! "the cache ttl"), another aspect of the same key ("is 100 per minute" / "is enforced per
//! key"), and a plan or hypothetical, which asserts nothing yet.

use compact_str::CompactString;

use super::evidence::Evidence;
use super::kinds;
use super::statement::{Act, Mood, Statement, Subject, join};
use super::{ConflictType, Signal};

/// The strongest opposition between a stored memory's statements and a new one's.
pub fn judge(old: &[Statement], new: &[Statement]) -> Option<Evidence> {
    let mut best: Option<Evidence> = None;
    for n in new.iter().filter(|n| asserts(n)) {
        for o in old.iter().filter(|o| asserts(o)) {
            if o.act == Act::Ends {
                if let Some(e) = resumed(o, n)
                    && best.as_ref().is_none_or(|b| e.probability > b.probability)
                {
                    best = Some(e);
                }
                continue;
            }
            let found = handed_over(o, n)
                .or_else(|| denied(o, n))
                .or_else(|| ended(o, n))
                .or_else(|| allergy(o, n).or_else(|| allergy(n, o)))
                .or_else(|| role_denied(o, n).or_else(|| role_denied(n, o)))
                .or_else(|| turned_round(o, n))
                .or_else(|| changed(o, n))
                .or_else(|| reported(o, n))
                .or_else(|| same_frame(o, n));
            if let Some(e) = found
                && best.as_ref().is_none_or(|b| e.probability > b.probability)
            {
                best = Some(e);
            }
        }
    }
    best
}

/// Whether what statements say of the pair rules out a contradiction, whatever other rules
/// found: another subject, another key or aspect of one thing, or a new memory that only
/// plans or supposes.
pub fn vetoes(old: &[Statement], new: &[Statement]) -> bool {
    if !new.is_empty() && new.iter().all(|n| n.hypothetical) {
        return true;
    }
    let ([o], [n]) = (old, new) else {
        return false;
    };
    if o.partial || n.partial {
        return false;
    }
    if o.act == Act::Ends && n.act == Act::Changes {
        // "不再采用 500ms" / "改为 200ms": the stored memory already says the old value ended.
        return true;
    }
    // Chinese and Korean statements are read by cues alone: too little to rule anything out.
    if o.past
        || n.past
        || !o.verb.is_ascii()
        || o.verb == "cjk"
        || !n.verb.is_ascii()
        || n.verb == "cjk"
    {
        return false;
    }
    if same_subject(&o.subject, &n.subject) && other_condition(o, n)
        || o.act == Act::Ends && n.act == Act::Changes
        || o.subject == n.subject && restated(o, n)
        || past_states(o, n)
        || events(o, n)
    {
        return true;
    }
    // "the log level for service 0" / "the cache ttl for service 0", "my rent" / "my salary",
    // "Bob" / "Bob's sister", "the cache ttl for service 0" / "… for service 5": another key,
    // or the same key of another owner. Read from the subject, or from the object a change
    // names ("We raised *the cache ttl for service 0* to …").
    if let (Some(a), Some(b)) = (attribute(o), attribute(n))
        && (o.verb == n.verb || n.act == Act::Changes || o.act == Act::Changes)
        && (!a.owner.is_empty() || !b.owner.is_empty())
        && (!same_key(&a, &b)
            || !a.owner.is_empty() && !b.owner.is_empty() && !same_owner(&a.owner, &b.owner))
    {
        return true;
    }
    match (&o.subject, &n.subject) {
        (Subject::Named(a), Subject::Named(_)) => {
            // "The rate limit is 100 requests per minute" / "… is enforced per API key".
            same_subject(&o.subject, &n.subject)
                && keyed(a)
                && (o.is_copula() && o.measure && n.passive && n.number.is_none()
                    || n.is_copula() && n.measure && o.passive && o.number.is_none())
                && n.act == Act::States
                && o.act == Act::States
        }
        _ => false,
    }
}

/// A qualifier that sets a condition or a purpose ("when tired", "for caching", "while
/// working"): its content words.
fn condition(s: &Statement) -> Option<Vec<CompactString>> {
    let first = s.qualifier.first()?;
    // "for 10 years" is a duration, not a purpose.
    let measured = s
        .qualifier
        .iter()
        .any(|w| w.bytes().any(|c| c.is_ascii_digit()));
    (matches!(first.as_str(), "when" | "while" | "for" | "during" | "if") && !measured)
        .then(|| content(&s.qualifier))
        .filter(|c| !c.is_empty())
}

/// The same statement under another condition: "I like jazz when relaxing" / "I hate jazz
/// when working", "I like coffee" / "I don't like coffee when tired".
fn other_condition(o: &Statement, n: &Statement) -> bool {
    let same_value = !o.value.is_empty() && refines_exactly(&o.value, &n.value);
    match (condition(o), condition(n)) {
        (Some(a), Some(b)) => same_value && !refines_exactly(&a, &b),
        (None, Some(_)) => same_value && n.qualifier.first().is_some_and(|w| w != "for"),
        _ => false,
    }
}

/// The same frame with a value that restates or refines the other ("France" / "Paris,
/// France", "SF" / "San Francisco").
fn restated(o: &Statement, n: &Statement) -> bool {
    o.act == Act::States
        && n.act == Act::States
        && o.value.len() <= 4
        && n.value.len() <= 4
        && refines_exactly(&content(&o.qualifier), &content(&n.qualifier))
        && o.verb == n.verb
        && o.prep == n.prep
        && o.negated == n.negated
        && o.attitude == n.attitude
        && !o.value.is_empty()
        && !n.value.is_empty()
        && o.number.is_none()
        && n.number.is_none()
        && o.denied.is_empty()
        && n.denied.is_empty()
        && refines(&o.value_text(), &n.value_text())
}

/// Two narrated past states ("lived in Boston" / "lived in Seattle"): both held, at their
/// times.
fn past_states(o: &Statement, n: &Statement) -> bool {
    o.past_tense
        && n.past_tense
        && o.negated == n.negated
        && !refines_exactly(&o.value, &n.value)
        && o.verb == n.verb
        && matches!(
            o.verb.as_str(),
            "live" | "work" | "stay" | "visit" | "study" | "travel"
        )
}

/// Things the speaker is doing or plans ("I'm visiting Tokyo for 3 days", "I will spend 2
/// days in Edinburgh"): events, of which there are many.
fn events(o: &Statement, n: &Statement) -> bool {
    let event = |s: &Statement| {
        matches!(s.subject, Subject::Speaker)
            && (s.passive || s.mood == Mood::Tentative)
            && matches!(
                s.verb.as_str(),
                "visit" | "attend" | "take" | "spend" | "go" | "travel" | "see" | "meet" | "fly"
            )
    };
    event(o) && event(n) && o.verb == n.verb
}

fn asserts(s: &Statement) -> bool {
    s.mood == Mood::Asserted && !s.past
}

/// A key and what it belongs to: "cache ttl" of "service 0" in "the cache ttl for service 0"
/// (or "service 0's cache ttl", "service 0 cache ttl"); "rent" of "my" in "my rent"; "sister"
/// of "bob" in "Bob's sister".
struct Attribute<'s> {
    head: &'s str,
    key: Vec<&'s str>,
    owner: Vec<&'s str>,
}

fn key_owner(words: &[CompactString]) -> Attribute<'_> {
    let mut owner: Vec<&str> = Vec::new();
    let mut key: Vec<&str> = Vec::new();
    let mut rest = words;
    if rest.first().is_some_and(|w| w == "my") {
        owner.push("my");
        rest = &rest[1..];
    }
    if let Some(p) = rest.iter().rposition(|w| w.ends_with("'s")) {
        owner.extend(rest[..=p].iter().map(|w| w.trim_end_matches("'s")));
        rest = &rest[p + 1..];
    }
    if let Some(p) = rest
        .iter()
        .position(|w| matches!(w.as_str(), "for" | "of"))
        .filter(|&p| p > 0 && p + 1 < rest.len())
    {
        owner.extend(rest[p + 1..].iter().map(|w| w.as_str()));
        key.extend(rest[..p].iter().map(|w| w.as_str()));
    } else if rest.len() > 2 && rest[1].bytes().all(|c| c.is_ascii_digit()) {
        // "service 0 cache ttl": a numbered name opens the phrase.
        owner.extend(rest[..2].iter().map(|w| w.as_str()));
        key.extend(rest[2..].iter().map(|w| w.as_str()));
    } else {
        key.extend(rest.iter().map(|w| w.as_str()));
    }
    Attribute {
        head: key.last().copied().unwrap_or(""),
        key,
        owner,
    }
}

/// The attribute a statement speaks of, when it names one.
fn attribute(s: &Statement) -> Option<Attribute<'_>> {
    let words = match &s.subject {
        Subject::Named(w) if !w.is_empty() => w,
        Subject::Speaker if !s.previous.is_empty() => &s.previous,
        _ => return None,
    };
    let a = key_owner(words);
    (!a.head.is_empty()).then_some(a)
}

/// The same head and modifiers, give or take some: "the search service" / "the upload
/// service" name two things, "the project database" / "the database" one; "retry limit" /
/// "rate limit" are two keys.
fn same_key(a: &Attribute, b: &Attribute) -> bool {
    let within = |p: &[&str], q: &[&str]| p.iter().all(|w| q.iter().any(|v| related(w, v)));
    related(a.head, b.head) && (within(&a.key, &b.key) || within(&b.key, &a.key))
}

/// Owners are the same when they name the same words; the speaker's "my" stands for any owner
/// the speaker leaves unsaid ("my rent" / "the rent").
fn same_owner(a: &[&str], b: &[&str]) -> bool {
    let unsaid = |x: &[&str]| x.iter().all(|w| *w == "my");
    if unsaid(a) || unsaid(b) {
        // Most owners are the speaker's or none: no words to compare.
        return unsaid(a) && unsaid(b);
    }
    let named = |x: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = x
            .iter()
            .filter(|w| **w != "my")
            .map(|w| super::tokens::stem(w).to_string())
            .collect();
        v.sort();
        v
    };
    named(a) == named(b)
}

/// The head of a subject's noun phrase: the last content word before "for"/"of"/"in"
/// ("cache ttl for service 0" → "ttl"), else the last word.
fn head(words: &[CompactString]) -> &str {
    key_owner(words).head
}

/// A subject that is a key of something (two words or more, or the speaker's own: "my rent").
fn keyed(words: &[CompactString]) -> bool {
    let content = words.iter().filter(|w| w.as_str() != "my").count();
    content >= 2 || words.first().is_some_and(|w| w == "my")
}

fn related(a: &str, b: &str) -> bool {
    a == b || super::words::same_root(a, b) || super::shifts::synonyms(a, b)
}

fn same_subject(a: &Subject, b: &Subject) -> bool {
    match (a, b) {
        (Subject::Speaker, Subject::Speaker) => true,
        // One phrase names one thing.
        (Subject::Named(x), Subject::Named(y)) if x == y => !x.is_empty(),
        (Subject::Named(x), Subject::Named(y)) => {
            let (a, b) = (key_owner(x), key_owner(y));
            !x.is_empty() && same_key(&a, &b) && same_owner(&a.owner, &b.owner)
        }
        _ => false,
    }
}

/// The speaker and a key the speaker owns ("I" and "my favourite editor") are one subject for
/// a change the speaker announces.
fn speaker_owns(a: &Subject, b: &Subject) -> bool {
    let mine = |s: &Subject| matches!(s, Subject::Named(w) if w.first().is_some_and(|w| w == "my"));
    matches!((a, b), (Subject::Speaker, x) | (x, Subject::Speaker) if mine(x))
}

fn words_match(a: &str, b: &str) -> bool {
    if !a.is_ascii() || !b.is_ascii() {
        // Chinese has no spaces: one term inside the other ("发布经理" in "安娜担任发布经理").
        let long_enough = |x: &str| x.chars().count() >= 2;
        return a == b || long_enough(a) && long_enough(b) && (a.contains(b) || b.contains(a));
    }
    if a.bytes().any(|c| c.is_ascii_digit()) || b.bytes().any(|c| c.is_ascii_digit()) {
        return a == b;
    }
    related(a, b) || kinds::same_thing(a, b)
}

/// Whether a word of `a` names what a word of `b` names (stems, roots, aliases, or a
/// category that covers the other: "caffeine" covers "coffee").
fn overlaps(a: &[CompactString], b: &[CompactString]) -> bool {
    a.iter().any(|x| {
        b.iter()
            .any(|y| words_match(x, y) || covers(x, y) || covers(y, x))
    })
}

/// A category word and the things it takes in: quitting caffeine ends drinking coffee.
fn covers(category: &str, member: &str) -> bool {
    const COVERS: &[(&str, &[&str])] = &[
        (
            "caffeine",
            &[
                "coffee",
                "espresso",
                "latte",
                "cappuccino",
                "tea",
                "cola",
                "咖啡",
                "茶",
            ],
        ),
        ("咖啡因", &["咖啡", "茶", "coffee"]),
        (
            "alcohol",
            &[
                "beer",
                "wine",
                "whisky",
                "whiskey",
                "vodka",
                "gin",
                "rum",
                "sake",
                "cocktail",
                "cocktails",
            ],
        ),
        (
            "drinking",
            &["beer", "wine", "whisky", "whiskey", "alcohol"],
        ),
        (
            "meat",
            &[
                "chicken", "beef", "pork", "steak", "bacon", "lamb", "ham", "turkey", "sausage",
            ],
        ),
        ("dairy", &["milk", "cheese", "yogurt", "butter", "cream"]),
        (
            "lactose",
            &["milk", "cheese", "yogurt", "butter", "cream", "dairy"],
        ),
        ("gluten", &["bread", "pasta", "wheat", "pizza"]),
        (
            "nuts",
            &["peanut", "peanuts", "almond", "almonds", "walnut", "cashew"],
        ),
        ("shellfish", &["shrimp", "prawn", "lobster", "crab"]),
        (
            "smoking",
            &["cigarette", "cigarettes", "cigar", "vape", "smoke"],
        ),
        ("sugar", &["soda", "candy", "sweets", "dessert", "desserts"]),
        ("social", &["instagram", "twitter", "facebook", "tiktok"]),
    ];
    let member = member.trim_end_matches('s');
    COVERS
        .iter()
        .any(|(c, ms)| *c == category && ms.iter().any(|m| m.trim_end_matches('s') == member))
}

/// Terms a statement's value offers the kinds table: the value as one phrase, and for CJK
/// statements each term found.
fn terms(s: &Statement) -> Vec<String> {
    if s.value.iter().any(|w| !w.is_ascii()) {
        s.value.iter().map(|w| w.to_string()).collect()
    } else if s.value.is_empty() {
        Vec::new()
    } else {
        vec![s.value_text()]
    }
}

/// Two values of one kind that are not the same thing: their kind.
fn rival_values(o: &Statement, n: &Statement) -> Option<(String, String, kinds::Kind)> {
    let mut new_terms = terms(n);
    if !n.verb.is_empty() && n.verb.is_ascii() && n.verb != "be" && n.verb != o.verb {
        // "I now *drive* to work": the verb can be the value.
        new_terms.push(n.verb.to_string());
    }
    for a in terms(o) {
        for b in &new_terms {
            if refines(&a, b) {
                return None;
            }
            if let Some(k) = kinds::shared_kind(&a, b) {
                return Some((a, b.clone(), k));
            }
        }
    }
    None
}

/// One value refines or restates the other ("python" / "python 3.12", "paris" / "paris
/// france"): not a different value.
fn refines(a: &str, b: &str) -> bool {
    let negator = |x: &str| {
        x.split(' ')
            .any(|w| matches!(w, "not" | "no" | "never" | "don't"))
    };
    if negator(a) != negator(b) {
        return false;
    }
    let (wa, wb): (Vec<&str>, Vec<&str>) = (a.split(' ').collect(), b.split(' ').collect());
    let within = |x: &[&str], y: &[&str]| x.iter().all(|w| y.iter().any(|v| words_match(w, v)));
    a == b || kinds::same_thing(a, b) || within(&wa, &wb) || within(&wb, &wa)
}

fn evidence(signal: Signal, kind: ConflictType, p: f64, why: String) -> Option<Evidence> {
    Some(Evidence::new(signal, kind, p, why))
}

/// "Ben replaced Ana as release manager" / "Priya took over the mobile team from Tom" against
/// "Ana is the release manager" / "Tom leads the mobile team".
fn handed_over(o: &Statement, n: &Statement) -> Option<Evidence> {
    if n.previous.is_empty() || n.act != Act::Changes {
        return None;
    }
    // The holder is a person, named by one word ("Ana", "Tom").
    let Subject::Named(holder) = &o.subject else {
        return None;
    };
    if holder.len() != 1 {
        return None;
    }
    let named = n.previous.iter().any(|p| words_match(head(holder), p));
    let role = overlaps(&o.value, &n.value) || overlaps(&o.value, &n.previous);
    (named && role && !o.value.is_empty()).then_some(())?;
    evidence(
        Signal::Replacement,
        ConflictType::DirectContradiction,
        0.75,
        format!("handed over: \"{}\"", o.value_text()),
    )
}

/// A stored ending stated again as holding: "I don't work at Google anymore" / "I'm still at
/// Google"; "I quit smoking" / "I smoke every day".
fn resumed(o: &Statement, n: &Statement) -> Option<Evidence> {
    let holds = n.act != Act::Ends && !n.negated && !n.hypothetical && !n.past_tense;
    if matches!(o.verb.as_str(), "graduate" | "die" | "retire") {
        return None;
    }
    let same = same_subject(&o.subject, &n.subject) || speaker_owns(&o.subject, &n.subject);
    (holds && same && !o.value.is_empty() && overlaps(&o.value, &n.value)).then_some(())?;
    evidence(
        Signal::Negation,
        ConflictType::DirectContradiction,
        0.7,
        format!("holds again: \"{}\"", join(&n.value)),
    )
}

/// "Actually, I work at Amazon, not Microsoft" / "I work at Microsoft"; "I'm 34, not 32".
fn denied(o: &Statement, n: &Statement) -> Option<Evidence> {
    if n.denied.is_empty() || o.negated {
        return None;
    }
    let same = same_subject(&o.subject, &n.subject)
        || speaker_owns(&o.subject, &n.subject)
        || n.correction;
    let mut stored = o.value.clone();
    stored.extend(content(&o.qualifier));
    let hit = overlaps(&n.denied, &stored)
        && !overlaps(&n.denied, &n.value)
        && !refines_exactly(&o.value, &n.value);
    (same && hit).then_some(())?;
    evidence(
        Signal::Replacement,
        ConflictType::DirectContradiction,
        0.76,
        format!("corrected: not \"{}\"", join(&n.denied)),
    )
}

/// An allergy or intolerance against eating or loving what it is to: "I'm allergic to
/// peanuts" / "The user loves eating peanuts", "allergic to dairy" / "I eat cheese every day".
fn allergy(a: &Statement, b: &Statement) -> Option<Evidence> {
    if !a.is_copula() || a.negated || b.negated || !same_subject(&a.subject, &b.subject) {
        return None;
    }
    let allergic = a
        .value
        .iter()
        .any(|w| matches!(w.as_str(), "allergic" | "intolerant"));
    if !allergic {
        return None;
    }
    let mut to: Vec<CompactString> = content(&a.qualifier);
    to.extend(
        a.value
            .iter()
            .filter(|w| !matches!(w.as_str(), "allergic" | "intolerant"))
            .cloned(),
    );
    let eats = matches!(b.verb.as_str(), "eat" | "drink" | "have") || b.attitude > 0;
    let eaten: Vec<CompactString> = content(&b.value)
        .into_iter()
        .filter(|w| !matches!(w.as_str(), "eating" | "drinking"))
        .collect();
    (eats && b.act != Act::Ends && overlaps(&to, &eaten)).then_some(())?;
    evidence(
        Signal::Negation,
        ConflictType::DirectContradiction,
        0.72,
        format!("allergic to what is eaten: \"{}\"", join(&eaten)),
    )
}

/// What a role is made of: a professional chef cooks, a pilot flies, an author writes.
const ROLES: &[(&[&str], &[&str])] = &[
    (&["chef", "cook"], &["cook", "cooking", "food", "kitchen"]),
    (&["pilot"], &["fly", "flown", "flying", "plane", "aircraft"]),
    (
        &["author", "writer", "novelist", "journalist"],
        &["write", "written", "writing", "book"],
    ),
    (&["musician"], &["play", "instrument", "music"]),
    (&["pianist"], &["piano", "music"]),
    (&["guitarist"], &["guitar"]),
    (&["drummer"], &["drum", "drums"]),
    (&["singer"], &["sing", "singing"]),
    (&["dancer"], &["dance", "dancing"]),
    (
        &["photographer"],
        &["photo", "photos", "camera", "picture", "pictures"],
    ),
    (
        &["scientist", "analyst"],
        &["python", "data", "statistics", "sql"],
    ),
    (
        &["programmer", "developer", "coder"],
        &["code", "coding", "program", "programming"],
    ),
    (&["engineer"], &["code", "coding", "engineering"]),
    (&["tester"], &["test", "testing"]),
    (&["designer"], &["design", "research", "designing"]),
    (&["teacher", "tutor"], &["teach", "teaching"]),
    (
        &["doctor", "physician", "surgeon", "nurse"],
        &["medicine", "medical", "patient", "patients"],
    ),
    (&["driver"], &["drive", "driving", "car"]),
    (
        &["translator", "interpreter"],
        &["translate", "language", "languages"],
    ),
    (&["swimmer"], &["swim", "swimming"]),
    (&["runner", "marathoner"], &["run", "running"]),
    (
        &["painter", "artist"],
        &["paint", "painting", "draw", "drawing"],
    ),
    (&["lawyer", "attorney"], &["law", "legal"]),
    (&["accountant"], &["accounting", "math", "numbers"]),
];

/// A role the speaker holds against the speaker never doing what the role is made of: "I'm a
/// professional chef" / "I can't cook", "I'm a licensed pilot" / "I've never flown a plane".
fn role_denied(a: &Statement, b: &Statement) -> Option<Evidence> {
    if !a.is_copula() || a.negated || !b.negated || !matches!(a.subject, Subject::Speaker) {
        return None;
    }
    if !matches!(b.subject, Subject::Speaker) || b.hypothetical {
        return None;
    }
    let role = a.value.last()?;
    let role = super::tokens::stem(role);
    let (_, core) = ROLES
        .iter()
        .find(|(names, _)| names.contains(&role.as_str()))?;
    let mut done: Vec<&str> = vec![b.verb.as_str()];
    done.extend(b.value.iter().map(|w| w.as_str()));
    let hit = done.iter().any(|w| core.iter().any(|c| words_match(c, w)));
    hit.then_some(())?;
    evidence(
        Signal::Negation,
        ConflictType::DirectContradiction,
        0.7,
        format!("a {role} who never does it: \"{}\"", b.verb),
    )
}

/// "I left Initech" / "I work at Initech"; "Miso died" / "Our cat Miso is healthy"; "I quit
/// caffeine" / "I drink coffee every morning".
fn ended(o: &Statement, n: &Statement) -> Option<Evidence> {
    if n.act != Act::Ends || o.negated || o.act != Act::States || o.past_tense {
        return None;
    }
    let subject_ended = n.value.is_empty()
        && matches!((&o.subject, &n.subject), (Subject::Named(a), Subject::Named(b))
            if b.iter().any(|w| a.iter().any(|x| words_match(x, w))));
    let same = same_subject(&o.subject, &n.subject) || speaker_owns(&o.subject, &n.subject);
    let mut stored = o.value.clone();
    stored.extend(o.qualifier.iter().filter(|w| w.len() > 2).cloned());
    let object = same
        && n.value
            .first()
            .is_some_and(|w| overlaps(std::slice::from_ref(w), &stored));
    let object = object || same && o.value.len() == 1 && overlaps(&n.value, &o.value);
    // "I quit smoking" / "I smoke"; "I stopped going to the gym" / "I go to the gym".
    let activity = same
        && n.ended_verb.as_deref().is_some_and(|v| v == o.verb)
        && (n.value.is_empty() || o.value.is_empty() || overlaps(&n.value, &o.value));
    // "I graduated" / "I'm a student", "I retired" / "I work at …".
    let status = same && n.value.is_empty() && ends_status(&n.verb, o);
    (subject_ended || object || activity || status).then_some(())?;
    evidence(
        Signal::Negation,
        ConflictType::DirectContradiction,
        0.72,
        format!("ended: \"{}\"", n.verb),
    )
}

/// Endings that end a status without naming it.
fn ends_status(verb: &str, o: &Statement) -> bool {
    let words: &[&str] = match verb {
        "graduate" => &["student", "undergraduate", "undergrad", "studying", "study"],
        "retire" => &["work", "employed", "job"],
        "divorce" => &["married", "husband", "wife"],
        _ => return false,
    };
    words
        .iter()
        .any(|w| o.verb == *w || o.value.iter().any(|v| v == w))
}

/// A preference turned round on the same thing: "Prefers aisle seats" / "Dislikes aisle
/// seats"; or the same statement denied.
fn turned_round(o: &Statement, n: &Statement) -> Option<Evidence> {
    if !same_subject(&o.subject, &n.subject) || o.value.is_empty() || n.value.is_empty() {
        return None;
    }
    let sign = |s: &Statement| if s.negated { -1 } else { 1 };
    let same_value = refines_exactly(&o.value, &n.value);
    let (qo, qn) = (content(&o.qualifier), content(&n.qualifier));
    let same_qualifier = qo.is_empty() && qn.is_empty() || refines_exactly(&qo, &qn);
    if !same_value || !same_qualifier {
        return None;
    }
    let (ao, an) = (o.attitude * sign(o), n.attitude * sign(n));
    let flipped = if o.attitude != 0 && n.attitude != 0 {
        ao == -an
    } else {
        o.verb == n.verb && o.prep == n.prep && o.negated != n.negated && !o.is_copula()
    };
    flipped.then_some(())?;
    evidence(
        Signal::Negation,
        ConflictType::DirectContradiction,
        0.74,
        format!("turned round: \"{}\"", join(&n.value)),
    )
}

/// The content words of a qualifier ("when tired" → "tired").
fn content(words: &[CompactString]) -> Vec<CompactString> {
    words
        .iter()
        .filter(|w| w.bytes().any(|c| c.is_ascii_digit()) || !super::lexicon::is_stopword(w))
        .cloned()
        .collect()
}

/// The same words, give or take a form ("python's syntax" / "python syntax").
fn refines_exactly(a: &[CompactString], b: &[CompactString]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| words_match(x, y))
}

/// A change announced in the new memory, against the stored value it replaces.
fn changed(o: &Statement, n: &Statement) -> Option<Evidence> {
    if n.act != Act::Changes || n.adds || o.negated || o.past_tense {
        return None;
    }
    let moved_thing = match (&o.subject, attribute(n)) {
        (Subject::Named(a), Some(b)) if matches!(n.subject, Subject::Speaker) => {
            let a = key_owner(a);
            related(a.head, b.head) && same_owner(&a.owner, &b.owner)
        }
        (Subject::Named(a), _) => n.previous.iter().any(|p| related(head(a), p)),
        _ => false,
    };
    let same = same_subject(&o.subject, &n.subject);
    if !(same || moved_thing || speaker_owns(&o.subject, &n.subject)) {
        return None;
    }
    if let (Some(a), Some(b)) = (o.period, n.period)
        && (a - b).abs() > 1e-9
        && (same || moved_thing)
    {
        return evidence(
            Signal::ValueChange,
            ConflictType::NumericMismatch,
            0.72,
            format!("frequency changed: every {a} vs every {b} days"),
        );
    }
    if (same || moved_thing)
        && let (Some(a), Some(b)) = (o.number, n.number)
        && (a - b).abs() > 1e-9
        && !o.bounded
        && !n.bounded
        && !matches!(o.subject, Subject::Speaker)
    {
        return evidence(
            Signal::ValueChange,
            ConflictType::NumericMismatch,
            0.74,
            format!("value changed: {a} vs {b}"),
        );
    }
    if let Some((a, b, k)) = rival_values(o, n) {
        return evidence(
            Signal::Replacement,
            ConflictType::DirectContradiction,
            0.74,
            format!("changed: \"{a}\" vs \"{b}\" ({})", k.name()),
        );
    }
    // "The wifi password is tulip42" / "The wifi password changed to orchid77": a key's value
    // changed to another.
    let keyed_key = matches!(&o.subject, Subject::Named(w) if keyed(w));
    if same
        && keyed_key
        && o.is_copula()
        && (1..=4).contains(&o.value.len())
        && (1..=4).contains(&n.value.len())
        && !refines(&o.value_text(), &n.value_text())
    {
        return evidence(
            Signal::Replacement,
            ConflictType::DirectContradiction,
            0.72,
            format!(
                "{} changed: \"{}\" vs \"{}\"",
                head_of(&o.subject),
                o.value_text(),
                n.value_text()
            ),
        );
    }
    None
}

fn head_of(s: &Subject) -> &str {
    match s {
        Subject::Named(w) => head(w),
        Subject::Speaker => "",
    }
}

/// A claim reported from a source, or corrected, against the stored claim: two values of one
/// kind about a subject the two share a word of ("billing uses Stripe" / "the billing ADR says
/// Adyen; the earlier note was wrong").
fn reported(o: &Statement, n: &Statement) -> Option<Evidence> {
    if !(n.reported || n.correction) {
        return None;
    }
    let shared = match (&o.subject, &n.subject) {
        (Subject::Named(a), Subject::Named(b)) => overlaps(a, b),
        (Subject::Speaker, Subject::Speaker) => true,
        _ => false,
    };
    if !shared {
        return None;
    }
    if let (Some(a), Some(b)) = (o.number, n.number)
        && (a - b).abs() > 1e-9
        && !o.bounded
        && !n.bounded
        && o.prep == n.prep
        && overlaps(&o.value, &n.value)
    {
        return evidence(
            Signal::ValueChange,
            ConflictType::NumericMismatch,
            0.72,
            format!("reported value differs: {a} vs {b}"),
        );
    }
    let (a, b, k) = rival_values(o, n)?;
    evidence(
        Signal::Replacement,
        ConflictType::DirectContradiction,
        0.72,
        format!("reported: \"{a}\" vs \"{b}\" ({})", k.name()),
    )
}

/// Two CJK values that differ only in their number ("二楼" / "四楼").
fn same_unit(a: &[CompactString], b: &[CompactString]) -> bool {
    let strip = |v: &[CompactString]| -> String {
        v.iter()
            .flat_map(|w| w.chars())
            .filter(|c| {
                !c.is_ascii_digit() && *c != '.' && !"零一二三四五六七八九十百千万".contains(*c)
            })
            .collect()
    };
    let (x, y) = (strip(a), strip(b));
    !x.is_empty() && !x.is_ascii() && x == y
}

/// Verbs whose subject holds one value at a time.
fn single_valued(verb: &str) -> bool {
    matches!(
        verb,
        "be" | "live"
            | "work"
            | "host"
            | "deploy"
            | "commute"
            | "drive"
            | "prefer"
            | "run"
            | "base"
            | "locate"
            | "earn"
            | "cost"
            | "weigh"
            | "release"
            | "reside"
            | "stay"
            | "是"
            | "在"
            | "为"
            | "使用"
            | "用"
            | "很"
    )
}

/// The same frame with another value, no cue needed: "We host on Azure westeurope" / "We host
/// on AWS eu-central-1", "The printer is on floor 2" / "… on floor 4", "Dave is vegetarian" /
/// "he is pescatarian".
fn same_frame(o: &Statement, n: &Statement) -> Option<Evidence> {
    if n.adds
        || o.past_tense
        || o.negated
        || n.negated
        || !same_subject(&o.subject, &n.subject)
        || o.verb != n.verb
        || o.prep != n.prep
        || !(single_valued(&o.verb) || o.verb == "use" && matches!(o.subject, Subject::Named(_)))
        || o.value.is_empty()
        || n.value.is_empty()
    {
        return None;
    }
    // Another purpose or condition is another statement ("uses Redis *for caching*").
    let purpose = |s: &Statement| {
        s.qualifier
            .first()
            .is_some_and(|w| w == "for" || w == "when")
    };
    if purpose(o) != purpose(n)
        || purpose(o) && !overlaps(&content(&o.qualifier), &content(&n.qualifier))
    {
        return None;
    }
    let keyed_thing = matches!(&o.subject, Subject::Named(w) if !w.is_empty());
    if keyed_thing
        && let (Some(a), Some(b)) = (o.number, n.number)
        && (a - b).abs() > 1e-9
        && !o.bounded
        && !n.bounded
        && (o.value.len() > 1 || n.value.len() > 1 || !o.verb.is_ascii())
        && (overlaps(&o.value, &n.value) || same_unit(&o.value, &n.value))
    {
        return evidence(
            Signal::ValueChange,
            ConflictType::NumericMismatch,
            0.7,
            format!(
                "value changed: \"{}\" vs \"{}\"",
                o.value_text(),
                n.value_text()
            ),
        );
    }
    let (a, b, k) = rival_values(o, n)?;
    evidence(
        Signal::Replacement,
        ConflictType::DirectContradiction,
        0.7,
        format!("other value: \"{a}\" vs \"{b}\" ({})", k.name()),
    )
}

#[cfg(test)]
mod tests;
