//! Idempotency keys, on either database. The first request for a key claims it with
//! `insert … on conflict do nothing`; a concurrent second one finds it claimed (SQLite: after
//! the first's write lock; PostgreSQL: waiting on the row).
//!
//! Exactly once, also across a crash: a keyed write stores its response in the same
//! transaction as its effect ([`commit`]), so no moment exists where the effect is committed
//! and the key still looks unanswered. Were the response stored in a later transaction, a
//! process killed between the two would leave the key in flight and, once the claim went
//! stale, its retry would execute the write a second time. The request's [`Claim`] reaches the
//! unit of work as a task-local, set by the HTTP middleware, so the store's signatures do not
//! change; the handler says beforehand how its result becomes the response ([`answer_with`]).
//! A response with no effect to commit (a 4xx, a replayed resolution) is stored afterwards by
//! [`finish`]; a 5xx abandons the claim, since its transaction rolled back.

use std::any::Any;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use chrono::Duration;

use super::backend::{Backend, Cols, Conn, QueryExt, Ts};
use crate::domain::time;
use crate::store::*;

type Render = Box<dyn Fn(&dyn Any) -> Option<StoredResponse> + Send + Sync>;

/// A claimed key whose request is running.
pub struct Claim {
    scope: String,
    key: String,
    render: Mutex<Option<Render>>,
    saved: AtomicBool,
}

tokio::task_local! {
    static CLAIM: Arc<Claim>;
}

impl Claim {
    pub fn new(scope: &str, key: &str) -> Arc<Self> {
        Arc::new(Self {
            scope: scope.to_owned(),
            key: key.to_owned(),
            render: Mutex::new(None),
            saved: AtomicBool::new(false),
        })
    }

    /// Runs the request with this claim visible to its unit of work.
    pub async fn serve<F: Future>(self: Arc<Self>, request: F) -> F::Output {
        CLAIM.scope(self, request).await
    }

    pub fn scope(&self) -> &str {
        &self.scope
    }

    pub fn key(&self) -> &str {
        &self.key
    }

    /// Whether the response was committed with the effect (nothing is left to store).
    pub fn saved(&self) -> bool {
        self.saved.load(Ordering::Acquire)
    }

    fn response_for(&self, out: &dyn Any) -> Option<StoredResponse> {
        let render = self.render.lock().expect("claim render");
        render.as_ref().and_then(|r| r(out))
    }
}

/// Says how the result `T` of the coming unit of work becomes the response, when the current
/// request is keyed (else does nothing).
pub fn answer_with<T: 'static>(render: impl Fn(&T) -> StoredResponse + Send + Sync + 'static) {
    let _ = CLAIM.try_with(|c| {
        *c.render.lock().expect("claim render") =
            Some(Box::new(move |out| out.downcast_ref::<T>().map(&render)));
    });
}

/// Whether the current request is keyed: its unit of work must store the response with its
/// effect, in one transaction.
pub fn keyed() -> bool {
    CLAIM.try_with(|_| ()).is_ok()
}

/// Commits a unit of work whose result is `out`. For a keyed request whose response is
/// rendered from a `T`, the response is stored in this same transaction.
pub async fn commit<B: Backend, T: 'static>(mut tx: B::Tx, out: &T) -> StoreResult<()> {
    let claim = CLAIM.try_with(Arc::clone).ok();
    let response = claim.as_ref().and_then(|c| c.response_for(out));
    let saved = response.is_some();
    if let (Some(c), Some(r)) = (&claim, response) {
        store_response::<B>(&mut tx, &c.scope, &c.key, r).await?;
    }
    B::commit(tx).await?;
    if saved && let Some(c) = claim {
        c.saved.store(true, Ordering::Release);
    }
    Ok(())
}

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

async fn store_response<B: Backend>(
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
