//! The wake digest: what a daemon reads when conflicts wait. Pure text building, so the
//! wording is unit-tested and identical on every instance.

use super::conflict::Conflict;

/// Cuts `text` to at most `max` characters, marking the cut with `…`.
pub fn preview(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// One side of a conflict in the digest.
pub struct SideText {
    pub title: String,
    pub preview: String,
}

pub fn old_side(c: &Conflict, max: usize) -> Option<SideText> {
    c.old_node.as_ref().map(|n| SideText {
        title: n.title.clone(),
        preview: preview(&n.body, max),
    })
}

/// The new side: the new node, or the conflict's text with the old node's title.
pub fn new_side(c: &Conflict, max: usize) -> Option<SideText> {
    let title = c
        .new_node
        .as_ref()
        .map(|n| n.title.clone())
        .or_else(|| c.old_node.as_ref().map(|n| n.title.clone()))?;
    Some(SideText {
        title,
        preview: preview(c.new_text()?, max),
    })
}

/// A ready-to-read message: each conflict with its OLD and NEW side, then `... and N more`.
pub fn message(conflicts: &[Conflict], more: i64, preview_chars: usize) -> String {
    let total = conflicts.len() as i64 + more;
    let mut out = format!(
        "{total} conflict{} waiting for review.\n",
        if total == 1 { "" } else { "s" }
    );
    for (i, c) in conflicts.iter().enumerate() {
        let rec = match &c.recommendation.strategy {
            Some(s) => format!("{} ({})", c.recommendation.resolution, s.as_str()),
            None => c.recommendation.resolution.clone(),
        };
        out.push_str(&format!(
            "\n[{}] {} · {} · recommended: {}\n",
            i + 1,
            c.conflict_type,
            c.id,
            rec
        ));
        if let Some(o) = old_side(c, preview_chars) {
            out.push_str(&format!("OLD: {} — {}\n", o.title, o.preview));
        }
        if let Some(n) = new_side(c, preview_chars) {
            out.push_str(&format!("NEW: {} — {}\n", n.title, n.preview));
        }
    }
    if more > 0 {
        out.push_str(&format!("\n... and {more} more\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn previews_cut_long_text_with_a_marker() {
        assert_eq!(preview("short", 10), "short");
        assert_eq!(preview("abcdefghij", 5), "abcd…");
        assert_eq!(preview("缓存策略很重要", 3), "缓存…");
    }

    #[test]
    fn an_empty_digest_still_reads_well() {
        assert_eq!(message(&[], 0, 100), "0 conflicts waiting for review.\n");
        assert!(message(&[], 3, 100).ends_with("... and 3 more\n"));
    }
}
