//! The elements of a JSON listing, each with the line it starts on, found without parsing
//! the document as a whole: a bracket-and-string scan finds where each element starts and
//! ends, and each is then parsed alone, so one broken element is one error and the others
//! still read. Three shapes are taken: an array of items, an object holding the array under
//! one of the given keys (`{"results": […]}`), and JSON lines (one item per line).

use super::lines::Lines;

/// One element: the line it starts on, and its bytes (or what is wrong with them).
pub type Element<'a> = (u64, Result<&'a [u8], String>);

/// The elements of `doc`, or one error (with its line) when it has no listing in it.
pub fn elements<'a>(doc: &'a [u8], keys: &[&str]) -> Result<Vec<Element<'a>>, (u64, String)> {
    let doc = doc.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(doc);
    if doc.starts_with(&[0xFF, 0xFE]) || doc.starts_with(&[0xFE, 0xFF]) {
        return Err((1, "the input is UTF-16; convert it to UTF-8 first".into()));
    }
    let lines = LineIndex::new(doc);
    let Some(start) = skip_ws(doc, 0) else {
        return Ok(Vec::new());
    };
    match doc[start] {
        b'[' => Ok(array(doc, start, &lines)),
        b'{' => {
            let end = value_end(doc, start);
            if skip_ws(doc, end).is_some() {
                return Ok(json_lines(doc));
            }
            for (key, at) in object_keys(doc, start) {
                if keys.contains(&key.as_str()) && doc.get(at) == Some(&b'[') {
                    return Ok(array(doc, at, &lines));
                }
            }
            // A lone item (one memory fetched by id) is a listing of one.
            Ok(vec![(lines.line_of(start), Ok(trim(&doc[start..end])))])
        }
        _ => Err((
            lines.line_of(start),
            format!(
                "expected a JSON array, an object with {}, or JSON lines",
                keys.join(" or ")
            ),
        )),
    }
}

fn json_lines(doc: &[u8]) -> Vec<Element<'_>> {
    // Offsets are recomputed here so elements borrow the document, not a copy of a line.
    let mut out = Vec::new();
    let mut offset = 0;
    for (n, line) in Lines::new(doc) {
        let len = doc[offset..]
            .iter()
            .position(|&b| b == b'\n')
            .unwrap_or(doc.len() - offset);
        let raw = &doc[offset..offset + len];
        offset = (offset + len + 1).min(doc.len());
        match line {
            Err(e) => out.push((n, Err(e.to_string()))),
            Ok(l) if l.trim().is_empty() => {}
            Ok(_) => out.push((n, Ok(trim(raw)))),
        }
    }
    out
}

fn array<'a>(doc: &'a [u8], open: usize, lines: &LineIndex) -> Vec<Element<'a>> {
    let mut out = Vec::new();
    let mut i = open + 1;
    while let Some(start) = skip_ws(doc, i) {
        if doc[start] == b']' {
            break;
        }
        let end = value_end(doc, start);
        let element = trim(&doc[start..end]);
        if !element.is_empty() {
            out.push((lines.line_of(start), Ok(element)));
        }
        match doc.get(end) {
            Some(b',') => i = end + 1,
            _ => break,
        }
    }
    out
}

/// The keys of the object opening at `open`, each with where its value starts.
fn object_keys(doc: &[u8], open: usize) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut i = open + 1;
    while let Some(k) = skip_ws(doc, i) {
        if doc[k] != b'"' {
            break;
        }
        let key_end = string_end(doc, k);
        let key = serde_json::from_slice::<String>(&doc[k..key_end]).unwrap_or_default();
        let Some(colon) = skip_ws(doc, key_end).filter(|&c| doc[c] == b':') else {
            break;
        };
        let Some(value) = skip_ws(doc, colon + 1) else {
            break;
        };
        out.push((key, value));
        let end = value_end(doc, value);
        match doc.get(end) {
            Some(b',') => i = end + 1,
            _ => break,
        }
    }
    out
}

/// Where the value starting at `start` ends: the index of the `,`, `]` or `}` that closes
/// it at its own depth, or the document's end.
fn value_end(doc: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    while i < doc.len() {
        match doc[i] {
            b'"' => {
                i = string_end(doc, i);
                continue;
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' if depth == 0 => return i,
            b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return skip_ws(doc, i + 1).unwrap_or(doc.len());
                }
            }
            b',' if depth == 0 => return i,
            _ => {}
        }
        i += 1;
    }
    doc.len()
}

/// Just past the string whose opening quote is at `open`.
fn string_end(doc: &[u8], open: usize) -> usize {
    let mut i = open + 1;
    while i < doc.len() {
        match doc[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    doc.len()
}

fn skip_ws(doc: &[u8], from: usize) -> Option<usize> {
    (from..doc.len()).find(|&i| !doc[i].is_ascii_whitespace())
}

fn trim(b: &[u8]) -> &[u8] {
    let s = b
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len());
    let e = b
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(s, |e| e + 1);
    &b[s..e]
}

/// Byte offsets of line starts, for turning an offset into a line number.
struct LineIndex(Vec<usize>);

impl LineIndex {
    fn new(doc: &[u8]) -> Self {
        let mut starts = vec![0];
        starts.extend(
            doc.iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Self(starts)
    }

    fn line_of(&self, offset: usize) -> u64 {
        self.0.partition_point(|&s| s <= offset) as u64
    }
}

/// An element's bytes as a JSON object, or what is wrong with them.
pub fn object(bytes: &[u8]) -> Result<serde_json::Map<String, serde_json::Value>, String> {
    if let Some(at) = bytes.iter().position(|&b| b == 0) {
        return Err(format!("contains a NUL character (at byte {})", at + 1));
    }
    if let Err(e) = std::str::from_utf8(bytes) {
        return Err(format!("not valid UTF-8 (at byte {})", e.valid_up_to() + 1));
    }
    match serde_json::from_slice::<serde_json::Value>(bytes) {
        Ok(serde_json::Value::Object(m)) => Ok(m),
        Ok(_) => Err("not a JSON object".into()),
        Err(e) => Err(format!("malformed JSON: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(doc: &str, keys: &[&str]) -> Vec<(u64, String)> {
        elements(doc.as_bytes(), keys)
            .unwrap()
            .into_iter()
            .map(|(n, e)| (n, String::from_utf8(e.unwrap().to_vec()).unwrap()))
            .collect()
    }

    #[test]
    fn an_array_yields_each_element_with_its_first_line() {
        let doc = "[\n  {\"a\": \"x, ]}\"},\n  {\"a\": [1,\n 2]}\n]\n";
        assert_eq!(
            lines_of(doc, &[]),
            vec![
                (2, r#"{"a": "x, ]}"}"#.into()),
                (3, "{\"a\": [1,\n 2]}".into())
            ]
        );
    }

    #[test]
    fn a_wrapped_listing_is_found_under_its_key() {
        let doc = "{\"count\": 2, \"next\": null,\n\"results\": [{\"m\": 1},\n{\"m\": 2}]}";
        assert_eq!(
            lines_of(doc, &["results"]),
            vec![(2, r#"{"m": 1}"#.into()), (3, r#"{"m": 2}"#.into())]
        );
    }

    #[test]
    fn json_lines_are_one_element_per_line_and_a_lone_object_is_one_item() {
        let doc = "{\"m\": 1}\n\n{\"m\": 2}\n";
        assert_eq!(
            lines_of(doc, &["results"]),
            vec![(1, r#"{"m": 1}"#.into()), (3, r#"{"m": 2}"#.into())]
        );
        assert_eq!(
            lines_of("{\"m\": 1}", &["results"]),
            vec![(1, r#"{"m": 1}"#.into())]
        );
    }

    #[test]
    fn a_broken_element_does_not_hide_the_next_one() {
        let doc = "[{\"m\": 1, oops},\n{\"m\": 2}]";
        let got = elements(doc.as_bytes(), &[]).unwrap();
        assert_eq!(got.len(), 2);
        assert!(object(got[0].1.as_ref().unwrap()).is_err());
        assert!(object(got[1].1.as_ref().unwrap()).is_ok());
        assert_eq!(got[1].0, 2);
    }
}
