//! Idempotency keys, on either database. The first request for a key claims it with
//! `insert … on conflict do nothing`; a concurrent second one finds it claimed. A key already
//! claimed or answered is read first, without the write lock: on SQLite a second request would
//! otherwise wait for the first's whole write transaction (one writer at a time) and replay its
//! reply, where the contract answers 409 while the first still runs.
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

use super::backend::{Backend, Cols, Conn, QueryExt, Row, Ts};
use crate::domain::time;
use crate::store::*;

pub async fn begin<B: Backend>(
    store: &B,
    scope: &str,
    key: &str,
    fingerprint: &str,
) -> StoreResult<IdempotencyBegin> {
    let now = time::now();
    let seen = {
        let mut conn = store.reader().await?;
        B::query(
            "select fingerprint, status_code, response_body, content_type, location, updated_at \
             from idempotency_keys where scope = $1 and idem_key = $2 and expires_at >= $3",
        )
        .arg(scope)
        .arg(key)
        .arg(Ts(now))
        .optional(&mut conn)
        .await?
    };
    if let Some(row) = seen {
        match claim_of::<B>(&row, fingerprint, now)? {
            // Only a stale claim needs the write lock: to be taken over.
            Claim::Stale => {}
            Claim::Is(verdict) => return Ok(verdict),
        }
    }
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
    let verdict = match claim_of::<B>(&row, fingerprint, now)? {
        Claim::Is(verdict) => verdict,
        Claim::Stale => {
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
        }
    };
    B::commit(tx).await?;
    Ok(verdict)
}

/// What a stored key says to a request with `fingerprint`.
enum Claim {
    /// Claimed by a request that died with its process: the next may take it over.
    Stale,
    Is(IdempotencyBegin),
}

/// Reads a row of `idempotency_keys` (fingerprint, reply, `updated_at`) for a request.
fn claim_of<B: Backend>(
    row: &Row<B>,
    fingerprint: &str,
    now: time::Timestamp,
) -> StoreResult<Claim> {
    let c = Cols::<B::Db>::new(row);
    Ok(if c.get::<String>("fingerprint")? != fingerprint {
        Claim::Is(IdempotencyBegin::Mismatch)
    } else if let Some(stored) = rows::stored_response::<B::Db>(row)? {
        Claim::Is(IdempotencyBegin::Replay(stored))
    } else if c.ts("updated_at")? < now - Duration::seconds(IDEMPOTENCY_STALE_SECS) {
        Claim::Stale
    } else {
        Claim::Is(IdempotencyBegin::InFlight)
    })
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
