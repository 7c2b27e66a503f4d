//! The command line's inputs as sources of memories: each file, folder or `-` gets its
//! format (given, or guessed from its name and first bytes) and is read lazily, line by
//! line where the format allows (JSON lines, text), whole where it does not (a JSON
//! listing, a markdown file).

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use concord::import::{self, Format, Options, Parsed, graphiti, jsonl, markdown, mem0, text};

/// One input as named on the command line.
pub struct Input {
    pub name: String,
    pub format: Option<Format>,
    kind: Kind,
}

enum Kind {
    Stdin,
    File(PathBuf),
    /// A folder: its markdown files.
    Folder(Vec<PathBuf>),
}

/// Checks that every input exists before anything is read, so a typo writes nothing.
pub fn resolve(names: &[String], format: Option<Format>) -> Result<Vec<Input>, String> {
    let mut out = Vec::new();
    for name in names {
        let kind = if name == "-" {
            Kind::Stdin
        } else {
            let path = Path::new(name);
            let meta = std::fs::metadata(path).map_err(|e| format!("{name}: {e}"))?;
            if meta.is_dir() {
                if format.is_some_and(|f| f != Format::Markdown) {
                    return Err(format!("{name}: a folder is read as markdown only"));
                }
                Kind::Folder(markdown::files(path).map_err(|e| format!("{name}: {e}"))?)
            } else {
                Kind::File(path.to_path_buf())
            }
        };
        out.push(Input {
            name: name.clone(),
            format,
            kind,
        });
    }
    Ok(out)
}

impl Input {
    /// Lines in the input when it is a file read line by line: the progress display's
    /// total. `None` when it cannot be known cheaply.
    pub fn line_count(&self) -> Option<u64> {
        let Kind::File(path) = &self.kind else {
            return None;
        };
        let mut reader = BufReader::with_capacity(1 << 16, File::open(path).ok()?);
        let format = self
            .format
            .unwrap_or_else(|| guess(&self.name, &mut reader));
        if !matches!(format, Format::Jsonl | Format::Text) {
            return None;
        }
        let mut n = 0u64;
        loop {
            let buf = reader.fill_buf().ok()?;
            if buf.is_empty() {
                return Some(n);
            }
            n += buf.iter().filter(|&&b| b == b'\n').count() as u64;
            let len = buf.len();
            reader.consume(len);
        }
    }

    /// The memories of this input, in order. An input that cannot be read at all is one
    /// error at its line 1.
    pub fn items<'a>(&'a self, opts: &'a Options) -> Box<dyn Iterator<Item = Parsed> + 'a> {
        let name = self.name.as_str();
        let fail = |e: std::io::Error| -> Box<dyn Iterator<Item = Parsed> + 'a> {
            Box::new(std::iter::once(import::error(
                import::Location::new(name, 1),
                format!("cannot be read: {e}"),
            )))
        };
        match &self.kind {
            Kind::Folder(files) => Box::new(files.iter().flat_map(move |path| {
                let label = path.display().to_string();
                match std::fs::read(path) {
                    Ok(doc) => markdown::items(&label, &doc, opts),
                    Err(e) => vec![import::error(
                        import::Location::new(&label, 1),
                        format!("cannot be read: {e}"),
                    )],
                }
            })),
            Kind::File(path) => match File::open(path) {
                Ok(f) => self.read(BufReader::with_capacity(1 << 16, f), opts),
                Err(e) => fail(e),
            },
            Kind::Stdin => self.read(BufReader::with_capacity(1 << 16, std::io::stdin()), opts),
        }
    }

    fn read<'a, R: BufRead + 'a>(
        &'a self,
        mut reader: R,
        opts: &'a Options,
    ) -> Box<dyn Iterator<Item = Parsed> + 'a> {
        let name = self.name.as_str();
        let format = self.format.unwrap_or_else(|| guess(name, &mut reader));
        match format {
            Format::Jsonl => Box::new(jsonl::items(name, reader, opts)),
            Format::Text => Box::new(text::items(name, reader, opts)),
            whole => {
                let mut doc = Vec::new();
                if let Err(e) = reader.read_to_end(&mut doc) {
                    return Box::new(std::iter::once(import::error(
                        import::Location::new(name, 1),
                        format!("cannot be read: {e}"),
                    )));
                }
                let items = match whole {
                    Format::Mem0 => mem0::items(name, &doc, opts),
                    Format::Graphiti => graphiti::items(name, &doc, opts),
                    _ => markdown::items(name, &doc, opts),
                };
                Box::new(items.into_iter())
            }
        }
    }
}

/// The format from the name and what the reader holds at its start (nothing is consumed).
fn guess(name: &str, reader: &mut impl BufRead) -> Format {
    let head = reader.fill_buf().map(<[u8]>::to_vec).unwrap_or_default();
    Format::detect(name, false, &head)
}
