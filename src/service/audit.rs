//! Who did what: the audit for admins of every scope (it names keys and memories of all of
//! them).

use crate::domain::access::Caller;
use crate::domain::audit::{AuditCursor, AuditEntry, AuditQuery};
use crate::service::scopes::may_use_all;
use crate::service::{Result, Services};

/// One page of the audit, newest first.
#[derive(Debug)]
pub struct AuditPage {
    pub items: Vec<AuditEntry>,
    /// Null at the end.
    pub next_cursor: Option<AuditCursor>,
}

pub async fn list(svc: &Services, caller: &Caller, q: AuditQuery) -> Result<AuditPage> {
    may_use_all(caller)?;
    let mut items = svc.store.audit(&q).await?;
    let more = items.len() > q.limit;
    items.truncate(q.limit);
    let next_cursor = if more {
        items.last().map(AuditCursor::of)
    } else {
        None
    };
    Ok(AuditPage { items, next_cursor })
}
