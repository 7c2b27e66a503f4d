//! A sweep: the active memories that existed when it started, compared with their candidates
//! as a write compares a new memory, to queue the contradictions they already hold (written
//! with `?detect=false`, imported, or stored before a rule existed). What it covers, how far
//! it got, and its rate.

use uuid::Uuid;

use crate::domain::FieldError;
use crate::domain::node::{MAX_LABEL_CHARS, parse_scope};
use crate::domain::time::{self, Timestamp};
use crate::domain::validate::{Errors, check_text};

/// Where a sweep stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepStatus {
    Running,
    Done,
    Cancelled,
    Failed,
}

impl SweepStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Done => "done",
            Self::Cancelled => "cancelled",
            Self::Failed => "failed",
        }
    }
}

impl std::str::FromStr for SweepStatus {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "running" => Self::Running,
            "done" => Self::Done,
            "cancelled" => Self::Cancelled,
            "failed" => Self::Failed,
            other => return Err(format!("unknown sweep status {other:?}")),
        })
    }
}

/// Which memories a sweep compares: every active one, or those of one scope, with one label,
/// or created at or after a time. Each is compared with all its candidates, whatever their
/// label or age.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SweepFilter {
    pub scope: Option<String>,
    pub label: Option<String>,
    pub since: Option<Timestamp>,
}

impl SweepFilter {
    /// Checks a request's filter; errors point at `/scope`, `/label` and `/since`.
    pub fn parse(
        scope: Option<&str>,
        label: Option<&str>,
        since: Option<&str>,
    ) -> Result<Self, Vec<FieldError>> {
        let mut e = Errors::default();
        let scope = scope.map(|s| parse_scope(s, &mut e));
        let label = label.map(|l| {
            check_text(&mut e, "/label", l);
            let l = l.trim().to_lowercase();
            let n = l.chars().count();
            if n == 0 || n > MAX_LABEL_CHARS {
                e.add("/label", format!("must be 1..{MAX_LABEL_CHARS} characters"));
            }
            l
        });
        let since = since.and_then(|s| {
            let t = time::parse(s.trim());
            if t.is_none() {
                e.add("/since", "must be an RFC 3339 timestamp");
            }
            t
        });
        e.finish(Self {
            scope,
            label,
            since,
        })
    }
}

/// A sweep to start: the stored memories up to `until` (the newest node id when it starts;
/// later writes are detected as they are written), `total` of them.
#[derive(Debug, Clone)]
pub struct NewSweep {
    pub id: Uuid,
    pub filter: SweepFilter,
    pub until: Option<Uuid>,
    pub total: i64,
    pub created_by: Option<String>,
    pub created_at: Timestamp,
}

/// A sweep as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    pub id: Uuid,
    pub filter: SweepFilter,
    pub until: Option<Uuid>,
    pub status: SweepStatus,
    /// Memories it compares in all.
    pub total: i64,
    /// Memories compared so far.
    pub compared: i64,
    /// Conflicts it queued.
    pub queued: i64,
    /// The last memory compared (node id order).
    pub checkpoint: Option<Uuid>,
    /// When the current run began (it began again after a restart), and how many had been
    /// compared by then.
    pub resumed_at: Timestamp,
    pub resumed_compared: i64,
    pub error: Option<String>,
    pub created_by: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub finished_at: Option<Timestamp>,
}

impl Sweep {
    /// Memories compared per second by the current run, as of `now`; `None` before a second
    /// of it has passed or once it stopped.
    pub fn rate(&self, now: Timestamp) -> Option<f64> {
        let end = self.finished_at.unwrap_or(now);
        let secs = (end - self.resumed_at).num_milliseconds() as f64 / 1000.0;
        let done = (self.compared - self.resumed_compared) as f64;
        (secs >= 1.0 && done > 0.0).then(|| done / secs)
    }

    /// Seconds left at the current rate, while it runs.
    pub fn eta_s(&self, now: Timestamp) -> Option<f64> {
        if self.status != SweepStatus::Running {
            return None;
        }
        let left = (self.total - self.compared).max(0) as f64;
        self.rate(now).map(|r| (left / r).ceil())
    }
}

/// How long a runner's claim on a sweep lasts without a checkpoint: another instance (or the
/// restarted one) takes the sweep over after that.
pub const LEASE: std::time::Duration = std::time::Duration::from_secs(30);

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    fn sweep(compared: i64, secs: i64) -> Sweep {
        let t0 = time::now();
        Sweep {
            id: Uuid::now_v7(),
            filter: SweepFilter::default(),
            until: None,
            status: SweepStatus::Running,
            total: 1000,
            compared,
            queued: 0,
            checkpoint: None,
            resumed_at: t0 - Duration::seconds(secs),
            resumed_compared: 100,
            error: None,
            created_by: None,
            created_at: t0,
            updated_at: t0,
            finished_at: None,
        }
    }

    #[test]
    fn rate_and_eta_count_the_current_run_only() {
        let s = sweep(300, 10);
        let now = s.resumed_at + Duration::seconds(10);
        assert_eq!(s.rate(now), Some(20.0));
        assert_eq!(s.eta_s(now), Some(35.0));
    }

    #[test]
    fn no_rate_before_a_second_nor_an_eta_once_stopped() {
        let s = sweep(300, 0);
        assert_eq!(s.rate(s.resumed_at), None);
        let mut done = sweep(1000, 10);
        done.status = SweepStatus::Done;
        assert_eq!(done.eta_s(time::now()), None);
    }

    #[test]
    fn a_filter_points_at_each_bad_field() {
        let errors = SweepFilter::parse(Some(" "), Some("a\0"), Some("yesterday")).unwrap_err();
        let pointers: Vec<_> = errors.iter().map(|e| e.pointer.as_str()).collect();
        assert_eq!(pointers, ["/scope", "/label", "/since"]);
        let ok = SweepFilter::parse(Some(" team "), Some(" Work "), None).unwrap();
        assert_eq!(
            (ok.scope.as_deref(), ok.label.as_deref()),
            (Some("team"), Some("work"))
        );
    }
}
