//! Write-time detection: fetch candidates through the index (never a scan), judge each pair
//! with the pure rules of `domain::contradiction`, and turn verdicts into conflicts with a
//! recommendation. Candidate reads and judging happen before the write transaction opens, so
//! the optional LLM tier's network calls never hold a transaction.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use tokio::task::JoinSet;
use uuid::Uuid;

use crate::config::Settings;
use crate::domain::conflict::{NewConflict, Strategy};
use crate::domain::contradiction::{
    self, Analysed, Analysis, DetectConfig, Memory, Screen, Sensitivity, Verdict, index_tokens,
    subject_names,
};
use crate::domain::edge::{self, Edge};
use crate::domain::node::{NewNode, Node};
use crate::domain::recommend::{self, Standing};
use crate::domain::time;
use crate::service::judging::{self, Load, Spread, memory_of};
use crate::service::llm::{LlmClient, LlmError, Pair};
use crate::service::memo::{Memo, Weigh};
use crate::service::policy::{Policies, Ruling};
use crate::store::{BatchJudge, Candidate, CandidateQuery, DetectedConflict, Store, StoreResult};

pub use crate::service::finding::{Credibility, Finding, Probe, credibility_of, detection_of};

/// How many candidates the index may return per write.
pub const MAX_CANDIDATES: usize = 50;
/// How many index tokens of the new text are used to look for candidates.
const MAX_QUERY_TOKENS: usize = 48;
/// A memory of at most this many index tokens may share no indexed word with the stored one
/// it updates ("Moved to Lisbon" / "Lives in Berlin", 我搬到上海了 / 我住在北京): pronouns are
/// not indexed and Chinese bigrams differ. The scope's newest [`NEWEST_FOR_SHORT`] memories
/// of its type are judged as well.
const SHORT_MEMORY_TOKENS: usize = 12;
const NEWEST_FOR_SHORT: usize = 10;

pub struct Detector {
    base: DetectConfig,
    llm: Option<Arc<LlmClient>>,
    policies: Policies,
    /// Stored memories' analyses, so that judging a candidate never re-reads its text.
    analyses: Arc<Memo<Analysis>>,
    /// Writes and checks under way: judging takes a second core only while one is spare.
    load: Load,
}

impl Detector {
    pub fn new(settings: &Settings) -> Self {
        // The LLM tier is optional: a client that cannot be built leaves the other tiers on.
        let llm = LlmClient::from_args(&settings.detection.llm).unwrap_or_else(|e| {
            tracing::error!(error = %e, "LLM tier disabled: its HTTP client could not be built");
            None
        });
        Self {
            base: DetectConfig {
                min_overlap: settings.detection.min_overlap,
                cosine_band: settings.detection.cosine_band,
                sensitivity: settings.sensitivity,
            },
            llm: llm.map(Arc::new),
            policies: Policies::from_settings(settings),
            analyses: Arc::new(Memo::new(settings.detection.analysis_cache_mib << 20)),
            load: Load::new(),
        }
    }

    /// Whether a write or a check is under way (a sweep lets them go first).
    pub fn busy(&self) -> bool {
        self.load.busy()
    }

    /// Stored memories' analyses kept for judging (filled at startup by `warmup`).
    pub fn analyses(&self) -> &Memo<Analysis> {
        &self.analyses
    }

    /// The deployment's detection settings.
    pub fn config(&self) -> DetectConfig {
        self.base
    }

    /// The policy file's `[trust]` table (empty without one).
    pub fn trust(&self) -> std::sync::Arc<[crate::domain::policy::Trust]> {
        Arc::clone(&self.policies.trust)
    }

    pub fn default_sensitivity(&self) -> Sensitivity {
        self.base.sensitivity
    }

    /// Active nodes of the probe's scope and memory type that it contradicts.
    pub async fn find(
        &self,
        store: &dyn Store,
        probe: &Probe<'_>,
        sensitivity: Option<Sensitivity>,
    ) -> StoreResult<Vec<Finding>> {
        let _busy = self.load.enter();
        let analyse = || match probe.id {
            Some(id) => self.analysis(id, &probe.memory()),
            None => Arc::new(contradiction::analyse(&probe.memory())),
        };
        let (findings, _) = self
            .find_analysed(store, probe, analyse, sensitivity)
            .await?;
        Ok(findings)
    }

    /// [`Self::find`] with the probe analysed by `analyse`, which runs while the database
    /// looks for candidates; with the analysis.
    async fn find_analysed(
        &self,
        store: &dyn Store,
        probe: &Probe<'_>,
        analyse: impl FnOnce() -> Arc<Analysis>,
        sensitivity: Option<Sensitivity>,
    ) -> StoreResult<(Vec<Finding>, Arc<Analysis>)> {
        let search = store.candidates(candidate_query(probe));
        // `join!` polls the search first, so its first statement is on its way before the
        // analysis starts: the two run at the same time.
        let (candidates, analysis) = tokio::join!(search, async { analyse() });
        let findings = self
            .judge_candidates(
                probe,
                &analysis,
                candidates?,
                sensitivity,
                Spread::SpareCore,
            )
            .await;
        Ok((findings, analysis))
    }

    /// What the probe (analysed as `analysis`) contradicts among `candidates`, passing over
    /// those a verdict about the pair exists for already.
    async fn judge_candidates(
        &self,
        probe: &Probe<'_>,
        analysis: &Arc<Analysis>,
        candidates: Vec<Candidate>,
        sensitivity: Option<Sensitivity>,
        spread: Spread,
    ) -> Vec<Finding> {
        let cfg = DetectConfig {
            sensitivity: sensitivity.unwrap_or(self.base.sensitivity),
            ..self.base
        };
        let candidates = candidates.into_iter().filter(|c| !c.remembered);
        match &self.llm {
            None => {
                let (memo, load, new) = (&self.analyses, &self.load, probe.memory());
                judging::judge(memo, load, spread, new, analysis, candidates.collect(), cfg).await
            }
            Some(llm) => {
                let new = Analysed::new(probe.memory(), analysis);
                let judged = candidates
                    .map(|c| {
                        let memory = memory_of(&c);
                        let analysis =
                            judging::candidate_analysis(&self.analyses, c.node.id, &memory);
                        (c, analysis)
                    })
                    .collect();
                judge_with_llm(llm, new, judged, &cfg).await
            }
        }
    }

    /// The analysis of stored node `id` whose text is `m`'s: kept from an earlier write while
    /// the text is unchanged.
    fn analysis(&self, id: Uuid, m: &Memory) -> Arc<Analysis> {
        judging::analysis_of(&self.analyses, id, m)
    }

    /// Findings as conflicts (with their `contradicts` edge) for the write of node `new_id`.
    pub async fn to_conflicts(
        &self,
        store: &dyn Store,
        probe: &Probe<'_>,
        new_id: Uuid,
        findings: Vec<Finding>,
    ) -> StoreResult<Vec<DetectedConflict>> {
        if findings.is_empty() {
            return Ok(Vec::new());
        }
        let credibility = self.credibility(store).await?;
        Ok(self.conflicts_of(probe, new_id, findings, &credibility))
    }

    /// [`Self::to_conflicts`] with the credibility table at hand.
    fn conflicts_of(
        &self,
        probe: &Probe<'_>,
        new_id: Uuid,
        findings: Vec<Finding>,
        credibility: &Credibility,
    ) -> Vec<DetectedConflict> {
        let now = time::now();
        let mut found: Vec<DetectedConflict> = findings
            .into_iter()
            .map(|f| {
                let recommendation = recommend_for(&f.old, probe, credibility);
                let detection = f.detection();
                let conflict_type = f.verdict.conflict_type.as_str();
                let firing = self.policies.decide(
                    &f.old,
                    probe,
                    conflict_type,
                    detection.probability,
                    &recommendation,
                    credibility,
                );
                // The edge carries the same (rounded) probability the conflict reports.
                let mut e =
                    Edge::system(new_id, f.old.id, edge::CONTRADICTS, detection.probability);
                let mut conflict = NewConflict {
                    id: Uuid::now_v7(),
                    old_node_id: f.old.id,
                    new_node_id: Some(new_id),
                    new_content: None,
                    conflict_type: conflict_type.to_owned(),
                    detection,
                    recommendation,
                    note: None,
                    created_at: now,
                    key: None,
                };
                e.created_at = now;
                e.valid_from = now;
                let ruling = firing.map_or(Ruling::Pending, |p| p.apply(&mut conflict));
                let quarantine = matches!(ruling, Ruling::Quarantine);
                DetectedConflict {
                    conflict,
                    edge: e,
                    resolve: match ruling {
                        Ruling::Resolve(r) => Some(r),
                        Ruling::Pending | Ruling::Quarantine => None,
                    },
                    quarantine,
                }
            })
            .collect();
        hold_back_with_quarantine(&mut found);
        found
    }
}

/// A quarantined new memory stays out of the current set until a reviewer decides: no other
/// rule of the same write may make it current (or merge it away), so those conflicts wait
/// for the reviewer as well, with a note saying why.
fn hold_back_with_quarantine(found: &mut [DetectedConflict]) {
    if !found.iter().any(|h| h.quarantine) {
        return;
    }
    for hit in found {
        let keeps_new = hit
            .resolve
            .as_ref()
            .is_some_and(|r| r.strategy != Strategy::OldIsCurrent);
        if keeps_new {
            let rule = hit
                .resolve
                .take()
                .and_then(|r| r.resolved_by)
                .unwrap_or_default();
            hit.conflict.note = Some(format!(
                "{rule} matched but did not resolve: the new memory is quarantined by another \
                 rule of this write, which a reviewer decides first"
            ));
        }
    }
}

/// Detection in a batch's transaction ([`BatchJudge`]): each node judged against the
/// candidates the store found for it there, with the rules, policies and recommendations a
/// single write gets, and one credibility table read before the batch began.
pub struct BatchDetection<'a> {
    detector: &'a Detector,
    sensitivity: Option<Sensitivity>,
    credibility: Credibility,
    /// Whether candidates are searched and judged (`?detect=false` judges only declarations).
    detect: bool,
    /// The stored memories each node of the batch declares it replaces, by the node's id.
    declared: HashMap<Uuid, Vec<Node>>,
}

impl Detector {
    /// Detection for one batch's transaction: of its candidates (when `detect`) and of the
    /// memories its nodes declare they replace.
    pub async fn for_batch(
        &self,
        store: &dyn Store,
        sensitivity: Option<Sensitivity>,
        detect: bool,
        declared: HashMap<Uuid, Vec<Node>>,
    ) -> StoreResult<BatchDetection<'_>> {
        Ok(BatchDetection {
            detector: self,
            sensitivity,
            credibility: self.credibility(store).await?,
            detect,
            declared,
        })
    }
}

#[async_trait]
impl BatchJudge for BatchDetection<'_> {
    fn query(&self, node: &NewNode) -> Option<CandidateQuery> {
        self.detect.then(|| candidate_query(&Probe::of_new(node)))
    }

    fn overlaps(&self) -> bool {
        self.detector.policies.change_nothing()
    }

    async fn judge(
        &self,
        node: &NewNode,
        candidates: Vec<Candidate>,
    ) -> StoreResult<Vec<DetectedConflict>> {
        let declared = self.declared.get(&node.id);
        if !self.detect && declared.is_none() {
            return Ok(Vec::new());
        }
        let d = self.detector;
        let _busy = d.load.enter();
        let probe = Probe::of_new(node);
        // Kept in the memo, as a single write keeps its own: the batch's later nodes and the
        // writes after it judge this one as a candidate.
        let analysis = d.analysis(node.id, &probe.memory());
        let mut findings = d
            .judge_candidates(
                &probe,
                &analysis,
                candidates,
                self.sensitivity,
                if self.overlaps() {
                    Spread::Helper
                } else {
                    Spread::SpareCore
                },
            )
            .await;
        for old in declared.into_iter().flatten() {
            if !findings.iter().any(|f| f.old.id == old.id) {
                findings.push(Finding::declared(old.clone()));
            }
        }
        let mut found = d.conflicts_of(&probe, node.id, findings, &self.credibility);
        for hit in &mut found {
            hit.queued_by(node.changed_key.as_deref());
        }
        Ok(found)
    }
}

/// Detection for a sweep: a stored memory judged, with the rules, policies and
/// recommendations a write gets, against the candidates a write of it would have found (those
/// stored before it), with one credibility table read when the run began.
pub struct SweepDetection {
    detector: Arc<Detector>,
    credibility: Credibility,
}

impl Detector {
    /// Detection for one run of a sweep.
    pub async fn for_sweep(self: &Arc<Self>, store: &dyn Store) -> StoreResult<SweepDetection> {
        Ok(SweepDetection {
            detector: Arc::clone(self),
            credibility: self.credibility(store).await?,
        })
    }
}

impl SweepDetection {
    /// The candidate search a write of stored `node` made: only memories stored before it.
    pub fn query(&self, node: &Node, embedding: Option<&[f32]>) -> CandidateQuery {
        let mut q = candidate_query(&Probe::of_stored(node, embedding));
        q.before = Some(node.id);
        q
    }

    /// The conflicts stored `node` makes with `candidates` (pairs with a verdict or a conflict
    /// already are passed over), as its write would have queued them. A sweep's candidates
    /// come without their `remembered` flag (`CandidateQuery::before`): the rules
    /// judge each pair on its own, so the pairs they find are asked about afterwards, and only
    /// those; an LLM tier is asked about no remembered pair, so there all are asked first.
    pub async fn judge(
        &self,
        store: &dyn Store,
        node: &Node,
        embedding: Option<&[f32]>,
        mut candidates: Vec<Candidate>,
    ) -> StoreResult<Vec<DetectedConflict>> {
        let d = &self.detector;
        let probe = Probe::of_stored(node, embedding);
        let analysis = d.analysis(node.id, &probe.memory());
        let asked_first = d.llm.is_some();
        if asked_first {
            candidates = without_remembered(store, node.id, candidates, |c| c.node.id).await?;
        }
        let mut findings = d
            .judge_candidates(&probe, &analysis, candidates, None, Spread::CallersTask)
            .await;
        if !asked_first {
            findings = without_remembered(store, node.id, findings, |f| f.old.id).await?;
        }
        Ok(d.conflicts_of(&probe, node.id, findings, &self.credibility))
    }
}

/// `items` less those whose node (`id`) has a verdict with `node` already.
async fn without_remembered<T>(
    store: &dyn Store,
    node: Uuid,
    mut items: Vec<T>,
    id: impl Fn(&T) -> Uuid,
) -> StoreResult<Vec<T>> {
    let ids: Vec<Uuid> = items.iter().map(&id).collect();
    let remembered = store.remembered_among(node, &ids).await?;
    items.retain(|i| !remembered.contains(&id(i)));
    Ok(items)
}

/// The candidate search for `probe`: its rarest index tokens and the names of its subjects,
/// and for a short memory the newest of its scope and type as well.
fn candidate_query(probe: &Probe<'_>) -> CandidateQuery {
    let (tokens, names, short) = query_tokens(probe.title, probe.body);
    CandidateQuery {
        exclude: probe.id,
        scope: probe.scope.to_owned(),
        memory_type: probe.memory_type.to_owned(),
        tokens,
        names,
        labels: probe.labels.to_vec(),
        with_embedding: probe.embedding.is_some(),
        limit: MAX_CANDIDATES,
        newest: if short { NEWEST_FOR_SHORT } else { 0 },
        before: None,
        docs: None,
        hits: None,
    }
}

/// The tokens a memory's candidate search looks up (the rarest index tokens, then subject
/// names), the names, and whether the memory is short.
fn query_tokens(title: &str, body: &str) -> (Vec<String>, Vec<String>, bool) {
    let mut tokens = index_tokens(title, body);
    let short = tokens.len() <= SHORT_MEMORY_TOKENS;
    // Longer tokens are rarer: they find the same topic with fewer index hits.
    tokens.sort_by_key(|t| std::cmp::Reverse(t.chars().count()));
    tokens.truncate(MAX_QUERY_TOKENS);
    let names = subject_names(title, body);
    for n in &names {
        if !tokens.contains(n) {
            tokens.push(n.clone());
        }
    }
    (tokens, names, short)
}

/// Every tier at once: the other tiers' verdicts, and the LLM asked concurrently about each
/// candidate that passed the filters (the client bounds concurrency and time).
async fn judge_with_llm(
    llm: &Arc<LlmClient>,
    new: Analysed<'_>,
    candidates: Vec<(Candidate, Arc<Analysis>)>,
    cfg: &DetectConfig,
) -> Vec<Finding> {
    let mut asks = JoinSet::new();
    let mut judged = Vec::with_capacity(candidates.len());
    for (i, (c, analysis)) in candidates.into_iter().enumerate() {
        let old = memory_of(&c);
        let old_side = Analysed::new(old, &analysis);
        let other_tiers = contradiction::assess_analysed(new, old_side, cfg);
        let screened = contradiction::screen_analysed(new, old_side, cfg);
        if screened.is_some() {
            let (llm, pair) = (Arc::clone(llm), pair_of(&new.memory, &old));
            asks.spawn(async move { (i, llm.judge(&pair).await) });
        }
        judged.push((c, other_tiers, screened));
    }
    let mut answers: Vec<Option<Result<_, LlmError>>> = judged.iter().map(|_| None).collect();
    while let Some(joined) = asks.join_next().await {
        // A panicked ask leaves its answer empty, which falls back like an error.
        if let Ok((i, answer)) = joined {
            answers[i] = Some(answer);
        }
    }
    judged
        .into_iter()
        .zip(answers)
        .filter_map(|((c, other_tiers, screened), answer)| {
            let (verdict, llm_fallback) = with_llm(other_tiers, screened?, answer, cfg.sensitivity);
            Some(Finding {
                old: c.node,
                verdict: verdict?,
                llm_fallback,
            })
        })
        .collect()
}

/// The LLM verdict replaces the other tiers' when the LLM answered (under `strict` any tier's
/// verdict flags, so theirs stands when the LLM sees none); on an error theirs stands and the
/// reason is recorded.
fn with_llm(
    other_tiers: Option<Verdict>,
    screened: Screen,
    answer: Option<Result<contradiction::LlmJudgement, LlmError>>,
    sensitivity: Sensitivity,
) -> (Option<Verdict>, Option<String>) {
    match answer {
        Some(Ok(j)) => {
            let llm = contradiction::llm_verdict(&j, &screened, sensitivity);
            let strict = sensitivity == Sensitivity::Strict;
            (llm.or(other_tiers.filter(|_| strict)), None)
        }
        Some(Err(e)) => {
            tracing::warn!(error = %e, "LLM tier failed; falling back to the other tiers");
            (other_tiers, Some(e.to_string()))
        }
        None => (other_tiers, Some("LLM task failed".to_owned())),
    }
}

fn pair_of(new: &Memory, old: &Memory) -> Pair {
    Pair::new((old.title, old.body), (new.title, new.body))
}

/// Learned credibility per source, for sources with at least one verdict.
impl Detector {
    /// The verdicts learned so far, with the policy file's starting trust.
    pub async fn credibility(&self, store: &dyn Store) -> StoreResult<Credibility> {
        Ok(Credibility {
            verdicts: store.source_verdicts().await?,
            trust: Arc::clone(&self.policies.trust),
        })
    }
}

pub fn recommend_for(
    old: &Node,
    new: &Probe<'_>,
    table: &Credibility,
) -> crate::domain::conflict::Recommendation {
    recommend::recommend(
        &Standing {
            labels: &old.labels,
            confidence: old.confidence,
            observed_at: old.observed_at,
            credibility: credibility_of(table, &old.scope, old.source.as_deref()),
        },
        &Standing {
            labels: new.labels,
            confidence: new.confidence,
            observed_at: new.observed_at,
            credibility: credibility_of(table, new.scope, new.source),
        },
    )
}

impl Detector {
    /// Writes a node with the conflicts detection finds (unless `detect` is false), in one
    /// transaction.
    pub async fn write_node(
        &self,
        store: &dyn Store,
        node: NewNode,
        detect: bool,
        sensitivity: Option<Sensitivity>,
    ) -> StoreResult<(Node, Vec<crate::domain::conflict::Conflict>)> {
        let detection = detect.then_some(sensitivity);
        self.write_node_with(store, node, Vec::new(), detection, |node, found| {
            store.create_node(node, found)
        })
        .await
    }

    /// [`Detector::write_node`], with the node and what detection found written by `write`
    /// (a keyed request's write commits its reply with it). `detection` is `None` for a
    /// write without detection, else its sensitivity; the memories in `declared` are queued
    /// as conflicts either way.
    pub async fn write_node_with<W, F>(
        &self,
        store: &dyn Store,
        node: NewNode,
        declared: Vec<Node>,
        detection: Option<Option<Sensitivity>>,
        write: W,
    ) -> StoreResult<(Node, Vec<crate::domain::conflict::Conflict>)>
    where
        W: FnOnce(NewNode, Vec<DetectedConflict>) -> F,
        F: Future<Output = StoreResult<(Node, Vec<crate::domain::conflict::Conflict>)>>,
    {
        let _busy = self.load.enter();
        let (id, probe) = (node.id, Probe::of_new(&node));
        let analyse = || Arc::new(contradiction::analyse(&probe.memory()));
        let (mut findings, analysis) = if let Some(sensitivity) = detection {
            self.find_analysed(store, &probe, analyse, sensitivity)
                .await?
        } else {
            (Vec::new(), analyse())
        };
        // A declared replacement is judged like a detected contradiction (detection's own
        // verdict on the pair, when it found one), so only the policies can make it current.
        for old in declared {
            if !findings.iter().any(|f| f.old.id == old.id) {
                findings.push(Finding::declared(old));
            }
        }
        let mut found = self.to_conflicts(store, &probe, id, findings).await?;
        for hit in &mut found {
            hit.queued_by(node.changed_key.as_deref());
        }
        let written = write(node, found).await?;
        // The next writes find this node as a candidate: keep what was worked out already.
        self.analyses.put(id, analysis.fingerprint(), analysis);
        Ok(written)
    }

    /// What a stored node contradicts now, without writing anything.
    pub async fn check_node(
        &self,
        store: &dyn Store,
        id: Uuid,
        sensitivity: Option<Sensitivity>,
    ) -> StoreResult<Vec<(Finding, crate::domain::conflict::Recommendation)>> {
        let (node, embedding) = store.get_node_with_embedding(id).await?;
        let probe = Probe::of_stored(&node, embedding.as_deref());
        let findings = self.find(store, &probe, sensitivity).await?;
        let table = if findings.is_empty() {
            Credibility::default()
        } else {
            self.credibility(store).await?
        };
        Ok(findings
            .into_iter()
            .map(|f| {
                let r = recommend_for(&f.old, &probe, &table);
                (f, r)
            })
            .collect())
    }
}

impl Weigh for Analysis {
    fn weight(&self) -> usize {
        self.heap_bytes()
    }
}
