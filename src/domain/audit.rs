//! Who did what (`GET /audit`): one entry per recorded change, from the records that already
//! keep it: a memory's versions, a conflict's history, the keys, the sweeps. Newest first,
//! paged by a cursor that names the last entry shown.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use uuid::Uuid;

use super::FieldError;
use super::time::{self, Timestamp};
use super::validate::{Errors, check_text};

/// One change and the key that made it.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditEntry {
    pub at: Timestamp,
    /// The name of the key that made it; null without keys, from the command line, and for
    /// what concord did on its own (a sweep's queueing).
    pub key: Option<String>,
    /// `node.created|changed|deleted`, `conflict.queued|resolved|auto_resolved|reverted`,
    /// `key.created|revoked`, `sweep.started`.
    pub action: String,
    /// The memory's or conflict's id, the key's name, the sweep's id.
    pub target: String,
    /// A memory's version, a history entry's number: what orders changes of one instant.
    pub seq: i64,
    /// What the writer called itself (`resolved_by`, `mcp:<client>`), where it said.
    pub by: Option<String>,
    /// The conflict whose resolution or revert changed the memory, or the conflict itself.
    pub conflict_id: Option<Uuid>,
}

/// `GET /audit`'s filters and page.
#[derive(Debug, Clone, Default)]
pub struct AuditQuery {
    /// Only this key's entries.
    pub key: Option<String>,
    /// Only entries at or after this instant.
    pub since: Option<Timestamp>,
    pub limit: usize,
    /// Entries after (older than) this one.
    pub after: Option<AuditCursor>,
}

impl AuditQuery {
    /// The query's parameters, every error pointing at its parameter.
    pub fn parse(
        key: Option<&str>,
        since: Option<&str>,
        limit: Option<i64>,
        cursor: Option<&str>,
    ) -> Result<Self, Vec<FieldError>> {
        let mut e = Errors::default();
        if let Some(k) = key {
            check_text(&mut e, "/key", k);
            if k.is_empty() || k.chars().count() > 200 {
                e.add("/key", "must be 1..200 characters");
            }
        }
        let since = since.and_then(|s| {
            let t = time::parse(s.trim());
            if t.is_none() {
                e.add("/since", "must be an RFC 3339 timestamp");
            }
            t
        });
        let limit = limit::checked(limit).unwrap_or_else(|d| {
            e.add("/limit", d);
            0
        });
        let after = cursor.and_then(|c| {
            let after = AuditCursor::decode(c);
            if after.is_none() {
                e.add("/cursor", "is not a cursor of this list");
            }
            after
        });
        e.finish(Self {
            key: key.map(str::to_owned),
            since,
            limit,
            after,
        })
    }
}

/// The position of the last entry of a page: its instant, action, target and sequence, the
/// order the list is in.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditCursor {
    pub at: Timestamp,
    pub action: String,
    pub target: String,
    pub seq: i64,
}

impl AuditCursor {
    pub fn of(e: &AuditEntry) -> Self {
        Self {
            at: e.at,
            action: e.action.clone(),
            target: e.target.clone(),
            seq: e.seq,
        }
    }

    /// base64url of `millis|seq|action|target` (the target, a key's name or an id, last: it
    /// is the only part that could hold a `|`, and a name cannot).
    pub fn encode(&self) -> String {
        let raw = format!(
            "{}|{}|{}|{}",
            self.at.timestamp_millis(),
            self.seq,
            self.action,
            self.target
        );
        URL_SAFE_NO_PAD.encode(raw)
    }

    pub fn decode(text: &str) -> Option<Self> {
        let raw = String::from_utf8(URL_SAFE_NO_PAD.decode(text.as_bytes()).ok()?).ok()?;
        let mut parts = raw.splitn(4, '|');
        let at = Timestamp::from_timestamp_millis(parts.next()?.parse().ok()?)?;
        let seq = parts.next()?.parse().ok()?;
        let action = parts.next()?.to_owned();
        let target = parts.next()?.to_owned();
        let well_formed = |s: &str| !s.is_empty() && s.len() <= 200 && !s.contains('\0');
        (well_formed(&action) && well_formed(&target)).then_some(Self {
            at,
            action,
            target,
            seq,
        })
    }
}

mod limit {
    /// `?limit=` of the audit: 1..=500, default 100.
    pub fn checked(requested: Option<i64>) -> Result<usize, &'static str> {
        match requested {
            None => Ok(100),
            Some(n) if (1..=500).contains(&n) => Ok(n as usize),
            Some(_) => Err("must be between 1 and 500"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cursor() -> AuditCursor {
        AuditCursor {
            at: Timestamp::from_timestamp_millis(1_795_000_000_123).unwrap(),
            action: "node.changed".into(),
            target: "team-a.agent".into(),
            seq: 7,
        }
    }

    #[test]
    fn a_cursor_round_trips() {
        assert_eq!(AuditCursor::decode(&cursor().encode()), Some(cursor()));
    }

    #[test]
    fn a_cursor_that_is_not_one_is_refused() {
        for bad in ["", "!!", "bm9wZQ", &URL_SAFE_NO_PAD.encode("12|x|a|b")] {
            assert_eq!(AuditCursor::decode(bad), None, "{bad}");
        }
        assert_eq!(AuditCursor::decode(&URL_SAFE_NO_PAD.encode("1|2||b")), None);
    }

    #[test]
    fn the_limit_is_bounded() {
        assert_eq!(limit::checked(None), Ok(100));
        assert_eq!(limit::checked(Some(500)), Ok(500));
        assert!(limit::checked(Some(0)).is_err() && limit::checked(Some(501)).is_err());
    }

    #[test]
    fn every_bad_parameter_is_named() {
        let errors = AuditQuery::parse(Some(""), Some("yesterday"), Some(0), Some("!"))
            .unwrap_err()
            .into_iter()
            .map(|e| e.pointer)
            .collect::<Vec<_>>();
        assert_eq!(errors, ["/key", "/since", "/limit", "/cursor"]);
        let q = AuditQuery::parse(Some("ops"), Some("2026-11-01T00:00:00Z"), None, None).unwrap();
        assert_eq!((q.key.as_deref(), q.limit), (Some("ops"), 100));
        assert!(q.since.is_some() && q.after.is_none());
    }
}
