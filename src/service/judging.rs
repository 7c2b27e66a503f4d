//! Judging a write's candidates with the rules, on a second core when one is spare.
//!
//! With one client, a write's candidates are judged while every other thread waits: the
//! database thread, the client, the rest of the runtime. Handing half of them to another
//! thread then cuts the judging's wall time nearly in half. Under load there is no spare
//! core, and the hand-over only adds work (about 5% fewer writes per second at 16 clients),
//! so judging splits only while few writes are under way.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::domain::contradiction::{self, Analysed, Analysis, DetectConfig, Memory, fingerprint};
use crate::service::finding::Finding;
use crate::service::memo::Memo;
use crate::store::Candidate;

/// Fewer candidates than this are judged on one thread: handing over costs more than half
/// of their judging saves.
const SPLIT_FROM: usize = 16;

/// Writes and checks under way, against the cores there are.
pub struct Load {
    in_flight: AtomicUsize,
    cores: usize,
}

/// One write or check under way, for as long as it lives (however its future ends).
pub struct Busy<'a>(&'a AtomicUsize);

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Load {
    pub fn new() -> Self {
        Self::with_cores(std::thread::available_parallelism().map_or(1, usize::from))
    }

    fn with_cores(cores: usize) -> Self {
        Self {
            in_flight: AtomicUsize::new(0),
            cores,
        }
    }

    pub fn enter(&self) -> Busy<'_> {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        Busy(&self.in_flight)
    }

    /// Whether any write or check is under way.
    pub fn busy(&self) -> bool {
        self.in_flight.load(Ordering::Relaxed) > 0
    }

    /// Whether every write under way could have two cores to itself.
    fn spare_core(&self) -> bool {
        self.in_flight.load(Ordering::Relaxed) * 2 <= self.cores
    }
}

impl Default for Load {
    fn default() -> Self {
        Self::new()
    }
}

/// The analysis of stored node `id` whose text is `m`'s: kept from an earlier write while the
/// text is unchanged.
pub fn analysis_of(analyses: &Memo<Analysis>, id: uuid::Uuid, m: &Memory) -> Arc<Analysis> {
    analyses.get_or_derive(id, fingerprint(m.title, m.body), || {
        contradiction::analyse(m)
    })
}

/// The analysis of candidate `id` whose text is `m`'s: kept from an earlier write, or kept
/// now if the candidate was analysed before too ([`Memo::get_or_derive_recurring`]).
pub fn candidate_analysis(analyses: &Memo<Analysis>, id: uuid::Uuid, m: &Memory) -> Arc<Analysis> {
    analyses.get_or_derive_recurring(id, fingerprint(m.title, m.body), || {
        contradiction::analyse(m)
    })
}

/// Where a memory's candidates are judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spread {
    /// Half of them on a second thread while a core is spare: a write or a check, which
    /// the client waits for.
    SpareCore,
    /// All on the caller's task: a sweep compares several memories at once, which keeps
    /// the cores busy already, and handing half of each memory's candidates to another
    /// thread only added hand-overs (BENCHMARKS.md, session 31).
    CallersTask,
    /// All on a helper thread, so that the caller's task is free meanwhile: a batch drives
    /// the database (the node's insert, the next node's search) while a node is judged.
    Helper,
}

impl Spread {
    /// Whether `candidates` of them are judged on two threads under `load`.
    fn splits(self, candidates: usize, load: &Load) -> bool {
        self == Spread::SpareCore && candidates >= SPLIT_FROM && load.spare_core()
    }
}

/// The findings among `candidates` for the new memory (`new`, analysed as `analysis`), in
/// the candidates' order.
pub async fn judge(
    analyses: &Arc<Memo<Analysis>>,
    load: &Load,
    spread: Spread,
    new: Memory<'_>,
    analysis: &Arc<Analysis>,
    mut candidates: Vec<Candidate>,
    cfg: DetectConfig,
) -> Vec<Finding> {
    if spread == Spread::Helper && !candidates.is_empty() {
        return on_helper(analyses, &new, analysis, candidates, cfg).await;
    }
    let ours = Analysed::new(new, analysis);
    if !spread.splits(candidates.len(), load) {
        return judge_each(analyses, ours, candidates, &cfg);
    }
    let second = candidates.split_off(candidates.len() / 2);
    let helper = on_helper(analyses, &new, analysis, second, cfg);
    let mut found = judge_each(analyses, ours, candidates, &cfg);
    found.extend(helper.await);
    found
}

/// [`judge_each`] on a blocking thread; it starts before the future is first polled.
fn on_helper(
    analyses: &Arc<Memo<Analysis>>,
    new: &Memory<'_>,
    analysis: &Arc<Analysis>,
    candidates: Vec<Candidate>,
    cfg: DetectConfig,
) -> impl Future<Output = Vec<Finding>> + use<> {
    let owned = OwnedMemory::of(new);
    let (memo, theirs) = (Arc::clone(analyses), Arc::clone(analysis));
    let helper = tokio::task::spawn_blocking(move || {
        judge_each(
            &memo,
            Analysed::new(owned.memory(), &theirs),
            candidates,
            &cfg,
        )
    });
    async move {
        match helper.await {
            Ok(found) => found,
            // Judging on one thread would have panicked this task the same way.
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            // Only a runtime shutting down cancels a blocking task before it starts.
            Err(e) => panic!("judging was cancelled: {e}"),
        }
    }
}

fn judge_each(
    analyses: &Memo<Analysis>,
    new: Analysed,
    candidates: Vec<Candidate>,
    cfg: &DetectConfig,
) -> Vec<Finding> {
    candidates
        .into_iter()
        .filter_map(|c| {
            let old = memory_of(&c);
            let analysis = candidate_analysis(analyses, c.node.id, &old);
            let verdict = contradiction::assess_analysed(new, Analysed::new(old, &analysis), cfg)?;
            Some(Finding {
                old: c.node,
                verdict,
                llm_fallback: None,
            })
        })
        .collect()
}

/// A stored candidate as the rules see it.
pub fn memory_of(c: &Candidate) -> Memory<'_> {
    Memory {
        title: &c.node.title,
        body: &c.node.body,
        labels: &c.node.labels,
        confidence: c.node.confidence,
        embedding: c.embedding.as_deref(),
    }
}

/// The new memory's text, copied for the helper thread.
struct OwnedMemory {
    title: String,
    body: String,
    labels: Vec<String>,
    confidence: f64,
    embedding: Option<Vec<f32>>,
}

impl OwnedMemory {
    fn of(m: &Memory) -> Self {
        Self {
            title: m.title.to_owned(),
            body: m.body.to_owned(),
            labels: m.labels.to_vec(),
            confidence: m.confidence,
            embedding: m.embedding.map(<[f32]>::to_vec),
        }
    }

    fn memory(&self) -> Memory<'_> {
        Memory {
            title: &self.title,
            body: &self.body,
            labels: &self.labels,
            confidence: self.confidence,
            embedding: self.embedding.as_deref(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::node::{Node, NodeState};
    use crate::domain::time;

    #[test]
    fn a_core_is_spare_only_while_every_write_could_have_two() {
        let load = Load::with_cores(2);
        let one = load.enter();
        assert!(load.spare_core(), "one write on two cores");
        let two = load.enter();
        assert!(!load.spare_core(), "two writes on two cores");
        drop(two);
        assert!(load.spare_core(), "a finished write gives its core back");
        drop(one);
        let single = Load::with_cores(1);
        let _write = single.enter();
        assert!(!single.spare_core(), "one core is never spare");
    }

    fn candidate(i: usize, body: String) -> Candidate {
        let now = time::now();
        Candidate {
            node: Node {
                id: uuid::Uuid::now_v7(),
                title: if i % 4 == 2 {
                    format!("Deploys {i}")
                } else {
                    "Billing port".into()
                },
                body,
                memory_type: "fact".into(),
                labels: Vec::new(),
                scope: "default".into(),
                source: None,
                confidence: 0.8,
                state: NodeState::Active,
                observed_at: now,
                created_at: now,
                updated_at: now,
                has_embedding: false,
                validity: Default::default(),
                conflict_ids: Vec::new(),
                provenance: None,
            },
            embedding: None,
            remembered: false,
        }
    }

    #[tokio::test]
    async fn judging_on_two_threads_finds_what_one_thread_finds_in_the_same_order() {
        let candidates: Vec<Candidate> = (0..40)
            .map(|i| {
                let body = match i % 4 {
                    0 => format!("The billing service listens on port {}.", 8000 + i),
                    1 => "The billing service listens on port 8080.".to_owned(),
                    2 => format!("The deploy for team {i} runs on Fridays."),
                    _ => "The billing service does not listen on port 8080.".to_owned(),
                };
                candidate(i, body)
            })
            .collect();
        let new =
            crate::verdicts::memory("Billing port", "The billing service listens on port 9090.");
        let analysis = Arc::new(contradiction::analyse(&new));
        let cfg = DetectConfig::default();
        let memo = Arc::new(Memo::new(1 << 20));
        let judged = |load: Load, spread: Spread| {
            let (memo, analysis, candidates) = (&memo, &analysis, candidates.clone());
            async move {
                let _busy = load.enter();
                let split = spread.splits(candidates.len(), &load);
                let found = judge(memo, &load, spread, new, analysis, candidates, cfg).await;
                let found: Vec<_> = found.into_iter().map(|f| (f.old.id, f.verdict)).collect();
                (split, found)
            }
        };
        let (split, two) = judged(Load::with_cores(64), Spread::SpareCore).await;
        let (alone, one) = judged(Load::with_cores(1), Spread::SpareCore).await;
        // A sweep's comparisons keep the cores busy: it never splits, spare core or not.
        let (swept, own_task) = judged(Load::with_cores(64), Spread::CallersTask).await;
        // A batch that overlaps its database work hands them all to a helper thread.
        let (_, helper) = judged(Load::with_cores(1), Spread::Helper).await;
        assert_eq!(
            helper, one,
            "a helper thread finds the same, in the same order"
        );
        assert!(
            split && !alone && !swept,
            "only a write with a spare core split the judging"
        );
        assert_eq!(own_task, one);
        assert!(
            one.len() >= 10,
            "the fixture has contradictions: {}",
            one.len()
        );
        let second_half = &candidates[20..];
        assert!(
            one.iter()
                .any(|(id, _)| second_half.iter().any(|c| c.node.id == *id)),
            "the half judged on the helper thread has some"
        );
        assert_eq!(two, one);
    }
}
