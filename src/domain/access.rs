//! Who may do what: API keys' roles, the permissions each role holds, the scopes a key may
//! use, and the [`Caller`] a request runs as. Pure rules, no HTTP and no database: each front
//! door asks [`Role::allows`] in one place (REST's table of operations, MCP's table of tools).
//!
//! | role | read, recall, reports, events | write memories and edges, check, queue conflicts | resolve, revert | keys, policies |
//! |---|---|---|---|---|
//! | `reader` | yes | | | |
//! | `agent` | yes | yes | | |
//! | `reviewer` | yes | | yes | |
//! | `admin` | yes | yes | yes | yes |

use std::fmt;
use std::str::FromStr;

use crate::domain::FieldError;

/// What an operation needs of its caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Permission {
    /// Reads, recall, topic reports, the event stream and the wake feed.
    Read,
    /// Writing memories and edges, checking them for contradictions, queueing conflicts.
    Write,
    /// Resolving conflicts and reverting resolutions.
    Resolve,
    /// Managing keys and reading the resolution policies.
    Admin,
}

impl Permission {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
            Self::Resolve => "resolve",
            Self::Admin => "admin",
        }
    }
}

/// A key's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    Reader,
    Agent,
    Reviewer,
    Admin,
}

impl Role {
    pub const ALL: [Role; 4] = [Role::Reader, Role::Agent, Role::Reviewer, Role::Admin];

    /// Whether this role may do what `p` guards.
    pub fn allows(self, p: Permission) -> bool {
        use Permission as P;
        match self {
            Self::Admin => true,
            Self::Reader => p == P::Read,
            Self::Agent => matches!(p, P::Read | P::Write),
            Self::Reviewer => matches!(p, P::Read | P::Resolve),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Reader => "reader",
            Self::Agent => "agent",
            Self::Reviewer => "reviewer",
            Self::Admin => "admin",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Role {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| format!("unknown role {s:?}: expected reader, agent, reviewer or admin"))
    }
}

/// A scope a key may use: an exact scope name, or a prefix ending in `*` (`team-a/*` holds
/// every scope that starts with `team-a/`; `*` alone holds every scope).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ScopePattern {
    Exact(String),
    Prefix(String),
}

/// Longest scope pattern accepted (a scope is at most 200 characters, plus the `*`).
const MAX_PATTERN_CHARS: usize = crate::domain::node::MAX_SCOPE_CHARS + 1;

impl ScopePattern {
    /// Every scope.
    pub fn all() -> Self {
        Self::Prefix(String::new())
    }

    /// Parses `team-a`, `team-a/*` or `*`; a `*` anywhere but at the end is refused.
    pub fn parse(raw: &str) -> Result<Self, String> {
        let s = raw.trim();
        let n = s.chars().count();
        if n == 0 || n > MAX_PATTERN_CHARS {
            return Err(format!("must be 1..{MAX_PATTERN_CHARS} characters"));
        }
        if s.chars().any(char::is_control) {
            return Err("must not contain control characters".into());
        }
        match s.find('*') {
            None => Ok(Self::Exact(s.to_owned())),
            Some(i) if i == s.len() - 1 => Ok(Self::Prefix(s[..i].to_owned())),
            Some(_) => Err("`*` may only end a scope pattern (e.g. `team-a/*`)".into()),
        }
    }

    pub fn matches(&self, scope: &str) -> bool {
        match self {
            Self::Exact(s) => s == scope,
            Self::Prefix(p) => scope.starts_with(p.as_str()),
        }
    }
}

impl fmt::Display for ScopePattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Exact(s) => f.write_str(s),
            Self::Prefix(p) => write!(f, "{p}*"),
        }
    }
}

/// The scopes a key may use (at least one pattern).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scopes(Vec<ScopePattern>);

impl Scopes {
    /// Every scope (`*`).
    pub fn all() -> Self {
        Self(vec![ScopePattern::all()])
    }

    /// Parses a key's patterns; the errors point at `{pointer}/{index}`.
    pub fn parse(raw: &[String], pointer: &str) -> Result<Self, Vec<FieldError>> {
        if raw.is_empty() {
            return Err(vec![FieldError::new(
                pointer,
                "at least one scope is required",
            )]);
        }
        if raw.len() > MAX_SCOPES {
            return Err(vec![FieldError::new(
                pointer,
                format!("at most {MAX_SCOPES} scopes"),
            )]);
        }
        let mut errors = Vec::new();
        let mut patterns: Vec<ScopePattern> = Vec::new();
        for (i, r) in raw.iter().enumerate() {
            match ScopePattern::parse(r) {
                Ok(p) if !patterns.contains(&p) => patterns.push(p),
                Ok(_) => {}
                Err(e) => errors.push(FieldError::new(format!("{pointer}/{i}"), e)),
            }
        }
        if errors.is_empty() {
            Ok(Self(patterns))
        } else {
            Err(errors)
        }
    }

    /// Whether a key with these scopes may use `scope`.
    pub fn covers(&self, scope: &str) -> bool {
        self.0.iter().any(|p| p.matches(scope))
    }

    /// Whether these scopes hold every scope.
    pub fn is_all(&self) -> bool {
        self.0.contains(&ScopePattern::all())
    }

    pub fn patterns(&self) -> &[ScopePattern] {
        &self.0
    }

    /// The patterns as written (`team-a/*`), for storage and replies.
    pub fn to_strings(&self) -> Vec<String> {
        self.0.iter().map(ToString::to_string).collect()
    }

    /// The patterns as the database's scope filter reads them (see [`in_scopes`]): one per
    /// line; `None` for every scope, so that an unrestricted read filters nothing.
    pub fn to_sql(&self) -> Option<String> {
        (!self.is_all()).then(|| self.to_strings().join("\n"))
    }
}

/// The scope filter of every read, as the databases evaluate it (SQLite calls this function;
/// PostgreSQL's `concord_in_scopes` in its migrations is the same rule in SQL): whether every
/// line of `scopes` (one scope, or the scopes a stored report drew on) is held by one of the
/// `patterns` ([`Scopes::to_sql`]). No patterns: every scope; no scopes: nothing to hide.
pub fn in_scopes(scopes: Option<&str>, patterns: Option<&str>) -> bool {
    let (Some(scopes), Some(patterns)) = (scopes, patterns) else {
        return true;
    };
    scopes.split('\n').all(|scope| {
        patterns.split('\n').any(|p| match p.strip_suffix('*') {
            Some(prefix) => scope.starts_with(prefix),
            None => p == scope,
        })
    })
}

/// Scope patterns one key may hold at most.
pub const MAX_SCOPES: usize = 64;

/// Who a request runs as: the key's name, its role and its scopes. REST handlers take it as
/// an extractor, MCP tools read it from their request context; a use case that records who
/// changed something writes [`Caller::name`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The key's name; `config:N` for the N-th key of `--api-keys`, [`ANONYMOUS`] when the
    /// service runs without keys (and for MCP on stdio).
    pub name: String,
    pub role: Role,
    pub scopes: Scopes,
}

/// The caller's name when no key is required.
pub const ANONYMOUS: &str = "anonymous";

impl Caller {
    /// The caller of a service without keys, and of MCP on stdio: an admin of every scope.
    pub fn anonymous() -> Self {
        Self {
            name: ANONYMOUS.to_owned(),
            role: Role::Admin,
            scopes: Scopes::all(),
        }
    }

    /// The `index`-th (from 1) key of `--api-keys`: an admin of every scope.
    pub fn configured(index: usize) -> Self {
        Self {
            name: format!("config:{index}"),
            role: Role::Admin,
            scopes: Scopes::all(),
        }
    }

    pub fn may(&self, p: Permission) -> bool {
        self.role.allows(p)
    }

    /// Whether the caller's key holds `scope`: what it may read and write there.
    pub fn holds(&self, scope: &str) -> bool {
        self.scopes.covers(scope)
    }

    /// Whether the caller's key holds every scope.
    pub fn holds_all(&self) -> bool {
        self.scopes.is_all()
    }

    /// The caller with its reads narrowed to the one `scope`; `None` when its key does not
    /// hold it.
    pub fn within(&self, scope: &str) -> Option<Caller> {
        self.holds(scope).then(|| Caller {
            name: self.name.clone(),
            role: self.role,
            scopes: Scopes(vec![ScopePattern::Exact(scope.to_owned())]),
        })
    }

    /// The scope filter of the caller's reads ([`Scopes::to_sql`]).
    pub fn visible(&self) -> Option<String> {
        self.scopes.to_sql()
    }

    /// Who a write by this caller is recorded as made by: the key's name; nobody without keys.
    pub fn writer(&self) -> Option<String> {
        (self.name != ANONYMOUS).then(|| self.name.clone())
    }
}

/// Checks a new key's name: 1..64 characters of `a-z`, `A-Z`, `0-9`, `.`, `_`, `-`, starting
/// with a letter or digit (never `config:…`, the names of `--api-keys`, nor `anonymous`).
pub fn check_key_name(name: &str) -> Result<(), String> {
    let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    let first_ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    if name.is_empty() || name.len() > 64 || !first_ok || !name.chars().all(ok) {
        return Err("must be 1..64 characters of A-Z, a-z, 0-9, `.`, `_` or `-`, starting with a letter or digit".into());
    }
    if name == ANONYMOUS {
        return Err(format!("`{ANONYMOUS}` is reserved"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_role_holds_exactly_its_permissions() {
        use Permission::*;
        let table = [
            (Role::Reader, [true, false, false, false]),
            (Role::Agent, [true, true, false, false]),
            (Role::Reviewer, [true, false, true, false]),
            (Role::Admin, [true, true, true, true]),
        ];
        for (role, expected) in table {
            for (p, want) in [Read, Write, Resolve, Admin].into_iter().zip(expected) {
                assert_eq!(role.allows(p), want, "{role} {}", p.as_str());
            }
        }
    }

    #[test]
    fn roles_parse_from_their_names_only() {
        for r in Role::ALL {
            assert_eq!(r.as_str().parse::<Role>(), Ok(r));
        }
        assert!("Admin".parse::<Role>().is_err());
        assert!("owner".parse::<Role>().is_err());
    }

    #[test]
    fn the_sql_filter_holds_what_the_patterns_hold() {
        let scopes = Scopes::parse(&["team-a/*".into(), "shared".into()], "/scopes").unwrap();
        let sql = scopes.to_sql();
        for scope in [
            "team-a/x", "team-a/", "shared", "team-b", "shared2", "team-a", "*",
        ] {
            assert_eq!(
                in_scopes(Some(scope), sql.as_deref()),
                scopes.covers(scope),
                "{scope}"
            );
        }
        assert!(in_scopes(Some("team-a/x\nshared"), sql.as_deref()));
        assert!(!in_scopes(Some("team-a/x\nteam-b"), sql.as_deref()));
        assert!(in_scopes(None, sql.as_deref()));
        assert_eq!(Scopes::all().to_sql(), None);
        assert!(in_scopes(Some("anything"), None));
    }

    #[test]
    fn a_prefix_pattern_holds_the_scopes_under_it() {
        let p = ScopePattern::parse("team-a/*").unwrap();
        assert!(p.matches("team-a/x"));
        assert!(p.matches("team-a/"));
        assert!(!p.matches("team-a"));
        assert!(!p.matches("team-b/x"));
        let exact = ScopePattern::parse("team-a").unwrap();
        assert!(exact.matches("team-a") && !exact.matches("team-a/x"));
        assert!(ScopePattern::parse("*").unwrap().matches("anything"));
        assert_eq!(
            ScopePattern::parse(" team-a/* ").unwrap().to_string(),
            "team-a/*"
        );
    }

    #[test]
    fn a_star_inside_a_pattern_and_empty_lists_are_refused() {
        assert!(ScopePattern::parse("a*b").is_err());
        assert!(ScopePattern::parse("").is_err());
        let e = Scopes::parse(&["ok".into(), "*x".into()], "/scopes").unwrap_err();
        assert_eq!(e[0].pointer, "/scopes/1");
        assert!(Scopes::parse(&[], "/scopes").is_err());
    }

    #[test]
    fn scopes_cover_what_any_pattern_matches() {
        let s = Scopes::parse(&["team-a/*".into(), "shared".into()], "/scopes").unwrap();
        assert!(s.covers("team-a/bot") && s.covers("shared"));
        assert!(!s.covers("team-b") && !s.is_all());
        assert!(Scopes::all().covers("x") && Scopes::all().is_all());
    }

    #[test]
    fn key_names_are_slugs_and_builtin_names_are_reserved() {
        assert!(check_key_name("ci-bot.v2_1").is_ok());
        for bad in ["", "-x", "config:1", "a b", ANONYMOUS, &"x".repeat(65)] {
            assert!(check_key_name(bad).is_err(), "{bad:?}");
        }
    }
}
