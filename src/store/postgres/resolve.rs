//! Executes a resolution plan on PostgreSQL, in one transaction: the conflict row is locked
//! before it is read and its nodes right after (in id order), so concurrent requests for one
//! conflict run one after another and every one after the first sees it resolved, and no other
//! writer changes the nodes between the plan and its execution.

use sqlx::types::Json;
use sqlx::{PgConnection, Row};
use uuid::Uuid;

use super::{PgStore, Tx, conflicts, edges, nodes};
use crate::domain::conflict::{Action, Conflict, Status};
use crate::domain::contradiction::index_tokens;
use crate::domain::plan::{self, Plan, Resolve, Step};
use crate::domain::time;
use crate::store::resolution::{already_resolved, outcome, plan_error, verdicts};
use crate::store::*;

pub async fn resolve(store: &PgStore, req: Resolve) -> StoreResult<Resolution> {
    let mut tx = store.begin().await?;
    lock(&mut tx, req.conflict_id).await?;
    let conflict = conflicts::get_in(&mut tx, req.conflict_id).await?;
    if conflict.status == Status::Resolved {
        let row = sqlx::query(
            "select merged_content, outcome from conflict_queue where conflict_id = $1",
        )
        .bind(req.conflict_id)
        .fetch_one(&mut *tx)
        .await?;
        let merged: Option<String> = row.try_get("merged_content")?;
        let stored: Option<Json<Resolution>> = row.try_get("outcome")?;
        let stored = stored
            .ok_or_else(|| StoreError::Corrupt("resolved conflict without outcome".into()))?;
        return already_resolved(&req, &conflict, merged.as_deref(), stored.0);
    }
    let plan = plan::plan(&conflict, &req, time::now()).map_err(plan_error)?;
    let mut done: Vec<Action> = Vec::with_capacity(plan.steps.len());
    for step in &plan.steps {
        match execute(&mut tx, step, &conflict, &req, &plan, &done).await {
            Ok(action) => done.push(action),
            Err(cause) => {
                // Dropping the transaction rolls every step back.
                return Err(StoreError::ResolutionFailed {
                    failed_action: step.action(conflict.id, 0).name().to_owned(),
                    partial_actions: done,
                    cause: Box::new(cause),
                });
            }
        }
    }
    tx.commit()
        .await
        .map_err(|e| StoreError::ResolutionFailed {
            failed_action: "commit".into(),
            partial_actions: done.clone(),
            cause: Box::new(e.into()),
        })?;
    Ok(outcome(&conflict, &req, &plan, done))
}

/// Locks the conflict row, then its nodes in id order (the order every resolution uses, so two
/// resolutions sharing a node wait for each other instead of deadlocking).
async fn lock(tx: &mut Tx, conflict_id: Uuid) -> StoreResult<()> {
    let row = sqlx::query(
        "select old_node_id, new_node_id from conflict_queue where conflict_id = $1 for update",
    )
    .bind(conflict_id)
    .fetch_optional(&mut **tx)
    .await?
    .ok_or(StoreError::NotFound("conflict"))?;
    let ids: Vec<Uuid> = ["old_node_id", "new_node_id"]
        .into_iter()
        .map(|c| row.try_get::<Option<Uuid>, _>(c))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
        .collect();
    sqlx::query("select node_id from nodes where node_id = any($1) order by node_id for update")
        .bind(&ids)
        .fetch_all(&mut **tx)
        .await?;
    Ok(())
}

async fn execute(
    conn: &mut PgConnection,
    step: &Step,
    conflict: &Conflict,
    req: &Resolve,
    plan: &Plan,
    done: &[Action],
) -> StoreResult<Action> {
    let mut moved = 0;
    match step {
        Step::CreateNode(node) => {
            let tokens = index_tokens(&node.title, &node.body).join(" ");
            nodes::insert(conn, node, &tokens, None).await?;
            sqlx::query("update conflict_queue set new_node_id = $2 where conflict_id = $1")
                .bind(conflict.id)
                .bind(node.id)
                .execute(&mut *conn)
                .await?;
        }
        Step::SetState { node_id, to, .. } => {
            sqlx::query("update nodes set state = $2, updated_at = $3 where node_id = $1")
                .bind(node_id)
                .bind(to.as_str())
                .bind(plan.resolved_at)
                .execute(&mut *conn)
                .await?;
        }
        Step::CreateEdge(edge) => edges::insert(conn, edge).await?,
        Step::MergeBody {
            node_id,
            body,
            labels,
            ..
        } => {
            let old = conflict
                .old_node
                .as_ref()
                .ok_or(StoreError::NotFound("node"))?;
            sqlx::query(
                "update nodes set body = $2, labels = $3, search_tokens = $4, updated_at = $5 \
                 where node_id = $1",
            )
            .bind(node_id)
            .bind(body)
            .bind(Json(labels))
            .bind(index_tokens(&old.title, body).join(" "))
            .bind(plan.resolved_at)
            .execute(&mut *conn)
            .await?;
            nodes::write_labels(conn, *node_id, labels).await?;
        }
        Step::MoveEdges { from, to } => moved = edges::move_edges(conn, *from, *to).await?,
        Step::DeleteNode { node_id } => nodes::delete_in(conn, *node_id).await?,
        Step::MarkResolved => mark_resolved(conn, step, conflict, req, plan, done).await?,
    }
    let action = step.action(conflict.id, moved);
    crate::store::failpoints::hit(conflict.id, action.name())?;
    Ok(action)
}

/// The conflict's own update, with the reply stored for replay, the source verdicts and the
/// event, all in the resolution's transaction.
async fn mark_resolved(
    conn: &mut PgConnection,
    step: &Step,
    conflict: &Conflict,
    req: &Resolve,
    plan: &Plan,
    done: &[Action],
) -> StoreResult<()> {
    let mut actions = done.to_vec();
    actions.push(step.action(conflict.id, 0));
    let stored = outcome(conflict, req, plan, actions.clone());
    sqlx::query(
        "update conflict_queue set status = 'resolved', resolution = $2, \
         merged_content = $3, resolved_at = $4, resolved_by = $5, note = coalesce($6, note), \
         actions = $7, outcome = $8, updated_at = $4 \
         where conflict_id = $1 and status = 'pending'",
    )
    .bind(conflict.id)
    .bind(req.strategy.as_str())
    .bind(&req.merged_content)
    .bind(plan.resolved_at)
    .bind(&req.resolved_by)
    .bind(&req.note)
    .bind(Json(&actions))
    .bind(Json(&stored))
    .execute(&mut *conn)
    .await?;
    for (source, upheld) in verdicts(conflict, req.strategy) {
        conflicts::count_verdict(conn, &source, upheld).await?;
    }
    conflicts::event(conn, "conflict.resolved", conflict.id, conflict.seq).await
}
