//! Idempotency keys, on either database. The first request for a key claims it with
//! `insert … on conflict do nothing`; a concurrent second one finds it claimed (SQLite: after
//! the first's write lock; PostgreSQL: waiting on the row). The response is stored when the
//! first request finishes (a 5xx abandons the claim instead).

use chrono::Duration;

use super::backend::{Backend, Cols, QueryExt, Ts};
use crate::domain::time;
use crate::store::*;

pub async fn begin<B: Backend>(
    store: &B,
    scope: &str,
    key: &str,
    fingerprint: &str,
) -> StoreResult<IdempotencyBegin> {
    let now = time::now();
    let expires = Ts(now + Duration::hours(IDEMPOTENCY_TTL_HOURS));
    let mut tx = store.write().await?;
    B::query("delete from idempotency_keys where expires_at < $1")
        .arg(Ts(now))
        .run(&mut tx)
        .await?;
    let claimed = B::query(
        "insert into idempotency_keys \
         (scope, idem_key, fingerprint, created_at, updated_at, expires_at) \
         values ($1, $2, $3, $4, $4, $5) on conflict do nothing",
    )
    .arg(scope)
    .arg(key)
    .arg(fingerprint)
    .arg(Ts(now))
    .arg(expires)
    .run(&mut tx)
    .await?;
    if claimed == 1 {
        B::commit(tx).await?;
        return Ok(IdempotencyBegin::Started);
    }
    // Locked, so two requests that both find a stale claim cannot both take it over.
    let row = B::query(B::SELECT_IDEMPOTENCY_LOCKED)
        .arg(scope)
        .arg(key)
        .optional(&mut tx)
        .await?;
    // Abandoned between the insert and this read: the caller retries as if still in flight.
    let Some(row) = row else {
        return Ok(IdempotencyBegin::InFlight);
    };
    let c = Cols::<B::Db>::new(&row);
    let status: Option<i32> = c.get("status_code")?;
    let verdict = if c.get::<String>("fingerprint")? != fingerprint {
        IdempotencyBegin::Mismatch
    } else if let Some(status) = status {
        IdempotencyBegin::Replay(StoredResponse {
            status: status as u16,
            body: c
                .get::<Option<Vec<u8>>>("response_body")?
                .unwrap_or_default(),
            content_type: c.get("content_type")?,
            location: c.get("location")?,
        })
    } else if c.ts("updated_at")? < now - Duration::seconds(IDEMPOTENCY_STALE_SECS) {
        // The first request died with its process: this one takes the key over.
        B::query(
            "update idempotency_keys set created_at = $3, updated_at = $3, expires_at = $4 \
             where scope = $1 and idem_key = $2",
        )
        .arg(scope)
        .arg(key)
        .arg(Ts(now))
        .arg(expires)
        .run(&mut tx)
        .await?;
        IdempotencyBegin::Started
    } else {
        IdempotencyBegin::InFlight
    };
    B::commit(tx).await?;
    Ok(verdict)
}

pub async fn finish<B: Backend>(
    store: &B,
    scope: &str,
    key: &str,
    r: StoredResponse,
) -> StoreResult<()> {
    let mut conn = store.pool().acquire().await?;
    B::query(
        "update idempotency_keys set status_code = $3, response_body = $4, content_type = $5, \
         location = $6, updated_at = $7 where scope = $1 and idem_key = $2",
    )
    .arg(scope)
    .arg(key)
    .arg(r.status as i32)
    .arg(r.body)
    .arg(r.content_type)
    .arg(r.location)
    .arg(Ts(time::now()))
    .run(&mut conn)
    .await?;
    Ok(())
}

pub async fn abandon<B: Backend>(store: &B, scope: &str, key: &str) -> StoreResult<()> {
    let mut conn = store.pool().acquire().await?;
    B::query(
        "delete from idempotency_keys where scope = $1 and idem_key = $2 and status_code is null",
    )
    .arg(scope)
    .arg(key)
    .run(&mut conn)
    .await?;
    Ok(())
}
