//! `concord check`, on either database: every invariant is one read-only query that returns
//! one line per offending row (at most 100 of them), plus the full-text index's own check
//! ([`Backend::check_text_index`]) and a recomputation of each node's search tokens. Only what
//! must hold is asserted: a later write may legitimately undo a resolution's effect (a node
//! deleted, an edge moved by a merge, a state changed afterwards), and those cases are
//! excluded. Queries that read the JSON columns are written per dialect (`JSON_CHECKS`).

use uuid::Uuid;

use super::backend::{Backend, Cols, Id, QueryExt};
use crate::domain::contradiction::index_tokens;
use crate::store::{StoreResult, Violation};

/// Every invariant, in the order they are reported.
const INVARIANTS: &[&str] = &[
    "edge_endpoint_missing",
    "label_node_missing",
    "label_index_out_of_step",
    "conflict_node_missing",
    "pending_conflict_without_old_node",
    "conflict_without_new_side",
    "resolution_fields_inconsistent",
    "resolution_without_conflict_resolved_action",
    "created_edge_missing",
    "created_edge_kind_changed",
    "state_change_missing",
    "merged_node_not_updated",
    "deleted_node_present",
    "created_node_not_linked",
    "edge_recorded_twice",
    "duplicate_resolution_edge",
];

/// `(invariant, query returning one text column per violation, at most 100 rows)` that both
/// dialects accept.
const CHECKS: &[(&str, &str)] = &[
    (
        "edge_endpoint_missing",
        "select 'edge ' || e.edge_id || ' points at missing node ' || \
           case when s.node_id is null then e.source_id else e.target_id end \
         from edges e left join nodes s on s.node_id = e.source_id \
           left join nodes t on t.node_id = e.target_id \
         where s.node_id is null or t.node_id is null \
         limit 100",
    ),
    (
        "label_node_missing",
        "select 'label ' || l.label || ' indexes missing node ' || l.node_id from node_labels l \
         where not exists (select 1 from nodes n where n.node_id = l.node_id) \
         limit 100",
    ),
    (
        "conflict_node_missing",
        "select 'conflict ' || c.conflict_id || ' points at missing old node ' || c.old_node_id \
         from conflict_queue c where c.old_node_id is not null \
           and not exists (select 1 from nodes n where n.node_id = c.old_node_id) \
         union all \
         select 'conflict ' || c.conflict_id || ' points at missing new node ' || c.new_node_id \
         from conflict_queue c where c.new_node_id is not null \
           and not exists (select 1 from nodes n where n.node_id = c.new_node_id) \
         limit 100",
    ),
    (
        "pending_conflict_without_old_node",
        "select 'pending conflict ' || conflict_id || ' has no old node' from conflict_queue \
         where status = 'pending' and old_node_id is null \
         limit 100",
    ),
    (
        "conflict_without_new_side",
        "select 'conflict ' || conflict_id || ' has neither a new node nor new content' \
         from conflict_queue where new_node_id is null and new_content is null \
         limit 100",
    ),
    (
        "resolution_fields_inconsistent",
        "select conflict_id || ' is ' || status || ' but its resolution fields say otherwise' \
         from conflict_queue \
         where (status = 'resolved' and (resolution is null or resolved_at is null \
                 or actions is null or outcome is null)) \
            or (status = 'pending' and (resolution is not null or resolved_at is not null \
                 or actions is not null or outcome is not null)) \
         limit 100",
    ),
];

pub async fn check<B: Backend>(store: &B) -> StoreResult<Vec<Violation>> {
    let mut conn = store.pool().acquire().await?;
    let mut found = Vec::new();
    for invariant in INVARIANTS {
        let (_, sql) = CHECKS
            .iter()
            .chain(B::JSON_CHECKS)
            .find(|(name, _)| name == invariant)
            .expect("every invariant has a query");
        for row in B::query(sql).all(&mut conn).await? {
            let detail: String = Cols::<B::Db>::new(&row).get_at(0)?;
            found.push(Violation { invariant, detail });
        }
    }
    drop(conn);
    found.extend(store.check_text_index().await?);
    found.extend(stale_tokens(store).await?);
    Ok(found)
}

/// Nodes whose stored search tokens are not the tokens of their title and body, page by page.
async fn stale_tokens<B: Backend>(store: &B) -> StoreResult<Vec<Violation>> {
    let mut conn = store.pool().acquire().await?;
    let mut found = Vec::new();
    let mut after = Uuid::nil();
    loop {
        let rows = B::query(
            "select node_id, title, body, search_tokens from nodes where node_id > $1 \
             order by node_id limit 200",
        )
        .arg(Id(after))
        .all(&mut conn)
        .await?;
        for row in &rows {
            let c = Cols::<B::Db>::new(row);
            let id = c.id("node_id")?;
            after = id;
            let tokens: String = c.get("search_tokens")?;
            let (title, body): (String, String) = (c.get("title")?, c.get("body")?);
            if index_tokens(&title, &body).join(" ") != tokens && found.len() < 100 {
                found.push(Violation {
                    invariant: "search_tokens_stale",
                    detail: format!("node {id}'s search tokens are not those of its text"),
                });
            }
        }
        if rows.is_empty() {
            break;
        }
    }
    Ok(found)
}
