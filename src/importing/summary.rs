//! What an import did, counted as it goes and printed at the end on stdout: written,
//! skipped (written by an earlier run, or repeated in the input), conflicts by type, and
//! every error with its file and line.

use std::collections::BTreeMap;
use std::fmt::Write;

use concord::import::ItemError;

use crate::progress::grouped;

#[derive(Default)]
pub struct Tally {
    pub written: u64,
    /// Recorded as written by an earlier run (`--resume`).
    pub resumed: u64,
    /// The same memory (same fingerprint) met again in this run.
    pub duplicates: u64,
    pub conflicts: BTreeMap<String, u64>,
    pub errors: Vec<ItemError>,
    /// Why the import stopped early, if it did.
    pub stopped: Option<String>,
}

impl Tally {
    pub fn conflicts_total(&self) -> u64 {
        self.conflicts.values().sum()
    }

    pub fn count_conflicts<'a>(&mut self, types: impl IntoIterator<Item = &'a String>) {
        for t in types {
            *self.conflicts.entry(t.clone()).or_default() += 1;
        }
    }

    pub fn failed(&self) -> bool {
        !self.errors.is_empty() || self.stopped.is_some()
    }

    /// The summary; `verb` is `written` (or `would write` for a dry run).
    pub fn render(&self, written: &str, conflicts: &str) -> String {
        let mut out = String::new();
        let skipped = self.resumed + self.duplicates;
        let _ = writeln!(
            out,
            "{written}: {}  skipped: {} ({} written before, {} repeated)  failed: {}",
            grouped(self.written),
            grouped(skipped),
            grouped(self.resumed),
            grouped(self.duplicates),
            grouped(self.errors.len() as u64),
        );
        let _ = writeln!(
            out,
            "{conflicts}: {}{}",
            grouped(self.conflicts_total()),
            by_type(&self.conflicts)
        );
        for e in &self.errors {
            let _ = writeln!(out, "error: {e}");
        }
        if let Some(why) = &self.stopped {
            let _ = writeln!(out, "stopped: {why}");
        }
        out
    }
}

/// ` (numeric-mismatch 3, temporal-mismatch 1)`, or nothing when there are none.
pub fn by_type(counts: &BTreeMap<String, u64>) -> String {
    if counts.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = counts
        .iter()
        .map(|(t, n)| format!("{t} {}", grouped(*n)))
        .collect();
    format!(" ({})", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use concord::import::Location;

    #[test]
    fn the_summary_counts_skips_conflicts_by_type_and_lists_errors() {
        let mut t = Tally {
            written: 1200,
            resumed: 3,
            duplicates: 1,
            ..Tally::default()
        };
        t.count_conflicts(&[
            "numeric-mismatch".to_owned(),
            "numeric-mismatch".to_owned(),
            "direct-contradiction".to_owned(),
        ]);
        t.errors.push(ItemError {
            location: Location::new("a.jsonl", 7),
            message: "malformed JSON".into(),
        });
        assert_eq!(
            t.render("written", "conflicts queued"),
            "written: 1,200  skipped: 4 (3 written before, 1 repeated)  failed: 1\n\
             conflicts queued: 3 (direct-contradiction 1, numeric-mismatch 2)\n\
             error: a.jsonl:7: malformed JSON\n"
        );
        assert!(t.failed());
    }
}
