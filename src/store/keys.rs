//! The `api_keys` table: one row per key made by `concord keys add` or `POST /keys`, found by
//! the hex SHA-256 digest of the key (the key itself is never stored). Every statement is a
//! single one on its own connection; none runs inside another unit of work.

use sqlx::types::Json;

use super::backend::{Backend, Cols, QueryExt, Row, Ts};
use crate::domain::access::{Role, Scopes};
use crate::domain::api_key::{self, ApiKey, NewApiKey};
use crate::domain::time::{self, Timestamp};
use crate::store::{Failure, StoreError, StoreResult};

/// Stores a new key; false when its name (or, improbably, its digest) is taken.
pub async fn insert<B: Backend>(store: &B, key: &NewApiKey) -> StoreResult<bool> {
    let mut conn = store.pool().acquire().await?;
    let inserted = B::query(
        "insert into api_keys \
         (key_name, key_digest, role, scopes, created_at, updated_at, created_key) \
         values ($1, $2, $3, $4, $5, $5, $6) on conflict do nothing",
    )
    .arg(key.name.as_str())
    .arg(api_key::hex(&key.digest))
    .arg(key.role.as_str())
    .arg(Json(key.scopes.to_strings()))
    .arg(Ts(key.created_at))
    .arg(&key.created_key)
    .run(&mut conn)
    .await?;
    Ok(inserted == 1)
}

/// Every key, revoked ones included, by name.
pub async fn list<B: Backend>(store: &B) -> StoreResult<Vec<ApiKey>> {
    let mut conn = store.pool().acquire().await?;
    let rows = B::query(
        "select key_name, key_digest, role, scopes, created_at, last_used_at, revoked_at \
         from api_keys order by key_name",
    )
    .all(&mut conn)
    .await?;
    rows.iter().map(key_of::<B>).collect()
}

/// The key with this digest, revoked or not.
pub async fn by_digest<B: Backend>(
    store: &B,
    digest: &api_key::KeyDigest,
) -> StoreResult<Option<ApiKey>> {
    let mut conn = store.pool().acquire().await?;
    let row = B::query(
        "select key_name, key_digest, role, scopes, created_at, last_used_at, revoked_at \
         from api_keys where key_digest = $1",
    )
    .arg(api_key::hex(digest))
    .optional(&mut conn)
    .await?;
    row.as_ref().map(key_of::<B>).transpose()
}

/// Revokes the named key (a revoked one keeps its first revocation time) and returns it.
pub async fn revoke<B: Backend>(
    store: &B,
    name: &str,
    by_key: Option<&str>,
) -> StoreResult<ApiKey> {
    let now = Ts(time::now());
    let mut conn = store.pool().acquire().await?;
    B::query(
        "update api_keys set revoked_at = $2, updated_at = $2, revoked_key = $3 \
         where key_name = $1 and revoked_at is null",
    )
    .arg(name)
    .arg(now)
    .arg(by_key)
    .run(&mut conn)
    .await?;
    let row = B::query(
        "select key_name, key_digest, role, scopes, created_at, last_used_at, revoked_at \
         from api_keys where key_name = $1",
    )
    .arg(name)
    .optional(&mut conn)
    .await?
    .ok_or(StoreError::NotFound("key"))?;
    key_of::<B>(&row)
}

/// Whether any key was ever stored (revoked ones count: revoking every key does not open the
/// service).
pub async fn any<B: Backend>(store: &B) -> StoreResult<bool> {
    let mut conn = store.pool().acquire().await?;
    let row = B::query("select 1 from api_keys limit 1")
        .optional(&mut conn)
        .await?;
    Ok(row.is_some())
}

/// Records that the key authorised a request at `at`, unless a later use is recorded.
pub async fn touch<B: Backend>(store: &B, name: &str, at: Timestamp) -> StoreResult<()> {
    let mut conn = store.pool().acquire().await?;
    B::query(
        "update api_keys set last_used_at = $2 \
         where key_name = $1 and (last_used_at is null or last_used_at < $2)",
    )
    .arg(name)
    .arg(Ts(at))
    .run(&mut conn)
    .await?;
    Ok(())
}

fn corrupt(e: impl ToString) -> StoreError {
    StoreError::Failed(Failure::Corrupt(e.to_string()))
}

fn key_of<B: Backend>(r: &Row<B>) -> StoreResult<ApiKey> {
    let c = Cols::<B::Db>::new(r);
    let hex: String = c.get("key_digest")?;
    let digest = parse_hex(&hex).ok_or_else(|| corrupt(format!("bad key digest {hex:?}")))?;
    let scopes: Vec<String> = c.json("scopes")?;
    Ok(ApiKey {
        name: c.get("key_name")?,
        digest,
        role: c.parse::<Role>("role")?,
        scopes: Scopes::parse(&scopes, "/scopes")
            .map_err(|_| corrupt(format!("bad key scopes {scopes:?}")))?,
        created_at: c.ts("created_at")?,
        last_used_at: c.opt_ts("last_used_at")?,
        revoked_at: c.opt_ts("revoked_at")?,
    })
}

fn parse_hex(s: &str) -> Option<api_key::KeyDigest> {
    let mut out = [0u8; 32];
    if s.len() != 64 {
        return None;
    }
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}
