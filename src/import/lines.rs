//! Lines of an input, read with a cap: a line longer than the cap is skipped as it is read
//! (its bytes are counted, never kept), so a 10 MB line costs no more memory than a short
//! one. Each line is checked for what the formats cannot take: bytes that are not UTF-8 and
//! NUL characters. A UTF-8 byte-order mark at the start is dropped; a UTF-16 one makes the
//! whole input one error, since every line of it would be unreadable.

use std::io::BufRead;

/// Longer than any line that can carry a valid node: a 1 MiB body with every character
/// escaped (`\u00e9`, six bytes) still fits.
pub const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

/// What is wrong with a line as bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineError {
    TooLong { bytes: u64 },
    NotUtf8 { byte: usize },
    Nul { byte: usize },
    Utf16,
    Read(String),
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooLong { bytes } => write!(
                f,
                "line of {bytes} bytes is longer than the {} MiB a line may have",
                MAX_LINE_BYTES / (1024 * 1024)
            ),
            Self::NotUtf8 { byte } => write!(f, "not valid UTF-8 (at byte {})", byte + 1),
            Self::Nul { byte } => write!(f, "contains a NUL character (at byte {})", byte + 1),
            Self::Utf16 => f.write_str("the input is UTF-16; convert it to UTF-8 first"),
            Self::Read(e) => write!(f, "cannot be read: {e}"),
        }
    }
}

/// The lines of `reader`, numbered from 1, without their `\n` (or `\r\n`).
pub struct Lines<R> {
    reader: R,
    cap: usize,
    number: u64,
    done: bool,
}

impl<R: BufRead> Lines<R> {
    pub fn new(reader: R) -> Self {
        Self::with_cap(reader, MAX_LINE_BYTES)
    }

    pub fn with_cap(reader: R, cap: usize) -> Self {
        Self {
            reader,
            cap,
            number: 0,
            done: false,
        }
    }

    /// Reads up to the next `\n`, keeping at most `cap` bytes; returns the bytes kept, the
    /// line's full length, and whether anything was read at all.
    fn raw(&mut self) -> std::io::Result<Option<(Vec<u8>, u64)>> {
        let mut kept = Vec::new();
        let mut total: u64 = 0;
        let mut any = false;
        loop {
            let buf = self.reader.fill_buf()?;
            if buf.is_empty() {
                return Ok(any.then_some((kept, total)));
            }
            any = true;
            let (chunk, found) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (&buf[..i], true),
                None => (buf, false),
            };
            total += chunk.len() as u64;
            if kept.len() <= self.cap {
                let room = self.cap + 1 - kept.len();
                kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            let used = chunk.len() + usize::from(found);
            self.reader.consume(used);
            if found {
                return Ok(Some((kept, total)));
            }
        }
    }
}

impl<R: BufRead> Iterator for Lines<R> {
    type Item = (u64, Result<String, LineError>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let (mut bytes, total) = match self.raw() {
            Ok(Some(line)) => line,
            Ok(None) => return None,
            Err(e) => {
                self.done = true;
                return Some((self.number + 1, Err(LineError::Read(e.to_string()))));
            }
        };
        self.number += 1;
        if self.number == 1 {
            if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
                self.done = true;
                return Some((1, Err(LineError::Utf16)));
            }
            if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
                bytes.drain(..3);
            }
        }
        if total as usize > self.cap {
            return Some((self.number, Err(LineError::TooLong { bytes: total })));
        }
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
        if let Some(byte) = bytes.iter().position(|&b| b == 0) {
            return Some((self.number, Err(LineError::Nul { byte })));
        }
        let line = String::from_utf8(bytes).map_err(|e| LineError::NotUtf8 {
            byte: e.utf8_error().valid_up_to(),
        });
        Some((self.number, line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8], cap: usize) -> Vec<(u64, Result<String, LineError>)> {
        Lines::with_cap(std::io::BufReader::with_capacity(4, input), cap).collect()
    }

    #[test]
    fn lines_are_numbered_and_lose_their_line_endings() {
        let got = all(b"one\r\ntwo\n\nthree", 100);
        let lines: Vec<_> = got.into_iter().map(|(n, l)| (n, l.unwrap())).collect();
        assert_eq!(
            lines,
            vec![
                (1, "one".into()),
                (2, "two".into()),
                (3, String::new()),
                (4, "three".into())
            ]
        );
    }

    #[test]
    fn a_line_past_the_cap_is_one_error_and_the_next_line_reads_normally() {
        let mut input = vec![b'a'; 50];
        input.extend_from_slice(b"\nok\n");
        let got = all(&input, 10);
        assert_eq!(got[0], (1, Err(LineError::TooLong { bytes: 50 })));
        assert_eq!(got[1], (2, Ok("ok".into())));
        assert_eq!(got.len(), 2);
    }

    #[test]
    fn bad_bytes_and_nul_are_reported_with_their_position() {
        let got = all(b"ab\xffc\nx\0y\nfine\n", 100);
        assert_eq!(got[0], (1, Err(LineError::NotUtf8 { byte: 2 })));
        assert_eq!(got[1], (2, Err(LineError::Nul { byte: 1 })));
        assert_eq!(got[2], (3, Ok("fine".into())));
    }

    #[test]
    fn a_utf8_bom_is_dropped_and_utf16_is_refused_once() {
        assert_eq!(all(b"\xEF\xBB\xBFhi\n", 100)[0], (1, Ok("hi".into())));
        let got = all(b"\xFF\xFEh\0i\0\n\0", 100);
        assert_eq!(got, vec![(1, Err(LineError::Utf16))]);
    }
}
