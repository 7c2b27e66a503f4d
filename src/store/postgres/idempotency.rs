//! Idempotency keys on PostgreSQL. The first request for a key claims it with
//! `insert … on conflict do nothing`; a concurrent second one waits on that row and then finds it
//! claimed. The response is stored when the first request finishes (a 5xx abandons the claim).

use chrono::Duration;
use sqlx::{PgPool, Row};

use super::PgStore;
use crate::domain::time;
use crate::store::*;

pub async fn begin(
    store: &PgStore,
    scope: &str,
    key: &str,
    fingerprint: &str,
) -> StoreResult<IdempotencyBegin> {
    let now = time::now();
    let mut tx = store.begin().await?;
    sqlx::query("delete from idempotency_keys where expires_at < $1")
        .bind(now)
        .execute(&mut *tx)
        .await?;
    let claimed = sqlx::query(
        "insert into idempotency_keys (scope, idem_key, fingerprint, created_at, updated_at, expires_at) \
         values ($1, $2, $3, $4, $4, $5) on conflict do nothing",
    )
    .bind(scope)
    .bind(key)
    .bind(fingerprint)
    .bind(now)
    .bind(now + Duration::hours(IDEMPOTENCY_TTL_HOURS))
    .execute(&mut *tx)
    .await?;
    if claimed.rows_affected() == 1 {
        tx.commit().await?;
        return Ok(IdempotencyBegin::Started);
    }
    // Locked, so two requests that both find a stale claim cannot both take it over.
    let row = sqlx::query(
        "select fingerprint, status_code, response_body, content_type, location, updated_at \
         from idempotency_keys where scope = $1 and idem_key = $2 for update",
    )
    .bind(scope)
    .bind(key)
    .fetch_optional(&mut *tx)
    .await?;
    // Abandoned between the insert and this read: the caller retries as if still in flight.
    let Some(row) = row else {
        return Ok(IdempotencyBegin::InFlight);
    };
    let updated: time::Timestamp = row.try_get("updated_at")?;
    let status: Option<i32> = row.try_get("status_code")?;
    let verdict = if row.try_get::<String, _>("fingerprint")? != fingerprint {
        IdempotencyBegin::Mismatch
    } else if let Some(status) = status {
        IdempotencyBegin::Replay(StoredResponse {
            status: status as u16,
            body: row
                .try_get::<Option<Vec<u8>>, _>("response_body")?
                .unwrap_or_default(),
            content_type: row.try_get("content_type")?,
            location: row.try_get("location")?,
        })
    } else if updated < now - Duration::seconds(IDEMPOTENCY_STALE_SECS) {
        // The first request died with its process: this one takes the key over.
        sqlx::query(
            "update idempotency_keys set created_at = $3, updated_at = $3, expires_at = $4 \
             where scope = $1 and idem_key = $2",
        )
        .bind(scope)
        .bind(key)
        .bind(now)
        .bind(now + Duration::hours(IDEMPOTENCY_TTL_HOURS))
        .execute(&mut *tx)
        .await?;
        IdempotencyBegin::Started
    } else {
        IdempotencyBegin::InFlight
    };
    tx.commit().await?;
    Ok(verdict)
}

pub async fn finish(pool: &PgPool, scope: &str, key: &str, r: StoredResponse) -> StoreResult<()> {
    sqlx::query(
        "update idempotency_keys set status_code = $3, response_body = $4, content_type = $5, \
         location = $6, updated_at = $7 where scope = $1 and idem_key = $2",
    )
    .bind(scope)
    .bind(key)
    .bind(r.status as i32)
    .bind(r.body)
    .bind(r.content_type)
    .bind(r.location)
    .bind(time::now())
    .execute(pool)
    .await?;
    Ok(())
}

pub async fn abandon(pool: &PgPool, scope: &str, key: &str) -> StoreResult<()> {
    sqlx::query(
        "delete from idempotency_keys where scope = $1 and idem_key = $2 and status_code is null",
    )
    .bind(scope)
    .bind(key)
    .execute(pool)
    .await?;
    Ok(())
}
