//! Credibility counters after a revert: the resolution's verdicts taken back.

use std::collections::HashMap;

use crate::domain::pre_image::{PreImage, SourceRow};
use crate::domain::time::Timestamp;

/// How a source's counter row is written back.
#[derive(Debug, Clone, PartialEq)]
pub enum SourceWrite {
    /// The resolution created the row and nothing counted since: it goes.
    Delete { scope: String, source: String },
    /// The row as it was, or (when other verdicts were counted since) as it is minus the
    /// resolution's verdicts.
    Set {
        scope: String,
        source: String,
        row: SourceRow,
    },
}

/// Uncounts the resolution's verdicts. `now` holds the current rows of its sources by
/// `(scope, source)`; a row no other verdict changed since is restored exactly, any other is
/// decremented.
pub fn uncount(
    pre: &PreImage,
    now: &HashMap<(String, String), SourceRow>,
    at: Timestamp,
) -> Vec<SourceWrite> {
    let mut writes = Vec::new();
    for before in &pre.sources {
        let counted =
            (pre.verdicts.iter()).filter(|v| v.scope == before.scope && v.source == before.source);
        let (up, down) = counted.fold((0, 0), |(u, d), v| match v.upheld {
            true => (u + 1, d),
            false => (u, d + 1),
        });
        let base = before
            .row
            .as_ref()
            .map_or((0, 0), |r| (r.upheld, r.contradicted));
        let current = now.get(&(before.scope.clone(), before.source.clone()));
        let untouched =
            current.is_some_and(|c| (c.upheld, c.contradicted) == (base.0 + up, base.1 + down));
        let (scope, source) = (before.scope.clone(), before.source.clone());
        writes.push(match (untouched, &before.row, current) {
            (true, None, _) => SourceWrite::Delete { scope, source },
            (true, Some(row), _) => SourceWrite::Set {
                scope,
                source,
                row: row.clone(),
            },
            (false, _, Some(c)) => SourceWrite::Set {
                scope,
                source,
                row: SourceRow {
                    upheld: (c.upheld - up).max(0),
                    contradicted: (c.contradicted - down).max(0),
                    created_at: c.created_at,
                    updated_at: at,
                },
            },
            (false, _, None) => continue,
        });
    }
    writes
}
