//! Executes a resolution plan (`domain::plan`) in one write transaction, on either database.
//!
//! The backend locks first ([`Backend::lock_for_resolution`]: SQLite's write lock is already
//! held, PostgreSQL locks the conflict row and then its nodes in id order), so concurrent
//! requests for one conflict run one after another and every one after the first sees it
//! resolved. Each [`Step`] is one function call below; a new kind of step is a new arm of
//! [`execute`]. A failing step (or commit) rolls everything back and reports the actions done
//! so far; with the `failpoints` feature a test can make any step fail right after it ran.

use sqlx::types::Json;

use crate::domain::conflict::{Action, Conflict, Status};
use crate::domain::contradiction::index_tokens;
use crate::domain::history::{self, HistoryEntry, HistoryKind};
use crate::domain::plan::{self, Plan, PlanError, Resolve, Step};
use crate::domain::pre_image::PreImage;
use crate::domain::time;
use crate::store::backend::{Backend, Cols, Conn, Id, QueryExt, Ts};
use crate::store::nodes::Change;
use crate::store::units::{Open, Uncommitted};
use crate::store::{Failure, Refusal};
use crate::store::{
    Resolution, StoreError, StoreResult, conflicts, edges, failpoints, nodes, pre_image,
};

/// Resolves in its own write transaction, left open for its commit (a failed commit reports
/// the actions done, like a failed step); a replay only reads.
pub async fn resolve<B: Backend>(store: &B, req: Resolve) -> StoreResult<Open<B, Resolution>> {
    let mut tx = store.write().await?;
    let (outcome, done) = execute_in::<B>(&mut tx, &req).await?;
    let tx = if outcome.replayed {
        Uncommitted::read_only(tx)
    } else {
        Uncommitted::resolution(tx, done)
    };
    Ok(Open { outcome, tx })
}

/// Resolves inside a write transaction the caller owns and commits (a resolution request's
/// own, or a node write's when a policy resolves what it detected). Returns the outcome and
/// the actions done, for the caller's commit error.
pub async fn execute_in<B: Backend>(
    tx: &mut Conn<B>,
    req: &Resolve,
) -> StoreResult<(Resolution, Vec<Action>)> {
    B::lock_for_resolution(tx, req.conflict_id).await?;
    let conflict = conflicts::get_in::<B>(tx, req.conflict_id).await?;
    if !conflict.seen_by(req.scopes.as_deref()) {
        return Err(StoreError::NotFound("conflict"));
    }
    if conflict.status == Status::Resolved {
        return Ok((replay::<B>(tx, req, &conflict).await?, Vec::new()));
    }
    let plan = plan::plan(&conflict, req, time::now()).map_err(plan_error)?;
    let pre_image = pre_image::capture::<B>(tx, &conflict, &plan, req.strategy).await?;
    let run = Run {
        conflict: &conflict,
        req,
        plan: &plan,
        pre_image: &pre_image,
    };
    let mut done: Vec<Action> = Vec::with_capacity(plan.steps.len());
    for step in &plan.steps {
        match run.execute::<B>(tx, step, &done).await {
            Ok(action) => done.push(action),
            Err(cause) => {
                // Dropping the transaction rolls every step back.
                return Err(StoreError::Failed(Failure::Resolution {
                    failed_action: step.action(conflict.id, 0).name().to_owned(),
                    partial_actions: done,
                    cause: Box::new(cause),
                }));
            }
        }
    }
    Ok((run.outcome(done.clone()), done))
}

/// A resolved conflict asked again: the same request replays, another one is refused.
async fn replay<B: Backend>(
    conn: &mut Conn<B>,
    req: &Resolve,
    conflict: &Conflict,
) -> StoreResult<Resolution> {
    let row = B::query("select merged_content, outcome from conflict_queue where conflict_id = $1")
        .arg(Id(req.conflict_id))
        .optional(conn)
        .await?
        .ok_or(StoreError::NotFound("conflict"))?;
    let c = Cols::<B::Db>::new(&row);
    let merged: Option<String> = c.get("merged_content")?;
    let mut stored: Resolution = c.opt_json("outcome")?.ok_or_else(|| {
        StoreError::Failed(Failure::Corrupt("resolved conflict without outcome".into()))
    })?;
    if req.repeats(conflict, merged.as_deref()) {
        stored.replayed = true;
        Ok(stored)
    } else {
        Err(StoreError::Refused(Refusal::AlreadyResolved(Box::new(
            stored,
        ))))
    }
}

fn plan_error(e: PlanError) -> StoreError {
    match e {
        PlanError::Stale { node_id, state } => {
            StoreError::Refused(Refusal::Stale { node_id, state })
        }
        PlanError::MissingOldNode => StoreError::NotFound("node"),
    }
}

/// One resolution under way: the conflict as read in its transaction, the request, the plan,
/// and what the plan overwrites (kept with the history entry, for a revert).
struct Run<'a> {
    conflict: &'a Conflict,
    req: &'a Resolve,
    plan: &'a Plan,
    pre_image: &'a PreImage,
}

impl Run<'_> {
    /// Runs one step; returns the action it reports.
    async fn execute<B: Backend>(
        &self,
        conn: &mut Conn<B>,
        step: &Step,
        done: &[Action],
    ) -> StoreResult<Action> {
        let at = Ts(self.plan.resolved_at);
        let change = Change::in_conflict(
            self.conflict.id,
            self.req.resolved_by.as_deref(),
            self.req.key.as_deref(),
        );
        let mut moved = 0;
        match step {
            Step::CreateNode(node) => {
                let tokens = index_tokens(&node.title, &node.body).join(" ");
                nodes::insert::<B>(conn, node, &tokens, None, &change).await?;
                B::query("update conflict_queue set new_node_id = $2 where conflict_id = $1")
                    .arg(Id(self.conflict.id))
                    .arg(Id(node.id))
                    .run(conn)
                    .await?;
            }
            Step::SetState {
                node_id,
                to,
                validity,
                ..
            } => {
                B::query(
                    "update nodes set state = $2, updated_at = $3, changed_by = $4, \
                     changed_in = $5, valid_until = $6, corrected = $7, changed_key = $8 \
                     where node_id = $1",
                )
                .arg(Id(*node_id))
                .arg(to.as_str())
                .arg(at)
                .arg(change.by.clone())
                .arg(change.conflict.map(Id))
                .arg(validity.valid_until.map(Ts))
                .arg(validity.corrected)
                .arg(change.key.clone())
                .run(conn)
                .await?;
            }
            Step::CreateEdge(edge) => edges::insert::<B>(conn, edge).await?,
            Step::MergeBody {
                node_id,
                body,
                labels,
                ..
            } => {
                let old = self.conflict.old_node.as_ref();
                let old = old.ok_or(StoreError::NotFound("node"))?;
                B::query(
                    "update nodes set body = $2, labels = $3, search_tokens = $4, \
                     updated_at = $5, changed_by = $6, changed_in = $7, changed_key = $8 \
                     where node_id = $1",
                )
                .arg(Id(*node_id))
                .arg(body)
                .arg(Json(labels))
                .arg(index_tokens(&old.title, body).join(" "))
                .arg(at)
                .arg(change.by.clone())
                .arg(change.conflict.map(Id))
                .arg(change.key.clone())
                .run(conn)
                .await?;
            }
            Step::MoveEdges { from, to } => {
                moved = edges::move_edges::<B>(conn, *from, *to).await?
            }
            Step::DeleteNode { node_id } => nodes::delete_in::<B>(conn, *node_id, &change).await?,
            Step::MarkResolved => self.mark_resolved::<B>(conn, step, done).await?,
        }
        let action = step.action(self.conflict.id, moved);
        failpoints::hit(self.conflict.id, action.name())?;
        Ok(action)
    }

    /// The conflict's own update, with the reply stored for replay, the source verdicts and
    /// the event, all in the resolution's transaction.
    async fn mark_resolved<B: Backend>(
        &self,
        conn: &mut Conn<B>,
        step: &Step,
        done: &[Action],
    ) -> StoreResult<()> {
        let (conflict, req) = (self.conflict, self.req);
        let mut actions = done.to_vec();
        actions.push(step.action(conflict.id, 0));
        let stored = self.outcome(actions.clone());
        B::query(
            "update conflict_queue set status = 'resolved', resolution = $2, \
             merged_content = $3, resolved_at = $4, resolved_by = $5, \
             note = coalesce($6, note), actions = $7, outcome = $8, updated_at = $4 \
             where conflict_id = $1 and status = 'pending'",
        )
        .arg(Id(conflict.id))
        .arg(req.strategy.as_str())
        .arg(&req.merged_content)
        .arg(Ts(self.plan.resolved_at))
        .arg(&req.resolved_by)
        .arg(&req.note)
        .arg(Json(&actions))
        .arg(Json(&stored))
        .run(conn)
        .await?;
        for v in pre_image::verdicts(conflict, req.strategy) {
            conflicts::count_verdict::<B>(conn, &v.scope, &v.source, v.upheld).await?;
        }
        let kind = if history::is_automatic(req.resolved_by.as_deref()) {
            HistoryKind::AutoResolved
        } else {
            HistoryKind::Resolved
        };
        let entry = HistoryEntry {
            at: self.plan.resolved_at,
            kind,
            by: req.resolved_by.clone(),
            key: req.key.clone(),
            resolution: Some(req.strategy),
            note: req.note.clone(),
            actions,
        };
        crate::store::history::record::<B>(conn, conflict.id, &entry, Some(self.pre_image)).await?;
        conflicts::event::<B>(conn, "conflict.resolved", conflict.id, conflict.seq).await
    }

    fn outcome(&self, actions: Vec<Action>) -> Resolution {
        Resolution {
            conflict_id: self.conflict.id,
            strategy: self.req.strategy,
            old_node_id: Some(self.plan.old_node_id),
            new_node_id: self.plan.new_node_id,
            actions,
            resolved_at: self.plan.resolved_at,
            replayed: false,
            reason: self.plan.reason.map(|(r, _)| r),
            reason_inferred: self.plan.reason.is_some_and(|(_, inferred)| inferred),
        }
    }
}
