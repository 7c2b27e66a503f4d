//! Field-level validation failures, reported together so a client can fix every field at once.

/// One invalid field: where it is (a JSON Pointer into the request) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub pointer: String,
    pub detail: String,
}

impl FieldError {
    pub fn new(pointer: impl Into<String>, detail: impl Into<String>) -> Self {
        Self {
            pointer: pointer.into(),
            detail: detail.into(),
        }
    }
}

/// Collects field errors while a request is parsed.
#[derive(Debug, Default)]
pub struct Errors(pub Vec<FieldError>);

impl Errors {
    pub fn add(&mut self, pointer: &str, detail: impl Into<String>) {
        self.0.push(FieldError::new(pointer, detail));
    }

    /// `Ok(value)` when nothing was added, else every collected error.
    pub fn finish<T>(self, value: T) -> Result<T, Vec<FieldError>> {
        if self.0.is_empty() {
            Ok(value)
        } else {
            Err(self.0)
        }
    }
}

/// What a text containing U+0000 is told.
pub const NUL_DETAIL: &str = "must not contain U+0000 (NUL)";

/// The one rule for NUL, the same on both databases: U+0000 is not text. PostgreSQL cannot
/// store it in a `text` column (nor in `jsonb`), so rather than let SQLite accept what
/// PostgreSQL refuses, every text field of a request body and every query parameter that
/// contains it is rejected with 422 and a pointer to it, before anything is written.
pub fn has_nul(text: &str) -> bool {
    text.contains('\0')
}

/// Adds the NUL rule's error for `pointer` when `text` breaks it.
pub fn check_text(e: &mut Errors, pointer: &str, text: &str) {
    if has_nul(text) {
        e.add(pointer, NUL_DETAIL);
    }
}

/// `[a-z0-9_-]{1,max}` or `[a-z_]{1,max}` style identifiers.
pub fn is_slug(text: &str, max: usize, allow: impl Fn(char) -> bool) -> bool {
    let n = text.chars().count();
    (1..=max).contains(&n) && text.chars().all(allow)
}
