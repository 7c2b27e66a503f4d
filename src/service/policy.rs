//! Resolution policies at write time: the facts a rule looks at, gathered from a detection,
//! and what a firing rule writes: a resolution the store runs in the write's own transaction,
//! or, in a dry run, only the record of what the rule would have done.

use crate::config::Settings;
use crate::domain::conflict::{NewConflict, Recommendation};
use crate::domain::node::Node;
use crate::domain::plan::Resolve;
use crate::domain::time::Timestamp;
use crate::domain::{evidence, stamp};
use std::sync::Arc;

use crate::domain::policy::{self, Facts, Outcome, PolicyMark, Rule, RuleSet, SideFacts, Trust};
use crate::service::finding::{Credibility, Probe, credibility_of};

/// The rules in force, whether they run dry, and the starting trust of source patterns.
#[derive(Debug, Clone, Default)]
pub struct Policies {
    pub rules: RuleSet,
    pub dry_run: bool,
    pub trust: Arc<[Trust]>,
}

/// What a firing rule makes of a conflict.
#[derive(Debug)]
pub enum Ruling {
    /// The conflict waits for a person (no rule, a rule held back, or a dry run).
    Pending,
    /// A resolution to run in the write's transaction.
    Resolve(Resolve),
    /// The new memory is stored `quarantined`; the conflict waits for a reviewer.
    Quarantine,
}

/// A rule that matched a conflict, and why (or what held it back).
pub struct Firing {
    rule: Rule,
    why: String,
    dry_run: bool,
    held_back: Option<String>,
}

impl Policies {
    pub fn from_settings(s: &Settings) -> Self {
        let rules = s.detection.policies.clone().unwrap_or_default();
        Self {
            trust: rules.trust.clone().into(),
            rules,
            dry_run: s.detection.policies_dry_run,
        }
    }

    /// Whether no rule can resolve a conflict or quarantine a memory: there are none, or
    /// they only record what they would do.
    pub fn change_nothing(&self) -> bool {
        self.rules.rules.is_empty() || self.dry_run
    }

    /// The first rule that matches a conflict between `old` and the probe (none for a
    /// value-layer conflict).
    pub fn decide(
        &self,
        old: &Node,
        new: &Probe<'_>,
        conflict_type: &str,
        probability: f64,
        recommendation: &Recommendation,
        credibility: &Credibility,
    ) -> Option<Firing> {
        if self.rules.rules.is_empty() {
            return None;
        }
        let old_evidence = evidence::assess(&old.title, &old.body, old.source.as_deref())
            .with_provenance(old.provenance.as_ref());
        let new_evidence =
            evidence::assess(new.title, new.body, new.source).with_provenance(new.provenance);
        let facts = Facts {
            conflict_type,
            probability,
            recommendation: &recommendation.resolution,
            old: SideFacts {
                labels: &old.labels,
                memory_type: &old.memory_type,
                source: old.source.as_deref(),
                credibility: credibility_of(credibility, &old.scope, old.source.as_deref()),
                evidence: old_evidence.strength,
                injection: old_evidence.injection,
                observed_at: valid_from(&old.title, &old.body, old.observed_at),
            },
            new: SideFacts {
                labels: new.labels,
                memory_type: new.memory_type,
                source: new.source,
                credibility: credibility_of(credibility, new.scope, new.source),
                evidence: new_evidence.strength,
                injection: new_evidence.injection,
                observed_at: valid_from(new.title, new.body, new.observed_at),
            },
        };
        let (rule, why, held_back) = match policy::first_match(&self.rules, &facts)? {
            Outcome::Fires(rule, why) => (rule, why, None),
            Outcome::HeldBack(rule, why) => (rule, String::new(), Some(why)),
        };
        Some(Firing {
            rule: rule.clone(),
            why,
            dry_run: self.dry_run,
            held_back,
        })
    }
}

/// When a side's statement starts to hold, for `new_is_later`: its "as of" stamp when its
/// text has one, so that of two stamped statements the earlier stamp is history whichever
/// was written last; else its `observed_at`.
fn valid_from(title: &str, body: &str, observed_at: Timestamp) -> Timestamp {
    stamp::stamped(body)
        .or_else(|| stamp::stamped(title))
        .unwrap_or(observed_at)
}

impl Firing {
    /// Records the rule on the conflict's detection and returns what to do: the resolution
    /// to run, or the quarantine of the new memory. In a dry run the conflict's note (which
    /// its `queued` history entry carries) says what the rule would have done.
    /// A rule held back by a value-layer label only leaves its note: the conflict waits for a
    /// person, and the reviewer sees which rule stood back.
    pub fn apply(self, conflict: &mut NewConflict) -> Ruling {
        if let Some(why) = &self.held_back {
            conflict.note = Some(self.rule.held_back_note(why));
            return Ruling::Pending;
        }
        let note = self.rule.note(&self.why, self.dry_run);
        conflict.detection.policy = Some(PolicyMark {
            name: self.rule.name.clone(),
            action: self.rule.action,
            dry_run: self.dry_run,
        });
        // A pending conflict carries the note (its `queued` history entry shows it); a
        // resolution records it as the resolution's note.
        let Some(strategy) = self.rule.action.strategy().filter(|_| !self.dry_run) else {
            conflict.note = Some(note);
            return match self.dry_run {
                true => Ruling::Pending,
                false => Ruling::Quarantine,
            };
        };
        // Built directly: `Resolve::parse` refuses `policy:` names, which only rules may use.
        Ruling::Resolve(Resolve {
            conflict_id: conflict.id,
            strategy,
            // A merge appends the new text under a dated separator, as the resolve route does
            // without `merged_content`.
            merged_content: None,
            resolved_by: Some(self.rule.resolved_by()),
            note: Some(note),
            // The winner's words say whether the loser was out of date or wrong.
            reason: None,
            // Policies act within the written memory's scope.
            scopes: None,
            // The write that set the rule off names its key ([`crate::service::detect`]).
            key: None,
        })
    }
}
