//! Sweeps (`POST /sweeps`, `concord sweep`): every active memory that existed when the sweep
//! started is compared with the candidates a write of it would have found (the memories
//! stored before it), judged as a write judges, and what is not queued yet is queued. Pairs
//! already queued or with a remembered verdict are passed over, so a pair is never queued
//! twice, and a sweep finds what a write with detection would have found.
//!
//! One sweep runs at a time. Whoever runs it (the server's sweeper, or `concord sweep`) holds
//! a lease in the database and records a checkpoint with each stretch's conflicts in one
//! transaction, so a sweep goes on after a crash or restart where it stopped, on whichever
//! instance claims it first. It yields between memories, so writes and reviews go on.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Notify;
use uuid::Uuid;

use crate::domain::access::Caller;
use crate::domain::node::Node;
use crate::domain::retrieval::{INDEX_HITS_PER_CANDIDATE, Postings, RANKING_BUDGET, query_tokens};
use crate::domain::sweep::{LEASE, NewSweep, Sweep, SweepFilter, SweepStatus};
use crate::domain::time;
use crate::service::detect::SweepDetection;
use crate::service::scopes::{may_use_all, may_write, sees_sweep};
use crate::service::{Error, Result, Services};
use crate::store::{CandidateQuery, DetectedConflict, Hits, PassedNode, Store, SweepChunk};

/// Memories read per page.
const PAGE: usize = 500;
/// Memories compared per recorded stretch, at most.
const STRETCH: usize = 250;
/// A stretch is recorded at least this often, so that progress and cancelling show soon.
const RECORD_EVERY: Duration = Duration::from_millis(500);
/// A `sweep.progress` event at most this often.
const EVENT_EVERY: Duration = Duration::from_secs(2);
/// How often an idle sweeper looks for a sweep to take over (one whose runner stopped).
const IDLE_LOOK: Duration = Duration::from_secs(10);

/// Starts a sweep over the memories `filter` names; the server's sweeper runs it (or the
/// caller, `concord sweep`). `Error::SweepRunning` when one runs already.
/// A key that does not hold every scope sweeps only a scope it holds.
pub async fn start(svc: &Services, caller: &Caller, filter: SweepFilter) -> Result<Sweep> {
    match &filter.scope {
        Some(scope) => may_write(caller, scope)?,
        None => may_use_all(caller)?,
    }
    let by = caller.writer();
    let store = &*svc.store;
    if let Some(running) = store.running_sweep().await? {
        return Err(Error::SweepRunning(running.id));
    }
    let (until, total) = store.sweep_extent(&filter).await?;
    let new = NewSweep {
        id: Uuid::now_v7(),
        filter,
        until,
        total,
        created_by: by,
        created_at: time::now(),
    };
    if !store.start_sweep(&new).await? {
        // Another request started one between the look and the insert.
        let running = store.running_sweep().await?;
        return Err(Error::SweepRunning(running.map_or(new.id, |s| s.id)));
    }
    svc.notifier.bump();
    svc.sweeper.notify_one();
    Ok(store.get_sweep(new.id).await?)
}

/// A sweep the caller sees ([`sees_sweep`]).
pub async fn get(svc: &Services, caller: &Caller, id: Uuid) -> Result<Sweep> {
    let sweep = svc.store.get_sweep(id).await?;
    if sees_sweep(caller, &sweep) {
        Ok(sweep)
    } else {
        Err(Error::NotFound("sweep"))
    }
}

/// The newest sweeps the caller sees, at most `limit`.
pub async fn list(svc: &Services, caller: &Caller, limit: usize) -> Result<Vec<Sweep>> {
    Ok(svc
        .store
        .list_sweeps(limit, caller.visible().as_deref())
        .await?)
}

/// Cancels a running sweep: its runner stops at its next record, and what it queued stays.
/// A sweep that had ended is returned as it stands.
pub async fn cancel(svc: &Services, caller: &Caller, id: Uuid) -> Result<Sweep> {
    get(svc, caller, id).await?;
    let sweep = svc
        .store
        .finish_sweep(id, SweepStatus::Cancelled, None, None)
        .await?;
    svc.notifier.bump();
    Ok(sweep)
}

/// Runs the server's sweeper in the background: it takes the running sweep (when one starts,
/// and every few seconds in case one was left by a stopped runner) and runs it to its end.
pub fn spawn(svc: &Services) {
    let svc = svc.clone();
    tokio::spawn(async move {
        let owner = format!("serve-{}", Uuid::now_v7());
        let stop = svc.shutting_down();
        tokio::pin!(stop);
        let mut first = true;
        loop {
            let take_over = std::mem::take(&mut first) && sole_process(&svc);
            match claim(&svc, &owner, take_over).await {
                Ok(Some(sweep)) => {
                    let id = sweep.id;
                    tokio::select! {
                        ran = run(&svc, sweep, &owner, |_| {}) => match ran {
                            Ok(s) => tracing::info!(sweep = %id, status = s.status.as_str(),
                                compared = s.compared, queued = s.queued, "sweep ended"),
                            Err(e) => tracing::warn!(sweep = %id, error = %e, "sweep stopped"),
                        },
                        () = &mut stop => return,
                    }
                    continue;
                }
                Ok(None) => {}
                Err(e) => tracing::warn!(error = %e, "could not look for a sweep to run"),
            }
            tokio::select! {
                () = svc.sweeper.notified() => {}
                () = tokio::time::sleep(IDLE_LOOK) => {}
                () = &mut stop => return,
            }
        }
    });
}

/// Takes the running sweep for `owner` if nobody else holds it, or, with `take_over`, from
/// a holder known to be gone.
pub async fn claim(svc: &Services, owner: &str, take_over: bool) -> Result<Option<Sweep>> {
    let now = time::now();
    Ok(svc
        .store
        .claim_sweep(owner, now, lease_from(now), take_over)
        .await?)
}

/// Whether this process is the only one on its database: a SQLite file is held by one
/// process at a time, so a lease found there when the process starts is a stopped runner's,
/// and its sweep goes on at once instead of after the lease runs out.
pub fn sole_process(svc: &Services) -> bool {
    svc.backend() == "sqlite"
}

fn lease_from(now: time::Timestamp) -> time::Timestamp {
    now + chrono::Duration::from_std(LEASE).expect("the lease fits")
}

/// Runs `sweep` (claimed by `owner`) from its checkpoint to its end, calling `progress` after
/// each record; the sweep as it ended: `done`, `cancelled`, or still `running` when another
/// runner took it over. A failure marks it `failed` when it is not the database's being
/// unreachable (then it stays `running`, for a later claim).
pub async fn run(
    svc: &Services,
    sweep: Sweep,
    owner: &str,
    mut progress: impl FnMut(&Sweep),
) -> Result<Sweep> {
    let id = sweep.id;
    match compare_all(svc, sweep, owner, &mut progress).await {
        Ok(s) => Ok(s),
        Err(e) if matches!(e, Error::Unavailable(_) | Error::Busy(_)) => Err(e),
        Err(e) => {
            let failed = svc
                .store
                .finish_sweep(id, SweepStatus::Failed, Some(owner), Some(&e.to_string()))
                .await;
            svc.notifier.bump();
            failed.map_err(Error::from)?;
            Err(e)
        }
    }
}

/// The stretch being compared: memories compared and what each made.
struct Stretch {
    compared: i64,
    last: Option<Uuid>,
    found: Vec<(Uuid, Vec<DetectedConflict>)>,
    started: Instant,
}

impl Stretch {
    fn new() -> Self {
        Self {
            compared: 0,
            last: None,
            found: Vec::new(),
            started: Instant::now(),
        }
    }
}

async fn compare_all(
    svc: &Services,
    mut sweep: Sweep,
    owner: &str,
    progress: &mut impl FnMut(&Sweep),
) -> Result<Sweep> {
    let store: &dyn Store = &*svc.store;
    let judge = Arc::new(svc.detector.for_sweep(store).await?);
    let mut after = sweep.checkpoint;
    let mut stretch = Stretch::new();
    let mut last_event = Instant::now();
    let mut passed = Passed::default();
    let mut width = Width::new();
    let mut recording = Recording::new(svc, owner);
    loop {
        let page = store.sweep_page(&sweep, after, PAGE).await?;
        let Some((last, _)) = page.last() else { break };
        after = Some(last.id);
        passed.load_through(store, last.id).await?;
        // Memories are compared side by side (each ranked here, then on a task of its own:
        // its candidates' rows, then its judging), and what each found is taken in order.
        let mut running: VecDeque<Comparing> = VecDeque::new();
        let mut next = 0;
        let mut taken = 0;
        while taken < page.len() {
            while running.len() < width.at(svc.detector.busy(), Instant::now()) && next < page.len()
            {
                yield_to_writes(svc).await;
                let query = query_of(&judge, &mut passed, &page[next]);
                running.push_back(Comparing::start(svc, &judge, &page[next], query));
                next += 1;
            }
            let comparing = running.pop_front().expect("one is running");
            let node = comparing.node;
            let found = comparing.found().await?;
            taken += 1;
            let resolved = found.iter().any(|h| h.resolve.is_some());
            stretch.compared += 1;
            stretch.last = Some(node);
            if !found.is_empty() {
                stretch.found.push((node, found));
            }
            let due = stretch.compared as usize >= STRETCH
                || stretch.started.elapsed() >= RECORD_EVERY
                || resolved;
            if due {
                let event = last_event.elapsed() >= EVENT_EVERY;
                let stretch = std::mem::replace(&mut stretch, Stretch::new());
                // What a policy resolved is in the store before anything is compared again.
                let then = if resolved { Then::Wait } else { Then::GoOn };
                if !recording.next(&mut sweep, stretch, event, then).await? {
                    return Ok(store.get_sweep(sweep.id).await?);
                }
                if event {
                    last_event = Instant::now();
                }
                progress(&sweep);
            }
            if resolved {
                // A policy changed stored memories: those compared beside this one are
                // compared again, against the store as it is now.
                running = running
                    .into_iter()
                    .map(|c| c.restart(svc, &judge))
                    .collect();
            }
        }
    }
    if !recording
        .next(&mut sweep, stretch, false, Then::Wait)
        .await?
    {
        return Ok(store.get_sweep(sweep.id).await?);
    }
    let done = store
        .finish_sweep(sweep.id, SweepStatus::Done, Some(owner), None)
        .await?;
    svc.notifier.bump();
    progress(&done);
    Ok(done)
}

/// How many memories are compared at once. A search is ranked in memory, and what is left of
/// it is reading the candidates' rows: each memory waits on its reads much of the time, and
/// with eight under way both cores judge (a 100k sweep 1.2x faster than with two,
/// BENCHMARKS.md). Once a write or check has been seen, one at a time for a while: a client
/// that writes without a pause is idle between its writes, and eight comparisons started in
/// those gaps doubled its writes' median latency.
struct Width {
    last_busy: Option<Instant>,
}

impl Width {
    const ALONE: usize = 8;
    const BESIDE_WRITES: usize = 1;
    /// How long after the last write or check seen the sweep stays narrow.
    const QUIET_FOR: Duration = Duration::from_secs(1);

    fn new() -> Self {
        Self { last_busy: None }
    }

    /// The width now, `busy` telling whether a write or check is under way.
    fn at(&mut self, busy: bool, now: Instant) -> usize {
        if busy {
            self.last_busy = Some(now);
        }
        match self.last_busy {
            Some(seen) if now.duration_since(seen) < Self::QUIET_FOR => Self::BESIDE_WRITES,
            _ => Self::ALONE,
        }
    }
}

/// One memory being compared on a task of its own.
struct Comparing {
    node: Uuid,
    memory: Arc<(Node, Option<Vec<f32>>)>,
    query: CandidateQuery,
    task: tokio::task::JoinHandle<Result<Vec<DetectedConflict>>>,
}

impl Comparing {
    fn start(
        svc: &Services,
        judge: &Arc<SweepDetection>,
        memory: &(Node, Option<Vec<f32>>),
        query: CandidateQuery,
    ) -> Self {
        Self::spawn(svc, judge, Arc::new(memory.clone()), query)
    }

    fn spawn(
        svc: &Services,
        judge: &Arc<SweepDetection>,
        memory: Arc<(Node, Option<Vec<f32>>)>,
        query: CandidateQuery,
    ) -> Self {
        let (store, judge) = (Arc::clone(&svc.store), Arc::clone(judge));
        let (m, q) = (Arc::clone(&memory), query.clone());
        let task = tokio::spawn(async move {
            let candidates = store.candidates(q).await?;
            Ok(judge
                .judge(&*store, &m.0, m.1.as_deref(), candidates)
                .await?)
        });
        Self {
            node: memory.0.id,
            memory,
            query,
            task,
        }
    }

    /// The same memory compared again, from its search on.
    fn restart(self, svc: &Services, judge: &Arc<SweepDetection>) -> Self {
        self.task.abort();
        Self::spawn(svc, judge, self.memory, self.query)
    }

    async fn found(self) -> Result<Vec<DetectedConflict>> {
        joined(self.task, "comparing").await
    }
}

/// What a sweep's task (`what` it does) returned; its panic goes on in the caller.
async fn joined<T>(task: tokio::task::JoinHandle<Result<T>>, what: &str) -> Result<T> {
    match task.await {
        Ok(result) => result,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(e) => Err(Error::Internal(anyhow::anyhow!(
            "{what} was cancelled: {e}"
        ))),
    }
}

/// The candidate search a write of `node` made, with the statistics of its time, and its
/// hits ranked from the postings of the nodes stored before it: the store only reads the
/// candidates among them.
fn query_of(
    judge: &SweepDetection,
    passed: &mut Passed,
    (node, embedding): &(Node, Option<Vec<f32>>),
) -> CandidateQuery {
    let mut q = judge.query(node, embedding.as_deref());
    passed.pass_to(node.id);
    let docs = passed.postings.docs(&q.scope, &q.tokens);
    let chosen = query_tokens(&docs, &q.names);
    let wanted = q.limit * INDEX_HITS_PER_CANDIDATE;
    let per_token = RANKING_BUDGET as usize;
    let hits = passed.postings.hits(&q.scope, &chosen, per_token, wanted);
    q.hits = Some(passed.named(&hits));
    q.docs = Some(docs);
    q
}

/// The nodes stored before the memory being compared, passed in id order whatever their scope
/// or state: their postings, which hold the detection statistics as they stood when that
/// memory was written (the store's own count the nodes stored since too) and which its
/// search is ranked from, as the store's index would have ranked it then.
struct Passed {
    /// Each posting is its node's place in `nodes`: in id order, as the ranking's "newest
    /// first" wants, and a quarter of a node id's size.
    postings: Postings<u32>,
    /// The nodes passed, in id order.
    nodes: Vec<Uuid>,
    /// Their rows' keys, in the same order, for as long as every node passed has one.
    keys: Option<Vec<i64>>,
    /// Nodes read but not passed yet, in id order.
    ahead: VecDeque<PassedNode>,
    /// The last node read (nil before any).
    read_through: Uuid,
}

impl Default for Passed {
    fn default() -> Self {
        Self {
            postings: Postings::default(),
            nodes: Vec::new(),
            keys: Some(Vec::new()),
            ahead: VecDeque::new(),
            read_through: Uuid::nil(),
        }
    }
}

impl Passed {
    /// Reads the tokens of the nodes up to `to`.
    async fn load_through(&mut self, store: &dyn Store, to: Uuid) -> Result<()> {
        if to > self.read_through {
            let read = store.tokens_between(self.read_through, to).await?;
            self.ahead.extend(read);
            self.read_through = to;
        }
        Ok(())
    }

    /// Passes every node read with an id before `id`.
    fn pass_to(&mut self, id: Uuid) {
        while self.ahead.front().is_some_and(|n| n.id < id) {
            let node = self.ahead.pop_front().expect("a front");
            let place = u32::try_from(self.nodes.len()).expect("a sweep passes < 2^32 nodes");
            self.nodes.push(node.id);
            self.keys = self.keys.take().zip(node.key).map(|(mut keys, key)| {
                keys.push(key);
                keys
            });
            let tokens = node.tokens.split(' ').filter(|t| !t.is_empty());
            self.postings.add(&node.scope, place, tokens);
        }
    }

    /// The nodes at `places`, in order, as the store reads them: by their rows' keys when the
    /// store has them (a lookup in the table, not first in the index of node ids), else by id.
    /// No hits are named by id, as every backend reads them: before the first node passes,
    /// whether the store has keys is not known yet.
    fn named(&self, places: &[u32]) -> Hits {
        let at = places.iter().map(|&p| p as usize);
        match &self.keys {
            Some(keys) if !places.is_empty() => Hits::Keys(at.map(|p| keys[p]).collect()),
            _ => Hits::Ids(at.map(|p| self.nodes[p]).collect()),
        }
    }
}

/// Lets writes and checks go first: while one is under way the sweep waits a millisecond
/// before its next memory, so that it finds the cores free. Under a client that writes
/// without a pause a sweep goes on at about a fifth of its pace, and the writes' median
/// latency stays within 2x of idle (`concord-bench sweep`, BENCHMARKS.md).
async fn yield_to_writes(svc: &Services) {
    if svc.detector.busy() {
        tokio::time::sleep(Duration::from_millis(1)).await;
    } else {
        tokio::task::yield_now().await;
    }
}

/// The stretch being recorded while the next one is compared. A record waits for its commit
/// (on SQLite a sync to disk), and comparing stood still until it came back: a 100k sweep
/// records 400 stretches (BENCHMARKS.md, session 31). One stretch at a time is recorded, in
/// order, so a checkpoint never passes a stretch that is not recorded.
struct Recording {
    svc: Services,
    owner: String,
    under_way: Option<tokio::task::JoinHandle<Result<Option<Sweep>>>>,
}

/// What comparing does once a stretch is handed to [`Recording::next`].
#[derive(PartialEq)]
enum Then {
    /// Goes on while the stretch is recorded.
    GoOn,
    /// Waits until it is recorded.
    Wait,
}

impl Recording {
    fn new(svc: &Services, owner: &str) -> Self {
        Self {
            svc: svc.clone(),
            owner: owner.to_owned(),
            under_way: None,
        }
    }

    /// Waits for the stretch under way, then records `stretch` (waiting for it too with
    /// `Then::Wait`); `sweep` becomes the sweep as last recorded. False when the sweep is no
    /// longer this runner's.
    async fn next(
        &mut self,
        sweep: &mut Sweep,
        stretch: Stretch,
        event: bool,
        then: Then,
    ) -> Result<bool> {
        if !self.settle(sweep).await? {
            return Ok(false);
        }
        let (svc, owner, running) = (self.svc.clone(), self.owner.clone(), sweep.clone());
        self.under_way = Some(tokio::spawn(async move {
            record(&svc, &running, &owner, stretch, event).await
        }));
        if then == Then::Wait {
            return self.settle(sweep).await;
        }
        Ok(true)
    }

    async fn settle(&mut self, sweep: &mut Sweep) -> Result<bool> {
        let Some(task) = self.under_way.take() else {
            return Ok(true);
        };
        match joined(task, "recording").await? {
            Some(s) => {
                *sweep = s;
                Ok(true)
            }
            None => Ok(false),
        }
    }
}

/// Records a stretch; `None` when the sweep is no longer `owner`'s to run.
async fn record(
    svc: &Services,
    sweep: &Sweep,
    owner: &str,
    stretch: Stretch,
    progress_event: bool,
) -> Result<Option<Sweep>> {
    let Some(checkpoint) = stretch.last else {
        return Ok(Some(sweep.clone()));
    };
    let at = time::now();
    let queued_some = !stretch.found.is_empty();
    let chunk = SweepChunk {
        sweep: sweep.id,
        owner: owner.to_owned(),
        checkpoint,
        compared: stretch.compared,
        found: stretch.found,
        lease_until: lease_from(at),
        at,
        progress_event,
    };
    let recorded = svc.store.record_sweep(&chunk).await?;
    if queued_some || progress_event {
        svc.notifier.bump();
    }
    Ok(recorded)
}

/// The sweeper's wake-up: [`start`] rings it so that a new sweep begins at once.
pub type Sweeper = Arc<Notify>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_narrows_while_writes_are_seen_and_for_a_while_after() {
        let start = Instant::now();
        let mut width = Width::new();
        assert_eq!(width.at(false, start), Width::ALONE);
        assert_eq!(width.at(true, start), Width::BESIDE_WRITES);
        // Between a client's writes nothing is under way, and the sweep stays narrow.
        let gap = start + Duration::from_millis(5);
        assert_eq!(width.at(false, gap), Width::BESIDE_WRITES);
        let later = start + Width::QUIET_FOR;
        assert_eq!(width.at(false, later), Width::ALONE);
        const { assert!(Width::ALONE > Width::BESIDE_WRITES) };
    }

    fn passing(id: Uuid, key: Option<i64>, tokens: &str) -> PassedNode {
        PassedNode {
            id,
            key,
            scope: "s".into(),
            tokens: tokens.into(),
        }
    }

    #[test]
    fn hits_are_named_by_row_key_when_every_node_has_one_else_by_id() {
        let ids: Vec<Uuid> = (0..3).map(|_| Uuid::now_v7()).collect();
        let mut keyed = Passed::default();
        keyed.ahead.extend([
            passing(ids[0], Some(7), "lisbon moved"),
            passing(ids[1], Some(3), "berlin"),
            passing(ids[2], Some(9), "lisbon"),
        ]);
        keyed.pass_to(Uuid::max());
        let docs = keyed.postings.docs("s", &["lisbon".into()]);
        assert_eq!(docs, vec![("lisbon".to_string(), 2)]);
        let hits = keyed.postings.hits("s", &docs, 10, 10);
        // Newest first: the place of the later node, then the earlier one's.
        assert_eq!(hits, vec![2, 0]);
        assert_eq!(keyed.named(&hits), Hits::Keys(vec![9, 7]));

        let mut unkeyed = Passed::default();
        unkeyed.ahead.extend([
            passing(ids[0], None, "lisbon"),
            passing(ids[1], None, "lisbon"),
        ]);
        // Only the nodes before the one compared are passed.
        unkeyed.pass_to(ids[1]);
        assert_eq!(unkeyed.nodes.len(), 1);
        assert_eq!(unkeyed.named(&[0]), Hits::Ids(vec![ids[0]]));
        // No hits are named by id, whatever the store.
        assert_eq!(unkeyed.named(&[]), Hits::Ids(Vec::new()));
        assert_eq!(keyed.named(&[]), Hits::Ids(Vec::new()));
        assert_eq!(Passed::default().named(&[]), Hits::Ids(Vec::new()));
    }
}
