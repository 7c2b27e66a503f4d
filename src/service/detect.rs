//! Write-time detection: fetch candidates through the index (never a scan), judge each pair
//! with the pure rules of `domain::contradiction`, and turn verdicts into conflicts with a
//! recommendation. Candidate reads and judging happen before the write transaction opens, so
//! the optional LLM tier's network calls never hold a transaction.

use std::collections::HashSet;
use std::sync::Arc;

use futures_util::StreamExt;
use tokio::task::JoinSet;
use uuid::Uuid;

use crate::config::Settings;
use crate::domain::conflict::NewConflict;
use crate::domain::contradiction::{
    self, Analysed, Analysis, DetectConfig, Memory, Screen, Sensitivity, Verdict, index_tokens,
    subject_names,
};
use crate::domain::edge::{self, Edge};
use crate::domain::node::{NewNode, Node, NodeState};
use crate::domain::recommend::{self, Standing};
use crate::domain::time;
use crate::service::judging::{self, Load, memory_of};
use crate::service::llm::{LlmClient, LlmError, Pair};
use crate::service::memo::{Memo, Weigh};
use crate::service::policy::Policies;
use crate::store::{Candidate, CandidateQuery, DetectedConflict, SourceStats, Store, StoreResult};

pub use crate::service::finding::{Finding, Probe, credibility_of, detection_of};

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
        let llm = LlmClient::from_args(&settings.llm).unwrap_or_else(|e| {
            tracing::error!(error = %e, "LLM tier disabled: its HTTP client could not be built");
            None
        });
        Self {
            base: DetectConfig {
                min_overlap: settings.min_overlap,
                cosine_band: settings.cosine_band,
                sensitivity: settings.sensitivity,
            },
            llm: llm.map(Arc::new),
            policies: Policies::from_settings(settings),
            analyses: Arc::new(Memo::new(settings.analysis_cache_mib << 20)),
            load: Load::new(),
        }
    }

    /// Stored memories' analyses kept for judging (filled at startup by `warmup`).
    pub fn analyses(&self) -> &Memo<Analysis> {
        &self.analyses
    }

    /// The deployment's detection settings.
    pub fn config(&self) -> DetectConfig {
        self.base
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
            .find_analysed(store, probe, analyse, sensitivity, Vec::new())
            .await?;
        Ok(findings)
    }

    /// [`Self::find`] with the probe analysed by `analyse`, which runs while the database
    /// looks for candidates, and `extra` candidates judged beside the stored ones (a batch's
    /// earlier nodes); with the analysis.
    async fn find_analysed(
        &self,
        store: &dyn Store,
        probe: &Probe<'_>,
        analyse: impl FnOnce() -> Arc<Analysis>,
        sensitivity: Option<Sensitivity>,
        extra: Vec<Candidate>,
    ) -> StoreResult<(Vec<Finding>, Arc<Analysis>)> {
        let cfg = DetectConfig {
            sensitivity: sensitivity.unwrap_or(self.base.sensitivity),
            ..self.base
        };
        let search = store.candidates(candidate_query(probe));
        // `join!` polls the search first, so its first statement is on its way before the
        // analysis starts: the two run at the same time.
        let (candidates, analysis) = tokio::join!(search, async { analyse() });
        let candidates = (candidates?.into_iter())
            .chain(extra)
            .filter(|c| !c.remembered);
        let findings = match &self.llm {
            None => {
                let (memo, load, new) = (&self.analyses, &self.load, probe.memory());
                judging::judge(memo, load, new, &analysis, candidates.collect(), cfg).await
            }
            Some(llm) => {
                let new = Analysed::new(probe.memory(), &analysis);
                let judged = candidates
                    .map(|c| {
                        let analysis = self.analysis(c.node.id, &memory_of(&c));
                        (c, analysis)
                    })
                    .collect();
                judge_with_llm(llm, new, judged, &cfg).await
            }
        };
        Ok((findings, analysis))
    }

    /// What detection finds for each node of a batch, in input order, as conflicts to write
    /// with it: against the stored memories through the index, and against the batch's
    /// earlier nodes as though they had been written one at a time before it
    /// ([`batch_candidates`]). The nodes are judged a few at a time: each one's candidate
    /// search waits on the database while another's candidates are judged.
    pub async fn detect_batch(
        &self,
        store: &dyn Store,
        nodes: &[NewNode],
        sensitivity: Option<Sensitivity>,
    ) -> StoreResult<Vec<Vec<DetectedConflict>>> {
        let _busy = self.load.enter();
        let index: Vec<BatchIndex> = nodes.iter().map(BatchIndex::of).collect();
        let credibility = credibility_table(store).await?;
        let (index, credibility) = (&index, &credibility);
        // Indices, not `(i, &node)` items: a closure over borrowed items would not be general
        // enough over their lifetime for a future that must be `Send`.
        let judged = futures_util::stream::iter(0..nodes.len())
            .map(|i| async move {
                let node = &nodes[i];
                let probe = Probe::of_new(node);
                let extra = batch_candidates(nodes, index, i)
                    .into_iter()
                    .map(|j| Candidate {
                        node: nodes[j].to_node(),
                        embedding: nodes[j].embedding.clone(),
                        remembered: false,
                    })
                    .collect();
                let analyse = || self.analysis(node.id, &probe.memory());
                let (findings, _) = self
                    .find_analysed(store, &probe, analyse, sensitivity, extra)
                    .await?;
                Ok(self.conflicts_of(&probe, node.id, findings, credibility))
            })
            .buffered(BATCH_DETECTIONS)
            .collect::<Vec<StoreResult<_>>>()
            .await;
        judged.into_iter().collect()
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
        let credibility = credibility_table(store).await?;
        Ok(self.conflicts_of(probe, new_id, findings, &credibility))
    }

    /// [`Self::to_conflicts`] with the credibility table at hand.
    fn conflicts_of(
        &self,
        probe: &Probe<'_>,
        new_id: Uuid,
        findings: Vec<Finding>,
        credibility: &[SourceStats],
    ) -> Vec<DetectedConflict> {
        let now = time::now();
        findings
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
                };
                e.created_at = now;
                e.valid_from = now;
                let resolve = firing.and_then(|p| p.apply(&mut conflict));
                DetectedConflict {
                    conflict,
                    edge: e,
                    resolve,
                }
            })
            .collect()
    }
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

/// How many nodes of a batch are judged at once.
const BATCH_DETECTIONS: usize = 4;

/// A batch node as the candidate search sees it: what it looks up, and what it is found by.
struct BatchIndex {
    query: Vec<String>,
    indexed: HashSet<String>,
    short: bool,
}

impl BatchIndex {
    fn of(node: &NewNode) -> Self {
        let (query, _, short) = query_tokens(&node.title, &node.body);
        Self {
            query,
            indexed: index_tokens(&node.title, &node.body).into_iter().collect(),
            short,
        }
    }
}

/// The earlier nodes of a batch that node `i`'s candidate search would have found had they
/// been written one at a time before it, newest first: active nodes of its scope and type
/// that hold one of the words it looks up, share a label when both carry an embedding, or,
/// for a short memory, are among the newest of that scope and type. At most
/// [`MAX_CANDIDATES`] of them.
fn batch_candidates(nodes: &[NewNode], index: &[BatchIndex], i: usize) -> Vec<usize> {
    let new = &nodes[i];
    let mut newest = 0;
    let mut found = Vec::new();
    for j in (0..i).rev() {
        let old = &nodes[j];
        if old.scope != new.scope
            || old.memory_type != new.memory_type
            || old.state != NodeState::Active
        {
            continue;
        }
        let recent = index[i].short && newest < NEWEST_FOR_SHORT;
        newest += 1;
        let by_word = index[i].query.iter().any(|t| index[j].indexed.contains(t));
        let by_label = new.embedding.is_some()
            && old.embedding.is_some()
            && old.labels.iter().any(|l| new.labels.contains(l));
        if recent || by_word || by_label {
            found.push(j);
            if found.len() == MAX_CANDIDATES {
                break;
            }
        }
    }
    found
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
pub async fn credibility_table(store: &dyn Store) -> StoreResult<Vec<SourceStats>> {
    store.source_verdicts().await
}

pub fn recommend_for(
    old: &Node,
    new: &Probe<'_>,
    table: &[SourceStats],
) -> crate::domain::conflict::Recommendation {
    recommend::recommend(
        &Standing {
            labels: &old.labels,
            confidence: old.confidence,
            observed_at: old.observed_at,
            credibility: credibility_of(table, old.source.as_deref()),
        },
        &Standing {
            labels: new.labels,
            confidence: new.confidence,
            observed_at: new.observed_at,
            credibility: credibility_of(table, new.source),
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
        self.write_node_with(store, node, detect, sensitivity, |node, found| {
            store.create_node(node, found)
        })
        .await
    }

    /// [`Detector::write_node`], with the node and what detection found written by `write`
    /// (a keyed request's write commits its reply with it).
    pub async fn write_node_with<W, F>(
        &self,
        store: &dyn Store,
        node: NewNode,
        detect: bool,
        sensitivity: Option<Sensitivity>,
        write: W,
    ) -> StoreResult<(Node, Vec<crate::domain::conflict::Conflict>)>
    where
        W: FnOnce(NewNode, Vec<DetectedConflict>) -> F,
        F: Future<Output = StoreResult<(Node, Vec<crate::domain::conflict::Conflict>)>>,
    {
        let _busy = self.load.enter();
        let (id, probe) = (node.id, Probe::of_new(&node));
        let analyse = || Arc::new(contradiction::analyse(&probe.memory()));
        let (found, analysis) = if detect {
            let (findings, analysis) = self
                .find_analysed(store, &probe, analyse, sensitivity, Vec::new())
                .await?;
            let found = self.to_conflicts(store, &probe, id, findings).await?;
            (found, analysis)
        } else {
            (Vec::new(), analyse())
        };
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
            Vec::new()
        } else {
            credibility_table(store).await?
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::node::NodeInput;

    fn node(title: &str, body: &str, scope: &str, state: &str) -> NewNode {
        let input = NodeInput {
            title: Some(title.into()),
            body: Some(body.into()),
            scope: Some(scope.into()),
            state: Some(state.into()),
            ..NodeInput::default()
        };
        NewNode::parse(input, time::now()).unwrap()
    }

    #[test]
    fn a_batch_node_finds_the_earlier_ones_its_search_would_find() {
        let long = "The cache TTL for the payment service is 30 seconds in every region we run, \
                    set by the platform team last spring after the outage";
        let nodes = vec![
            node("Cache TTL", long, "a", "active"),
            node("Cache TTL", long, "b", "active"),
            node("Cache TTL", long, "a", "dormant"),
            node("Lunch", "Lunch is in the big room", "a", "active"),
            node("Cache TTL", &long.replace("30", "60"), "a", "active"),
            node("Moved", "Moved to Lisbon", "a", "active"),
        ];
        let index: Vec<_> = nodes.iter().map(BatchIndex::of).collect();

        // A long memory finds the active one of its scope sharing its words, not the other
        // scope's, the dormant one or the unrelated one; nothing comes after it.
        assert_eq!(batch_candidates(&nodes, &index, 4), [0]);
        assert!(batch_candidates(&nodes, &index, 0).is_empty());
        // A short memory also takes the newest of its scope and type, newest first.
        assert_eq!(batch_candidates(&nodes, &index, 5), [4, 3, 0]);
    }
}
