//! Markdown: one memory per heading section. A section is an ATX heading (`#` to `######`)
//! and the text under it up to the next heading of any level; the heading is the title, the
//! text the body. Text before the first heading is titled by the file's name. A heading with
//! nothing under it (one that only groups the headings below it) is no memory. `#` lines in
//! fenced code blocks are code, not headings. A folder is read recursively, `.md` and
//! `.markdown` files in path order.

use std::path::{Path, PathBuf};

use super::lines::Lines;
use super::text::file_title;
use super::{Location, Options, Parsed, Record, error, finish};

/// The markdown files under `dir`, sorted so that a run is repeatable (resume depends on it).
pub fn files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"))
            {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

struct Section {
    line: u64,
    title: String,
    body: Vec<String>,
}

/// The memories of one markdown document named `file`.
pub fn items(file: &str, doc: &[u8], opts: &Options) -> Vec<Parsed> {
    let mut out = Vec::new();
    let mut current = Section {
        line: 1,
        title: file_title(file),
        body: Vec::new(),
    };
    let mut fence: Option<String> = None;
    for (n, line) in Lines::new(doc) {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                out.push(error(Location::new(file, n), e.to_string()));
                continue;
            }
        };
        let trimmed = line.trim_start();
        if let Some(open) = &fence {
            if trimmed.starts_with(open.as_str()) {
                fence = None;
            }
        } else if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(trimmed[..3].to_owned());
        } else if let Some(title) = heading(&line) {
            out.extend(section(
                file,
                std::mem::replace(
                    &mut current,
                    Section {
                        line: n,
                        title,
                        body: Vec::new(),
                    },
                ),
                opts,
            ));
            continue;
        }
        current.body.push(line);
    }
    out.extend(section(file, current, opts));
    out
}

fn section(file: &str, s: Section, opts: &Options) -> Option<Parsed> {
    let body = s.body.join("\n").trim().to_owned();
    if body.is_empty() {
        return None;
    }
    let at = Location::new(file, s.line);
    let record = Record {
        title: s.title,
        body: Some(body),
        source: Some(format!("file:{file}:{}", s.line)),
        ..Record::default()
    };
    Some(finish(at, record, opts))
}

/// The text of an ATX heading (`## Title ##` → `Title`), or `None` for any other line.
fn heading(line: &str) -> Option<String> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let level = rest.len() - rest.trim_start_matches('#').len();
    if !(1..=6).contains(&level) {
        return None;
    }
    let after = &rest[level..];
    if !(after.is_empty() || after.starts_with(' ') || after.starts_with('\t')) {
        return None;
    }
    let text = after.trim().trim_end_matches('#').trim_end();
    (!text.is_empty()).then(|| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "Intro line\n\n# Ops\n\n## Cache\nThe TTL is 30s.\n\n```sh\n# not a heading\n```\n### Region ###\nDeploys go to eu-west-1.\n#hashtag is text\n";

    #[test]
    fn each_heading_section_is_a_memory_and_code_is_not_a_heading() {
        let got: Vec<(u64, String, String)> =
            items("notes/ops.md", DOC.as_bytes(), &Options::default())
                .into_iter()
                .map(|p| {
                    let i = p.unwrap();
                    (i.location.line, i.record.title, i.record.body.unwrap())
                })
                .collect();
        assert_eq!(
            got,
            vec![
                (1, "ops".into(), "Intro line".into()),
                (
                    5,
                    "Cache".into(),
                    "The TTL is 30s.\n\n```sh\n# not a heading\n```".into()
                ),
                (
                    11,
                    "Region".into(),
                    "Deploys go to eu-west-1.\n#hashtag is text".into()
                ),
            ]
        );
    }

    #[test]
    fn sources_name_the_heading_line_and_bad_lines_are_errors() {
        let got = items("a.md", b"# T\nok\nbad \xff\n", &Options::default());
        assert_eq!(got[0].as_ref().unwrap_err().location.line, 3);
        assert_eq!(
            got[1].as_ref().unwrap().record.source.as_deref(),
            Some("file:a.md:1")
        );
    }

    #[test]
    fn folders_are_read_recursively_in_path_order() {
        let dir = std::env::temp_dir().join(format!("concord-md-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("b")).unwrap();
        for f in ["b/z.md", "a.markdown", "c.txt", "b/a.md"] {
            std::fs::write(dir.join(f), "# x\ny\n").unwrap();
        }
        let names: Vec<String> = files(&dir)
            .unwrap()
            .iter()
            .map(|p| p.strip_prefix(&dir).unwrap().display().to_string())
            .collect();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(names, vec!["a.markdown", "b/a.md", "b/z.md"]);
    }
}
