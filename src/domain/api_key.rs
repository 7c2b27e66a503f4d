//! An API key as concord keeps it: its name, role and scopes, and the SHA-256 digest of the
//! key (the key itself is shown once, when it is made, and never stored).

use sha2::{Digest, Sha256};

use crate::domain::access::{Caller, Role, Scopes};
use crate::domain::time::Timestamp;

/// The SHA-256 digest of a key.
pub type KeyDigest = [u8; 32];

/// The digest of `key`.
pub fn digest(key: &str) -> KeyDigest {
    Sha256::digest(key.as_bytes()).into()
}

/// Equal digests, compared without an early exit.
pub fn same_digest(a: &KeyDigest, b: &KeyDigest) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A digest as the database holds it: 64 lowercase hex digits.
pub fn hex(d: &KeyDigest) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// A key to store.
#[derive(Debug, Clone)]
pub struct NewApiKey {
    pub name: String,
    pub digest: KeyDigest,
    pub role: Role,
    pub scopes: Scopes,
    pub created_at: Timestamp,
    /// The admin key that makes it (null from the command line and without keys).
    pub created_key: Option<String>,
}

/// A stored key.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiKey {
    pub name: String,
    pub digest: KeyDigest,
    pub role: Role,
    pub scopes: Scopes,
    pub created_at: Timestamp,
    /// When the key last authorised a request, to within a minute (recorded at most once a
    /// minute per instance).
    pub last_used_at: Option<Timestamp>,
    /// When it was revoked; a revoked key authorises nothing.
    pub revoked_at: Option<Timestamp>,
}

impl ApiKey {
    pub fn is_revoked(&self) -> bool {
        self.revoked_at.is_some()
    }

    /// Who a request made with this key runs as.
    pub fn caller(&self) -> Caller {
        Caller {
            name: self.name.clone(),
            role: self.role,
            scopes: self.scopes.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_compare_equal_only_for_the_same_key() {
        assert!(same_digest(&digest("k1"), &digest("k1")));
        assert!(!same_digest(&digest("k1"), &digest("k2")));
        assert_eq!(hex(&digest("")).len(), 64);
    }
}
