//! Opaque keyset cursors: base64url of `(sort key, id)`. A malformed cursor is a client error,
//! never a server fault, and a cursor never skips or repeats a row because the id breaks ties.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use uuid::Uuid;

/// Position after the last row of a page.
#[derive(Debug, Clone, PartialEq)]
pub struct Cursor {
    /// The sort key of the last row (a timestamp or a rank, as text).
    pub key: String,
    pub id: Uuid,
}

impl Cursor {
    pub fn new(key: impl Into<String>, id: Uuid) -> Self {
        Self {
            key: key.into(),
            id,
        }
    }

    pub fn encode(&self) -> String {
        URL_SAFE_NO_PAD.encode(format!("{}|{}", self.key, self.id))
    }

    pub fn decode(text: &str) -> Option<Self> {
        let raw = URL_SAFE_NO_PAD.decode(text.as_bytes()).ok()?;
        let raw = String::from_utf8(raw)
            .ok()
            .filter(|r| !super::validate::has_nul(r))?;
        let (key, id) = raw.rsplit_once('|')?;
        Some(Self::new(key, Uuid::parse_str(id).ok()?))
    }
}

/// One page of a list.
#[derive(Debug, Clone)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub next_cursor: Option<Cursor>,
}

impl<T> Page<T> {
    /// Builds a page from `limit + 1` fetched rows: the extra row only says that more exist.
    pub fn from_rows(mut rows: Vec<T>, limit: usize, cursor_of: impl Fn(&T) -> Cursor) -> Self {
        let more = rows.len() > limit;
        rows.truncate(limit);
        let next_cursor = if more {
            rows.last().map(cursor_of)
        } else {
            None
        };
        Self {
            items: rows,
            next_cursor,
        }
    }
}

/// `?limit=`: 1..=200, default 50.
pub fn limit(requested: Option<i64>) -> Result<usize, String> {
    match requested {
        None => Ok(50),
        Some(n) if (1..=200).contains(&n) => Ok(n as usize),
        Some(_) => Err("must be between 1 and 200".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_round_trips() {
        let c = Cursor::new("2026-01-01T00:00:00.000Z", Uuid::now_v7());
        assert_eq!(Cursor::decode(&c.encode()), Some(c));
    }

    #[test]
    fn malformed_cursors_are_rejected() {
        for bad in [
            "",
            "!!!",
            "bm9waXBl",
            &URL_SAFE_NO_PAD.encode("x|not-a-uuid"),
        ] {
            assert_eq!(Cursor::decode(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_page_has_a_cursor_only_when_more_rows_exist() {
        let id = Uuid::now_v7();
        let page = Page::from_rows(vec![1, 2, 3], 2, |n| Cursor::new(n.to_string(), id));
        assert_eq!(page.items, vec![1, 2]);
        assert_eq!(page.next_cursor.unwrap().key, "2");
        let last = Page::from_rows(vec![1, 2], 2, |n| Cursor::new(n.to_string(), id));
        assert!(last.next_cursor.is_none());
    }

    #[test]
    fn limits_outside_one_to_two_hundred_are_rejected() {
        assert_eq!(limit(None), Ok(50));
        assert_eq!(limit(Some(200)), Ok(200));
        assert!(limit(Some(0)).is_err());
        assert!(limit(Some(201)).is_err());
        assert!(limit(Some(-5)).is_err());
    }
}
