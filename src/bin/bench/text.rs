//! Deterministic, realistic memory text: facts about services, configuration values, versions,
//! regions and dates, built from word lists with a seeded generator (no downloads). Fact `i`
//! of a seed is always the same, so a write can target a stored fact without reading it back.

use serde_json::{Value, json};

/// splitmix64: tiny, seedable, good enough for picking words.
#[derive(Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    pub fn pick<'a>(&mut self, words: &[&'a str]) -> &'a str {
        words[self.below(words.len() as u64) as usize]
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

const PREFIXES: &[&str] = &[
    "ledger",
    "billing",
    "search",
    "catalog",
    "identity",
    "payments",
    "inventory",
    "shipping",
    "notify",
    "render",
    "ingest",
    "metrics",
    "audit",
    "session",
    "pricing",
    "checkout",
    "profile",
    "media",
    "routing",
    "scheduler",
    "archive",
    "export",
    "import",
    "feature",
    "consent",
    "fraud",
    "tax",
    "wallet",
    "loyalty",
    "review",
    "content",
    "geo",
    "reporting",
    "quota",
    "mailer",
    "sync",
    "backup",
    "ledgerx",
    "vault",
    "gateway2",
];
const NOUNS: &[&str] = &[
    "api",
    "worker",
    "gateway",
    "service",
    "daemon",
    "proxy",
    "indexer",
    "cache",
    "queue",
    "store",
    "frontend",
    "backend",
    "cron",
    "bridge",
    "router",
    "relay",
    "collector",
    "engine",
    "broker",
    "agent",
    "scanner",
    "builder",
    "runner",
    "monitor",
    "loader",
    "planner",
    "tracker",
    "resolver",
    "dispatcher",
    "aggregator",
];
const ENVS: &[&str] = &[
    "production",
    "staging",
    "development",
    "canary",
    "the eu cluster",
    "the us cluster",
];
const TEAMS: &[&str] = &[
    "platform",
    "payments",
    "infra",
    "data",
    "growth",
    "security",
    "mobile",
    "sre",
    "search",
    "identity",
    "storage",
    "observability",
];
const REGIONS: &[&str] = &[
    "us-east-1",
    "us-west-2",
    "eu-west-1",
    "eu-central-1",
    "ap-southeast-1",
    "ap-northeast-1",
    "sa-east-1",
];
const LEVELS: &[&str] = &["debug", "info", "warn", "error", "trace"];
const STORES: &[&str] = &[
    "postgres",
    "mysql",
    "redis",
    "sqlite",
    "dynamodb",
    "cassandra",
    "mongodb",
    "clickhouse",
];
const FILLERS: &[&str] = &[
    "This was agreed in the weekly architecture review.",
    "The change is tracked in the team's runbook.",
    "Alerts fire when the value is exceeded for five minutes.",
    "Load tests confirmed the setting under peak traffic.",
    "Rollbacks restore the previous configuration automatically.",
    "The dashboard shows the current value next to the error rate.",
    "Documentation lives in the service's README.",
    "An incident last quarter motivated the setting.",
    "Customers on the enterprise plan depend on this behaviour.",
    "The on-call engineer can override it with a feature flag.",
    "It is reviewed every quarter together with capacity planning.",
    "Terraform manages the value; manual edits are reverted.",
    "The default came from the vendor's tuning guide.",
    "Latency improved noticeably after the rollout.",
];

/// What kind of value a configuration key holds.
#[derive(Clone, Copy)]
enum Kind {
    Count,
    Millis,
    Seconds,
    Percent,
    Megabytes,
    Version,
    Region,
    Level,
    Store,
    Date,
}

const KEYS: &[(&str, Kind)] = &[
    ("connection pool size", Kind::Count),
    ("worker thread count", Kind::Count),
    ("max retries", Kind::Count),
    ("replica count", Kind::Count),
    ("batch size", Kind::Count),
    ("rate limit per minute", Kind::Count),
    ("request timeout", Kind::Millis),
    ("read timeout", Kind::Millis),
    ("retry backoff", Kind::Millis),
    ("p99 latency budget", Kind::Millis),
    ("session lifetime", Kind::Seconds),
    ("cache ttl", Kind::Seconds),
    ("token expiry", Kind::Seconds),
    ("health check interval", Kind::Seconds),
    ("cpu alert threshold", Kind::Percent),
    ("error budget", Kind::Percent),
    ("sampling rate", Kind::Percent),
    ("memory limit", Kind::Megabytes),
    ("heap size", Kind::Megabytes),
    ("upload size limit", Kind::Megabytes),
    ("runtime version", Kind::Version),
    ("client library version", Kind::Version),
    ("api schema version", Kind::Version),
    ("primary region", Kind::Region),
    ("failover region", Kind::Region),
    ("log level", Kind::Level),
    ("primary datastore", Kind::Store),
    ("session store", Kind::Store),
    ("certificate expiry date", Kind::Date),
    ("next maintenance window", Kind::Date),
];

/// One stored fact: a topic (service, key, environment) and its value.
pub struct Fact {
    service: String,
    key: usize,
    env: &'static str,
    team: &'static str,
    value: String,
    date: String,
    rng: Rng,
}

fn value_of(kind: Kind, rng: &mut Rng) -> String {
    match kind {
        Kind::Count => format!("{}", 2 + rng.below(500)),
        Kind::Millis => format!("{} ms", 50 * (1 + rng.below(120))),
        Kind::Seconds => format!("{} seconds", 30 * (1 + rng.below(200))),
        Kind::Percent => format!("{}%", 1 + rng.below(99)),
        Kind::Megabytes => format!("{} MB", 64 * (1 + rng.below(64))),
        Kind::Version => format!("{}.{}.{}", 1 + rng.below(9), rng.below(30), rng.below(20)),
        Kind::Region => rng.pick(REGIONS).to_owned(),
        Kind::Level => rng.pick(LEVELS).to_owned(),
        Kind::Store => rng.pick(STORES).to_owned(),
        Kind::Date => date(rng),
    }
}

fn date(rng: &mut Rng) -> String {
    format!(
        "{}-{:02}-{:02}",
        2024 + rng.below(3),
        1 + rng.below(12),
        1 + rng.below(28)
    )
}

/// Fact number `i` of `seed`.
pub fn fact(seed: u64, i: u64) -> Fact {
    let mut rng = Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(i));
    let service = format!("{}-{}", rng.pick(PREFIXES), rng.pick(NOUNS));
    let key = rng.below(KEYS.len() as u64) as usize;
    let env = rng.pick(ENVS);
    let team = rng.pick(TEAMS);
    let value = value_of(KEYS[key].1, &mut rng);
    let date = date(&mut rng);
    Fact {
        service,
        key,
        env,
        team,
        value,
        date,
        rng,
    }
}

impl Fact {
    pub fn title(&self) -> String {
        format!("{} {}", self.service, KEYS[self.key].0)
    }

    fn source(&mut self) -> String {
        if self.rng.chance(50) {
            format!(
                "file:deploy/{}.yaml:{}",
                self.service,
                1 + self.rng.below(300)
            )
        } else {
            format!("agent:{}-bot", self.team)
        }
    }

    fn fillers(&mut self, out: &mut String, min_len: usize) {
        if self.rng.chance(40) {
            out.push(' ');
            out.push_str(self.rng.pick(FILLERS));
        }
        if out.len() < min_len {
            while out.len() < min_len {
                out.push(' ');
                out.push_str(self.rng.pick(FILLERS));
            }
            // Word lists are ASCII, so any byte offset is a char boundary.
            out.truncate(min_len);
        }
    }

    /// The stored form of the fact, padded with filler sentences to at least `min_body`
    /// bytes (and cut there when padding was needed).
    pub fn stored(&mut self, min_body: usize) -> Value {
        let (env, svc, key, value) = (self.env, &self.service, KEYS[self.key].0, &self.value);
        let (team, date) = (self.team, &self.date);
        let mut body = match self.rng.below(4) {
            0 => format!("In {env}, the {svc} {key} is {value}. Set by the {team} team on {date}."),
            1 => format!("{svc} runs with {key} {value} in {env} ({team}, {date})."),
            2 => format!(
                "Per the {team} runbook dated {date}, {key} for {svc} in {env} equals {value}."
            ),
            _ => format!("{key} of {svc} ({env}): {value}, last reviewed {date} by {team}."),
        };
        self.fillers(&mut body, min_body);
        self.node_json(self.title(), body)
    }

    /// The same topic with another value: a contradiction of the stored form. One in five
    /// says it as a replacement instead of a plain new value.
    pub fn changed(&mut self, min_body: usize) -> Value {
        let mut other = value_of(KEYS[self.key].1, &mut self.rng);
        if other == self.value {
            other = format!("{other}0");
        }
        let mut body = if self.rng.chance(20) {
            format!(
                "In {}, the {} {} switched to {} instead of {}. Changed by the {} team on {}.",
                self.env,
                self.service,
                KEYS[self.key].0,
                other,
                self.value,
                self.team,
                date(&mut self.rng)
            )
        } else {
            format!(
                "In {}, the {} {} is {}. Updated by the {} team on {}.",
                self.env,
                self.service,
                KEYS[self.key].0,
                other,
                self.team,
                date(&mut self.rng)
            )
        };
        self.fillers(&mut body, min_body);
        self.node_json(self.title(), body)
    }

    /// Something else about the same service: related text, no contradiction.
    pub fn related(&mut self) -> Value {
        let other = self.rng.pick(TEAMS);
        let body = format!(
            "The {} is owned by the {} team and pages the {} rotation. Its dashboards and runbook \
             are linked from the service catalog.",
            self.service, other, self.team
        );
        self.node_json(format!("{} ownership", self.service), body)
    }

    fn node_json(&mut self, title: String, body: String) -> Value {
        let source = self.source();
        json!({
            "title": title,
            "body": body,
            "labels": [self.service.clone(), self.team],
            "source": source,
            "confidence": 0.6 + self.rng.below(40) as f64 / 100.0,
        })
    }
}

/// The body of a write in the `write` scenario: mostly text related to stored fact `target`
/// (`contradict_pct` percent contradicts it), the rest brand-new facts.
pub fn write_body(seed: u64, stored: u64, n: u64, contradict_pct: u64) -> Value {
    let mut rng = Rng::new(seed ^ n.wrapping_mul(0x2545_f491_4f6c_dd1d));
    let target = rng.below(stored.max(1));
    let roll = rng.below(100);
    if roll < contradict_pct {
        fact(seed, target).changed(0)
    } else if roll < 70 {
        fact(seed, target).related()
    } else {
        fact(seed, 1_000_000_000 + n).stored(0)
    }
}
