//! `--sqlite-synchronous`: what the flag (and its default) sets on every pooled connection.

use concord::config::{Cli, Command};
use concord::store::backend::Backend;
use concord::store::sqlite::{SqliteStore, Synchronous};
use sqlx::Row;

async fn pragma(synchronous: Synchronous) -> i64 {
    let dir = std::env::temp_dir().join(format!("concord-durability-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite://{}", dir.join("d.db").display());
    let store = SqliteStore::connect(&url, synchronous).await.unwrap();
    let row = sqlx::query("pragma synchronous")
        .fetch_one(store.pool())
        .await
        .unwrap();
    store.pool().close().await;
    std::fs::remove_dir_all(&dir).unwrap();
    row.get(0)
}

#[tokio::test]
async fn full_and_normal_reach_the_connection() {
    assert_eq!(pragma(Synchronous::Full).await, 2, "FULL");
    assert_eq!(pragma(Synchronous::Normal).await, 1, "NORMAL");
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
