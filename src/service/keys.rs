//! API keys: making, listing and revoking them (`concord keys`, `/keys`), and finding who a
//! request's key belongs to ([`authenticate`]).
//!
//! - **At rest** only the SHA-256 digest of a key is stored; the key is shown once, when made.
//! - **`--api-keys`** stay what they were: admin keys for every scope, named `config:1`,
//!   `config:2`, … in their order. They are compared in constant time, every one of them.
//! - **Keys in the database** are found by digest (an index lookup, then a constant-time
//!   comparison of the digests). A lookup's timing can only tell an attacker about digests,
//!   and a digest says nothing about the key that hashes to it.
//! - **Revocation everywhere within a second.** Each process keeps what it found for a digest
//!   (a key, or that there is none) for [`FRESH`], then asks the database again. A key revoked
//!   on one instance is refused by every instance sharing the database within that time, and
//!   a busy key costs one indexed read a second per instance instead of one per request.
//! - **`last_used_at`** is written at most once a minute per key and instance, off the
//!   request's path.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::domain::FieldError;
use crate::domain::access::{Caller, Role, Scopes, check_key_name};
use crate::domain::api_key::{self, ApiKey, KeyDigest, NewApiKey};
use crate::domain::time;
use crate::service::scopes::may_use_all;
use crate::service::{Error, Result, Services};

/// How long a process trusts what it found for a digest. Under a second, so a revocation
/// (plus the read that finds it) takes effect everywhere within one.
pub const FRESH: Duration = Duration::from_millis(800);
/// How often a key's `last_used_at` is written, at most, per process.
const TOUCH_EVERY: Duration = Duration::from_secs(60);
/// Digests remembered at most (failed ones included); beyond it the stale ones go first.
const MAX_CACHED: usize = 10_000;
/// The prefix of every key concord makes, so scanners can spot a leaked one.
pub const KEY_PREFIX: &str = "concord_";

/// The keys one process accepts: the configured ones, and what it found lately in the
/// database. Built once per process (`Services`).
#[derive(Default)]
pub struct KeyRing {
    configured: Vec<KeyDigest>,
    found: Mutex<HashMap<KeyDigest, Found>>,
    /// Whether the database holds any key, and when that was read.
    any: Mutex<Option<(bool, Instant)>>,
    touched: Mutex<HashMap<String, Instant>>,
}

struct Found {
    key: Option<Arc<ApiKey>>,
    at: Instant,
}

impl KeyRing {
    /// A ring accepting `configured` (`--api-keys`; empty ones are ignored) besides the
    /// database's keys.
    pub fn new<'a>(configured: impl IntoIterator<Item = &'a str>) -> Self {
        Self {
            configured: configured
                .into_iter()
                .filter(|k| !k.is_empty())
                .map(api_key::digest)
                .collect(),
            ..Self::default()
        }
    }

    /// The configured key matching `d`, as its 1-based index; every key is compared.
    fn configured_match(&self, d: &KeyDigest) -> Option<usize> {
        let hit = self
            .configured
            .iter()
            .enumerate()
            .fold(0usize, |acc, (i, k)| {
                acc | (usize::from(api_key::same_digest(k, d)) * (i + 1))
            });
        (hit > 0).then_some(hit)
    }

    fn cached(&self, d: &KeyDigest) -> Option<Option<Arc<ApiKey>>> {
        let found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        let f = found.get(d)?;
        (f.at.elapsed() < FRESH).then(|| f.key.clone())
    }

    fn remember(&self, d: KeyDigest, key: Option<Arc<ApiKey>>, at: Instant) {
        let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        if found.len() >= MAX_CACHED {
            found.retain(|_, f| f.at.elapsed() < FRESH);
            if found.len() >= MAX_CACHED {
                found.clear();
            }
        }
        found.insert(d, Found { key, at });
    }

    /// Forgets what this process found for the key named `name` (it was just revoked here).
    fn forget(&self, name: &str) {
        let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        found.retain(|_, f| f.key.as_ref().is_none_or(|k| k.name != name));
    }

    /// Whether `name`'s use should be recorded now (once a minute per process).
    fn due_for_touch(&self, name: &str) -> bool {
        let mut touched = self.touched.lock().unwrap_or_else(|e| e.into_inner());
        match touched.get(name) {
            Some(at) if at.elapsed() < TOUCH_EVERY => false,
            _ => {
                touched.insert(name.to_owned(), Instant::now());
                true
            }
        }
    }
}

/// Who `key` belongs to: `None` for no key at all, or a revoked one.
pub async fn authenticate(svc: &Services, key: &str) -> Result<Option<Caller>> {
    let ring = &svc.keyring;
    let d = api_key::digest(key);
    if let Some(i) = ring.configured_match(&d) {
        return Ok(Some(Caller::configured(i)));
    }
    let key = match ring.cached(&d) {
        Some(key) => key,
        None => {
            // Timed from before the read: a revocation committed during it is seen in time.
            let asked = Instant::now();
            let key = svc.store.key_by_digest(d).await?.map(Arc::new);
            ring.remember(d, key.clone(), asked);
            key
        }
    };
    let Some(key) = key.filter(|k| api_key::same_digest(&k.digest, &d) && !k.is_revoked()) else {
        return Ok(None);
    };
    if ring.due_for_touch(&key.name) {
        let store = svc.store.clone();
        let name = key.name.clone();
        tokio::spawn(async move {
            if let Err(e) = store.touch_key(&name, time::now()).await {
                tracing::warn!(error = %e, key = %name, "recording a key's use failed");
            }
        });
    }
    Ok(Some(key.caller()))
}

/// Whether requests need a key: some are configured, or the database holds any (revoked
/// ones too: revoking every key does not open the service). Read at most once per [`FRESH`].
pub async fn required(svc: &Services) -> Result<bool> {
    let ring = &svc.keyring;
    if !ring.configured.is_empty() {
        return Ok(true);
    }
    if let Some((any, at)) = *ring.any.lock().unwrap_or_else(|e| e.into_inner())
        && (any || at.elapsed() < FRESH)
    {
        // Once there is a key there always is: no need to ask again.
        return Ok(any);
    }
    let asked = Instant::now();
    let any = match svc.store.keys_exist().await {
        Ok(any) => any,
        // The database is down: the last answer stands, so routes that need no database
        // (`/metrics`, the API document) still answer, and others fail as they would.
        Err(e) => match *ring.any.lock().unwrap_or_else(|e| e.into_inner()) {
            Some((any, _)) => return Ok(any),
            None => return Err(e.into()),
        },
    };
    *ring.any.lock().unwrap_or_else(|e| e.into_inner()) = Some((any, asked));
    Ok(any)
}

/// A key to make, parsed.
#[derive(Debug, Clone)]
pub struct AddKey {
    pub name: String,
    pub role: Role,
    pub scopes: Scopes,
}

impl AddKey {
    /// Parses a name, a role and scope patterns; errors point at `/name`, `/role`,
    /// `/scopes/<i>`.
    pub fn parse(name: &str, role: &str, scopes: &[String]) -> Result<Self, Vec<FieldError>> {
        let mut errors = Vec::new();
        let name = name.trim();
        if let Err(e) = check_key_name(name) {
            errors.push(FieldError::new("/name", e));
        }
        let role = role
            .parse::<Role>()
            .map_err(|e| errors.push(FieldError::new("/role", e)))
            .ok();
        let scopes = Scopes::parse(scopes, "/scopes")
            .map_err(|e| errors.extend(e))
            .ok();
        match (role, scopes) {
            (Some(role), Some(scopes)) if errors.is_empty() => Ok(Self {
                name: name.to_owned(),
                role,
                scopes,
            }),
            _ => Err(errors),
        }
    }
}

/// Makes a key: stores its digest and returns it with the key itself, which nothing keeps.
/// Keys are managed by admins of every scope only: a key of some scopes could otherwise
/// make one of more.
pub async fn add(svc: &Services, caller: &Caller, new: AddKey) -> Result<(ApiKey, String)> {
    may_use_all(caller)?;
    let secret = generate()?;
    let key = NewApiKey {
        name: new.name,
        digest: api_key::digest(&secret),
        role: new.role,
        scopes: new.scopes,
        created_at: time::now(),
        created_key: caller.writer(),
    };
    if !svc.store.create_key(key.clone()).await? {
        return Err(Error::KeyExists(key.name));
    }
    let stored = ApiKey {
        name: key.name,
        digest: key.digest,
        role: key.role,
        scopes: key.scopes,
        created_at: key.created_at,
        last_used_at: None,
        revoked_at: None,
    };
    Ok((stored, secret))
}

/// Every key, revoked ones included, by name.
pub async fn list(svc: &Services, caller: &Caller) -> Result<Vec<ApiKey>> {
    may_use_all(caller)?;
    Ok(svc.store.list_keys().await?)
}

/// Revokes the named key: this process refuses it at once, others within [`FRESH`].
pub async fn revoke(svc: &Services, caller: &Caller, name: &str) -> Result<ApiKey> {
    may_use_all(caller)?;
    let key = svc
        .store
        .revoke_key(name, caller.writer().as_deref())
        .await?;
    svc.keyring.forget(name);
    Ok(key)
}

/// A new key: the prefix and 32 random bytes, base64url.
fn generate() -> Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| Error::Internal(anyhow::anyhow!("no random bytes for a key: {e}")))?;
    Ok(format!("{KEY_PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configured_keys_match_by_position() {
        let ring = KeyRing::new(["a", "", "b"]);
        assert_eq!(ring.configured_match(&api_key::digest("a")), Some(1));
        assert_eq!(ring.configured_match(&api_key::digest("b")), Some(2));
        assert_eq!(ring.configured_match(&api_key::digest("c")), None);
    }

    #[test]
    fn new_keys_are_long_random_and_prefixed() {
        let (a, b) = (generate().unwrap(), generate().unwrap());
        assert_ne!(a, b);
        assert!(a.starts_with(KEY_PREFIX));
        assert_eq!(a.len(), KEY_PREFIX.len() + 43);
    }

    #[test]
    fn a_key_to_add_names_every_bad_field() {
        let e = AddKey::parse("bad name", "owner", &["a*b".into()]).unwrap_err();
        let pointers: Vec<_> = e.iter().map(|e| e.pointer.as_str()).collect();
        assert_eq!(pointers, ["/name", "/role", "/scopes/0"]);
        assert!(AddKey::parse("ci", "agent", &["team-a/*".into()]).is_ok());
    }
}
