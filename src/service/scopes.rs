//! The scope rules every use case applies to its caller, written once: a key writes only into
//! the scopes it holds (403 `scope-forbidden` otherwise), and reads only what they hold. A
//! memory, conflict, report or sweep of another scope is answered as if it did not exist (the
//! same 404), so that a key cannot learn what other scopes hold. Lists filter in SQL, through
//! the patterns of [`Caller::visible`]; the single reads check here.

use crate::domain::access::Caller;
use crate::domain::conflict::Conflict;
use crate::domain::node::{Node, parse_scope};
use crate::domain::sweep::Sweep;
use crate::domain::validate::Errors;
use crate::service::{Error, Result};

/// `Ok` when the caller's key holds `scope`, so that it may write there.
pub fn may_write(caller: &Caller, scope: &str) -> Result<()> {
    if caller.holds(scope) {
        Ok(())
    } else {
        Err(forbidden(caller, scope))
    }
}

/// `Ok` when the caller's key holds every scope: what an operation over all of them (managing
/// keys, reading the policies, a sweep of every scope) needs.
pub fn may_use_all(caller: &Caller) -> Result<()> {
    if caller.holds_all() {
        Ok(())
    } else {
        Err(forbidden(caller, "*"))
    }
}

fn forbidden(caller: &Caller, scope: &str) -> Error {
    Error::ScopeForbidden {
        scope: scope.to_owned(),
        held: caller.scopes.to_strings().join(", "),
    }
}

/// The caller whose read asks for one `scope` (a `scope` parameter): narrowed to it, when
/// its key holds it (403 `scope-forbidden` otherwise); as it is without one. An invalid scope
/// is 422 at `/scope`.
pub fn narrowed(caller: &Caller, scope: Option<&str>) -> Result<Caller> {
    let Some(raw) = scope else {
        return Ok(caller.clone());
    };
    let mut e = Errors::default();
    let scope = parse_scope(raw, &mut e);
    e.finish(()).map_err(Error::Invalid)?;
    caller
        .within(&scope)
        .ok_or_else(|| forbidden(caller, &scope))
}

/// The node, when the caller sees its scope; else the 404 of a node that does not exist.
pub fn seen_node(caller: &Caller, node: Node) -> Result<Node> {
    if caller.holds(&node.scope) {
        Ok(node)
    } else {
        Err(Error::NotFound("node"))
    }
}

/// Whether the caller sees a conflict: both of its nodes that still exist are in its scopes,
/// and one does (the rule of the lists' SQL).
pub fn sees_conflict(caller: &Caller, c: &Conflict) -> bool {
    c.seen_by(caller.visible().as_deref())
}

/// The conflict, when the caller sees it ([`sees_conflict`]); else the 404 of a conflict that
/// does not exist.
pub fn seen_conflict(caller: &Caller, c: Conflict) -> Result<Conflict> {
    if sees_conflict(caller, &c) {
        Ok(c)
    } else {
        Err(Error::NotFound("conflict"))
    }
}

/// Whether the caller sees a sweep: one of a scope it holds, or of every scope when it holds
/// every scope.
pub fn sees_sweep(caller: &Caller, s: &Sweep) -> bool {
    match &s.filter.scope {
        Some(scope) => caller.holds(scope),
        None => caller.holds_all(),
    }
}
