//! Restatements (contract section 14): a write that says, word for word, what an active
//! memory of its scope already says is that memory again, not a second memory. Agents restate
//! what they read on every turn; storing each copy would split one fact's evidence over many
//! rows, double its recall results and make every later update contradict each copy.

/// Text as restatements compare it: whitespace runs as one space, trimmed, case folded.
pub fn normalised(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
    out
}

/// Whether a write of `title` and `body` restates a stored memory of `stored_title` and
/// `stored_body` (their scopes are the caller's to match).
pub fn restates(title: &str, body: &str, stored_title: &str, stored_body: &str) -> bool {
    normalised(title) == normalised(stored_title) && normalised(body) == normalised(stored_body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_and_case_do_not_make_a_new_memory() {
        assert!(restates(
            "Rent",
            "My rent is  1800 EUR\nper month.",
            "rent",
            " my RENT is 1800 eur per month. "
        ));
        assert!(restates("Ärger", "x", "ärger", "X"));
    }

    #[test]
    fn a_changed_word_or_title_is_not_a_restatement() {
        assert!(!restates(
            "Rent",
            "My rent is 1800",
            "Rent",
            "My rent is 1850"
        ));
        assert!(!restates(
            "Rent",
            "My rent is 1800",
            "Lease",
            "My rent is 1800"
        ));
        assert!(!restates(
            "Rent",
            "My rent is 1800.",
            "Rent",
            "My rent is 1800"
        ));
    }
}
