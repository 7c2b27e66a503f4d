//! Idempotency keys on SQLite. The first request for a key claims it with an insert under the
//! write lock; its response is stored when it finishes (a 5xx abandons the claim instead).

use chrono::Duration;
use sqlx::{Row, SqlitePool};

use super::SqliteStore;
use crate::domain::time;
use crate::store::*;

pub async fn begin(
    store: &SqliteStore,
    scope: &str,
    key: &str,
    fingerprint: &str,
) -> StoreResult<IdempotencyBegin> {
    let now = time::now();
    let mut tx = store.write().await?;
    sqlx::query("delete from idempotency_keys where expires_at < $1")
        .bind(time::format(&now))
        .execute(&mut *tx)
        .await?;
    let row = sqlx::query(
        "select fingerprint, status_code, response_body, content_type, location, updated_at \
         from idempotency_keys where scope = $1 and idem_key = $2",
    )
    .bind(scope)
    .bind(key)
    .fetch_optional(&mut *tx)
    .await?;
    let verdict = match row {
        Some(row) => {
            let stale = super::rows::ts(&row.try_get::<String, _>("updated_at")?)?
                < now - Duration::seconds(IDEMPOTENCY_STALE_SECS);
            let status: Option<i64> = row.try_get("status_code")?;
            if row.try_get::<String, _>("fingerprint")? != fingerprint {
                IdempotencyBegin::Mismatch
            } else if let Some(status) = status {
                IdempotencyBegin::Replay(StoredResponse {
                    status: status as u16,
                    body: row.try_get("response_body")?,
                    content_type: row.try_get("content_type")?,
                    location: row.try_get("location")?,
                })
            } else if stale {
                claim(&mut tx, scope, key, fingerprint, now, true).await?;
                IdempotencyBegin::Started
            } else {
                IdempotencyBegin::InFlight
            }
        }
        None => {
            claim(&mut tx, scope, key, fingerprint, now, false).await?;
            IdempotencyBegin::Started
        }
    };
    tx.commit().await?;
    Ok(verdict)
}

async fn claim(
    conn: &mut sqlx::SqliteConnection,
    scope: &str,
    key: &str,
    fingerprint: &str,
    now: time::Timestamp,
    take_over: bool,
) -> StoreResult<()> {
    if take_over {
        sqlx::query("delete from idempotency_keys where scope = $1 and idem_key = $2")
            .bind(scope)
            .bind(key)
            .execute(&mut *conn)
            .await?;
    }
    sqlx::query(
        "insert into idempotency_keys (scope, idem_key, fingerprint, created_at, updated_at, expires_at) \
         values ($1, $2, $3, $4, $4, $5)",
    )
    .bind(scope)
    .bind(key)
    .bind(fingerprint)
    .bind(time::format(&now))
    .bind(time::format(&(now + Duration::hours(IDEMPOTENCY_TTL_HOURS))))
    .execute(&mut *conn)
    .await?;
    Ok(())
}

pub async fn finish(
    pool: &SqlitePool,
    scope: &str,
    key: &str,
    r: StoredResponse,
) -> StoreResult<()> {
    sqlx::query(
        "update idempotency_keys set status_code = $3, response_body = $4, content_type = $5, \
         location = $6, updated_at = $7 where scope = $1 and idem_key = $2",
    )
    .bind(scope)
    .bind(key)
    .bind(r.status as i64)
    .bind(r.body)
    .bind(r.content_type)
    .bind(r.location)
    .bind(time::format(&time::now()))
    .execute(pool)
    .await?;
    Ok(())
}

pub async fn abandon(pool: &SqlitePool, scope: &str, key: &str) -> StoreResult<()> {
    sqlx::query(
        "delete from idempotency_keys where scope = $1 and idem_key = $2 and status_code is null",
    )
    .bind(scope)
    .bind(key)
    .execute(pool)
    .await?;
    Ok(())
}
