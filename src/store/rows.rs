//! Row decoding, written once per row type and nowhere else in the store: [`Cols`] reads ids,
//! timestamps and JSON the way each database stores them, so a row maps the same on both.
//!
//! | Table             | Row types                                                          |
//! |-------------------|--------------------------------------------------------------------|
//! | `nodes`           | [`node`] (also a conflict's joined sides), [`candidate`], [`node_image`] |
//! | `node_versions`   | [`version_row`]                                                    |
//! | `edges`           | [`edge`], [`edge_image`]                                           |
//! | `conflict_queue`  | [`conflict`], [`conflict_image`], [`conflict_before`], [`conflict_refs`] |
//! | `conflict_history`| [`history_entry`], [`latest_entry`], [`history_image`]             |
//! | `sources`         | [`source_row`], [`source_stats`]                                   |
//! | `conflict_reports`| [`report`]                                                         |
//! | `events`          | [`event`]                                                          |
//! | `idempotency_keys`| [`stored_response`]                                                |
//!
//! A pre-image (`*_image`, `conflict_before`, `source_row`) keeps a row as stored, every column
//! and its text as written; where it has the typed row's columns it is built on that row's
//! mapping (a node image on [`node`], an edge image on [`edge`], a history image on
//! [`history_entry`]), so no column is decoded twice. The SQLite candidate search decodes its
//! packed rows by position (`sqlite/search.rs`); a test there holds it equal to [`candidate`].

use super::StoreResult;
use super::backend::{Cols, Sql, SysTime, Ts};
use super::{Candidate, Event, SourceStats, StoreError, StoredReport, StoredResponse};
use crate::domain::FieldError;
use crate::domain::conflict::{Conflict, hex};
use crate::domain::cursor::Cursor;
use crate::domain::edge::Edge;
use crate::domain::history::HistoryEntry;
use crate::domain::node::{self as dn, Node};
use crate::domain::pre_image::{
    ConflictBefore, ConflictImage, ConflictRefs, EdgeImage, HistoryImage, NodeImage, PreImage,
    SourceRow,
};
use crate::domain::provenance::Provenance;
use crate::domain::time;
use crate::domain::valid_time::Validity;
use crate::domain::version::{Replaced, Standing, VersionKind, VersionRow};
use crate::store::Refusal;

/// A node from columns named `{prefix}node_id`…; `None` when the (left-joined) node is absent.
pub fn node<D: Sql>(row: &D::Row, prefix: &'static str) -> StoreResult<Option<Node>> {
    let c = Cols::<D>::prefixed(row, prefix);
    let Some(id) = c.opt_id("node_id")? else {
        return Ok(None);
    };
    Ok(Some(Node {
        id,
        title: c.get("title")?,
        body: c.get("body")?,
        memory_type: c.get("memory_type")?,
        labels: c.json("labels")?,
        scope: c.get("scope")?,
        source: c.get("source")?,
        confidence: c.get("confidence")?,
        state: c.parse("state")?,
        observed_at: c.ts("observed_at")?,
        created_at: c.ts("created_at")?,
        updated_at: c.ts("updated_at")?,
        has_embedding: c.get("has_embedding")?,
        validity: Validity {
            valid_until: c.opt_ts("valid_until")?,
            corrected: c.get("corrected")?,
        },
        conflict_ids: Vec::new(),
        provenance: c
            .get::<Option<String>>("provenance")?
            .as_deref()
            .and_then(Provenance::from_json),
    }))
}

/// A `node_versions` row (or the live node read as version 0 that replaced everything, see
/// `versions.rs`), with its version number. The live row has no system time of its own.
pub fn version_row<D: Sql>(row: &D::Row) -> StoreResult<(i64, VersionRow)> {
    let c = Cols::<D>::new(row);
    let version: i32 = c.get("version")?;
    let kind: String = c.get("kind")?;
    let (kind, recorded_at) = match kind.as_str() {
        "live" => (VersionKind::Changed, time::Timestamp::default()),
        k => (
            k.parse()
                .map_err(|e: String| StoreError::Failed(crate::store::Failure::Corrupt(e)))?,
            c.get::<SysTime>("recorded_at")?.0,
        ),
    };
    // The standing is replaced whole or not at all, and its state is never null.
    let standing = match c.opt_parse("prev_state")? {
        None => None,
        Some(state) => Some(Standing {
            memory_type: c.get("prev_memory_type")?,
            labels: c.json("prev_labels")?,
            scope: c.get("prev_scope")?,
            source: c.get("prev_source")?,
            state,
            observed_at: c.ts("prev_observed_at")?,
            valid_until: c.opt_ts("prev_valid_until")?,
            corrected: c.get("prev_corrected")?,
        }),
    };
    Ok((
        i64::from(version),
        VersionRow {
            version: i64::from(version),
            kind,
            recorded_at,
            by: c.get("by_whom")?,
            key: c.get("key_name")?,
            conflict_id: c.opt_id("conflict_id")?,
            replaced: Replaced {
                title: c.get("prev_title")?,
                body: c.get("prev_body")?,
                confidence: c.get("prev_confidence")?,
                standing,
            },
        },
    ))
}

/// A node of an unprefixed row that must be there.
pub fn some_node<D: Sql>(row: &D::Row) -> StoreResult<Node> {
    node::<D>(row, "")?.ok_or(StoreError::NotFound("node"))
}

/// A node as a pre-image keeps it: the node's columns ([`node`]) and `embedding`,
/// `embedding_dim` and `search_tokens`; `None` when the node is absent.
pub fn node_image<D: Sql>(row: &D::Row) -> StoreResult<Option<NodeImage>> {
    let Some(n) = node::<D>(row, "")? else {
        return Ok(None);
    };
    let c = Cols::<D>::new(row);
    let embedding: Option<Vec<u8>> = c.get("embedding")?;
    Ok(Some(NodeImage {
        node_id: n.id,
        title: n.title,
        body: n.body,
        memory_type: n.memory_type,
        labels: n.labels,
        scope: n.scope,
        source: n.source,
        confidence: n.confidence,
        state: n.state.as_str().to_owned(),
        observed_at: n.observed_at,
        created_at: n.created_at,
        updated_at: n.updated_at,
        embedding: embedding.as_deref().map(hex),
        embedding_dim: c.get("embedding_dim")?,
        search_tokens: c.get("search_tokens")?,
        valid_until: n.validity.valid_until,
        corrected: n.validity.corrected,
        provenance: n.provenance,
    }))
}

/// A detection candidate: a node ([`node`]) with its `embedding` and whether a verdict on the
/// pair exists already (`remembered`).
pub fn candidate<D: Sql>(row: &D::Row) -> StoreResult<Candidate> {
    let c = Cols::<D>::new(row);
    let embedding: Option<Vec<u8>> = c.get("embedding")?;
    Ok(Candidate {
        node: some_node::<D>(row)?,
        embedding: embedding.as_deref().map(dn::embedding_from_bytes),
        remembered: c.get("remembered")?,
    })
}

/// An edge (`edge_id`, `source_id`, … `created_at`).
pub fn edge<D: Sql>(row: &D::Row) -> StoreResult<Edge> {
    let c = Cols::<D>::new(row);
    Ok(Edge {
        id: c.id("edge_id")?,
        source_id: c.id("source_id")?,
        target_id: c.id("target_id")?,
        kind: c.get("kind")?,
        neural_weight: c.get("neural_weight")?,
        strength: c.get("strength")?,
        confidence: c.get("confidence")?,
        valid_from: c.ts("valid_from")?,
        created_at: c.ts("created_at")?,
    })
}

/// An edge as a pre-image keeps it: the edge's columns and `updated_at`.
pub fn edge_image<D: Sql>(row: &D::Row) -> StoreResult<EdgeImage> {
    let e = edge::<D>(row)?;
    Ok(EdgeImage {
        edge_id: e.id,
        source_id: e.source_id,
        target_id: e.target_id,
        kind: e.kind,
        neural_weight: e.neural_weight,
        strength: e.strength,
        confidence: e.confidence,
        valid_from: e.valid_from,
        created_at: e.created_at,
        updated_at: Cols::<D>::new(row).ts("updated_at")?,
    })
}

/// A history entry (`at`, `kind`, `by_whom`, `key_name`, `resolution`, `note`, `actions`).
pub fn history_entry<D: Sql>(row: &D::Row) -> StoreResult<HistoryEntry> {
    let c = Cols::<D>::new(row);
    Ok(HistoryEntry {
        at: c.ts("at")?,
        kind: c.parse("kind")?,
        by: c.get("by_whom")?,
        key: c.get("key_name")?,
        resolution: c.opt_parse("resolution")?,
        note: c.get("note")?,
        actions: c.json("actions")?,
    })
}

/// A history entry with its id and the pre-image it keeps, as a revert reads the latest one.
pub struct LatestEntry {
    pub entry_id: i64,
    pub entry: HistoryEntry,
    pub pre_image: Option<PreImage>,
}

/// [`history_entry`] with `entry_id` and `pre_image`.
pub fn latest_entry<D: Sql>(row: &D::Row) -> StoreResult<LatestEntry> {
    let c = Cols::<D>::new(row);
    Ok(LatestEntry {
        entry_id: c.get("entry_id")?,
        entry: history_entry::<D>(row)?,
        pre_image: c.opt_json("pre_image")?,
    })
}

/// A history entry as a pre-image keeps it: [`history_entry`] with `entry_id` and its own
/// `pre_image` as stored.
pub fn history_image<D: Sql>(row: &D::Row) -> StoreResult<HistoryImage> {
    let c = Cols::<D>::new(row);
    let e = history_entry::<D>(row)?;
    Ok(HistoryImage {
        entry_id: c.get("entry_id")?,
        at: e.at,
        kind: e.kind.as_str().to_owned(),
        by_whom: e.by,
        key_name: e.key,
        resolution: e.resolution.map(|r| r.as_str().to_owned()),
        note: e.note,
        actions: e.actions,
        pre_image: c.opt_json("pre_image")?,
    })
}

/// A conflict with both of its nodes (`conflict_columns!()`).
pub fn conflict<D: Sql>(row: &D::Row) -> StoreResult<Conflict> {
    let c = Cols::<D>::new(row);
    Ok(Conflict {
        id: c.id("conflict_id")?,
        seq: c.get("seq")?,
        status: c.parse("status")?,
        conflict_type: c.get("conflict_type")?,
        old_node_id: c.opt_id("old_node_id")?,
        new_node_id: c.opt_id("new_node_id")?,
        old_node: node::<D>(row, "o_")?,
        new_node: node::<D>(row, "n_")?,
        new_content: c.get("new_content")?,
        detection: c.json("detection")?,
        recommendation: c.json("recommendation")?,
        resolution: c.opt_parse("resolution")?,
        resolved_at: c.opt_ts("resolved_at")?,
        resolved_by: c.get("resolved_by")?,
        note: c.get("note")?,
        actions: c.opt_json("actions")?,
        created_at: c.ts("created_at")?,
    })
}

pub fn conflicts<D: Sql>(rows: &[D::Row]) -> StoreResult<Vec<Conflict>> {
    rows.iter().map(conflict::<D>).collect()
}

/// A whole `conflict_queue` row as a pre-image keeps it (its history is read apart).
pub fn conflict_image<D: Sql>(row: &D::Row) -> StoreResult<ConflictImage> {
    let c = Cols::<D>::new(row);
    Ok(ConflictImage {
        conflict_id: c.id("conflict_id")?,
        seq: c.get("seq")?,
        old_node_id: c.opt_id("old_node_id")?,
        new_node_id: c.opt_id("new_node_id")?,
        new_content: c.get("new_content")?,
        new_key: c.get("new_key")?,
        conflict_type: c.get("conflict_type")?,
        detection: c.json("detection")?,
        recommendation: c.json("recommendation")?,
        status: c.get("status")?,
        resolution: c.get("resolution")?,
        merged_content: c.get("merged_content")?,
        resolved_at: c.opt_ts("resolved_at")?,
        resolved_by: c.get("resolved_by")?,
        note: c.get("note")?,
        actions: c.opt_json("actions")?,
        outcome: c.opt_json("outcome")?,
        created_at: c.ts("created_at")?,
        updated_at: c.ts("updated_at")?,
        history: Vec::new(),
    })
}

/// What a resolution overwrites of its own conflict row (`note`, `new_node_id`, `new_content`,
/// `updated_at`).
pub fn conflict_before<D: Sql>(row: &D::Row) -> StoreResult<ConflictBefore> {
    let c = Cols::<D>::new(row);
    Ok(ConflictBefore {
        note: c.get("note")?,
        new_node_id: c.opt_id("new_node_id")?,
        new_content: c.get("new_content")?,
        updated_at: c.ts("updated_at")?,
    })
}

/// The nodes and text a conflict refers to (`old_node_id`, `new_node_id`, `new_content`).
pub fn conflict_refs<D: Sql>(row: &D::Row) -> StoreResult<ConflictRefs> {
    let c = Cols::<D>::new(row);
    Ok(ConflictRefs {
        old_node_id: c.opt_id("old_node_id")?,
        new_node_id: c.opt_id("new_node_id")?,
        new_content: c.get("new_content")?,
    })
}

/// A source's counter row (`upheld`, `contradicted`, `created_at`, `updated_at`).
pub fn source_row<D: Sql>(row: &D::Row) -> StoreResult<SourceRow> {
    let c = Cols::<D>::new(row);
    Ok(SourceRow {
        upheld: c.get("upheld")?,
        contradicted: c.get("contradicted")?,
        created_at: c.ts("created_at")?,
        updated_at: c.ts("updated_at")?,
    })
}

/// A source's verdict counters and node count (`scope`, `source`, `upheld`, `contradicted`,
/// `nodes`).
pub fn source_stats<D: Sql>(row: &D::Row) -> StoreResult<SourceStats> {
    let c = Cols::<D>::new(row);
    Ok(SourceStats {
        scope: c.get("scope")?,
        source: c.get("source")?,
        upheld: c.get("upheld")?,
        contradicted: c.get("contradicted")?,
        nodes: c.get("nodes")?,
    })
}

/// A stored conflict report (`report_id`, `topic`, `report`, `created_at`).
pub fn report<D: Sql>(row: &D::Row) -> StoreResult<StoredReport> {
    let c = Cols::<D>::new(row);
    Ok(StoredReport {
        id: c.id("report_id")?,
        topic: c.get("topic")?,
        report: c.json("report")?,
        created_at: c.ts("created_at")?,
        scopes: c.get("scopes")?,
    })
}

/// An event of the queue's stream (`event_id`, `kind`, `conflict_id`, `created_at`).
pub fn event<D: Sql>(row: &D::Row) -> StoreResult<Event> {
    let c = Cols::<D>::new(row);
    Ok(Event {
        id: c.get("event_id")?,
        kind: c.get("kind")?,
        conflict_id: c.id("conflict_id")?,
        created_at: c.ts("created_at")?,
    })
}

/// The reply an idempotency key keeps (`status_code`, `response_body`, `content_type`,
/// `location`); `None` while its request is still running.
pub fn stored_response<D: Sql>(row: &D::Row) -> StoreResult<Option<StoredResponse>> {
    let c = Cols::<D>::new(row);
    let Some(status) = c.get::<Option<i32>>("status_code")? else {
        return Ok(None);
    };
    Ok(Some(StoredResponse {
        status: status as u16,
        body: c
            .get::<Option<Vec<u8>>>("response_body")?
            .unwrap_or_default(),
        content_type: c.get("content_type")?,
        location: c.get("location")?,
    }))
}

/// The timestamp key of a newest-first or oldest-first cursor.
pub fn ts_key(cursor: Option<&Cursor>) -> StoreResult<Option<Ts>> {
    cursor
        .map(|c| {
            time::parse(&c.key).map(Ts).ok_or_else(|| {
                StoreError::Refused(Refusal::Invalid(vec![FieldError::new(
                    "/cursor",
                    "is not a cursor of this list",
                )]))
            })
        })
        .transpose()
}
