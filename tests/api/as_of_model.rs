//! Model-based property of as-of reads (valid time and system time together): random
//! sequences of creates, PATCHes, conflicts resolved with every strategy and reason (given or
//! chosen from the winner's words), reverts and deletes go through the real router, and a small
//! reference model written here mirrors each: every memory's states, one per step, with its
//! text, state and validity. After every step, as-of reads at random (valid instant, recorded
//! system instant) pairs must equal the model's answer: `GET /nodes?as_of&known_at` exactly the
//! model's set, in order, and `GET /nodes/{id}?as_of&known_at` the model's version or 404.
//!
//! System time is the database's clock at each write: the test records an instant between
//! steps, so "known at the instant after step i" is "the model after step i". Requests the
//! server refuses (422, 409 stale, 409 revert blocked) are no-ops in the model. Whether a
//! revert is refused is the server's call, except that it must succeed when no later request
//! named a node it watches (its conflict's two, and for a merge those of the pending conflicts
//! on the node the merge deleted). Sequences come from a fixed seed (`AS_OF_MODEL_CASES` sets
//! how many; default 24), each under its own label, so that sequences sharing a database do
//! not see one another. Run with `--nocapture` to see the counts.

use std::time::Duration;

use axum::http::StatusCode;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use serde_json::{Value, json};

use crate::support::{Reply, TestApp};

crate::on_both_databases!(as_of_reads_equal_a_reference_model_after_every_step);

/// The valid-time instants memories are observed at.
const OBSERVED: [&str; 4] = [
    "2026-01-01T00:00:00.000Z",
    "2026-03-01T00:00:00.000Z",
    "2026-05-01T00:00:00.000Z",
    "2026-07-01T00:00:00.000Z",
];

/// The valid-time instants read at: before, on and between those, and long after.
const VALID: [&str; 10] = [
    "2025-12-01T00:00:00.000Z",
    "2026-01-01T00:00:00.000Z",
    "2026-02-01T00:00:00.000Z",
    "2026-03-01T00:00:00.000Z",
    "2026-04-01T00:00:00.000Z",
    "2026-05-01T00:00:00.000Z",
    "2026-06-01T00:00:00.000Z",
    "2026-07-01T00:00:00.000Z",
    "2026-08-01T00:00:00.000Z",
    "2030-01-01T00:00:00.000Z",
];

const TITLES: [&str; 3] = ["Bob's home", "Service port", "Deploy day"];

/// Only "Actually" reads as a correction when a resolution gives no reason.
const BODIES: [&str; 5] = [
    "Bob lives in York",
    "Bob moved to Leeds",
    "Actually, Bob lives in Hull",
    "The port is 9090",
    "We now deploy on Fridays",
];

const STATES: [&str; 3] = ["active", "dormant", "archived"];
const STRATEGIES: [&str; 4] = ["new_is_current", "old_is_current", "keep_both", "merge"];
const REASONS: [Option<&str>; 3] = [None, Some("update"), Some("correction")];

#[derive(Debug, Clone)]
enum Change {
    Title(usize),
    Body(usize),
    /// The sequence's label, and a second one or not.
    Labels(bool),
    Confidence(u8),
    State(usize),
}

/// One operation; node and conflict choices are indexes taken modulo what the model has.
#[derive(Debug, Clone)]
enum Op {
    Create {
        title: usize,
        body: usize,
        observed: usize,
    },
    Patch {
        node: usize,
        change: Change,
    },
    /// Queue a conflict between two live nodes (or, with `pending`, take a pending one whose
    /// nodes are both live) and resolve it.
    Resolve {
        pending: bool,
        a: usize,
        b: usize,
        strategy: usize,
        reason: usize,
        /// Send any reason, allowed with the strategy or not (else only allowed ones).
        any_reason: bool,
        merged: Option<usize>,
    },
    Revert {
        conflict: usize,
    },
    Delete {
        node: usize,
    },
}

#[derive(Debug, Clone)]
struct Step {
    op: Op,
    /// List reads: (valid instant, system instant seed); the first reads at the latest.
    lists: Vec<(usize, usize)>,
    /// Single reads: (valid instant, system instant seed, node seed).
    gets: Vec<(usize, usize, usize)>,
}

fn ix() -> impl Strategy<Value = usize> {
    any::<u8>().prop_map(usize::from)
}

fn op() -> impl Strategy<Value = Op> {
    let change = prop_oneof![
        (0..TITLES.len()).prop_map(Change::Title),
        (0..BODIES.len()).prop_map(Change::Body),
        any::<bool>().prop_map(Change::Labels),
        (1u8..10).prop_map(Change::Confidence),
        (0..STATES.len()).prop_map(Change::State),
    ];
    prop_oneof![
        3 => (0..TITLES.len(), 0..BODIES.len(), 0..OBSERVED.len())
            .prop_map(|(title, body, observed)| Op::Create { title, body, observed }),
        2 => (ix(), change).prop_map(|(node, change)| Op::Patch { node, change }),
        5 => (
            (any::<bool>(), ix(), ix()),
            (0..STRATEGIES.len(), ix(), prop::bool::weighted(0.15)),
            prop::option::of(0..BODIES.len()),
        )
            .prop_map(|((pending, a, b), (strategy, reason, any_reason), merged)| {
                Op::Resolve {
                    pending,
                    a,
                    b,
                    strategy,
                    reason,
                    any_reason,
                    merged,
                }
            }),
        3 => ix().prop_map(|conflict| Op::Revert { conflict }),
        1 => ix().prop_map(|node| Op::Delete { node }),
    ]
}

fn sequence() -> impl Strategy<Value = Vec<Step>> {
    let step = (
        op(),
        prop::collection::vec((0..VALID.len(), ix()), 3),
        prop::collection::vec((0..VALID.len(), ix(), ix()), 2),
    )
        .prop_map(|(op, lists, gets)| Step { op, lists, gets });
    prop::collection::vec(step, 6..=14)
}

/// What the reads compare: (id, title, body, state, valid_until, corrected).
type Row = (String, String, String, String, Option<String>, bool);

/// A memory as it stood after one step.
#[derive(Debug, Clone, PartialEq)]
struct Snap {
    title: String,
    body: String,
    state: String,
    observed_at: String,
    valid_until: Option<String>,
    corrected: bool,
}

impl Snap {
    /// Whether it held at valid time `t`: observed by then, not ended by then, not corrected.
    fn holds_at(&self, t: &str) -> bool {
        // All instants are written alike (milliseconds, `Z`): text order is time order.
        !self.corrected
            && self.observed_at.as_str() <= t
            && self.valid_until.as_deref().is_none_or(|u| t < u)
    }
}

#[derive(Debug)]
struct MNode {
    id: String,
    /// (step, the memory after it; `None`: deleted), one per step that changed it.
    history: Vec<(usize, Option<Snap>)>,
    /// The last step whose request named this node.
    touched: usize,
}

impl MNode {
    fn at(&self, step: usize) -> Option<&Snap> {
        let (_, snap) = self.history.iter().rev().find(|(s, _)| *s <= step)?;
        snap.as_ref()
    }

    fn now(&self) -> Option<&Snap> {
        self.history.last().and_then(|(_, s)| s.as_ref())
    }
}

#[derive(Debug)]
enum Status {
    Pending,
    Resolved {
        step: usize,
        /// Each node the resolution changed, as it was before (by model index).
        before: Vec<(usize, Option<Snap>)>,
        /// Pending conflicts that went with the node a merge deleted (a revert puts them back).
        gone_with: Vec<usize>,
        /// The nodes a later change to which may be in the way of a revert: the conflict's,
        /// and for a merge those of the pending conflicts on the node it deleted.
        watched: Vec<usize>,
    },
    /// Deleted with its old node.
    Gone,
}

#[derive(Debug)]
struct MConflict {
    id: String,
    old: usize,
    new: usize,
    status: Status,
}

#[derive(Debug, Default)]
struct Model {
    nodes: Vec<MNode>,
    conflicts: Vec<MConflict>,
    step: usize,
}

impl Model {
    fn set(&mut self, node: usize, snap: Option<Snap>) {
        let step = self.step;
        let history = &mut self.nodes[node].history;
        match history.last_mut() {
            Some((s, last)) if *s == step => *last = snap,
            _ => history.push((step, snap)),
        }
    }

    fn touch(&mut self, nodes: &[usize]) {
        for &n in nodes {
            self.nodes[n].touched = self.step;
        }
    }

    fn live(&self) -> Vec<usize> {
        (0..self.nodes.len())
            .filter(|&i| self.nodes[i].now().is_some())
            .collect()
    }

    /// What held at valid time `valid` as known after step `step`, newest memory first.
    fn expected(&self, valid: &str, step: usize) -> Vec<Row> {
        let mut rows: Vec<Row> = self
            .nodes
            .iter()
            .filter_map(|n| {
                let s = n.at(step).filter(|s| s.holds_at(valid))?;
                Some(row_of(&n.id, s))
            })
            .collect();
        rows.sort_by(|a, b| b.0.cmp(&a.0));
        rows
    }

    /// Deleting `node` deletes the pending conflicts where it is the old node.
    fn delete(&mut self, node: usize) -> Vec<usize> {
        self.set(node, None);
        let mut gone = Vec::new();
        for (i, c) in self.conflicts.iter_mut().enumerate() {
            if c.old == node && matches!(c.status, Status::Pending) {
                c.status = Status::Gone;
                gone.push(i);
            }
        }
        gone
    }
}

fn row_of(id: &str, s: &Snap) -> Row {
    (
        id.to_owned(),
        s.title.clone(),
        s.body.clone(),
        s.state.clone(),
        s.valid_until.clone(),
        s.corrected,
    )
}

fn row(v: &Value) -> Row {
    let text = |f: &str| {
        v[f].as_str()
            .unwrap_or_else(|| panic!("{f} in {v}"))
            .to_owned()
    };
    (
        text("id"),
        text("title"),
        text("body"),
        text("state"),
        v["valid_until"].as_str().map(str::to_owned),
        v["corrected"].as_bool().expect("corrected"),
    )
}

/// An instant strictly between the writes before and after it.
async fn instant() -> String {
    tokio::time::sleep(Duration::from_millis(5)).await;
    let t = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    tokio::time::sleep(Duration::from_millis(5)).await;
    t
}

#[derive(Debug, Default)]
struct Counts {
    sequences: usize,
    steps: usize,
    creates: usize,
    patches: usize,
    resolved: [usize; 4],
    refused: usize,
    reverted: usize,
    revert_refused: usize,
    deletes: usize,
    list_reads: usize,
    single_reads: usize,
}

struct Run<'a> {
    app: &'a TestApp,
    label: String,
    model: Model,
    counts: &'a mut Counts,
}

impl Run<'_> {
    fn node_uri(&self, n: usize) -> String {
        format!("/nodes/{}", self.model.nodes[n].id)
    }

    async fn create(&mut self, title: usize, body: usize, observed: usize) {
        let node = self
            .app
            .node_with(json!({"title": TITLES[title], "body": BODIES[body],
                              "observed_at": OBSERVED[observed], "labels": [self.label]}))
            .await;
        let snap = Snap {
            title: TITLES[title].to_owned(),
            body: BODIES[body].to_owned(),
            state: "active".to_owned(),
            observed_at: OBSERVED[observed].to_owned(),
            valid_until: None,
            corrected: false,
        };
        assert_eq!(row(&node), row_of(node["id"].as_str().unwrap(), &snap));
        self.model.nodes.push(MNode {
            id: node["id"].as_str().unwrap().to_owned(),
            history: vec![(self.model.step, Some(snap))],
            touched: self.model.step,
        });
        self.counts.creates += 1;
    }

    async fn patch(&mut self, n: usize, change: &Change) {
        let mut snap = self.model.nodes[n].now().expect("live").clone();
        let body = match *change {
            Change::Title(t) => {
                snap.title = TITLES[t].to_owned();
                json!({"title": TITLES[t]})
            }
            Change::Body(b) => {
                snap.body = BODIES[b].to_owned();
                json!({"body": BODIES[b]})
            }
            Change::Labels(two) => {
                let mut labels = vec![self.label.clone()];
                if two {
                    labels.push("second".to_owned());
                }
                json!({"labels": labels})
            }
            Change::Confidence(c) => json!({"confidence": f64::from(c) / 10.0}),
            Change::State(s) => {
                snap.state = STATES[s].to_owned();
                json!({"state": STATES[s]})
            }
        };
        let r = self.app.patch(&self.node_uri(n), body).await;
        r.assert_status(StatusCode::OK);
        assert_eq!(row(&r.json()), row_of(&self.model.nodes[n].id, &snap));
        self.model.set(n, Some(snap));
        self.model.touch(&[n]);
        self.counts.patches += 1;
    }

    async fn delete(&mut self, n: usize) {
        self.app
            .delete(&self.node_uri(n))
            .await
            .assert_status(StatusCode::NO_CONTENT);
        self.model.delete(n);
        self.model.touch(&[n]);
        self.counts.deletes += 1;
    }

    /// Queues a conflict between two live nodes; the pending one for that pair if there is.
    async fn queue(&mut self, old: usize, new: usize) -> usize {
        let (o, n) = (&self.model.nodes[old].id, &self.model.nodes[new].id);
        let r = self
            .app
            .post("/conflicts", json!({"old_node_id": o, "new_node_id": n}))
            .await;
        let pending = self
            .model
            .conflicts
            .iter()
            .position(|c| c.old == old && c.new == new && matches!(c.status, Status::Pending));
        r.assert_status(match pending {
            Some(_) => StatusCode::OK,
            None => StatusCode::CREATED,
        });
        let id = r.json()["id"].as_str().expect("conflict id").to_owned();
        match pending {
            Some(c) => {
                assert_eq!(id, self.model.conflicts[c].id, "the pending conflict");
                c
            }
            None => {
                self.model.conflicts.push(MConflict {
                    id,
                    old,
                    new,
                    status: Status::Pending,
                });
                self.model.conflicts.len() - 1
            }
        }
    }

    async fn resolve(
        &mut self,
        c: usize,
        strategy: &str,
        reason: Option<&str>,
        merged: Option<&str>,
    ) {
        let (old, new) = (self.model.conflicts[c].old, self.model.conflicts[c].new);
        let mut body = json!({"resolution": strategy});
        if let Some(r) = reason {
            body["reason"] = json!(r);
        }
        let merged = merged.filter(|_| strategy == "merge");
        if let Some(m) = merged {
            body["merged_content"] = json!(m);
        }
        let uri = format!("/conflicts/{}/resolve", self.model.conflicts[c].id);
        let r = self.app.post(&uri, body).await;
        self.model.touch(&[old, new]);

        // A reason is for the strategies that end a memory; old_is_current's is a correction.
        let reason_allowed = match (strategy, reason) {
            (_, None) | ("new_is_current", _) => true,
            (s, Some(r)) => s == "old_is_current" && r == "correction",
        };
        if !reason_allowed {
            r.assert_problem(StatusCode::UNPROCESSABLE_ENTITY, "/problems/validation");
            self.counts.refused += 1;
            return;
        }
        let os = self.model.nodes[old].now().expect("live").clone();
        let ns = self.model.nodes[new].now().expect("live").clone();
        // The side the strategy keeps current must be active.
        let kept = match strategy {
            "old_is_current" | "merge" => &os,
            _ => &ns,
        };
        if kept.state != "active" {
            r.assert_problem(StatusCode::CONFLICT, "/problems/stale-conflict");
            self.counts.refused += 1;
            return;
        }
        r.assert_status(StatusCode::OK);
        let mut before = Vec::new();
        let mut gone_with = Vec::new();
        let mut watched = vec![old, new];
        match strategy {
            // The old memory, if still active, goes dormant and stops holding: until the new
            // one was observed (an update; never extending an earlier end, never before its own
            // start), or never (a correction). Without a reason the new text chooses.
            "new_is_current" if os.state == "active" => {
                let why = reason.unwrap_or(if ns.body.to_lowercase().contains("actually") {
                    "correction"
                } else {
                    "update"
                });
                let mut s = os.clone();
                s.state = "dormant".to_owned();
                if why == "correction" {
                    s.corrected = true;
                } else {
                    let end = ns.observed_at.clone().max(os.observed_at.clone());
                    s.valid_until = Some(match os.valid_until.clone() {
                        Some(u) => u.min(end),
                        None => end,
                    });
                }
                before.push((old, Some(os)));
                self.model.set(old, Some(s));
            }
            // The new memory, if still active, goes dormant and never held.
            "old_is_current" if ns.state == "active" => {
                let mut s = ns.clone();
                s.state = "dormant".to_owned();
                s.corrected = true;
                before.push((new, Some(ns)));
                self.model.set(new, Some(s));
            }
            // The old memory takes the merged text; the new one is deleted.
            "merge" => {
                let mut s = os.clone();
                s.body = match merged {
                    Some(m) => m.to_owned(),
                    None => format!(
                        "{}\n\n--- Merged ({}) ---\n\n{}",
                        os.body,
                        chrono::Utc::now().format("%Y-%m-%d"),
                        ns.body
                    ),
                };
                before.push((old, Some(os)));
                before.push((new, Some(ns)));
                self.model.set(old, Some(s));
                for c in &self.model.conflicts {
                    if matches!(c.status, Status::Pending) && (c.old == new || c.new == new) {
                        watched.extend([c.old, c.new]);
                    }
                }
                gone_with = self.model.delete(new);
            }
            _ => {}
        }
        self.model.conflicts[c].status = Status::Resolved {
            step: self.model.step,
            before,
            gone_with,
            watched,
        };
        let s = STRATEGIES.iter().position(|s| *s == strategy).unwrap();
        self.counts.resolved[s] += 1;
    }

    async fn revert(&mut self, c: usize) {
        let (old, new) = (self.model.conflicts[c].old, self.model.conflicts[c].new);
        let Status::Resolved {
            step, ref watched, ..
        } = self.model.conflicts[c].status
        else {
            unreachable!("only resolved conflicts are reverted")
        };
        // Nothing touched a watched node since the resolution: nothing can be in the way.
        let untouched = watched.iter().all(|&n| self.model.nodes[n].touched <= step);
        let uri = format!("/conflicts/{}/revert", self.model.conflicts[c].id);
        let r = self.app.post(&uri, json!({})).await;
        self.model.touch(&[old, new]);
        if r.status == StatusCode::CONFLICT {
            assert!(
                !untouched,
                "a revert with nothing in the way was refused: {}",
                r.text
            );
            r.assert_problem(StatusCode::CONFLICT, "/problems/revert-conflict");
            self.counts.revert_refused += 1;
            return;
        }
        r.assert_status(StatusCode::OK);
        let Status::Resolved {
            before, gone_with, ..
        } = std::mem::replace(&mut self.model.conflicts[c].status, Status::Pending)
        else {
            unreachable!()
        };
        // Every node the resolution changed is put back as it was, a deleted one included,
        // with the pending conflicts that went with it.
        for (n, snap) in before.into_iter().rev() {
            self.model.set(n, snap);
        }
        for g in gone_with {
            self.model.conflicts[g].status = Status::Pending;
        }
        self.counts.reverted += 1;
    }

    async fn apply(&mut self, op: &Op) {
        let live = self.model.live();
        let pick = |i: usize| live[i % live.len()];
        match *op {
            Op::Create {
                title,
                body,
                observed,
            } => self.create(title, body, observed).await,
            Op::Patch { node, ref change } if !live.is_empty() => {
                self.patch(pick(node), change).await
            }
            Op::Delete { node } if !live.is_empty() => self.delete(pick(node)).await,
            Op::Resolve {
                pending,
                a,
                b,
                strategy,
                reason,
                any_reason,
                merged,
            } if live.len() >= 2 => {
                let resolvable: Vec<usize> = (0..self.model.conflicts.len())
                    .filter(|&i| {
                        let c = &self.model.conflicts[i];
                        matches!(c.status, Status::Pending)
                            && live.contains(&c.old)
                            && live.contains(&c.new)
                    })
                    .collect();
                let c = if pending && !resolvable.is_empty() {
                    resolvable[a % resolvable.len()]
                } else {
                    let old = pick(a);
                    let others: Vec<usize> = live.iter().copied().filter(|&n| n != old).collect();
                    self.queue(old, others[b % others.len()]).await
                };
                // Mostly a reason the strategy allows; sometimes any, for the 422.
                let allowed: &[Option<&str>] = match STRATEGIES[strategy] {
                    _ if any_reason => &REASONS,
                    "new_is_current" => &REASONS,
                    "old_is_current" => &[None, Some("correction")],
                    _ => &[None],
                };
                let strategy = STRATEGIES[strategy];
                let reason = allowed[reason % allowed.len()];
                self.resolve(c, strategy, reason, merged.map(|m| BODIES[m]))
                    .await
            }
            Op::Revert { conflict } => {
                let resolved: Vec<usize> = (0..self.model.conflicts.len())
                    .filter(|&i| matches!(self.model.conflicts[i].status, Status::Resolved { .. }))
                    .collect();
                match resolved.len() {
                    0 => self.create_from(conflict).await,
                    len => self.revert(resolved[conflict % len]).await,
                }
            }
            // Not applicable yet (too few live nodes): a create instead.
            Op::Patch { node: seed, .. }
            | Op::Delete { node: seed }
            | Op::Resolve { a: seed, .. } => self.create_from(seed).await,
        }
    }

    async fn create_from(&mut self, seed: usize) {
        self.create(
            seed % TITLES.len(),
            seed % BODIES.len(),
            seed % OBSERVED.len(),
        )
        .await
    }

    /// The as-of reads after step `i` (instants `known[0..=i]`).
    async fn check(&mut self, step: &Step, known: &[String], ctx: &str) {
        let latest = known.len() - 1;
        for (k, &(valid, seed)) in step.lists.iter().enumerate() {
            let j = if k == 0 { latest } else { seed % known.len() };
            let (v, kn) = (VALID[valid], &known[j]);
            let r = self
                .app
                .get(&format!(
                    "/nodes?as_of={v}&known_at={kn}&label={}&limit=200",
                    self.label
                ))
                .await;
            r.assert_status(StatusCode::OK);
            let got: Vec<Row> = r.json()["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(row)
                .collect();
            assert_eq!(
                got,
                self.model.expected(v, j),
                "GET /nodes as_of={v} known_at={kn} (after step {j}); {ctx}"
            );
            self.counts.list_reads += 1;
        }
        if self.model.nodes.is_empty() {
            return;
        }
        for &(valid, seed, node) in &step.gets {
            let j = seed % known.len();
            let (v, kn) = (VALID[valid], &known[j]);
            let n = &self.model.nodes[node % self.model.nodes.len()];
            let r: Reply = self
                .app
                .get(&format!("/nodes/{}?as_of={v}&known_at={kn}", n.id))
                .await;
            let want = n.at(j).filter(|s| s.holds_at(v));
            let what = format!(
                "GET /nodes/{}?as_of={v}&known_at={kn} (after step {j}); {ctx}",
                n.id
            );
            match want {
                Some(s) => {
                    assert_eq!(r.status, StatusCode::OK, "{what}: {}", r.text);
                    assert_eq!(row(&r.json()), row_of(&n.id, s), "{what}");
                }
                None => {
                    assert_eq!(r.status, StatusCode::NOT_FOUND, "{what}: {}", r.text);
                }
            }
            self.counts.single_reads += 1;
        }
    }
}

fn cases() -> Vec<Vec<Step>> {
    let n = std::env::var("AS_OF_MODEL_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24);
    let mut runner = TestRunner::deterministic();
    let strategy = sequence();
    (0..n)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect()
}

async fn as_of_reads_equal_a_reference_model_after_every_step(app: TestApp) {
    let started = std::time::Instant::now();
    let mut counts = Counts::default();
    for (case, steps) in cases().into_iter().enumerate() {
        let mut run = Run {
            app: &app,
            label: format!("sequence-{case}"),
            model: Model::default(),
            counts: &mut counts,
        };
        let mut known = vec![instant().await];
        for (i, step) in steps.iter().enumerate() {
            run.model.step = i + 1;
            let ctx = format!("sequence {case}, step {}: {:#?}", i + 1, &steps[..=i]);
            run.apply(&step.op).await;
            known.push(instant().await);
            run.check(step, &known, &ctx).await;
            run.counts.steps += 1;
        }
        run.counts.sequences += 1;
    }
    assert_eq!(app.store.check().await.unwrap(), vec![]);
    eprintln!(
        "as-of model: {} sequences, {} steps ({} creates, {} patches, resolutions \
         new_is_current/old_is_current/keep_both/merge {:?}, {} refused, {} reverts, \
         {} reverts refused, {} deletes), {} list reads, {} single reads, in {:.1?}",
        counts.sequences,
        counts.steps,
        counts.creates,
        counts.patches,
        counts.resolved,
        counts.refused,
        counts.reverted,
        counts.revert_refused,
        counts.deletes,
        counts.list_reads,
        counts.single_reads,
        started.elapsed()
    );
}
