//! Text helpers read before any rule: whether a memory is a question, and the claim a report
//! sentence wraps.

use super::shifts;

/// Whether the new memory is a question: it asserts nothing.
pub fn is_question(text: &str) -> bool {
    let t = text.trim_end();
    t.ends_with(['?', '？']) || t.ends_with('吗') || t.ends_with("吗。") || t.ends_with('까')
}

/// The claim of a report sentence: "The current export shows guest access is disabled" →
/// "guest access is disabled"; "According to the dashboard, the limit is 50" → "the limit is
/// 50". Other texts are returned whole.
pub fn claim(text: &str) -> &str {
    // Wrappers open their sentence: only the head is looked at.
    let head = &text[..floor_boundary(text, 120)];
    let starts = |p: &str| {
        head.get(..p.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(p))
    };
    if starts("according to ")
        && let Some(comma) = head.find(',')
    {
        return text[comma + 1..].trim_start();
    }
    if (starts("根据") || starts("据"))
        && let Some(comma) = head.find('，')
    {
        return text[comma + '，'.len_utf8()..].trim_start();
    }
    let Some((at, w)) = wrapper(head) else {
        return text;
    };
    let before = head[..at].to_lowercase();
    let source = shifts::REPORT_SOURCES.iter().any(|s| {
        if s.is_ascii() {
            before
                .split(|c: char| !c.is_alphanumeric())
                .any(|x| x == *s)
        } else {
            before.contains(s)
        }
    });
    let short = before.split_whitespace().count() <= 6 && !before.contains([',', '.']);
    if !(source && short) {
        return text;
    }
    let rest = text[at + w.len()..].trim_start_matches([' ', ',', ':', '，', '：']);
    rest.strip_prefix("that ").unwrap_or(rest)
}

/// The first report verb of a head and its byte offset: a whole word after the
/// first one, or a CJK phrase anywhere.
fn wrapper(head: &str) -> Option<(usize, &'static str)> {
    let mut words = head
        .split_ascii_whitespace()
        .map(|w| (w.as_ptr() as usize - head.as_ptr() as usize, w));
    words.next();
    let english = words.find_map(|(at, w)| {
        let w = w.trim_end_matches([',', ':']);
        let verb = shifts::REPORT_WRAPPERS
            .iter()
            .find(|v| v.eq_ignore_ascii_case(w) && v.is_ascii())?;
        Some((at, *verb))
    });
    english.or_else(|| {
        let cjk = shifts::REPORT_WRAPPERS.iter().filter(|v| !v.is_ascii());
        (!head.is_ascii())
            .then(|| cjk.filter_map(|v| head.find(v).map(|at| (at, *v))).min())
            .flatten()
    })
}

fn floor_boundary(s: &str, mut at: usize) -> usize {
    at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests;
