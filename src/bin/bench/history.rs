//! Versions for the `reads` scenario: every memory changed `n` times straight in the database
//! (each change a version, written by the store's own triggers), and the store's size.

use std::time::Duration;

use sqlx::Connection;

/// One change of every memory: its confidence, which leaves the body alone, as the storage
/// target of issue "versions" assumes.
const CHANGE: &str = "update nodes set confidence = confidence * 0.9 + 0.01, \
                      changed_by = 'bench', changed_in = null";

/// Changes every memory `n` times; returns an instant (RFC 3339) halfway through, when each
/// memory had `n / 2` changes.
pub async fn change_all(url: &str, n: u64) -> anyhow::Result<String> {
    let mut known = concord::domain::time::format(&concord::domain::time::now());
    for round in 0..n {
        if round == n / 2 {
            tokio::time::sleep(Duration::from_millis(5)).await;
            known = concord::domain::time::format(&concord::domain::time::now());
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        if url.starts_with("sqlite:") {
            let mut c = sqlx::SqliteConnection::connect(url).await?;
            sqlx::query(CHANGE).execute(&mut c).await?;
            c.close().await?;
        } else {
            let mut c = sqlx::PgConnection::connect(url).await?;
            sqlx::query(CHANGE).execute(&mut c).await?;
            c.close().await?;
        }
    }
    if !url.starts_with("sqlite:") {
        let mut c = sqlx::PgConnection::connect(url).await?;
        sqlx::query("vacuum analyze").execute(&mut c).await?;
        c.close().await?;
    }
    Ok(known)
}

/// The store's size in MiB: the SQLite file after a checkpoint, or the PostgreSQL database.
pub async fn size(url: &str) -> anyhow::Result<Option<f64>> {
    let bytes: i64 = if url.starts_with("sqlite:") {
        let mut c = sqlx::SqliteConnection::connect(url).await?;
        sqlx::query("pragma wal_checkpoint(truncate)")
            .execute(&mut c)
            .await?;
        let pages: i64 = sqlx::query_scalar("pragma page_count")
            .fetch_one(&mut c)
            .await?;
        let free: i64 = sqlx::query_scalar("pragma freelist_count")
            .fetch_one(&mut c)
            .await?;
        let size: i64 = sqlx::query_scalar("pragma page_size")
            .fetch_one(&mut c)
            .await?;
        c.close().await?;
        (pages - free) * size
    } else {
        let mut c = sqlx::PgConnection::connect(url).await?;
        let b = sqlx::query_scalar("select pg_database_size(current_database())")
            .fetch_one(&mut c)
            .await?;
        c.close().await?;
        b
    };
    Ok(Some(bytes as f64 / (1024.0 * 1024.0)))
}

/// The SQLite store's size in MiB without its versions (a copy, the table dropped and the
/// file vacuumed): the memories alone. `None` on PostgreSQL.
pub async fn size_without_versions(url: &str) -> anyhow::Result<Option<f64>> {
    let Some(path) = url.strip_prefix("sqlite://") else {
        return Ok(None);
    };
    size(url).await?; // checkpoints the WAL into the file that is copied
    let copy = format!("{path}.noversions");
    std::fs::copy(path, &copy)?;
    let copy_url = format!("sqlite://{copy}");
    let mut c = sqlx::SqliteConnection::connect(&copy_url).await?;
    sqlx::query("drop table node_versions")
        .execute(&mut c)
        .await?;
    sqlx::query("vacuum").execute(&mut c).await?;
    c.close().await?;
    let mib = size(&copy_url).await?;
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{copy}{suffix}"));
    }
    Ok(mib)
}

/// Turns a SQLite store back into one from before versions existed (migrations 9 and later
/// undone: the version table and its triggers dropped), so a build from before versions serves
/// the same memories from the same file: the node rows stay where they are and the pages the
/// versions held are left free, so both builds read the same pages. The columns migration 9
/// added to `nodes` stay; the older build never names them.
pub async fn undo_versions(url: &str) -> anyhow::Result<()> {
    anyhow::ensure!(
        url.starts_with("sqlite:"),
        "--before-bin needs the SQLite store"
    );
    let mut c = sqlx::SqliteConnection::connect(url).await?;
    for sql in [
        "drop trigger node_versions_insert",
        "drop trigger node_versions_update",
        "drop trigger node_versions_delete",
        "drop table node_versions",
        "delete from _sqlx_migrations where version >= 9",
    ] {
        sqlx::query(sql).execute(&mut c).await?;
    }
    c.close().await?;
    Ok(())
}
