//! Resolution policies: opt-in rules that resolve a detected conflict at write time. A rule is a
//! match (every condition it names must hold; absent conditions match anything) and an action
//! (one of the four strategies). Rules are tried in file order and the first match wins.
//! Conflicts that touch a value-layer label are never matched, whatever the rules say.
//!
//! Parsing names the rule and the field of every error, so a bad file is fixed in one look.

use serde::{Deserialize, Serialize};

use super::conflict::{CONFLICT_TYPES, Strategy};
use super::credibility;
use super::recommend::ESCALATE_LABELS;
use super::time::Timestamp;

/// The recommendation names a rule may match (`recommendation.resolution`).
pub const RECOMMENDATIONS: [&str; 3] =
    ["prefer-recent", "prefer-authoritative", "escalate-to-user"];

/// Longest rule name: `policy:<name>` must fit the 200 characters of `resolved_by`.
pub const MAX_NAME_CHARS: usize = 100;

/// Floating-point slack for the minimums, so a gap of 0.6 − 0.4 counts as 0.2.
const EPSILON: f64 = 1e-9;

/// The rules in force, in file order, and the starting trust of source patterns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RuleSet {
    pub rules: Vec<Rule>,
    /// `[trust]` of the policy file, by pattern: a source's credibility starts at the trust
    /// of the most specific pattern it matches, and its verdicts move it from there.
    pub trust: Vec<Trust>,
}

/// The starting trust of the sources a pattern names: a source (`anonymous`) or a prefix
/// ending in `*` (`signed:*`; `*` alone is every source).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Trust {
    pub pattern: String,
    pub trust: f64,
}

impl RuleSet {
    /// The starting trust of `source` ([`trust_of`]).
    pub fn trust_of(&self, source: &str) -> Option<f64> {
        trust_of(&self.trust, source)
    }
}

/// The starting trust of `source` in a trust table: the exact pattern, else the longest
/// prefix that holds it; none when no pattern names it (credibility then starts neutral).
pub fn trust_of(table: &[Trust], source: &str) -> Option<f64> {
    let exact = table.iter().find(|t| t.pattern == source);
    let prefix = || {
        (table.iter())
            .filter_map(|t| Some((t.pattern.strip_suffix('*')?, t.trust)))
            .filter(|(prefix, _)| source.starts_with(prefix))
            .max_by_key(|(prefix, _)| prefix.len())
            .map(|(_, trust)| trust)
    };
    exact.map(|t| t.trust).or_else(prefix)
}

/// What a rule does with a conflict it matches: resolve it with one of the four strategies,
/// or `quarantine`: keep the new memory stored but not current (state `quarantined`) and leave
/// the conflict to a reviewer, who promotes it (`new_is_current`, `keep_both`) or rejects it
/// (`old_is_current`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleAction {
    NewIsCurrent,
    OldIsCurrent,
    KeepBoth,
    Merge,
    Quarantine,
}

impl RuleAction {
    pub fn as_str(self) -> &'static str {
        match self.strategy() {
            Some(s) => s.as_str(),
            None => "quarantine",
        }
    }

    /// The strategy a firing resolves with; none for `quarantine`, which resolves nothing.
    pub fn strategy(self) -> Option<Strategy> {
        match self {
            Self::NewIsCurrent => Some(Strategy::NewIsCurrent),
            Self::OldIsCurrent => Some(Strategy::OldIsCurrent),
            Self::KeepBoth => Some(Strategy::KeepBoth),
            Self::Merge => Some(Strategy::Merge),
            Self::Quarantine => None,
        }
    }
}

impl From<Strategy> for RuleAction {
    fn from(s: Strategy) -> Self {
        match s {
            Strategy::NewIsCurrent => Self::NewIsCurrent,
            Strategy::OldIsCurrent => Self::OldIsCurrent,
            Strategy::KeepBoth => Self::KeepBoth,
            Strategy::Merge => Self::Merge,
        }
    }
}

/// One rule: when it matches, do `action`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub name: String,
    pub action: RuleAction,
    /// The conditions; all must hold.
    #[serde(default, rename = "match")]
    pub when: Match,
    /// The explicit opt-in for a rule without conditions (it matches every conflict).
    #[serde(default)]
    pub match_all: bool,
}

/// Conditions on a conflict. `None` means "any".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Match {
    /// The conflict type is one of these.
    pub conflict_types: Option<Vec<String>>,
    /// Either node carries one of these labels.
    pub labels: Option<Vec<String>>,
    /// The nodes' memory type is one of these (detection pairs nodes of one type only).
    pub memory_types: Option<Vec<String>>,
    /// `true`: both nodes name the same source; `false`: they do not (or one names none).
    pub same_source: Option<bool>,
    /// The recommendation (`prefer-recent`, `prefer-authoritative`, `escalate-to-user`) is one
    /// of these.
    pub recommendation: Option<Vec<String>>,
    /// The detection probability is at least this.
    pub min_probability: Option<f64>,
    /// The source of the node the action keeps current is at least this much more credible
    /// than the other's (either way for `keep_both` and `merge`). A source without verdicts,
    /// or no source, counts as neutral (0.5).
    pub min_credibility_gap: Option<f64>,
    /// Conditions on the new memory's evidence strength (`domain::evidence`).
    pub new: Option<SideMatch>,
    /// Conditions on the stored memory's evidence strength.
    pub old: Option<SideMatch>,
    /// `true`: the new memory is later in valid time (its "as of" stamp, else its
    /// `observed_at`, is after the stored one's); `false`: it is earlier. Equal instants match
    /// neither. `prefer-recent` alone cannot say which side that is.
    pub new_is_later: Option<bool>,
}

/// Conditions on one side of a conflict.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideMatch {
    /// Its evidence strength is at least this.
    pub min_evidence: Option<f64>,
    /// Its evidence strength is at most this.
    pub max_evidence: Option<f64>,
    /// Its source's credibility (starting at the `[trust]` of its pattern, moved by verdicts)
    /// is at least this; no source, or one nothing is known of, counts as 0.5.
    pub min_trust: Option<f64>,
    /// Its source's credibility is at most this.
    pub max_trust: Option<f64>,
}

impl SideMatch {
    /// `Some(why)` when every bound holds for the side's facts.
    fn holds(&self, side: &str, facts: &SideFacts) -> Option<String> {
        let (evidence, trust) = (facts.evidence, facts.credibility());
        let mut why = Vec::new();
        if let Some(min) = self.min_evidence {
            (evidence + EPSILON >= min).then_some(())?;
            why.push(format!("{side} evidence {evidence} ≥ {min}"));
        }
        if let Some(max) = self.max_evidence {
            (evidence <= max + EPSILON).then_some(())?;
            why.push(format!("{side} evidence {evidence} ≤ {max}"));
        }
        if let Some(min) = self.min_trust {
            (trust + EPSILON >= min).then_some(())?;
            why.push(format!("{side} trust {trust:.2} ≥ {min}"));
        }
        if let Some(max) = self.max_trust {
            (trust <= max + EPSILON).then_some(())?;
            why.push(format!("{side} trust {trust:.2} ≤ {max}"));
        }
        Some(why.join(", "))
    }
}

impl Match {
    fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// What a rule can look at on one side of a conflict.
#[derive(Debug, Clone, Copy)]
pub struct SideFacts<'a> {
    pub labels: &'a [String],
    pub memory_type: &'a str,
    pub source: Option<&'a str>,
    /// Learned credibility of the source, when it has verdicts.
    pub credibility: Option<f64>,
    /// Evidence strength of the memory's own words and source (`domain::evidence`).
    pub evidence: f64,
    /// The text reads as an instruction to the store.
    pub injection: bool,
    /// Valid time: when the memory's statement starts to hold (its "as of" stamp, else its
    /// `observed_at`).
    pub observed_at: Timestamp,
}

impl SideFacts<'_> {
    fn credibility(&self) -> f64 {
        self.credibility.unwrap_or_else(|| credibility::score(0, 0))
    }
}

/// What a rule can look at on a detected conflict.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    pub conflict_type: &'a str,
    pub probability: f64,
    /// `recommendation.resolution`.
    pub recommendation: &'a str,
    pub old: SideFacts<'a>,
    pub new: SideFacts<'a>,
}

impl Facts<'_> {
    /// The value-layer label either side carries, if any: such conflicts go to a human.
    pub fn value_layer_label(&self) -> Option<&str> {
        self.old
            .labels
            .iter()
            .chain(self.new.labels)
            .map(String::as_str)
            .find(|l| ESCALATE_LABELS.contains(l))
    }
}

/// What the rules make of a conflict.
#[derive(Debug)]
pub enum Outcome<'r> {
    /// The first rule that matches, with a line saying why.
    Fires(&'r Rule, String),
    /// The first rule that matches, held back: a value-layer conflict, or one whose
    /// instruction-shaped new text the rule would make current, is always left to a person,
    /// and its note says which rule stood back and why (the reason, e.g. `labelled security`).
    HeldBack(&'r Rule, String),
}

/// The first rule that matches a conflict, if any; it never resolves a value-layer conflict
/// (a quarantine may hold one's new memory back), nor applies new text shaped like an
/// instruction to the store.
pub fn first_match<'r>(rules: &'r RuleSet, facts: &Facts) -> Option<Outcome<'r>> {
    let (rule, why) = rules
        .rules
        .iter()
        .find_map(|r| r.matches(facts).map(|why| (r, why)))?;
    let applies_new = matches!(rule.action, RuleAction::NewIsCurrent | RuleAction::Merge);
    // A quarantine resolves nothing and makes nothing current: it only holds the new memory
    // back for a person, which is what a value-layer conflict asks for anyway.
    let resolves = rule.action != RuleAction::Quarantine;
    Some(match facts.value_layer_label().filter(|_| resolves) {
        Some(label) => Outcome::HeldBack(rule, format!("the conflict is labelled {label}")),
        None if applies_new && facts.new.injection => Outcome::HeldBack(
            rule,
            "the new memory reads as an instruction to the store".to_owned(),
        ),
        None => Outcome::Fires(rule, why),
    })
}

impl Rule {
    /// `Some(why)` when every condition holds: the conditions, as met, in one line.
    pub fn matches(&self, f: &Facts) -> Option<String> {
        let m = &self.when;
        let mut why = Vec::new();
        if let Some(types) = &m.conflict_types {
            listed(types, f.conflict_type)?;
            why.push(format!("conflict type {}", f.conflict_type));
        }
        if let Some(labels) = &m.labels {
            let hit = f
                .old
                .labels
                .iter()
                .chain(f.new.labels)
                .find(|l| labels.contains(l))?;
            why.push(format!("label {hit}"));
        }
        if let Some(types) = &m.memory_types {
            listed(types, f.new.memory_type)?;
            why.push(format!("memory type {}", f.new.memory_type));
        }
        if let Some(same) = m.same_source {
            let shared = f.new.source.is_some() && f.new.source == f.old.source;
            (shared == same).then_some(())?;
            why.push(
                if same {
                    "same source"
                } else {
                    "different sources"
                }
                .to_owned(),
            );
        }
        if let Some(recs) = &m.recommendation {
            listed(recs, f.recommendation)?;
            why.push(format!("recommendation {}", f.recommendation));
        }
        if let Some(min) = m.min_probability {
            (f.probability + EPSILON >= min).then_some(())?;
            why.push(format!("probability {} ≥ {min}", f.probability));
        }
        if let Some(min) = m.min_credibility_gap {
            let gap = self.credibility_gap(f);
            (gap + EPSILON >= min).then_some(())?;
            why.push(format!("credibility gap {gap:.2} ≥ {min}"));
        }
        for (side, cond, facts) in [("new", &m.new, &f.new), ("old", &m.old, &f.old)] {
            if let Some(cond) = cond {
                why.push(cond.holds(side, facts)?);
            }
        }
        if let Some(later) = m.new_is_later {
            // Strict both ways: two statements of the same instant are neither.
            let (new, old) = (f.new.observed_at, f.old.observed_at);
            (if later { new > old } else { new < old }).then_some(())?;
            why.push(
                if later {
                    "the new memory is later in valid time"
                } else {
                    "the new memory is earlier in valid time"
                }
                .to_owned(),
            );
        }
        if why.is_empty() {
            why.push("matches every conflict".to_owned());
        }
        Some(why.join(", "))
    }

    /// How much more credible the side the action keeps current is than the other one.
    fn credibility_gap(&self, f: &Facts) -> f64 {
        let (new, old) = (f.new.credibility(), f.old.credibility());
        match self.action {
            RuleAction::NewIsCurrent => new - old,
            // A quarantine keeps the old memory current.
            RuleAction::OldIsCurrent | RuleAction::Quarantine => old - new,
            RuleAction::KeepBoth | RuleAction::Merge => (new - old).abs(),
        }
    }

    /// `policy:<name>`, the `resolved_by` of the conflicts this rule resolves.
    pub fn resolved_by(&self) -> String {
        format!("{}{}", super::history::POLICY_PREFIX, self.name)
    }

    /// The record of a firing: `policy <name> resolved with <strategy>: <why>`, or `would
    /// resolve` in a dry run.
    /// The note of a conflict this rule matched but may not resolve, and why.
    pub fn held_back_note(&self, why: &str) -> String {
        format!(
            "policy {} matched but did not resolve with {}: {why}, which is always left to a \
             person",
            self.name,
            self.action.as_str()
        )
    }

    pub fn note(&self, why: &str, dry_run: bool) -> String {
        if self.action == RuleAction::Quarantine {
            let verb = if dry_run {
                "would quarantine"
            } else {
                "quarantined"
            };
            return format!(
                "policy {} {verb} the new memory until a reviewer promotes (new_is_current) or \
                 rejects (old_is_current) it: {why}",
                self.name
            );
        }
        let verb = if dry_run { "would resolve" } else { "resolved" };
        format!(
            "policy {} {verb} with {}: {why}",
            self.name,
            self.action.as_str()
        )
    }
}

fn listed(list: &[String], value: &str) -> Option<()> {
    list.iter().any(|v| v == value).then_some(())
}

/// The rule that fired on a conflict, as recorded in its detection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PolicyMark {
    pub name: String,
    pub action: RuleAction,
    /// True when policies run dry: the rule was recorded, the conflict left pending.
    pub dry_run: bool,
}

/// The format of a policy file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Toml,
    Json,
}

impl Format {
    /// By extension (`.toml`, `.json`); otherwise a file starting with `{` is JSON.
    pub fn of(path: &str, text: &str) -> Self {
        let lower = path.to_ascii_lowercase();
        if lower.ends_with(".json") {
            Self::Json
        } else if lower.ends_with(".toml") || !text.trim_start().starts_with('{') {
            Self::Toml
        } else {
            Self::Json
        }
    }
}

/// Why a policy file was refused: where (rule, field) and what.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}{}{message}", rule_part(.rule), field_part(.field))]
pub struct PolicyError {
    /// `rule 2 ("newer-sensor-wins")`, or none for an error of the whole file.
    pub rule: Option<String>,
    /// The field, as a dotted path (`match.min_probability`).
    pub field: Option<String>,
    pub message: String,
}

fn rule_part(rule: &Option<String>) -> String {
    rule.as_ref().map(|r| format!("{r}: ")).unwrap_or_default()
}

fn field_part(field: &Option<String>) -> String {
    field
        .as_ref()
        .map(|f| format!("field `{f}`: "))
        .unwrap_or_default()
}

impl PolicyError {
    fn file(message: impl Into<String>) -> Self {
        Self {
            rule: None,
            field: None,
            message: message.into(),
        }
    }
}

impl RuleSet {
    /// Parses and validates a policy file: `{"rules": [Rule…]}` in TOML (`[[rules]]`) or JSON.
    pub fn parse(text: &str, format: Format) -> Result<Self, PolicyError> {
        let doc: serde_json::Value = match format {
            Format::Toml => toml::from_str(text).map_err(|e| PolicyError::file(e.to_string()))?,
            Format::Json => {
                serde_json::from_str(text).map_err(|e| PolicyError::file(e.to_string()))?
            }
        };
        let serde_json::Value::Object(mut top) = doc else {
            return Err(PolicyError::file("expected a table with a `rules` list"));
        };
        if let Some(key) = top.keys().find(|k| *k != "rules" && *k != "trust") {
            return Err(PolicyError::file(format!(
                "unknown key `{key}`; the file has `rules` and, optionally, `trust`"
            )));
        }
        let trust = parse_trust(top.remove("trust"))?;
        let rules = match top.remove("rules") {
            Some(serde_json::Value::Array(rules)) => rules,
            Some(_) => return Err(PolicyError::file("`rules` must be a list of rules")),
            None if !trust.is_empty() => Vec::new(),
            None => {
                return Err(PolicyError::file(
                    "missing `rules` (an empty list is allowed)",
                ));
            }
        };
        let mut out: Vec<Rule> = Vec::with_capacity(rules.len());
        for (i, raw) in rules.into_iter().enumerate() {
            let label = rule_label(i, &raw);
            let at = |field: Option<String>, message: String| PolicyError {
                rule: Some(label.clone()),
                field,
                message,
            };
            let rule: Rule = serde_path_to_error::deserialize(raw).map_err(|e| {
                let path = e.path().to_string();
                let field = (path != ".").then_some(path);
                at(field, e.into_inner().to_string())
            })?;
            if out.iter().any(|r| r.name == rule.name) {
                return Err(at(Some("name".into()), "is used by an earlier rule".into()));
            }
            if let Some((field, message)) = rule.invalid() {
                return Err(at(Some(field.to_owned()), message));
            }
            out.push(rule);
        }
        Ok(Self { rules: out, trust })
    }
}

/// `[trust]`: source pattern = starting trust (0..1).
fn parse_trust(table: Option<serde_json::Value>) -> Result<Vec<Trust>, PolicyError> {
    let Some(table) = table else {
        return Ok(Vec::new());
    };
    let serde_json::Value::Object(table) = table else {
        return Err(PolicyError::file(
            "`trust` must be a table of source patterns and their starting trust",
        ));
    };
    let at = |pattern: &str, message: &str| PolicyError {
        rule: None,
        field: Some(format!("trust.{pattern}")),
        message: message.to_owned(),
    };
    let mut out = Vec::with_capacity(table.len());
    for (pattern, value) in table {
        let valid = !pattern.trim().is_empty()
            && pattern.trim() == pattern
            && !pattern.trim_end_matches('*').contains('*')
            && pattern.matches('*').count() <= 1;
        if !valid {
            return Err(at(
                &pattern,
                "must be a source, or a prefix ending in `*` (`*` alone: every source)",
            ));
        }
        match value.as_f64() {
            Some(trust) if (0.0..=1.0).contains(&trust) => out.push(Trust { pattern, trust }),
            _ => return Err(at(&pattern, "must be a number between 0 and 1")),
        }
    }
    Ok(out)
}

/// `rule 2 ("name")`, counting from 1 as people do.
fn rule_label(i: usize, raw: &serde_json::Value) -> String {
    match raw.get("name").and_then(|n| n.as_str()) {
        Some(name) => format!("rule {} ({name:?})", i + 1),
        None => format!("rule {}", i + 1),
    }
}

impl Rule {
    /// The first field that breaks a rule, and why.
    fn invalid(&self) -> Option<(&'static str, String)> {
        let name_ok = |c: char| c.is_ascii_alphanumeric() || "-_.".contains(c);
        if self.name.is_empty() || self.name.chars().count() > MAX_NAME_CHARS {
            return Some(("name", format!("must be 1..{MAX_NAME_CHARS} characters")));
        }
        if !self.name.chars().all(name_ok) {
            return Some((
                "name",
                "may hold only letters, digits, `-`, `_` and `.`".into(),
            ));
        }
        let m = &self.when;
        if m.is_empty() && !self.match_all {
            return Some((
                "match",
                "has no condition; set `match_all = true` to resolve every conflict".into(),
            ));
        }
        if !m.is_empty() && self.match_all {
            return Some((
                "match_all",
                "cannot be combined with `match` conditions".into(),
            ));
        }
        let lists = [
            (
                "match.conflict_types",
                &m.conflict_types,
                Some(&CONFLICT_TYPES[..]),
            ),
            (
                "match.recommendation",
                &m.recommendation,
                Some(&RECOMMENDATIONS[..]),
            ),
            ("match.labels", &m.labels, None),
            ("match.memory_types", &m.memory_types, None),
        ];
        for (field, list, allowed) in lists {
            if let Some(e) = list.as_deref().and_then(|l| invalid_list(l, allowed)) {
                return Some((field, e));
            }
        }
        let side = |s: &Option<SideMatch>| s.clone().unwrap_or_default();
        let (new, old) = (side(&m.new), side(&m.old));
        if m.new.as_ref().is_some_and(|s| *s == SideMatch::default()) {
            return Some((
                "match.new",
                "has no condition (leave it out to match any)".into(),
            ));
        }
        if m.old.as_ref().is_some_and(|s| *s == SideMatch::default()) {
            return Some((
                "match.old",
                "has no condition (leave it out to match any)".into(),
            ));
        }
        let fractions = [
            ("match.min_probability", m.min_probability),
            ("match.min_credibility_gap", m.min_credibility_gap),
            ("match.new.min_evidence", new.min_evidence),
            ("match.new.max_evidence", new.max_evidence),
            ("match.old.min_evidence", old.min_evidence),
            ("match.old.max_evidence", old.max_evidence),
            ("match.new.min_trust", new.min_trust),
            ("match.new.max_trust", new.max_trust),
            ("match.old.min_trust", old.min_trust),
            ("match.old.max_trust", old.max_trust),
        ];
        for (field, value) in fractions {
            if value.is_some_and(|v| !(0.0..=1.0).contains(&v)) {
                return Some((field, "must be between 0 and 1".into()));
            }
        }
        None
    }
}

fn invalid_list(list: &[String], allowed: Option<&[&str]>) -> Option<String> {
    if list.is_empty() {
        return Some("must not be empty (leave it out to match any)".into());
    }
    if let Some(allowed) = allowed {
        if let Some(bad) = list.iter().find(|v| !allowed.contains(&v.as_str())) {
            return Some(format!("`{bad}` is not one of {}", allowed.join(", ")));
        }
    } else if list.iter().any(|v| v.trim().is_empty()) {
        return Some("must not hold an empty name".into());
    }
    None
}

#[cfg(test)]
mod tests;
