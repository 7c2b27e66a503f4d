//! The resume state: the fingerprints of the memories an import wrote, one per line, appended
//! and synced after each batch commits. `--resume` skips every memory listed, so a second run
//! writes nothing twice however long after the first. A line cut short by a crash is no
//! fingerprint and is ignored. A run holds the file locked (`flock`) until it exits, so two
//! runs never share one state file, and a run that finds it unlocked knows the run before it
//! is gone.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use concord::import::Fingerprint;

const HEADER: &str = "# concord import state v1: fingerprints of the memories written";

pub struct State {
    path: PathBuf,
    file: Option<File>,
}

/// Where the state lives when `--state` is not given: beside the first input.
pub fn default_path(first_input: &str) -> PathBuf {
    if first_input == "-" {
        return PathBuf::from("concord-import.state");
    }
    let trimmed = first_input.trim_end_matches('/');
    PathBuf::from(format!("{trimmed}.import-state"))
}

/// The fingerprints a state file records (none when it does not exist).
pub fn load(path: &Path) -> std::io::Result<HashSet<Fingerprint>> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(HashSet::new()),
        Err(e) => return Err(e),
    };
    let mut out = HashSet::new();
    for line in BufReader::new(file).lines() {
        let line = line?;
        let l = line.trim();
        if l.len() == 32 && l.bytes().all(|b| b.is_ascii_hexdigit()) {
            out.insert(Fingerprint(l.to_owned()));
        }
    }
    Ok(out)
}

fn ends_with_newline(path: &Path) -> std::io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = File::open(path)?;
    if f.metadata()?.len() == 0 {
        return Ok(true);
    }
    f.seek(SeekFrom::End(-1))?;
    let mut last = [0u8; 1];
    f.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

impl State {
    /// Opens the state for appending (`resume`) or starts it afresh; `Ok(None)` when
    /// another run holds it.
    pub fn open(path: &Path, resume: bool) -> std::io::Result<Option<Self>> {
        let fresh = !resume || !path.exists();
        let mut file = OpenOptions::new().create(true).append(true).open(path)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
            Err(std::fs::TryLockError::Error(e)) => return Err(e),
        }
        if !resume {
            file.set_len(0)?;
        }
        if fresh {
            writeln!(file, "{HEADER}")?;
        } else if !ends_with_newline(path)? {
            // A line a crash cut short must not run into the next fingerprint.
            writeln!(file)?;
        }
        Ok(Some(Self {
            path: path.to_path_buf(),
            file: Some(file),
        }))
    }

    /// A state that records nothing (a dry run).
    pub fn none() -> Self {
        Self {
            path: PathBuf::new(),
            file: None,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The idempotency scope of this state's direct writes: one per state file, so a claim
    /// in it can only be a run of this file's, and, while this run holds the lock, only a
    /// dead one's.
    pub fn key_scope(&self) -> String {
        use sha2::{Digest, Sha256};
        let path = std::fs::canonicalize(&self.path).unwrap_or_else(|_| self.path.clone());
        let digest = Sha256::digest(path.as_os_str().as_encoded_bytes());
        let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        format!("import:{hex}")
    }

    /// Records a committed batch; on disk before the next batch is sent.
    pub fn record<'a>(
        &mut self,
        written: impl Iterator<Item = &'a Fingerprint>,
    ) -> std::io::Result<()> {
        let Some(file) = &mut self.file else {
            return Ok(());
        };
        let mut text = String::new();
        for f in written {
            text.push_str(&f.0);
            text.push('\n');
        }
        file.write_all(text.as_bytes())?;
        file.sync_data()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_fingerprints_load_back_and_a_cut_line_is_ignored() {
        let dir = std::env::temp_dir().join(format!("concord-state-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s");
        let a = Fingerprint("0123456789abcdef0123456789abcdef".into());
        let b = Fingerprint("fedcba9876543210fedcba9876543210".into());
        let open = |resume| State::open(&path, resume).unwrap().expect("unlocked");
        open(false).record([&a].into_iter()).unwrap();
        open(true).record([&b].into_iter()).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"0123")
            .unwrap();
        let c = Fingerprint("00000000000000000000000000000000".into());
        let held = open(true);
        assert!(
            State::open(&path, true).unwrap().is_none(),
            "one run at a time"
        );
        drop(held);
        open(true).record([&c].into_iter()).unwrap();
        let got = load(&path).unwrap();
        assert_eq!(got, HashSet::from([a.clone(), b, c]));
        open(false);
        assert!(
            load(&path).unwrap().is_empty(),
            "a run without --resume starts afresh"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
