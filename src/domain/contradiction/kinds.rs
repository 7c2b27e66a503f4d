//! Kinds of things: which values are of one kind and exclude each other for one attribute
//! ("squash" / "badminton": sports; "Leeds" / "York": cities; "Redis" / "Memcached":
//! caches). Two sources, merged once on first use:
//!
//! * `kinds_wordnet.txt`, generated from WordNet 3.0 by `scripts/gen-kinds.py` (WordNet
//!   3.0 licence, `LICENSES/WordNet-3.0.txt`): common nouns under curated target synsets
//!   whose members are alternatives (sports, beverages, cities, vehicles, colours, …), with
//!   each lemma's synonyms and more general members ("espresso" → "coffee") so that a
//!   refinement is not taken for a rival;
//! * the closed lists of `kinds/lists.rs` for names WordNet lacks: software, cloud and
//!   product names, plans, transport modes as verbs ("drive", "cycle"), chronotypes, and
//!   the common Chinese and Korean names; plus an alias table for the same thing spelled
//!   differently ("postgres" = "postgresql", "k8s" = "kubernetes", "drive" = "car").
//!
//! A leaf module: it imports nothing from the crate but std.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::LazyLock;

mod lists;
#[cfg(test)]
mod tests;

use lists::{ALIASES, LISTS};

/// Every kind, closed-list kinds first: when two values share several kinds, the first
/// listed is the one reported ("ruby" / "rust" are programming languages before colours).
const KIND_NAMES: &[&str] = &[
    // Closed lists.
    "cloud provider",
    "cloud region",
    "database",
    "cache or broker",
    "ci system",
    "framework",
    "programming language",
    "editor",
    "operating system",
    "browser",
    "orchestrator",
    "payment provider",
    "chat tool",
    "video conferencing",
    "package manager",
    "version control",
    "code host",
    "observability",
    "device",
    "reading medium",
    "transport",
    "diet",
    "plan tier",
    "weekday",
    "month",
    "chronotype",
    "marital status",
    "natural language",
    "currency",
    "time zone",
    "email provider",
    "music streaming",
    "search engine",
    "beverage",
    "city",
    "country",
    "sport",
    // WordNet only.
    "exercise",
    "game",
    "dish",
    "meal",
    "meat",
    "fruit",
    "vegetable",
    "state",
    "continent",
    "musical instrument",
    "color",
    "dog breed",
    "pet",
    "religion",
    "season",
    "music genre",
    "academic degree",
    "zodiac sign",
    "fabric",
    "dwelling",
];

const _: () = assert!(KIND_NAMES.len() <= 128, "KindSet is a u128");

/// A kind of thing whose members are alternatives for one attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Kind(u8);

impl Kind {
    /// The kind's name ("sport", "cloud region", …).
    pub fn name(self) -> &'static str {
        KIND_NAMES[self.0 as usize]
    }

    fn by_name(name: &str) -> Option<Kind> {
        KIND_NAMES
            .iter()
            .position(|k| *k == name)
            .map(|i| Kind(i as u8))
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of kinds: a bitset, cheap to copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct KindSet(u128);

impl KindSet {
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn contains(self, kind: Kind) -> bool {
        self.0 & (1 << kind.0) != 0
    }

    /// The kinds of both sets.
    pub fn intersection(self, other: KindSet) -> KindSet {
        KindSet(self.0 & other.0)
    }

    /// The first kind in the set (closed-list kinds before WordNet ones).
    pub fn first(self) -> Option<Kind> {
        (self.0 != 0).then(|| Kind(self.0.trailing_zeros() as u8))
    }

    pub fn iter(self) -> impl Iterator<Item = Kind> {
        (0..128u8).filter(move |i| self.0 & (1 << i) != 0).map(Kind)
    }

    fn with(self, kind: Kind) -> KindSet {
        KindSet(self.0 | 1 << kind.0)
    }
}

/// What the table knows of one name.
#[derive(Clone, Copy, Default)]
struct Entry {
    kinds: KindSet,
    /// Comma-separated members that are not rivals of this one (synonyms, more general
    /// members): from WordNet and from the closed lists.
    near: [&'static str; 2],
    /// The canonical spelling, for aliases.
    canonical: Option<&'static str>,
}

impl Entry {
    fn is_near(&self, other: &str) -> bool {
        self.near
            .iter()
            .any(|list| list.split(',').any(|n| !n.is_empty() && n == other))
    }
}

static WORDNET: &str = include_str!("kinds_wordnet.txt");

/// A multiply-rotate hash (the Fx hash) for short keys: the table is built from our own
/// data, so SipHash's flooding resistance buys nothing here and costs a third of a lookup.
#[derive(Default)]
pub(super) struct FxHasher(u64);

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type Table = HashMap<&'static str, Entry, BuildHasherDefault<FxHasher>>;

static TABLE: LazyLock<Table> = LazyLock::new(build);

fn build() -> Table {
    let mut table = Table::with_capacity_and_hasher(14_000, Default::default());
    for line in WORDNET.lines() {
        let mut cols = line.split('\t');
        let (Some(name), Some(kinds)) = (cols.next(), cols.next()) else {
            continue;
        };
        let entry = table.entry(name).or_default();
        for kind in kinds.split(',').filter_map(Kind::by_name) {
            entry.kinds = entry.kinds.with(kind);
        }
        entry.near[0] = cols.next().unwrap_or("");
    }
    for (kind, members) in LISTS {
        let kind = Kind::by_name(kind).expect("closed-list kind in KIND_NAMES");
        for member in *members {
            let (name, near) = member.split_once('>').unwrap_or((member, ""));
            let entry = table.entry(name).or_default();
            entry.kinds = entry.kinds.with(kind);
            if !near.is_empty() {
                entry.near[1] = near;
            }
        }
    }
    // An alias has its canonical name's kinds (and the canonical name the alias's, when it
    // has none of its own: "dollar" from "usd"). Other senses of an alias ("mon", a
    // language) stay on the alias.
    for (alias, canonical) in ALIASES {
        let of = |t: &Table, n: &str| t.get(n).map_or(KindSet::default(), |e| e.kinds);
        let (ka, kc) = (of(&table, alias), of(&table, canonical));
        table.entry(alias).or_default().kinds = KindSet(ka.0 | kc.0);
        table.entry(alias).or_default().canonical = Some(canonical);
        if kc.is_empty() {
            table.entry(canonical).or_default().kinds = ka;
        }
    }
    table
}

/// Words dropped at the start of a value phrase.
const DETERMINERS: &[&str] = &[
    "a ", "an ", "the ", "my ", "our ", "your ", "his ", "her ", "their ", "its ", "some ",
];

/// Surrounding whitespace and punctuation trimmed ("fly.io" and "c++" keep theirs).
fn trim(s: &str) -> &str {
    s.trim_matches(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '"' | '\''
                    | ','
                    | '.'
                    | '!'
                    | '?'
                    | ';'
                    | ':'
                    | '('
                    | ')'
                    | '“'
                    | '”'
                    | '。'
                    | '，'
            )
    })
}

/// Lowercased, trimmed, inner whitespace collapsed, surrounding punctuation and leading
/// determiners dropped. Borrows when nothing else changes.
fn normalise(phrase: &str) -> Cow<'_, str> {
    let t = trim(phrase);
    let clean = !t
        .chars()
        .any(|c| c.is_uppercase() || (c.is_whitespace() && c != ' '))
        && !t.contains("  ");
    let mut out: Cow<'_, str> = if clean {
        Cow::Borrowed(t)
    } else {
        Cow::Owned(
            t.to_lowercase()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
        )
    };
    while let Some(keep) = DETERMINERS
        .iter()
        .find_map(|d| out.strip_prefix(d))
        .map(str::len)
    {
        out = match out {
            Cow::Borrowed(b) => Cow::Borrowed(trim(&b[b.len() - keep..])),
            Cow::Owned(o) => Cow::Owned(trim(&o[o.len() - keep..]).to_string()),
        };
    }
    out
}

/// Singular candidates of an English plural ("books" → "book", "buses" → "bus",
/// "cities" → "city").
fn singulars(word: &str) -> impl Iterator<Item = Cow<'_, str>> {
    let ascii = word.is_ascii() && word.len() > 3;
    let ies = (ascii && word.ends_with("ies"))
        .then(|| Cow::Owned(format!("{}y", &word[..word.len() - 3])));
    let es = (ascii
        && ["ses", "xes", "zes", "ches", "shes", "oes"]
            .iter()
            .any(|s| word.ends_with(s)))
    .then(|| Cow::Borrowed(&word[..word.len() - 2]));
    let s = (ascii && word.ends_with('s') && !["ss", "us", "is"].iter().any(|e| word.ends_with(e)))
        .then(|| Cow::Borrowed(&word[..word.len() - 1]));
    ies.into_iter().chain(es).chain(s)
}

/// A cloud region code by shape: AWS "eu-central-1", "us-gov-west-1"; GCP "europe-west1",
/// "us-central1-a"; Azure "westeurope", "eastus2", "germanywestcentral".
fn is_region_code(w: &str) -> bool {
    const GEO: &[&str] = &[
        "us",
        "eu",
        "ap",
        "sa",
        "ca",
        "me",
        "af",
        "il",
        "mx",
        "cn",
        "gov",
        "europe",
        "asia",
        "australia",
        "northamerica",
        "southamerica",
        "africa",
        "uk",
        "france",
        "germany",
        "japan",
        "canada",
        "india",
        "brazil",
        "korea",
        "norway",
        "switzerland",
        "uae",
        "southafrica",
        "sweden",
        "poland",
        "italy",
        "qatar",
        "israel",
        "mexico",
        "spain",
        "singapore",
    ];
    const DIR: &[&str] = &[
        "northeast",
        "northwest",
        "southeast",
        "southwest",
        "north",
        "south",
        "east",
        "west",
        "central",
    ];
    // Cheap rejections first: this runs on every word the table does not know.
    if w.len() < 5
        || !w
            .as_bytes()
            .windows(4)
            .any(|x| matches!(x, b"east" | b"west" | b"nort" | b"sout" | b"cent"))
        || !w
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return false;
    }
    // AWS and GCP: dash-separated, a geography first, a numbered direction after.
    if w.contains('-') {
        let mut parts = w.split('-');
        if !parts.next().is_some_and(|g| GEO.contains(&g)) {
            return false;
        }
        let (mut dir, mut numbered, mut count) = (false, false, 1);
        for p in parts {
            count += 1;
            numbered |= p.bytes().any(|b| b.is_ascii_digit());
            dir |= DIR.iter().any(|d| {
                p.strip_prefix(d)
                    .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
            });
        }
        return dir && numbered && count <= 4;
    }
    // Azure: geography and direction words run together, maybe a digit at the end.
    let mut rest = w.trim_end_matches(|c: char| c.is_ascii_digit());
    let (mut geo, mut dir) = (false, false);
    while !rest.is_empty() {
        if let Some(r) = DIR.iter().find_map(|d| rest.strip_prefix(d)) {
            dir = true;
            rest = r;
        } else if let Some(r) = GEO
            .iter()
            .filter(|g| g.len() > 2 || matches!(**g, "us" | "uk"))
            .find_map(|g| rest.strip_prefix(g))
        {
            geo = true;
            rest = r;
        } else {
            return false;
        }
    }
    geo && dir
}

/// What the table knows of a normalised word or phrase, trying its singular too; the
/// name found (for the near check) with its entry.
fn lookup<'a>(name: &'a str) -> Option<(Cow<'a, str>, Entry)> {
    if let Some(e) = TABLE.get(name) {
        return Some((Cow::Borrowed(name), *e));
    }
    if is_region_code(name) {
        let kind = Kind::by_name("cloud region").expect("cloud region kind");
        let entry = Entry {
            kinds: KindSet::default().with(kind),
            ..Entry::default()
        };
        return Some((Cow::Borrowed(name), entry));
    }
    // Fold a plural on the last word ("paper books" → "paper book").
    let (head, last) = name.rsplit_once(' ').map_or(("", name), |(h, l)| (h, l));
    for single in singulars(last) {
        let candidate: Cow<'a, str> = if head.is_empty() {
            single
        } else {
            Cow::Owned(format!("{head} {single}"))
        };
        if let Some(e) = TABLE.get(candidate.as_ref()) {
            return Some((candidate, *e));
        }
    }
    None
}

/// The name the table knows a normalised phrase by, and its entry: the whole phrase,
/// else its last word (the head noun), else its first word ("AWS eu-central-1", "python
/// 3.12").
fn find(norm: &str) -> Option<(Cow<'_, str>, Entry)> {
    if norm.is_empty() {
        return None;
    }
    lookup(norm).or_else(|| {
        let (first, _) = norm.split_once(' ')?;
        let last = norm.rsplit(' ').next()?;
        lookup(last).or_else(|| lookup(first))
    })
}

/// Kinds of a value phrase: the whole phrase (lowercased, trimmed, articles "a/an/the/my/our"
/// dropped, simple plurals folded: books→book, buses→bus), else its last word (the head
/// noun), else its first word for "AWS eu-central-1"-style phrases where a known name
/// leads. Empty when unknown.
pub fn kinds_of(phrase: &str) -> KindSet {
    find(&normalise(phrase)).map_or(KindSet::default(), |(_, e)| e.kinds)
}

/// The canonical spelling of a normalised name ("postgres" → "postgresql").
fn canonical(name: &str) -> Option<&'static str> {
    TABLE.get(name).and_then(|e| e.canonical)
}

/// Two phrases name the same thing: equal after normalisation (plurals folded), or
/// aliases of one name ("postgres" = "postgresql", "vs code" = "vscode" = "visual studio
/// code", "js" = "javascript", "golang" = "go", "k8s" = "kubernetes", "nyc" = "new york",
/// "bike" = "cycle" = "bicycle", "drive" = "car"), or WordNet synonyms ("coffee" / "java").
pub fn same_thing(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (na, nb) = (normalise(a), normalise(b));
    if na == nb {
        return true;
    }
    let (la, lb) = (lookup(&na), lookup(&nb));
    spelled(&na, &la) == spelled(&nb, &lb)
        || matches!((&la, &lb), (Some((x, ex)), Some((y, ey))) if synonyms(x, ex, y, ey))
}

/// The spelling a phrase is known by: the canonical one of an alias, else the name the table
/// knows it by, else the phrase itself.
fn spelled<'a>(phrase: &'a str, found: &'a Option<(Cow<'a, str>, Entry)>) -> &'a str {
    match found {
        Some((name, entry)) => entry.canonical.unwrap_or(name),
        None => phrase,
    }
}

/// WordNet synonyms: each lists the other as near, neither is more general.
fn synonyms(x: &str, ex: &Entry, y: &str, ey: &Entry) -> bool {
    ex.near[0].split(',').any(|n| n == y) && ey.near[0].split(',').any(|n| n == x)
}

/// One name lists the other (or its canonical spelling) as near: a synonym or a more
/// general member ("espresso" / "coffee", "saturdays" / "weekend").
fn not_rivals(x: &str, ex: &Entry, y: &str, ey: &Entry) -> bool {
    let (cx, cy) = (canonical(x).unwrap_or(x), canonical(y).unwrap_or(y));
    let (ecx, ecy) = (
        TABLE.get(cx).copied().unwrap_or(*ex),
        TABLE.get(cy).copied().unwrap_or(*ey),
    );
    [ex, &ecx].iter().any(|e| e.is_near(y) || e.is_near(cy))
        || [ey, &ecy].iter().any(|e| e.is_near(x) || e.is_near(cx))
}

/// One phrase's words all occur in the other ("python" / "python 3.12", "aws" / "aws
/// eu-central-1"): a refinement, not a rival.
fn refines(a: &str, b: &str) -> bool {
    let within = |x: &str, y: &str| x.split(' ').all(|w| y.split(' ').any(|v| v == w));
    within(a, b) || within(b, a)
}

/// A kind both phrases belong to, when they are different members of it (None when
/// either is unknown, when they are equal after normalisation, when they are the same
/// thing (`same_thing`), or when one is a refinement of the other: "python" vs "python
/// 3.12", "postgresql" vs "postgresql 16", "aws" vs "aws eu-central-1", "coffee" vs
/// "espresso").
pub fn shared_kind(a: &str, b: &str) -> Option<Kind> {
    let (na, nb) = (normalise(a), normalise(b));
    let (name_a, ea) = find(&na)?;
    let (name_b, eb) = find(&nb)?;
    let shared = ea.kinds.intersection(eb.kinds);
    if shared.is_empty() || na == nb || refines(&na, &nb) || name_a == name_b {
        return None;
    }
    if same_thing(&name_a, &name_b) || not_rivals(&name_a, &ea, &name_b, &eb) {
        return None;
    }
    shared.first()
}
