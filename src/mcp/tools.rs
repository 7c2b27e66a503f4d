//! The tools. Each parses its arguments (their JSON Schema is generated from these types),
//! calls one use case of `service/`, and shapes the reply; none holds behaviour of its own.

use rmcp::service::RequestContext;
use rmcp::{RoleServer, schemars, tool, tool_router};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::args::Parameters;
use super::render::{self, Disagreement, Statement};
use super::reply::{ToolResult, failed, invalid, ok};
use super::{Concord, access};
use crate::domain::FieldError;
use crate::domain::contradiction::Sensitivity;
use crate::domain::cursor::{self, Cursor};
use crate::domain::node::{NodeInput, NodeState};
use crate::domain::provenance::Provenance;
use crate::service::conflicts::{self, ListConflicts, ResolveConflict};
use crate::service::nodes::{self, Remembered, WriteOptions};
use crate::service::recall::{self, RecallQuery};
use crate::service::report::{self, TopicCheck};
use crate::service::{scopes, timeline};
use crate::wire::dto::{ConflictDto, NodeDto};
use crate::wire::dto::{ResolveResponse, TimelineResponse};

/// Detection sensitivity.
#[derive(Debug, Clone, Copy, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SensitivityArg {
    /// Flag any tier's verdict, scope mismatches and vector-only evidence included.
    Strict,
    /// Need a text signal or an LLM verdict (the default).
    Balanced,
    /// Flag only direct contradictions and numeric mismatches above 0.7.
    Lenient,
}

impl SensitivityArg {
    fn domain(self) -> Sensitivity {
        match self {
            Self::Strict => Sensitivity::Strict,
            Self::Balanced => Sensitivity::Balanced,
            Self::Lenient => Sensitivity::Lenient,
        }
    }

    fn name(self) -> String {
        self.domain().as_str().to_owned()
    }
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RememberArgs {
    /// A short name for the fact, 1..500 characters, e.g. "Cache TTL".
    pub title: String,
    /// The fact itself, in a sentence or a few (up to 1 MiB), e.g. "The cache TTL is 30 seconds".
    pub body: String,
    /// Up to 32 labels (1..64 characters each) to group and filter memories, e.g. ["cache"].
    pub labels: Option<Vec<String>>,
    /// Kind of memory, `[a-z0-9_-]{1,40}`; default `fact`. Only memories of one kind are
    /// compared with each other.
    pub memory_type: Option<String>,
    /// Namespace, default `default`. Only memories of one scope are compared with each other.
    pub scope: Option<String>,
    /// Where the fact comes from, e.g. `file:src/cache.rs:42` or a URL (up to 500 characters).
    /// Sources that are upheld in resolved conflicts earn credibility.
    pub source: Option<String>,
    /// How sure you are, 0..1 (default 0.8).
    pub confidence: Option<f64>,
    /// When the fact was observed, RFC 3339 (default: now).
    pub observed_at: Option<String>,
    /// How you obtained it: `method` (`observed`, `told_by_user`, `read_from_document`,
    /// `inferred`, `hearsay`, `scanned`, `web`) and whether you `verified` it. Weak
    /// provenance keeps a fact from replacing a stronger one under the server's policies.
    pub provenance: Option<ProvenanceArgs>,
}

/// How a fact was obtained (`remember`'s `provenance`).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProvenanceArgs {
    /// `observed`, `told_by_user`, `read_from_document`, `inferred`, `hearsay`, `scanned` or
    /// `web`.
    pub method: Option<String>,
    /// Whether you checked it (a signature, a second source).
    pub verified: Option<bool>,
    /// Ids of memories this one replaces (e.g. an old address). Each is queued as a conflict
    /// with it, and the server's policies decide whether it becomes current.
    #[schemars(with = "Option<Vec<String>>")]
    pub replaces: Option<Vec<Uuid>>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecallArgs {
    /// Words to search for; every word must match (1..500 characters).
    pub query: String,
    /// Only memories with at least one of these labels.
    pub labels: Option<Vec<String>>,
    /// How many memories to return, 1..50 (default 10).
    pub limit: Option<i64>,
    /// Only this scope (one your key holds); without it, every scope it holds.
    pub scope: Option<String>,
    /// Recall what held at this instant (RFC 3339, valid time), e.g. "where did Bob live in
    /// March". Default: now.
    pub as_of: Option<String>,
    /// Recall what concord held at this instant (RFC 3339, system time, not in the future),
    /// e.g. "what did we believe when we decided". Default: now.
    pub known_at: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckArgs {
    /// A stored memory to check against the others. Give this or `text`.
    #[schemars(with = "Option<String>", extend("format" = "uuid"))]
    pub node_id: Option<Uuid>,
    /// A fact that is not stored yet, to check before remembering it. Give this or `node_id`.
    pub text: Option<String>,
    /// A title for `text` (default: its first line).
    pub title: Option<String>,
    /// Kind of memory of `text` (default `fact`).
    pub memory_type: Option<String>,
    /// Scope of `text` (default `default`).
    pub scope: Option<String>,
    /// How readily to flag a contradiction (default: the server's setting).
    pub sensitivity: Option<SensitivityArg>,
}

/// A conflict type.
#[derive(Debug, Clone, Copy, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ConflictTypeArg {
    DirectContradiction,
    NumericMismatch,
    TemporalMismatch,
    ScopeMismatch,
}

impl ConflictTypeArg {
    fn name(self) -> &'static str {
        match self {
            Self::DirectContradiction => "direct-contradiction",
            Self::NumericMismatch => "numeric-mismatch",
            Self::TemporalMismatch => "temporal-mismatch",
            Self::ScopeMismatch => "scope-mismatch",
        }
    }
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListConflictsArgs {
    /// Only conflicts of this type.
    pub conflict_type: Option<ConflictTypeArg>,
    /// Only conflicts where either memory has this label.
    pub label: Option<String>,
    /// How many conflicts to return, 1..200 (default 50).
    pub limit: Option<i64>,
    /// Only this scope (one your key holds); without it, every scope it holds.
    pub scope: Option<String>,
    /// `next_cursor` of a previous call, to read further.
    pub cursor: Option<String>,
}

/// A resolution strategy.
#[derive(Debug, Clone, Copy, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResolutionArg {
    /// The new memory is right: the old one becomes dormant, the new supersedes it.
    NewIsCurrent,
    /// The old memory is right: the new one becomes dormant.
    OldIsCurrent,
    /// Both hold (e.g. in different contexts): both stay active, linked.
    KeepBoth,
    /// Combine them into the old memory (`merged_content` replaces its text when given);
    /// the new memory is deleted.
    Merge,
}

impl ResolutionArg {
    fn name(self) -> &'static str {
        match self {
            Self::NewIsCurrent => "new_is_current",
            Self::OldIsCurrent => "old_is_current",
            Self::KeepBoth => "keep_both",
            Self::Merge => "merge",
        }
    }
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveArgs {
    /// The pending conflict (from `list_conflicts`, `remember` or `recall`).
    #[schemars(with = "String", extend("format" = "uuid"))]
    pub conflict_id: Uuid,
    /// What to do.
    pub resolution: ResolutionArg,
    /// The combined text (only with `merge`).
    pub merged_content: Option<String>,
    /// Why, for the record (who asked, what evidence).
    pub note: Option<String>,
    /// Why the losing memory stops holding: `update` (it was true until the new one was
    /// observed) or `correction` (it was never true). Default: chosen from the winner's words.
    pub reason: Option<ReasonArg>,
}

/// Why the losing memory stops holding.
#[derive(Debug, Clone, Copy, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReasonArg {
    /// It was true until the new memory's `observed_at`.
    Update,
    /// It was never true.
    Correction,
}

impl ReasonArg {
    fn as_str(self) -> &'static str {
        match self {
            Self::Update => "update",
            Self::Correction => "correction",
        }
    }
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimelineArgs {
    /// Any memory of the chain (from `remember`, `recall` or a conflict).
    #[schemars(with = "String", extend("format" = "uuid"))]
    pub node_id: Uuid,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReportArgs {
    /// The topic to examine, as search words (1..500 characters).
    pub topic: String,
    /// How readily to flag a contradiction (default `balanced`).
    pub sensitivity: Option<SensitivityArg>,
    /// Only memories with at least one of these labels.
    pub labels: Option<Vec<String>>,
    /// How many memories to analyse, 2..50 (default 20).
    pub limit: Option<i64>,
    /// Only this scope (one your key holds); without it, every scope it holds.
    pub scope: Option<String>,
    /// Report on what held at this instant (RFC 3339, valid time). Default: now.
    pub as_of: Option<String>,
    /// Report as concord knew it at this instant (RFC 3339, system time, not in the future).
    /// Default: now.
    pub known_at: Option<String>,
}

/// Structured result of `remember`.
#[derive(Serialize)]
struct RememberResult {
    node: NodeDto,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    conflicts: Vec<Disagreement>,
    /// The text was a stored memory's (whitespace and case aside): `node` is that memory.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    restated: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    corroborated_by: Vec<String>,
}

/// Structured result of `check_contradictions`.
#[derive(Serialize)]
struct Checked {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    conflicts: Vec<Disagreement>,
}

/// Structured result of `list_conflicts`.
#[derive(Serialize)]
struct Listed {
    items: Vec<ConflictDto>,
    pending_total: i64,
    next_cursor: Option<String>,
}

/// `mcp:<client name>`, within the 200 characters `resolved_by` allows: who a tool's writes
/// and decisions are recorded as made by.
fn client_name(ctx: &RequestContext<RoleServer>) -> String {
    let name = ctx
        .client_info()
        .map(|i| i.name)
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| "unknown".to_owned());
    format!("mcp:{}", name.trim()).chars().take(200).collect()
}

fn page(limit: Option<i64>, cursor: Option<&str>) -> Result<(usize, Option<Cursor>), FieldError> {
    let limit = cursor::limit(limit).map_err(|d| FieldError::new("/limit", d))?;
    let after = cursor
        .map(|c| Cursor::decode(c).ok_or_else(|| FieldError::new("/cursor", "is not a cursor")))
        .transpose()?;
    Ok((limit, after))
}

#[tool_router(vis = "pub(super)")]
impl Concord {
    #[tool(
        description = "Store a fact in long-term memory. It is checked against the stored memories of the same scope and kind first: if it contradicts one, the result lists each conflict with both texts and a recommended resolution, and the conflict is queued for review (resolve it with `resolve_conflict`, after asking the user when the recommendation is `escalate-to-user`). Store one self-contained fact per call."
    )]
    async fn remember(
        &self,
        Parameters(a): Parameters<RememberArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> ToolResult {
        let caller = match access::tool_caller(&ctx) {
            Ok(c) => c,
            Err(e) => return failed(e),
        };
        let input = NodeInput {
            title: Some(a.title),
            body: Some(a.body),
            memory_type: a.memory_type,
            labels: a.labels,
            scope: a.scope,
            source: a.source,
            confidence: a.confidence,
            state: None,
            observed_at: a.observed_at,
            embedding: None,
            provenance: a.provenance.map(|p| Provenance {
                method: p.method,
                verified: p.verified,
                replaces: p.replaces.unwrap_or_default(),
            }),
        };
        let by = Some(client_name(&ctx));
        let options = WriteOptions::default();
        let remembered =
            match nodes::remember(&self.state.services, &caller, input, by, options, None).await {
                Ok(r) => r,
                Err(e) => return failed(e),
            };
        let (node, queued) = match remembered {
            Remembered::Written { node, conflicts } => (node, conflicts),
            Remembered::Restated {
                node,
                corroborated_by,
            } => {
                let text = format!(
                    "Already remembered: \"{}\" is memory {}, word for word; nothing new was \
                     stored.",
                    node.title, node.id
                );
                let value = RememberResult {
                    node: NodeDto::from_domain(node),
                    conflicts: Vec::new(),
                    restated: true,
                    corroborated_by,
                };
                return ok(text, &value);
            }
        };
        let conflicts: Vec<Disagreement> = queued
            .into_iter()
            .map(|c| Disagreement::queued(c, &node))
            .collect();
        let mut text = format!("Remembered \"{}\" as memory {}.", node.title, node.id);
        if node.state == NodeState::Quarantined {
            text.push_str(
                " It is QUARANTINED: a resolution policy holds it back until a reviewer \
                 promotes it, and recall does not return it meanwhile.",
            );
        }
        if conflicts.iter().any(|c| c.resolved_by.is_some()) {
            text.push_str(
                " It CONTRADICTS stored memories; a resolution policy resolved some of these \
                 conflicts at once, the others are queued:\n",
            );
            text.push_str(&render::disagreements(&conflicts));
        } else if !conflicts.is_empty() {
            text.push_str(" It CONTRADICTS stored memories; these conflicts are queued:\n");
            text.push_str(&render::disagreements(&conflicts));
        }
        let value = RememberResult {
            node: NodeDto::from_domain(node),
            conflicts,
            restated: false,
            corroborated_by: Vec::new(),
        };
        ok(text, &value)
    }

    #[tool(
        description = "Search long-term memory (full text; every word must match) and get the matching active memories, best first. When memories disagree the result has a `conflicts` list (type, the two memory ids, recommended resolution, reasoning): never pick one silently; tell the user, or resolve it. No `conflicts` key means the memories agree.",
        annotations(read_only_hint = true)
    )]
    async fn recall(
        &self,
        Parameters(a): Parameters<RecallArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> ToolResult {
        let caller = match access::tool_caller(&ctx)
            .and_then(|c| scopes::narrowed(&c, a.scope.as_deref()))
        {
            Ok(c) => c,
            Err(e) => return failed(e),
        };
        let query = RecallQuery::parse(
            "/query",
            Some(a.query),
            a.labels.unwrap_or_default(),
            a.limit,
            (a.as_of.as_deref(), a.known_at.as_deref()),
        )
        .map_err(invalid)?;
        match recall::recall(&self.state.services, &caller, query).await {
            Ok(r) => ok(render::recall(&r), &r),
            Err(e) => failed(e),
        }
    }

    #[tool(
        description = "Check whether a memory contradicts what is stored, without writing anything: give `node_id` for a stored memory, or `text` (and optionally `title`) for a fact you are about to remember. Lists each contradiction with both texts and a recommended resolution; no `conflicts` key means none.",
        annotations(read_only_hint = true)
    )]
    async fn check_contradictions(
        &self,
        Parameters(a): Parameters<CheckArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> ToolResult {
        let caller = match access::tool_caller(&ctx) {
            Ok(c) => c,
            Err(e) => return failed(e),
        };
        let sensitivity = a.sensitivity.map(SensitivityArg::domain);
        let (hits, new) = match (a.node_id, a.text) {
            (Some(id), None) => {
                match nodes::check_stored(&self.state.services, &caller, id, sensitivity).await {
                    Ok((node, hits)) => (hits, Statement::of(&node)),
                    Err(e) => return failed(e),
                }
            }
            (None, Some(text)) => {
                let title = a.title.unwrap_or_else(|| first_line(&text));
                let input = NodeInput {
                    title: Some(title.clone()),
                    body: Some(text.clone()),
                    memory_type: a.memory_type,
                    scope: a.scope,
                    ..Default::default()
                };
                match nodes::check_text(&self.state.services, &caller, input, sensitivity).await {
                    Ok(h) => (
                        h,
                        Statement {
                            id: None,
                            title,
                            body: text,
                        },
                    ),
                    Err(e) => return failed(e),
                }
            }
            _ => {
                return Err(invalid(vec![FieldError::new(
                    "/node_id",
                    "give exactly one of node_id or text",
                )]));
            }
        };
        let conflicts: Vec<Disagreement> = hits
            .into_iter()
            .map(|h| Disagreement::found(h, new.clone()))
            .collect();
        let text = if conflicts.is_empty() {
            "No contradiction with the stored memories.".to_owned()
        } else {
            format!(
                "Contradicts {} stored memor{}:\n{}",
                conflicts.len(),
                if conflicts.len() == 1 { "y" } else { "ies" },
                render::disagreements(&conflicts)
            )
        };
        ok(text, &Checked { conflicts })
    }

    #[tool(
        description = "List pending conflicts (the review queue), oldest first, each with both memories in full, how it was detected and the recommended resolution. Use `resolve_conflict` to settle one.",
        annotations(read_only_hint = true)
    )]
    async fn list_conflicts(
        &self,
        Parameters(a): Parameters<ListConflictsArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> ToolResult {
        let caller = match access::tool_caller(&ctx)
            .and_then(|c| scopes::narrowed(&c, a.scope.as_deref()))
        {
            Ok(c) => c,
            Err(e) => return failed(e),
        };
        let (limit, after) = page(a.limit, a.cursor.as_deref()).map_err(|e| invalid(vec![e]))?;
        let query = ListConflicts {
            conflict_type: a.conflict_type.map(|t| t.name().to_owned()),
            label: a.label,
            limit,
            after,
            ..Default::default()
        };
        let (page, pending_total) =
            match conflicts::list(&self.state.services, &caller, query).await {
                Ok(listed) => listed,
                Err(e) => return failed(e),
            };
        let items: Vec<ConflictDto> = page
            .items
            .into_iter()
            .map(|c| ConflictDto::from_domain(c, None))
            .collect();
        let text = render::conflicts(&items, pending_total);
        let value = Listed {
            items,
            pending_total,
            next_cursor: page.next_cursor.map(|c| c.encode()),
        };
        ok(text, &value)
    }

    #[tool(
        description = "Resolve a pending conflict with one strategy, in one transaction; the result lists every action taken. Safe to retry: repeating the same resolution returns the recorded result with `replayed: true`; a different resolution of an already resolved conflict is an error naming the one recorded."
    )]
    async fn resolve_conflict(
        &self,
        Parameters(a): Parameters<ResolveArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> ToolResult {
        let caller = match access::tool_caller(&ctx) {
            Ok(c) => c,
            Err(e) => return failed(e),
        };
        let request = ResolveConflict {
            conflict_id: a.conflict_id,
            resolution: a.resolution.name().to_owned(),
            merged_content: a.merged_content,
            resolved_by: Some(client_name(&ctx)),
            note: a.note,
            reason: a.reason.map(|r| r.as_str().to_owned()),
        };
        let outcome = match conflicts::resolve(&self.state.services, &caller, request, None).await {
            Ok(o) => o,
            Err(e) => return failed(e),
        };
        let response = ResolveResponse::from(outcome);
        let mut text = format!(
            "Conflict {} resolved with {}{}.\n",
            response.conflict_id,
            response.resolution,
            if response.replayed {
                " (already done: this is the recorded result)"
            } else {
                ""
            }
        );
        for a in &response.actions {
            text.push_str(&format!("- {}\n", a.summary));
        }
        ok(text, &response)
    }

    #[tool(
        description = "Show how a fact changed over time: the memories that replaced one another about one subject, oldest first, each with when it held (observed_at until valid_until; `corrected` ones never held) and who decided each replacement in which conflict. Use it to answer \"what was true when\" or \"what did it say before\".",
        annotations(read_only_hint = true)
    )]
    async fn memory_timeline(
        &self,
        Parameters(a): Parameters<TimelineArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> ToolResult {
        let caller = match access::tool_caller(&ctx) {
            Ok(c) => c,
            Err(e) => return failed(e),
        };
        match timeline::timeline(&self.state.services, &caller, a.node_id).await {
            Ok(t) => {
                let value = TimelineResponse::from_domain(t.node_id, t.summary, t.entries);
                ok(render::timeline(&value), &value)
            }
            Err(e) => failed(e),
        }
    }

    #[tool(
        description = "Examine a topic for contradictions: searches the memories about it, compares every pair, and reports the sources (with provenance and confidence), the conflicts between them (type, severity, both claims, recommended resolution) and an overall confidence. Queues nothing; the report is kept for later reading."
    )]
    async fn conflict_report(
        &self,
        Parameters(a): Parameters<ReportArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> ToolResult {
        let caller = match access::tool_caller(&ctx)
            .and_then(|c| scopes::narrowed(&c, a.scope.as_deref()))
        {
            Ok(c) => c,
            Err(e) => return failed(e),
        };
        let check = TopicCheck::parse(
            a.topic,
            a.labels,
            a.limit,
            a.sensitivity.map(SensitivityArg::name),
            (a.as_of.as_deref(), a.known_at.as_deref()),
        )
        .map_err(invalid)?;
        match report::check_topic(&self.state.services, &caller, check).await {
            Ok(r) => ok(render::report(&r), &r),
            Err(e) => failed(e),
        }
    }
}

/// A title for bare text: its first line, at most 100 characters.
fn first_line(text: &str) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or(text);
    line.trim().chars().take(100).collect()
}
