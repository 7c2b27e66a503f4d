//! `concord check`, on either database: every invariant is one read-only query that returns
//! one line per offending row (at most 100 of them), plus the full-text index's own check
//! ([`Backend::check_text_index`]) and a recomputation of each node's search tokens. Only what
//! must hold is asserted: a later write may legitimately undo a resolution's effect (a node
//! deleted, an edge moved by a merge, a state changed afterwards), and those cases are
//! excluded. The queries are written once; where they read JSON they name its pieces with
//! placeholders that each backend's [`JsonSql`](super::sql::JsonSql) fills in (`json_each` and `json_extract` on
//! SQLite, `jsonb_array_elements` and `->>` on PostgreSQL).

use sqlx::AssertSqlSafe;
use uuid::Uuid;

use super::backend::{Backend, Cols, Id, QueryExt};
use crate::domain::contradiction::index_tokens;
use crate::store::{StoreResult, Violation};

/// `(invariant, query returning one text column per violation, at most 100 rows)`.
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
        "label_index_out_of_step",
        "select 'node ' || n.node_id || ' has label ' || {label} || ' missing from the index' \
         from nodes n, {labels} \
         where not exists (select 1 from node_labels l \
                           where l.node_id = n.node_id and l.label = {label}) \
         union all \
         select 'index has label ' || l.label || ' for node ' || l.node_id || \
           ', which does not carry it' \
         from node_labels l join nodes n on n.node_id = l.node_id \
         where not exists (select 1 from {labels} where {label} = l.label) \
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
    (
        "resolution_without_conflict_resolved_action",
        "select 'resolved conflict ' || c.conflict_id || ' records no conflict_resolved action' \
         from conflict_queue c where c.status = 'resolved' and c.actions is not null \
           and not exists (select 1 from {actions} \
                           where {a.action} = 'conflict_resolved') \
         limit 100",
    ),
    (
        "created_edge_missing",
        "select 'conflict ' || c.conflict_id || ' created edge ' || \
           {a.edge_id} || ', which is gone while both endpoints exist' \
         from conflict_queue c{each} \
         where c.status = 'resolved' and {a.action} = 'edge_created' \
           and not exists (select 1 from edges e \
                           where e.edge_id = {a.edge_id:id}) \
           and exists (select 1 from nodes n \
                       where n.node_id = {a.source_id:id}) \
           and exists (select 1 from nodes n \
                       where n.node_id = {a.target_id:id}) \
         limit 100",
    ),
    (
        "created_edge_kind_changed",
        "select 'conflict ' || c.conflict_id || ' created a ' || {a.kind} \
           || ' edge ' || e.edge_id || ', which is now ' || e.kind \
         from conflict_queue c{each} \
           join edges e on e.edge_id = {a.edge_id:id} \
         where c.status = 'resolved' and {a.action} = 'edge_created' \
           and e.kind <> {a.kind} \
         limit 100",
    ),
    (
        "state_change_missing",
        "select 'conflict ' || c.conflict_id || ' made node ' || n.node_id || ' ' || \
           {a.to} || ', but it is ' || n.state || \
           ' with no later update' \
         from conflict_queue c{each} \
           join nodes n on n.node_id = {a.node_id:id} \
         where c.status = 'resolved' \
           and {a.action} = 'node_state_changed' \
           and n.state <> {a.to} and n.updated_at <= c.resolved_at \
         limit 100",
    ),
    (
        "merged_node_not_updated",
        "select 'conflict ' || c.conflict_id || ' merged into node ' || n.node_id || \
           ', which was last updated before the merge' \
         from conflict_queue c{each} \
           join nodes n on n.node_id = {a.node_id:id} \
         where c.status = 'resolved' and {a.action} = 'node_body_merged' \
           and n.updated_at < c.resolved_at \
         limit 100",
    ),
    (
        "deleted_node_present",
        "select 'conflict ' || c.conflict_id || ' deleted node ' || n.node_id || \
           ', which still exists' \
         from conflict_queue c{each} \
           join nodes n on n.node_id = {a.node_id:id} \
         where c.status = 'resolved' and {a.action} = 'node_deleted' \
         limit 100",
    ),
    (
        "created_node_not_linked",
        "select 'conflict ' || c.conflict_id || ' created node ' || n.node_id || \
           ' but does not name it as its new node' \
         from conflict_queue c{each} \
           join nodes n on n.node_id = {a.node_id:id} \
         where c.status = 'resolved' and {a.action} = 'node_created' \
           and (c.new_node_id is null or c.new_node_id <> n.node_id) \
         limit 100",
    ),
    (
        "edge_recorded_twice",
        "select 'edge ' || {a.edge_id} || ' is recorded ' || count(*) || \
           ' times by resolutions' \
         from conflict_queue c{each} \
         where c.status = 'resolved' and {a.action} = 'edge_created' \
         group by {a.edge_id} having count(*) > 1 \
         limit 100",
    ),
    (
        "conflict_scopes_out_of_step",
        "select 'conflict ' || c.conflict_id || ' is filed under ' || \
           coalesce(c.scopes, 'no scope') || ', its memories are in ' || o.scope \
         from conflict_queue c join nodes o on o.node_id = c.old_node_id \
           left join nodes n on n.node_id = c.new_node_id \
         where (c.new_node_id is null or n.scope = o.scope) \
           and coalesce(c.scopes, '') <> o.scope \
         limit 100",
    ),
    (
        "duplicate_resolution_edge",
        "select 'conflict ' || c.conflict_id || ' records ' || count(*) || ' resolution edges' \
         from conflict_queue c{each} \
         where c.status = 'resolved' and {a.action} = 'edge_created' \
           and {a.kind} in ('supersedes', 'relates_to') \
         group by c.conflict_id having count(*) > 1 \
         union all \
         select 'edge ' || e.edge_id || ' duplicates the resolution edge of conflict ' || \
           c.conflict_id \
         from conflict_queue c join edges e \
           on ((e.source_id = c.old_node_id and e.target_id = c.new_node_id) \
               or (e.source_id = c.new_node_id and e.target_id = c.old_node_id)) \
         where c.status = 'resolved' and e.kind in ('supersedes', 'relates_to') \
           and e.created_at = c.resolved_at \
           and not exists (select 1 from {actions} \
                           where {a.edge_id:id} = e.edge_id) \
         limit 100",
    ),
];

pub async fn check<B: Backend>(store: &B) -> StoreResult<Vec<Violation>> {
    let mut conn = store.pool().acquire().await?;
    let mut found = Vec::new();
    for (invariant, template) in CHECKS {
        let sql = sqlx::query::<B::Db>(AssertSqlSafe(B::JSON.render(template)));
        for row in sql.all(&mut conn).await? {
            let detail: String = Cols::<B::Db>::new(&row).get_at(0)?;
            found.push(Violation { invariant, detail });
        }
    }
    drop(conn);
    found.extend(store.check_text_index().await?);
    found.extend(stale_tokens(store).await?);
    Ok(found)
}

/// A term whose postings in `node_tokens` (detection's candidate search) differ from the
/// tokens of the nodes.
pub fn postings_out_of_step(term: String) -> Violation {
    Violation {
        invariant: "node_tokens_out_of_step",
        detail: format!("the postings of {term:?} do not match the nodes table"),
    }
}

pub fn postings_not_recounted(e: sqlx::Error) -> Violation {
    Violation {
        invariant: "node_tokens_out_of_step",
        detail: format!("the token postings could not be recounted: {e}"),
    }
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
