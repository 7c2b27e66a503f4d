//! `--sqlite-synchronous` and `--sqlite-mmap-mib`: what the flags (and their defaults) set on
//! every pooled connection.

use concord::config::{Cli, Command};
use concord::store::backend::Backend;
use concord::store::sqlite::{SqliteOptions, SqliteStore, Synchronous};
use sqlx::Row;

/// `sql` (a pragma) on each of several connections open at once, from a store opened with
/// `options`.
async fn pragma(options: impl Into<SqliteOptions>, sql: &'static str) -> Vec<i64> {
    let dir = std::env::temp_dir().join(format!("concord-durability-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite://{}", dir.join("d.db").display());
    let store = SqliteStore::connect(&url, options).await.unwrap();
    let mut held = Vec::new();
    let mut values = Vec::new();
    for _ in 0..3 {
        let mut conn = store.pool().acquire().await.unwrap();
        let row = sqlx::query(sql).fetch_one(&mut *conn).await.unwrap();
        values.push(row.get(0));
        held.push(conn);
    }
    drop(held);
    store.pool().close().await;
    std::fs::remove_dir_all(&dir).unwrap();
    values
}

#[tokio::test]
async fn full_and_normal_reach_the_connection() {
    assert_eq!(
        pragma(Synchronous::Full, "pragma synchronous").await,
        [2; 3],
        "FULL"
    );
    assert_eq!(
        pragma(Synchronous::Normal, "pragma synchronous").await,
        [1; 3],
        "NORMAL"
    );
}

#[tokio::test]
async fn a_memory_map_reaches_every_connection_and_none_is_the_default() {
    let mapped = SqliteOptions {
        mmap_mib: 64,
        ..SqliteOptions::default()
    };
    assert_eq!(pragma(mapped, "pragma mmap_size").await, [64 << 20; 3]);
    assert_eq!(pragma(Synchronous::Full, "pragma mmap_size").await, [0; 3]);
}

/// `SqliteStore::connect` turns SQLite's memory statistics off before the process's first
/// connection (every test here connects through it): with them on, every allocation takes a
/// global mutex. Off, the counter of memory in use stays at 0 while connections are open.
#[tokio::test]
async fn memory_statistics_are_off() {
    let dir = std::env::temp_dir().join(format!("concord-memstat-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite://{}", dir.join("m.db").display());
    let store = SqliteStore::connect(&url, Synchronous::Full).await.unwrap();
    // SAFETY: reads one of SQLite's counters; it takes no arguments.
    let used = unsafe { libsqlite3_sys::sqlite3_memory_used() };
    store.pool().close().await;
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        used, 0,
        "SQLite counts its memory (with connections open): statistics are on"
    );
}

#[test]
fn the_default_is_full_and_other_values_are_refused() {
    let db = |args: &[&str]| match clap::Parser::try_parse_from(args) {
        Ok(Cli {
            command: Command::Migrate(db),
        }) => Ok(db.sqlite_synchronous),
        Ok(_) => unreachable!("migrate was asked for"),
        Err(e) => Err(e.to_string()),
    };
    assert_eq!(db(&["concord", "migrate"]), Ok(Synchronous::Full));
    assert_eq!(
        db(&["concord", "migrate", "--sqlite-synchronous", "normal"]),
        Ok(Synchronous::Normal)
    );
    let refused = db(&["concord", "migrate", "--sqlite-synchronous", "off"]).unwrap_err();
    assert!(refused.contains("must be normal or full"), "{refused}");
}

#[test]
fn the_memory_map_flag_is_read_in_mib() {
    let options = |args: &[&str]| match clap::Parser::try_parse_from(args) {
        Ok(Cli {
            command: Command::Migrate(db),
        }) => db.sqlite(),
        Ok(_) => unreachable!("migrate was asked for"),
        Err(e) => panic!("{e}"),
    };
    assert_eq!(options(&["concord", "migrate"]).mmap_mib, 0);
    let mapped = options(&["concord", "migrate", "--sqlite-mmap-mib", "1024"]);
    assert_eq!(
        (mapped.mmap_mib, mapped.synchronous),
        (1024, Synchronous::Full)
    );
}
