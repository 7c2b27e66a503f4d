//! `GET /audit` on either database: the changes that the versions, the conflict history, the
//! keys and the sweeps record, read as one list, newest first. Each part is filtered on its
//! own columns (`key`, `since`), so a key's entries come from the `…_by_key` indexes.

use super::StoreResult;
use super::backend::{Backend, Cols, QueryExt, SysTime, Ts};
use crate::domain::audit::{AuditEntry, AuditQuery};

/// The list, where `at` is a version's system time (`SysTime`: milliseconds on SQLite) and
/// the other parts' text or `timestamptz` instants are turned into the same by `$ms … $end`.
/// `$1` key, `$2`/`$3` since (as system time / as a stored instant), `$4..$7` the cursor,
/// `$8` the limit.
macro_rules! audit_list {
    ($ms:literal, $end:literal) => {
        concat!(
            "select at, key_name, action, target, seq, by_whom, conflict_id from (",
            "select v.recorded_at as at, v.key_name, 'node.' || v.kind as action, \
               cast(v.node_id as text) as target, cast(v.version as bigint) as seq, \
               v.by_whom, v.conflict_id \
             from node_versions v \
             where ($1 is null or v.key_name = $1) and ($2 is null or v.recorded_at >= $2) ",
            "union all select ",
            $ms,
            "h.at",
            $end,
            ", h.key_name, 'conflict.' || h.kind, \
               cast(h.conflict_id as text), cast(h.entry_id as bigint), h.by_whom, \
               h.conflict_id \
             from conflict_history h \
             where ($1 is null or h.key_name = $1) and ($3 is null or h.at >= $3) ",
            "union all select ",
            $ms,
            "k.created_at",
            $end,
            ", k.created_key, 'key.created', \
               k.key_name, cast(0 as bigint), null, null \
             from api_keys k \
             where ($1 is null or k.created_key = $1) and ($3 is null or k.created_at >= $3) ",
            "union all select ",
            $ms,
            "k.revoked_at",
            $end,
            ", k.revoked_key, 'key.revoked', \
               k.key_name, cast(0 as bigint), null, null \
             from api_keys k \
             where k.revoked_at is not null and ($1 is null or k.revoked_key = $1) \
               and ($3 is null or k.revoked_at >= $3) ",
            "union all select ",
            $ms,
            "s.created_at",
            $end,
            ", s.created_by, 'sweep.started', \
               cast(s.sweep_id as text), cast(0 as bigint), null, null \
             from sweeps s \
             where ($1 is null or s.created_by = $1) and ($3 is null or s.created_at >= $3) ",
            ") a where ($4 is null or (a.at, a.action, a.target, a.seq) < ($4, $5, $6, $7)) \
             order by a.at desc, a.action desc, a.target desc, a.seq desc limit $8"
        )
    };
}
pub(crate) use audit_list;

/// A page of the audit, `limit + 1` rows read so the page knows whether more follow.
pub async fn list<B: Backend>(store: &B, q: &AuditQuery) -> StoreResult<Vec<AuditEntry>> {
    let mut conn = store.pool().acquire().await?;
    let after = q.after.as_ref();
    let rows = B::query(B::AUDIT_LIST)
        .arg(q.key.as_deref())
        .arg(q.since.map(SysTime))
        .arg(q.since.map(Ts))
        .arg(after.map(|c| SysTime(c.at)))
        .arg(after.map(|c| c.action.as_str()))
        .arg(after.map(|c| c.target.as_str()))
        .arg(after.map(|c| c.seq))
        .arg((q.limit + 1) as i64)
        .all(&mut conn)
        .await?;
    rows.iter()
        .map(|r| {
            let c = Cols::<B::Db>::new(r);
            Ok(AuditEntry {
                at: c.get::<SysTime>("at")?.0,
                key: c.get("key_name")?,
                action: c.get("action")?,
                target: c.get("target")?,
                seq: c.get("seq")?,
                by: c.get("by_whom")?,
                conflict_id: c.opt_id("conflict_id")?,
            })
        })
        .collect()
}
