//! Idempotency keys, on either database. The first request for a key claims it with
//! `insert … on conflict do nothing`; a concurrent second one finds it claimed (SQLite: after
//! the first's write lock; PostgreSQL: waiting on the row).
//!
//! Exactly once, also across a crash: a keyed write stores its reply in the same transaction
//! as its effect ([`store_response`], called by the unit of work's commit, see
//! `units::Open`), so no moment exists where the effect is committed and the key still looks
//! unanswered. Were the reply stored in a later transaction, a process killed between the two
//! would leave the key in flight and, once the claim went stale, its retry would execute the
//! write a second time. The reply is plain data the service hands in: status, body, content
//! type and location. A reply with no effect to commit (a 4xx, a replayed resolution) is
//! stored afterwards by [`finish`]; a 5xx [`abandon`]s the claim, since its transaction rolled
//! back.

use chrono::Duration;

use super::backend::{Backend, Cols, Conn, QueryExt, Ts};
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
    let verdict = if c.get::<String>("fingerprint")? != fingerprint {
        IdempotencyBegin::Mismatch
    } else if let Some(stored) = rows::stored_response::<B::Db>(&row)? {
        IdempotencyBegin::Replay(stored)
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
    store_response::<B>(&mut conn, scope, key, r).await
}

/// Stores the reply of a claimed key, in the caller's transaction (a keyed write's, just before
/// it commits) or on its own connection ([`finish`]).
pub async fn store_response<B: Backend>(
    conn: &mut Conn<B>,
    scope: &str,
    key: &str,
    r: StoredResponse,
) -> StoreResult<()> {
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
    .run(conn)
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
