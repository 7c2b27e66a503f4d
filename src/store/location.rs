//! Where a database URL points, for the command line: the SQLite file it names (which only
//! `serve` may create, and only one `serve` may hold), and a description fit for a log line
//! (a PostgreSQL URL without its user or password).

use std::fs::{File, OpenOptions, TryLockError};
use std::path::PathBuf;
use std::str::FromStr;

use sqlx::sqlite::SqliteConnectOptions;

/// The file a `sqlite:` URL names; `None` for PostgreSQL and for an in-memory database.
pub fn sqlite_file(url: &str) -> Option<PathBuf> {
    if !url.starts_with("sqlite:") {
        return None;
    }
    let in_memory = url.contains(":memory:") || url.contains("mode=memory");
    let options = SqliteConnectOptions::from_str(url).ok()?;
    (!in_memory).then(|| options.get_filename().to_path_buf())
}

/// The database a URL names, for logs and messages: the SQLite file, or the PostgreSQL host,
/// port and database, never the credentials.
pub fn describe(url: &str) -> String {
    if let Some(path) = sqlite_file(url) {
        return format!("SQLite {}", path.display());
    }
    if url.starts_with("sqlite:") {
        return "SQLite in memory".to_owned();
    }
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.rsplit_once('@').map_or(rest, |(_, r)| r);
    let rest = rest.split_once('?').map_or(rest, |(r, _)| r);
    format!("PostgreSQL {rest}")
}

/// Why a SQLite database may not be used.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error(
        "the SQLite database {} does not exist; only `concord serve` creates one (check --database-url)",
        .0.display()
    )]
    Missing(PathBuf),
    #[error(
        "another `concord serve` is using the SQLite database {}; stop it first (its conflicts would never reach this one's event stream or console)",
        .0.display()
    )]
    InUse(PathBuf),
    #[error("cannot open the SQLite database {}: {cause}", path.display())]
    Unopenable {
        path: PathBuf,
        cause: std::io::Error,
    },
}

/// For commands that read or migrate an existing database: a SQLite file must exist already.
pub fn require_existing(url: &str) -> Result<(), Refusal> {
    match sqlite_file(url) {
        Some(path) if !path.exists() => Err(Refusal::Missing(path)),
        _ => Ok(()),
    }
}

/// Takes the SQLite file for this process alone, creating it when missing: the returned file
/// holds an exclusive advisory lock (`flock`, which SQLite's own `fcntl` locks do not touch)
/// until the process exits. `None` for PostgreSQL, which several instances share by design.
pub fn hold_exclusively(url: &str) -> Result<Option<File>, Refusal> {
    let Some(path) = sqlite_file(url) else {
        return Ok(None);
    };
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|cause| Refusal::Unopenable {
            path: path.clone(),
            cause,
        })?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(TryLockError::WouldBlock) => Err(Refusal::InUse(path)),
        Err(TryLockError::Error(cause)) => Err(Refusal::Unopenable { path, cause }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_urls_name_their_file_and_postgres_urls_hide_their_credentials() {
        assert_eq!(
            sqlite_file("sqlite://concord.db"),
            Some(PathBuf::from("concord.db"))
        );
        assert_eq!(
            sqlite_file("sqlite:///var/lib/concord/c.db?mode=rwc"),
            Some(PathBuf::from("/var/lib/concord/c.db"))
        );
        assert_eq!(sqlite_file("sqlite::memory:"), None);
        assert_eq!(sqlite_file("postgres://u:p@h/db"), None);
        assert_eq!(describe("sqlite://concord.db"), "SQLite concord.db");
        assert_eq!(
            describe("postgres://app:hunter2@db.internal:5433/concord?sslmode=require"),
            "PostgreSQL db.internal:5433/concord"
        );
        assert!(!describe("postgres://app:hunter2@h/d").contains("hunter2"));
    }

    #[test]
    fn a_second_holder_of_one_sqlite_file_is_refused() {
        let dir = std::env::temp_dir().join(format!("concord-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let url = format!("sqlite://{}", dir.join("held.db").display());
        let first = hold_exclusively(&url).expect("first holder");
        assert!(matches!(hold_exclusively(&url), Err(Refusal::InUse(_))));
        drop(first);
        assert!(hold_exclusively(&url).is_ok(), "released with its holder");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
