//! The review queue's use cases: list it, resolve from it and revert a resolution. `GET /conflicts`,
//! `POST /contradiction/resolve` and the MCP tools `list_conflicts` and `resolve_conflict`
//! all come through here, so a resolution made through either door executes exactly once.

use uuid::Uuid;

use crate::domain::access::Caller;
use crate::domain::conflict::{CONFLICT_TYPES, Conflict, ConflictFilter, ConflictStats, Status};
use crate::domain::cursor::{Cursor, Page};
use crate::domain::history::HistoryEntry;
use crate::domain::plan::Resolve;
use crate::domain::resolution::Resolution;
use crate::domain::revert::{Revert, Reverted};
use crate::domain::validate::{Errors, check_text};
use crate::service::idempotency::{self, Claim};
use crate::service::scopes::seen_conflict;
use crate::service::{Error, Result, Services, replies};

/// Raw filters of a conflict listing, as a front door received them.
#[derive(Debug, Default)]
pub struct ListConflicts {
    /// `pending` (default), `resolved` or `all`.
    pub status: Option<String>,
    pub conflict_type: Option<String>,
    pub label: Option<String>,
    /// `oldest` (default) or `newest`.
    pub order: Option<String>,
    /// Only conflicts resolved by exactly this name (`alice`, `policy:<name>`), or by any name
    /// with the prefix before a trailing `*` (`policy:*`, `mcp:*`).
    pub resolved_by: Option<String>,
    /// `true`: only conflicts a policy resolved; `false`: only the others.
    pub auto: Option<String>,
    pub limit: usize,
    pub after: Option<Cursor>,
}

impl ListConflicts {
    fn parse(self) -> Result<ConflictFilter> {
        let mut e = Errors::default();
        let status = match self.status.as_deref().unwrap_or("pending") {
            "all" => None,
            s => s.parse::<Status>().map(Some).unwrap_or_else(|_| {
                e.add("/status", "must be pending, resolved or all");
                None
            }),
        };
        let newest_first = match self.order.as_deref().unwrap_or("oldest") {
            "oldest" => false,
            "newest" => true,
            _ => {
                e.add("/order", "must be oldest or newest");
                false
            }
        };
        if let Some(t) = &self.conflict_type
            && !CONFLICT_TYPES.contains(&t.as_str())
        {
            e.add(
                "/conflict_type",
                format!("must be one of {}", CONFLICT_TYPES.join(", ")),
            );
        }
        let auto = self.auto.as_deref().and_then(|a| match a {
            "true" => Some(true),
            "false" => Some(false),
            _ => {
                e.add("/auto", "must be true or false");
                None
            }
        });
        if let Some(by) = &self.resolved_by {
            check_text(&mut e, "/resolved_by", by);
        }
        e.finish(ConflictFilter {
            status,
            conflict_type: self.conflict_type,
            label: self.label.map(|l| l.trim().to_lowercase()),
            resolved_by: self.resolved_by,
            auto,
            newest_first,
            limit: self.limit,
            after: self.after,
            scopes: None,
        })
        .map_err(Error::Invalid)
    }
}

/// A page of conflicts (both sides in full) and the number of pending conflicts that match
/// the type and label filters, of the caller's scopes.
pub async fn list(
    svc: &Services,
    caller: &Caller,
    query: ListConflicts,
) -> Result<(Page<Conflict>, i64)> {
    let mut filter = query.parse()?;
    filter.scopes = caller.visible();
    Ok(svc.store.list_conflicts(filter).await?)
}

/// Raw fields of a resolution request.
#[derive(Debug)]
pub struct ResolveConflict {
    pub conflict_id: Uuid,
    pub resolution: String,
    pub merged_content: Option<String>,
    pub resolved_by: Option<String>,
    pub note: Option<String>,
    /// `update` or `correction`: why the losing side stops holding (chosen when absent).
    pub reason: Option<String>,
}

/// Resolves a conflict in one transaction; repeating the same request replays the stored
/// result. With a claimed key its reply ([`replies::resolved`]) commits in that transaction.
/// Waiters wake only when something was written.
pub async fn resolve(
    svc: &Services,
    caller: &Caller,
    r: ResolveConflict,
    claim: Option<&Claim>,
) -> Result<Resolution> {
    let request = Resolve::parse(
        r.conflict_id,
        &r.resolution,
        r.merged_content,
        r.resolved_by,
        r.note,
    )
    .and_then(|req| req.with_reason(r.reason.as_deref()))
    .map(|req| Resolve {
        // Checked in the resolution's transaction, with the conflict it reads there.
        scopes: caller.visible(),
        key: caller.writer(),
        ..req
    })
    .map_err(Error::Invalid)?;
    let outcome = match claim {
        None => svc.store.resolve_conflict(request).await?,
        Some(c) => {
            let pending = svc.store.resolve_conflict_keyed(request).await?;
            idempotency::commit(c, pending, replies::resolved).await?
        }
    };
    if !outcome.replayed {
        svc.notifier.bump();
    }
    Ok(outcome)
}

/// Raw fields of a revert request.
#[derive(Debug)]
pub struct RevertConflict {
    pub conflict_id: Uuid,
    pub reverted_by: Option<String>,
    pub note: Option<String>,
}

/// Undoes a conflict's resolution in one transaction; a retry replays the stored reply. With a
/// claimed key its reply ([`replies::reverted`]) commits in that transaction. Waiters wake
/// only when something was written.
pub async fn revert(
    svc: &Services,
    caller: &Caller,
    r: RevertConflict,
    claim: Option<&Claim>,
) -> Result<Reverted> {
    let request = Revert::parse(r.conflict_id, r.reverted_by, r.note)
        .map(|req| Revert {
            scopes: caller.visible(),
            key: caller.writer(),
            ..req
        })
        .map_err(Error::Invalid)?;
    let outcome = match claim {
        None => svc.store.revert_conflict(request).await?,
        Some(c) => {
            let pending = svc.store.revert_conflict_keyed(request).await?;
            idempotency::commit(c, pending, replies::reverted).await?
        }
    };
    if !outcome.replayed {
        svc.notifier.bump();
    }
    Ok(outcome)
}

/// Every change of a conflict, oldest first (404 when it does not exist).
pub async fn history(
    svc: &Services,
    caller: &Caller,
    conflict_id: Uuid,
) -> Result<Vec<HistoryEntry>> {
    seen(svc, caller, conflict_id).await?;
    Ok(svc.store.conflict_history(conflict_id).await?)
}

/// One conflict with both nodes in full, and its latest history entry.
pub async fn get(
    svc: &Services,
    caller: &Caller,
    conflict_id: Uuid,
) -> Result<(Conflict, Option<HistoryEntry>)> {
    let conflict = seen(svc, caller, conflict_id).await?;
    let latest = svc.store.conflict_history(conflict_id).await?.pop();
    Ok((conflict, latest))
}

/// The conflict, when it exists and the caller sees it.
pub async fn seen(svc: &Services, caller: &Caller, conflict_id: Uuid) -> Result<Conflict> {
    seen_conflict(caller, svc.store.get_conflict(conflict_id).await?)
}

/// Counters of the queue, over the caller's scopes.
pub async fn stats(svc: &Services, caller: &Caller) -> Result<ConflictStats> {
    Ok(svc
        .store
        .conflict_stats(caller.visible().as_deref())
        .await?)
}
