//! Plain text: each non-blank line is a memory, or with paragraphs each run of lines up to a
//! blank line. The memory's text is its body; its title is its first words, or the file's
//! name (`--title-from file`). Its source is `file:<file>:<line>` (`stdin:<line>` for `-`).

use std::io::BufRead;

use super::lines::Lines;
use super::{Location, Options, Parsed, Record, error, finish, first_words};
use crate::domain::node::MAX_BODY_BYTES;

/// The memories of a text input named `file`.
pub fn items<'a, R: BufRead + 'a>(
    file: &'a str,
    reader: R,
    opts: &'a Options,
) -> impl Iterator<Item = Parsed> + 'a {
    let mut lines = Lines::new(reader);
    let mut ready: std::collections::VecDeque<Parsed> = Default::default();
    let mut para = Paragraph::default();
    let mut ended = false;
    std::iter::from_fn(move || {
        loop {
            if let Some(p) = ready.pop_front() {
                return Some(p);
            }
            if ended {
                return None;
            }
            match lines.next() {
                None => {
                    ended = true;
                    ready.extend(para.take(file, opts));
                }
                Some((n, Err(e))) => {
                    // A broken line ends its paragraph: the lines around it are kept apart
                    // rather than joined across the gap.
                    ready.extend(para.take(file, opts));
                    ready.push_back(error(Location::new(file, n), e.to_string()));
                }
                Some((_, Ok(l))) if l.trim().is_empty() => ready.extend(para.take(file, opts)),
                Some((n, Ok(l))) => {
                    para.push(n, &l);
                    if !opts.paragraphs {
                        ready.extend(para.take(file, opts));
                    }
                }
            }
        }
    })
}

/// Lines gathered for one memory; past the body limit the text is no longer kept, only
/// counted, so one endless paragraph cannot fill memory.
#[derive(Default)]
struct Paragraph {
    first: Option<u64>,
    text: String,
    bytes: usize,
}

impl Paragraph {
    fn push(&mut self, n: u64, line: &str) {
        self.first.get_or_insert(n);
        self.bytes += line.len() + 1;
        if self.bytes <= MAX_BODY_BYTES + 1 {
            if !self.text.is_empty() {
                self.text.push('\n');
            }
            self.text.push_str(line.trim_end());
        }
    }

    fn take(&mut self, file: &str, opts: &Options) -> Option<Parsed> {
        let first = self.first.take()?;
        let text = std::mem::take(&mut self.text);
        let bytes = std::mem::take(&mut self.bytes);
        let at = Location::new(file, first);
        if bytes > MAX_BODY_BYTES + 1 {
            return Some(error(
                at,
                format!("memory of {bytes} bytes is longer than the 1 MiB a body may have"),
            ));
        }
        Some(memory(at, text.trim(), opts))
    }
}

fn memory(at: Location, text: &str, opts: &Options) -> Parsed {
    let title = if opts.title_from_file {
        file_title(&at.file)
    } else {
        first_words(text)
    };
    let source = if at.file == "-" {
        format!("stdin:{}", at.line)
    } else {
        format!("file:{}:{}", at.file, at.line)
    };
    let record = Record {
        title,
        body: Some(text.to_owned()),
        source: Some(source),
        ..Record::default()
    };
    finish(at, record, opts)
}

/// A file's name without its folder and extension (`notes/ops.txt` → `ops`).
pub fn file_title(file: &str) -> String {
    let name = std::path::Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name.is_empty() || file == "-" {
        "stdin".to_owned()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn titles(input: &str, opts: &Options) -> Vec<(u64, String, String)> {
        items("notes/ops.txt", input.as_bytes(), opts)
            .map(|p| {
                let i = p.unwrap();
                (i.location.line, i.record.title, i.record.body.unwrap())
            })
            .collect()
    }

    #[test]
    fn each_non_blank_line_is_a_memory_titled_by_its_first_words() {
        let got = titles(
            "The cache TTL is 30 seconds\n\n  \nDeploys go to eu-west-1\n",
            &Options::default(),
        );
        assert_eq!(
            got,
            vec![
                (
                    1,
                    "The cache TTL is 30 seconds".into(),
                    "The cache TTL is 30 seconds".into()
                ),
                (
                    4,
                    "Deploys go to eu-west-1".into(),
                    "Deploys go to eu-west-1".into()
                )
            ]
        );
    }

    #[test]
    fn paragraphs_join_lines_up_to_a_blank_line_and_titles_can_be_the_file_name() {
        let opts = Options {
            paragraphs: true,
            title_from_file: true,
            ..Options::default()
        };
        let got = titles("a one\na two\n\n\nb one\n", &opts);
        assert_eq!(
            got,
            vec![
                (1, "ops".into(), "a one\na two".into()),
                (5, "ops".into(), "b one".into())
            ]
        );
    }

    #[test]
    fn sources_point_at_the_line_and_a_broken_line_is_its_own_error() {
        let got: Vec<Parsed> =
            items("-", &b"ok\nbad \xff\nok too\n"[..], &Options::default()).collect();
        assert_eq!(
            got[0].as_ref().unwrap().record.source.as_deref(),
            Some("stdin:1")
        );
        assert_eq!(got[1].as_ref().unwrap_err().location.line, 2);
        assert!(got[2].is_ok());
    }

    #[test]
    fn a_paragraph_past_the_body_limit_is_an_error() {
        let line = "word ".repeat(1000);
        let input = format!("{line}\n").repeat(300);
        let opts = Options {
            paragraphs: true,
            ..Options::default()
        };
        let got: Vec<Parsed> = items("big.txt", input.as_bytes(), &opts).collect();
        assert_eq!(got.len(), 1);
        assert!(got[0].as_ref().unwrap_err().message.contains("1 MiB"));
    }
}
