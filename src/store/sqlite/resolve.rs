//! Executes a resolution plan on SQLite, in one `BEGIN IMMEDIATE` transaction: the write lock
//! is taken before the conflict is read, so concurrent requests for one conflict run one after
//! another and every one after the first sees it resolved.

use sqlx::SqliteConnection;

use super::{SqliteStore, conflicts, edges, nodes};
use crate::domain::conflict::{Action, Conflict, Status};
use crate::domain::contradiction::index_tokens;
use crate::domain::plan::{self, Plan, Resolve, Step};
use crate::domain::time;
use crate::store::resolution::{already_resolved, outcome, plan_error, verdicts};
use crate::store::*;

pub async fn resolve(store: &SqliteStore, req: Resolve) -> StoreResult<Resolution> {
    let mut tx = store.write().await?;
    let conflict = conflicts::get_in(&mut tx, req.conflict_id).await?;
    if conflict.status == Status::Resolved {
        let merged: Option<String> =
            sqlx::query_scalar("select merged_content from conflict_queue where conflict_id = $1")
                .bind(req.conflict_id.to_string())
                .fetch_one(&mut *tx)
                .await?;
        let stored: Option<String> =
            sqlx::query_scalar("select outcome from conflict_queue where conflict_id = $1")
                .bind(req.conflict_id.to_string())
                .fetch_one(&mut *tx)
                .await?;
        let stored: Resolution = serde_json::from_str(&stored.unwrap_or_default())?;
        return already_resolved(&req, &conflict, merged.as_deref(), stored);
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

async fn execute(
    conn: &mut SqliteConnection,
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
                .bind(conflict.id.to_string())
                .bind(node.id.to_string())
                .execute(&mut *conn)
                .await?;
        }
        Step::SetState { node_id, to, .. } => {
            sqlx::query("update nodes set state = $2, updated_at = $3 where node_id = $1")
                .bind(node_id.to_string())
                .bind(to.as_str())
                .bind(time::format(&plan.resolved_at))
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
            .bind(node_id.to_string())
            .bind(body)
            .bind(serde_json::to_string(labels)?)
            .bind(index_tokens(&old.title, body).join(" "))
            .bind(time::format(&plan.resolved_at))
            .execute(&mut *conn)
            .await?;
            sqlx::query("delete from node_labels where node_id = $1")
                .bind(node_id.to_string())
                .execute(&mut *conn)
                .await?;
            for label in labels {
                sqlx::query("insert into node_labels (label, node_id) values ($1, $2)")
                    .bind(label)
                    .bind(node_id.to_string())
                    .execute(&mut *conn)
                    .await?;
            }
        }
        Step::MoveEdges { from, to } => moved = edges::move_edges(conn, *from, *to).await?,
        Step::DeleteNode { node_id } => nodes::delete_in(conn, *node_id).await?,
        Step::MarkResolved => {
            let action = step.action(conflict.id, 0);
            let mut actions = done.to_vec();
            actions.push(action.clone());
            let stored = outcome(conflict, req, plan, actions.clone());
            sqlx::query(
                "update conflict_queue set status = 'resolved', resolution = $2, \
                 merged_content = $3, resolved_at = $4, resolved_by = $5, note = coalesce($6, note), \
                 actions = $7, outcome = $8, updated_at = $4 \
                 where conflict_id = $1 and status = 'pending'",
            )
            .bind(conflict.id.to_string())
            .bind(req.strategy.as_str())
            .bind(&req.merged_content)
            .bind(time::format(&plan.resolved_at))
            .bind(&req.resolved_by)
            .bind(&req.note)
            .bind(serde_json::to_string(&actions)?)
            .bind(serde_json::to_string(&stored)?)
            .execute(&mut *conn)
            .await?;
            for (source, upheld) in verdicts(conflict, req.strategy) {
                conflicts::count_verdict(conn, &source, upheld).await?;
            }
            conflicts::event(conn, "conflict.resolved", conflict.id).await?;
        }
    }
    let action = step.action(conflict.id, moved);
    crate::store::failpoints::hit(conflict.id, action.name())?;
    Ok(action)
}
