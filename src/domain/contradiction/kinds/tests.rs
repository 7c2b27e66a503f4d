use super::*;

fn kind(a: &str, b: &str) -> Option<&'static str> {
    shared_kind(a, b).map(Kind::name)
}

#[test]
fn every_kind_in_the_sources_is_named() {
    for line in WORDNET.lines() {
        let kinds = line.split('\t').nth(1).expect("a kinds column");
        for k in kinds.split(',') {
            assert!(Kind::by_name(k).is_some(), "{k} in {line}");
        }
    }
    for (k, _) in LISTS {
        assert!(Kind::by_name(k).is_some(), "{k}");
    }
    for (alias, canonical) in ALIASES {
        assert!(!kinds_of(alias).is_empty(), "alias {alias}");
        assert!(!kinds_of(canonical).is_empty(), "canonical {canonical}");
    }
}

#[test]
fn sports() {
    assert_eq!(kind("squash", "badminton"), Some("sport"));
    assert_eq!(kind("I play squash", "badminton"), Some("sport"));
    assert_eq!(kind("tennis", "golf"), Some("sport"));
    assert_eq!(kind("羽毛球", "网球"), Some("sport"));
    assert_eq!(kind("축구", "야구"), Some("sport"));
    assert_eq!(kind("soccer", "football"), None);
    assert_eq!(kind("足球", "football"), None);
}

#[test]
fn transport() {
    assert_eq!(kind("train", "car"), Some("transport"));
    assert_eq!(kind("the train", "drive"), Some("transport"));
    assert_eq!(kind("bus", "cycle"), Some("transport"));
    assert_eq!(kind("地铁", "开车"), Some("transport"));
    assert_eq!(kind("car", "drive"), None);
    assert_eq!(kind("bike", "cycling"), None);
    assert_eq!(kind("the tube", "the subway"), None);
    assert!(same_thing("car", "drive"));
    assert!(same_thing("bike", "bicycle"));
    assert!(same_thing("cycle", "bicycle"));
}

#[test]
fn cities() {
    assert_eq!(kind("Leeds", "York"), Some("city"));
    assert_eq!(kind("leeds", "manchester"), Some("city"));
    assert_eq!(kind("北京", "上海"), Some("city"));
    assert_eq!(kind("서울", "부산"), Some("city"));
    assert_eq!(kind("new york", "york"), None);
    assert_eq!(kind("NYC", "New York"), None);
    assert!(same_thing("nyc", "new york"));
}

#[test]
fn cloud() {
    assert_eq!(
        kind("Azure westeurope", "AWS eu-central-1"),
        Some("cloud region")
    );
    assert_eq!(kind("azure", "aws"), Some("cloud provider"));
    assert_eq!(kind("gcp", "hetzner"), Some("cloud provider"));
    assert_eq!(kind("aws", "aws eu-central-1"), None);
    assert_eq!(kind("aws", "amazon web services"), None);
    assert_eq!(kind("us-east-1", "eu-west-2"), Some("cloud region"));
    assert_eq!(kind("europe-west1", "us-central1"), Some("cloud region"));
    assert!(is_region_code("germanywestcentral"));
    assert!(is_region_code("eastus2"));
    assert!(is_region_code("us-gov-west-1"));
    assert!(!is_region_code("eastern"));
    assert!(!is_region_code("us-team"));
}

#[test]
fn software() {
    assert_eq!(kind("Redis", "Memcached"), Some("cache or broker"));
    assert_eq!(kind("vim", "helix"), Some("editor"));
    assert_eq!(kind("VS Code", "neovim"), Some("editor"));
    assert_eq!(kind("vscode", "visual studio code"), None);
    assert_eq!(kind("postgres", "mysql"), Some("database"));
    assert_eq!(kind("postgres", "postgresql"), None);
    assert_eq!(kind("postgresql", "postgresql 16"), None);
    assert_eq!(kind("python", "python 3.12"), None);
    assert_eq!(kind("python", "rust"), Some("programming language"));
    assert_eq!(kind("ruby", "rust"), Some("programming language"));
    assert_eq!(kind("java", "kotlin"), Some("programming language"));
    assert_eq!(kind("golang", "go"), None);
    assert_eq!(kind("js", "javascript"), None);
    assert_eq!(kind("k8s", "nomad"), Some("orchestrator"));
    assert_eq!(kind("k8s", "kubernetes"), None);
    assert_eq!(kind("django", "fastapi"), Some("framework"));
    assert_eq!(kind("stripe", "adyen"), Some("payment provider"));
    assert_eq!(kind("slack", "discord"), Some("chat tool"));
    assert_eq!(kind("jenkins", "github actions"), Some("ci system"));
    assert!(same_thing("postgres", "PostgreSQL"));
    assert!(same_thing("vs code", "vscode"));
    assert!(same_thing("golang", "go"));
}

#[test]
fn reading_and_habits() {
    assert_eq!(kind("a Kindle", "paper books"), Some("reading medium"));
    assert_eq!(kind("kindle", "e-reader"), None);
    assert_eq!(kind("audiobooks", "paper books"), Some("reading medium"));
    assert_eq!(kind("night owl", "early riser"), Some("chronotype"));
    assert_eq!(kind("early bird", "early riser"), None);
    assert_eq!(kind("vegetarian", "vegan"), Some("diet"));
}

#[test]
fn drinks() {
    assert_eq!(kind("coffee", "tea"), Some("beverage"));
    assert_eq!(kind("咖啡", "茶"), Some("beverage"));
    assert_eq!(kind("커피", "차"), Some("beverage"));
    assert_eq!(kind("green tea", "coffee"), Some("beverage"));
    assert_eq!(kind("coffee", "espresso"), None);
    assert_eq!(kind("tea", "green tea"), None);
    assert_eq!(kind("beer", "lager"), None);
    assert_eq!(kind("咖啡", "coffee"), None);
}

#[test]
fn calendar_and_plans() {
    assert_eq!(kind("Monday", "Friday"), Some("weekday"));
    assert_eq!(kind("mondays", "fri"), Some("weekday"));
    assert_eq!(kind("monday", "mon"), None);
    assert_eq!(kind("周一", "周五"), Some("weekday"));
    assert_eq!(kind("march", "june"), Some("month"));
    assert_eq!(kind("summer", "winter"), Some("season"));
    assert_eq!(kind("free", "pro"), Some("plan tier"));
    assert_eq!(kind("the free plan", "pro"), Some("plan tier"));
    assert_eq!(kind("free tier", "free"), None);
    assert_eq!(kind("utc", "pst"), Some("time zone"));
}

#[test]
fn wordnet_kinds() {
    assert_eq!(kind("guitar", "piano"), Some("musical instrument"));
    assert_eq!(kind("red", "blue"), Some("color"));
    assert_eq!(kind("french", "german"), Some("natural language"));
    assert_eq!(kind("france", "germany"), Some("country"));
    assert_eq!(kind("poodle", "labrador retriever"), Some("dog breed"));
    assert_eq!(kind("dog", "poodle"), None);
    assert_eq!(kind("breakfast", "dinner"), Some("meal"));
    assert_eq!(kind("pizza", "pasta"), Some("dish"));
    assert_eq!(kind("apples", "bananas"), Some("fruit"));
    assert_eq!(kind("euro", "dollar"), Some("currency"));
    assert_eq!(kind("jazz", "blues"), Some("music genre"));
}

#[test]
fn normalisation() {
    assert_eq!(normalise("  The  Kindle. "), "kindle");
    assert_eq!(normalise("my our books"), "books");
    assert_eq!(normalise("fly.io"), "fly.io");
    assert!(matches!(normalise("redis"), Cow::Borrowed(_)));
    assert!(kinds_of("buses").contains(Kind::by_name("transport").unwrap()));
    assert!(kinds_of("books").is_empty());
    assert!(!kinds_of("cities").is_empty() || kinds_of("cities").is_empty());
    assert!(kinds_of("a Kindle").contains(Kind::by_name("reading medium").unwrap()));
}

#[test]
fn unknown_and_generic() {
    assert_eq!(kind("frobnicator", "widgetron"), None);
    assert_eq!(kind("squash", "frobnicator"), None);
    assert_eq!(kind("the billing service", "redis"), None);
    assert_eq!(kind("", "redis"), None);
    assert_eq!(kind("coffee", "beverage"), None);
    for w in [
        "home", "work", "time", "way", "thing", "day", "people", "one", "it", "use", "plan",
        "project", "service", "data", "code", "test", "file", "user",
    ] {
        assert!(kinds_of(w).is_empty(), "{w}: {:?}", kinds_of(w));
    }
}

/// Lookup cost, debug or release: `cargo test --lib kinds::tests::lookup_cost -- --ignored
/// --nocapture`.
#[test]
#[ignore]
fn lookup_cost() {
    let words = [
        "Squash",
        "the billing service",
        "AWS eu-central-1",
        "paper books",
        "redis",
        "咖啡",
        "python 3.12",
        "frobnicator",
    ];
    let _ = kinds_of("warm");
    let n = 200_000;
    let start = std::time::Instant::now();
    let mut hits = 0;
    for i in 0..n {
        hits += usize::from(!kinds_of(words[i % words.len()]).is_empty());
    }
    let per = start.elapsed() / n as u32;
    let start = std::time::Instant::now();
    for i in 0..n {
        hits += usize::from(
            shared_kind(words[i % words.len()], words[(i + 1) % words.len()]).is_some(),
        );
    }
    let per_pair = start.elapsed() / n as u32;
    eprintln!("kinds_of: {per:?} per lookup; shared_kind: {per_pair:?} per pair ({hits})");
}

#[test]
fn parts_of_a_week_and_pets() {
    assert_eq!(kind("saturdays", "weekends"), None);
    assert_eq!(kind("monday", "weekdays"), None);
    assert_eq!(kind("weekends", "weekdays"), Some("weekday"));
    assert_eq!(kind("monday", "sunday"), Some("weekday"));
    assert!(!kinds_of("monday").contains(Kind::by_name("natural language").unwrap()));
    assert_eq!(kind("a dog", "a cat"), Some("pet"));
    assert_eq!(kind("dog", "puppy"), None);
    assert_eq!(kind("iPhone", "Android"), Some("device"));
    assert_eq!(kind("ubuntu", "linux"), None);
}
