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

/// `[a-z0-9_-]{1,max}` or `[a-z_]{1,max}` style identifiers.
pub fn is_slug(text: &str, max: usize, allow: impl Fn(char) -> bool) -> bool {
    let n = text.chars().count();
    (1..=max).contains(&n) && text.chars().all(allow)
}
