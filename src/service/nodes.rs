//! Writing and checking memories: validate, detect, store, and wake the watchers. `POST
//! /nodes`, `POST /nodes/{id}/check` and the MCP tools `remember` and `check_contradictions`
//! all come through here.

use std::collections::HashSet;

use uuid::Uuid;

use crate::domain::FieldError;
use crate::domain::access::Caller;
use crate::domain::conflict::{Conflict, Detection, Recommendation, Status, Strategy};
use crate::domain::contradiction::Sensitivity;
use crate::domain::contradiction::index_tokens;
use crate::domain::cursor::{Cursor, Page};
pub use crate::domain::node::Remembered;
use crate::domain::node::{NewNode, Node, NodeInput, NodePatch, NodeState};
use crate::domain::restatement::restates;
use crate::domain::time;
use crate::domain::valid_time::PointInTime;
use crate::domain::version::{self, NodeVersion};
use crate::service::detect::{Finding, Probe, recommend_for};
use crate::service::idempotency::{self, Claim};
use crate::service::scopes::{may_write, seen_node};
use crate::service::{Error, Result, Services, replies};
use crate::store::StoreError;
pub use crate::store::{KnownQuery, NodeQuery};

/// A contradiction a check found; nothing was queued for it.
pub struct Hit {
    /// The stored node the checked text contradicts.
    pub old: Node,
    pub conflict_type: String,
    pub detection: Detection,
    pub recommendation: Recommendation,
    /// The conflict that already stands for this pair, when there is one: a pending one, or
    /// one a reviewer resolved as `keep_both` (both hold; detection no longer raises it).
    pub conflict_id: Option<Uuid>,
    /// Whether the pair was decided `keep_both` (the conflict is resolved), and by whom.
    pub kept_both: bool,
    pub resolved_by: Option<String>,
}

impl Hit {
    fn new(f: Finding, recommendation: Recommendation) -> Self {
        Self {
            conflict_type: f.verdict.conflict_type.as_str().to_owned(),
            detection: f.detection(),
            recommendation,
            old: f.old,
            conflict_id: None,
            kept_both: false,
            resolved_by: None,
        }
    }
}

/// How a write is made.
#[derive(Debug, Clone, Copy)]
pub struct WriteOptions {
    /// Whether detection runs (`?detect=false` skips it).
    pub detect: bool,
    pub sensitivity: Option<Sensitivity>,
    /// Whether a restatement of an active memory is stored as a copy
    /// (`?allow_duplicate=true`) instead of returning that memory.
    pub allow_duplicate: bool,
}

impl Default for WriteOptions {
    fn default() -> Self {
        Self {
            detect: true,
            sensitivity: None,
            allow_duplicate: false,
        }
    }
}

/// Validates and stores a node, with the conflicts detection finds (unless `detect` is
/// false) in the same transaction, and wakes waiters when any was queued; a restatement of an
/// active memory returns that memory instead (unless `allow_duplicate`). With a claimed key
/// a new node's reply ([`replies::node_written`]) commits in its transaction (a restatement
/// changes nothing a retry could repeat: its reply is kept like a read's). `by` is who writes
/// it (its first version records it). The caller's key must hold the node's scope; without
/// one, it is written to `default`, as the contract has it ([`parse_for`]).
pub async fn remember(
    svc: &Services,
    caller: &Caller,
    input: NodeInput,
    by: Option<String>,
    options: WriteOptions,
    claim: Option<&Claim>,
) -> Result<Remembered> {
    let mut node = parse_for(caller, input)?;
    if !options.allow_duplicate
        && let Some(restated) = restated(svc, caller, &node).await?
    {
        return Ok(restated);
    }
    let declared = declared_replacements(svc, caller, &node).await?;
    node.changed_by = by;
    node.changed_key = caller.writer();
    let store = &*svc.store;
    let write = |node, found| async move {
        match claim {
            None => store.create_node(node, found).await,
            Some(c) => {
                let pending = store.create_node_keyed(node, found).await?;
                idempotency::commit(c, pending, replies::node_written).await
            }
        }
    };
    let (node, conflicts) = svc
        .detector
        .write_node_with(
            store,
            node,
            declared,
            options.detect.then_some(options.sensitivity),
            write,
        )
        .await?;
    if !conflicts.is_empty() {
        svc.notifier.bump();
    }
    Ok(Remembered::Written { node, conflicts })
}

/// The memories a write declares it replaces (`provenance.replaces`), each a current memory
/// of its scope that the caller sees; any other id is a 422 at its pointer, and nothing is
/// written.
pub(super) async fn declared_replacements(
    svc: &Services,
    caller: &Caller,
    new: &NewNode,
) -> Result<Vec<Node>> {
    let Some(p) = &new.provenance else {
        return Ok(Vec::new());
    };
    let (mut found, mut errors) = (Vec::new(), Vec::new());
    for (i, id) in p.replaces.iter().enumerate() {
        let problem = match get(svc, caller, *id).await {
            Err(Error::NotFound(_)) => "names no memory".to_owned(),
            Err(e) => return Err(e),
            Ok(n) if n.scope != new.scope => {
                format!("names a memory of scope {}, not {}", n.scope, new.scope)
            }
            Ok(n) if n.state != NodeState::Active => {
                format!("names a memory that is not current (it is {})", n.state)
            }
            Ok(n) => {
                found.push(n);
                continue;
            }
        };
        errors.push(FieldError::new(
            format!("/provenance/replaces/{i}"),
            problem,
        ));
    }
    match errors.is_empty() {
        true => Ok(found),
        false => Err(Error::Invalid(errors)),
    }
}

/// The active memory of the new node's scope that it restates, with its source recorded as
/// corroboration; none when its text is new. The oldest such memory answers, so that every
/// restatement lands on the same one even where copies were stored before.
async fn restated(svc: &Services, caller: &Caller, new: &NewNode) -> Result<Option<Remembered>> {
    let same_title = svc.store.same_title(&new.scope, &new.title).await?;
    let Some(stored) = same_title
        .into_iter()
        .find(|old| restates(&new.title, &new.body, &old.title, &old.body))
    else {
        return Ok(None);
    };
    let source = new
        .source
        .as_deref()
        .filter(|s| Some(*s) != stored.source.as_deref());
    let key = caller.writer();
    let corroborated_by = svc
        .store
        .corroborate(stored.id, source, key.as_deref(), time::now())
        .await?;
    let node = svc.store.get_node(stored.id).await?;
    Ok(Some(Remembered::Restated {
        node,
        corroborated_by,
    }))
}

/// What a stored node contradicts now among the active nodes, its pending conflicts and its
/// `keep_both` verdicts included (detection passes over a pair a conflict already stands
/// for, but a check must not read as "no contradiction" while one waits or after a reviewer
/// said both hold); writes nothing.
pub async fn check_node(
    svc: &Services,
    caller: &Caller,
    id: Uuid,
    sensitivity: Option<Sensitivity>,
) -> Result<Vec<Hit>> {
    Ok(check_stored(svc, caller, id, sensitivity).await?.1)
}

/// A new node as the caller writes it: parsed and validated as any write, and refused when
/// the key does not hold its scope.
pub fn parse_for(caller: &Caller, input: NodeInput) -> Result<NewNode> {
    let node = NewNode::parse(input, time::now()).map_err(Error::Invalid)?;
    may_write(caller, &node.scope)?;
    Ok(node)
}

/// The node's pending conflicts and `keep_both` verdicts as hits against the other side,
/// carrying the conflict's id; pairs detection found again are left to its hit, and a pair
/// is reported once (its latest standing conflict).
async fn standing(svc: &Services, node: &Node, found: &[Hit]) -> Result<Vec<Hit>> {
    let mut conflicts = Vec::with_capacity(node.conflict_ids.len());
    for &conflict_id in &node.conflict_ids {
        conflicts.push(svc.store.get_conflict(conflict_id).await?);
    }
    // Latest decision first, so that a pair decided twice reads as its last verdict.
    let mut kept: Vec<Conflict> = svc
        .store
        .conflicts_of_node(node.id)
        .await?
        .into_iter()
        .filter(|c| c.status == Status::Resolved && c.resolution == Some(Strategy::KeepBoth))
        .collect();
    kept.sort_by_key(|c| c.resolved_at);
    kept.reverse();
    conflicts.extend(kept);
    let mut out: Vec<Hit> = Vec::new();
    for c in conflicts {
        let other = if c.old_node_id == Some(node.id) {
            c.new_node
        } else {
            c.old_node
        };
        let Some(other) = other else { continue };
        if found.iter().chain(&out).any(|h| h.old.id == other.id) {
            continue;
        }
        out.push(Hit {
            old: other,
            conflict_type: c.conflict_type,
            detection: c.detection,
            recommendation: c.recommendation,
            conflict_id: Some(c.id),
            kept_both: c.resolution.is_some(),
            resolved_by: c.resolved_by,
        });
    }
    Ok(out)
}

/// What a memory that is not stored would contradict if it were written; writes nothing.
/// The input is validated exactly as a write would be.
pub async fn check_text(
    svc: &Services,
    caller: &Caller,
    input: NodeInput,
    sensitivity: Option<Sensitivity>,
) -> Result<Vec<Hit>> {
    let node = parse_for(caller, input)?;
    let store = &*svc.store;
    let probe = Probe::of_new(&node);
    let findings = svc.detector.find(store, &probe, sensitivity).await?;
    if findings.is_empty() {
        return Ok(Vec::new());
    }
    let table = svc.detector.credibility(store).await?;
    Ok(findings
        .into_iter()
        .map(|f| {
            let r = recommend_for(&f.old, &probe, &table);
            Hit::new(f, r)
        })
        .collect())
}

/// [`check_node`], with the stored node itself (the side the hits were checked for).
pub async fn check_stored(
    svc: &Services,
    caller: &Caller,
    id: Uuid,
    sensitivity: Option<Sensitivity>,
) -> Result<(Node, Vec<Hit>)> {
    get(svc, caller, id).await?;
    let found = svc
        .detector
        .check_node(&*svc.store, id, sensitivity)
        .await?;
    let mut hits: Vec<Hit> = found.into_iter().map(|(f, r)| Hit::new(f, r)).collect();
    let node = svc.store.get_node(id).await?;
    hits.extend(standing(svc, &node, &hits).await?);
    // Detection stays within the node's scope; a conflict a key of every scope queued across
    // scopes is not shown to a key that holds only one of them.
    hits.retain(|h| caller.holds(&h.old.scope));
    Ok((node, hits))
}

/// One node, when the caller sees it.
pub async fn get(svc: &Services, caller: &Caller, id: Uuid) -> Result<Node> {
    seen_node(caller, svc.store.get_node(id).await?)
}

/// A node's versions, when the caller sees the node: as it is now, or (deleted) as its last
/// version left it.
async fn seen_versions(svc: &Services, caller: &Caller, id: Uuid) -> Result<Vec<NodeVersion>> {
    let versions = svc.store.node_versions(id).await?;
    match versions.last() {
        Some(v) if caller.holds(&v.standing.scope) => Ok(versions),
        _ => Err(Error::NotFound("node")),
    }
}

/// A page of a node's versions, oldest first, after the version `after` names; a deleted
/// node's too (its tombstone last).
pub async fn versions(
    svc: &Services,
    caller: &Caller,
    id: Uuid,
    limit: usize,
    after: Option<Cursor>,
) -> Result<Page<NodeVersion>> {
    let after = match after {
        None => 0,
        Some(c) if c.id == id => c.key.parse::<i64>().map_err(|_| bad_cursor())?,
        Some(_) => return Err(bad_cursor()),
    };
    let rows = seen_versions(svc, caller, id)
        .await?
        .into_iter()
        .filter(|v| v.version > after)
        .take(limit + 1)
        .collect();
    Ok(Page::from_rows(rows, limit, |v| {
        Cursor::new(v.version.to_string(), v.node_id)
    }))
}

fn bad_cursor() -> Error {
    Error::Invalid(vec![FieldError::new(
        "/cursor",
        "is not a cursor of this list",
    )])
}

/// A node as it stood at a point in time: the version concord held at `at.known`, if the
/// memory held at `at.valid`; `NotFound` otherwise.
pub async fn get_at(svc: &Services, caller: &Caller, id: Uuid, at: PointInTime) -> Result<Node> {
    let versions = seen_versions(svc, caller, id).await?;
    let v = version::known_at(&versions, at.known)
        .filter(|v| v.standing.holds_at(at.valid))
        .ok_or(Error::NotFound("node"))?;
    // Embeddings and provenance are not versioned: they are read from the live node.
    let live = match svc.store.get_node(id).await {
        Ok(n) => Some(n),
        Err(StoreError::NotFound(_)) => None,
        Err(e) => return Err(e.into()),
    };
    let has_embedding = live.as_ref().is_some_and(|n| n.has_embedding);
    let mut node = v.to_node(versions[0].recorded_at, has_embedding);
    node.provenance = live.and_then(|n| n.provenance);
    Ok(node)
}

/// Up to `limit` memories whose words at `at` contain every one of `tokens` and that carry one
/// of `labels` (any when empty), that held at `at.valid` as concord knew them at `at.known`.
/// Candidates are found by their current words in any state (a memory superseded since still
/// answers for the time it held) and kept when the text they had then matches too; a memory
/// deleted since is not found.
pub(crate) async fn memories_at(
    svc: &Services,
    caller: &Caller,
    tokens: &[String],
    labels: &[String],
    limit: usize,
    at: PointInTime,
) -> Result<Vec<Node>> {
    let mut found: Vec<Node> = Vec::new();
    for state in [NodeState::Active, NodeState::Dormant, NodeState::Archived] {
        if tokens.is_empty() || found.len() >= limit {
            break;
        }
        let page = svc
            .store
            .list_nodes(NodeQuery {
                tokens: Some(tokens.to_vec()),
                state: Some(state),
                limit: 200,
                scopes: caller.visible(),
                ..Default::default()
            })
            .await?;
        for current in page.items {
            if found.len() >= limit {
                break;
            }
            let then = match get_at(svc, caller, current.id, at).await {
                Ok(n) => n,
                Err(Error::NotFound(_)) => continue,
                Err(e) => return Err(e),
            };
            let words: HashSet<String> =
                index_tokens(&then.title, &then.body).into_iter().collect();
            let labelled = labels.is_empty() || then.labels.iter().any(|l| labels.contains(l));
            if labelled && tokens.iter().all(|t| words.contains(t)) {
                found.push(then);
            }
        }
    }
    Ok(found)
}

/// The memories that held at `q.at.valid` as concord knew them at `q.at.known`, newest first.
pub async fn list_at(svc: &Services, caller: &Caller, mut q: KnownQuery) -> Result<Page<Node>> {
    q.scopes = caller.visible();
    Ok(svc.store.list_known(q).await?)
}

/// One version of a node; `NotFound` when the node or the version does not exist.
pub async fn version(
    svc: &Services,
    caller: &Caller,
    id: Uuid,
    version: i64,
) -> Result<NodeVersion> {
    seen_versions(svc, caller, id)
        .await?
        .into_iter()
        .find(|v| v.version == version)
        .ok_or(Error::NotFound("version"))
}

/// Changes a node (the patch is parsed by the caller: `NodePatch::parse`); `by` is who does
/// (its version records it). The caller must see the node and hold the scope it moves to;
/// a node with conflicts stays in its scope (a conflict belongs to the scope of its nodes).
pub async fn update(
    svc: &Services,
    caller: &Caller,
    id: Uuid,
    mut patch: NodePatch,
    by: Option<String>,
) -> Result<Node> {
    let node = get(svc, caller, id).await?;
    if let Some(scope) = patch.scope.as_deref().filter(|s| *s != node.scope) {
        may_write(caller, scope)?;
        if !svc.store.conflicts_of_node(id).await?.is_empty() {
            return Err(Error::invalid(
                "/scope",
                "the memory has conflicts in its scope and cannot move to another",
            ));
        }
    }
    patch.changed_by = by;
    patch.changed_key = caller.writer();
    Ok(svc.store.update_node(id, patch).await?)
}

/// Deletes a node with its edges and the pending conflicts it is the old side of; `by` is who
/// does (its tombstone version records it).
pub async fn delete(svc: &Services, caller: &Caller, id: Uuid, by: Option<&str>) -> Result<()> {
    get(svc, caller, id).await?;
    let key = caller.writer();
    Ok(svc.store.delete_node(id, by, key.as_deref()).await?)
}

/// A page of nodes, newest first, or ranked by the full-text query's index tokens.
pub async fn list(svc: &Services, caller: &Caller, mut query: NodeQuery) -> Result<Page<Node>> {
    query.scopes = caller.visible();
    if query.tokens.as_ref().is_some_and(|t| t.is_empty()) {
        // Nothing searchable (only punctuation or stop words): nothing matches.
        return Ok(Page {
            items: Vec::new(),
            next_cursor: None,
        });
    }
    Ok(svc.store.list_nodes(query).await?)
}
