//! Writes sent to SQLite in one call each: a node's insert with the conflicts detection found
//! for it, and the calls of a group commit. SQLite takes several statements with bound
//! parameters in one call, so a write costs one hand-off to the connection's thread instead
//! of one per statement (a write with a conflict made nine).

use std::borrow::Cow;

use sqlx::Sqlite;

use crate::domain::node::NewNode;
use crate::domain::time;
use crate::store::DetectedConflict;
use crate::store::backend::{GroupedWrite, Q, QueryExt, Ts};
use crate::store::nodes::{Change, INSERT_NODE_PARAMS, bind_insert, insert_node};
use crate::store::sqlite::SqliteStore;
use crate::store::{conflicts, edges};

/// One detected conflict, after its new node's insert: queued unless its old node is no
/// longer active or the pair already has a pending conflict, and then its history entry,
/// its event and its `contradicts` edge, and the conflict read back as the reply shows it.
/// The write lock is held, so `max(seq) + 1` cannot race. Binds as [`bind_detected`].
const QUEUE_DETECTED: &str = concat!(
    "insert into conflict_queue (conflict_id, seq, old_node_id, new_node_id, new_content, \
     new_key, conflict_type, detection, recommendation, status, note, created_at, updated_at) \
     select $1, (select coalesce(max(seq), 0) + 1 from conflict_queue), $2, $3, $4, $5, $6, \
            $7, $8, 'pending', $9, $10, $10 \
     where exists (select 1 from nodes where node_id = $2 and state = 'active') \
     on conflict do nothing; ",
    // The conflict's id is new: it exists only if the statement above queued it.
    "insert into conflict_history (conflict_id, at, kind, note, actions, key_name) \
     select $1, $10, 'queued', $9, '[]', $21 \
     where exists (select 1 from conflict_queue where conflict_id = $1); ",
    "insert into events (kind, conflict_id, created_at) \
     select 'conflict.created', $1, $11 \
     where exists (select 1 from conflict_queue where conflict_id = $1); ",
    "insert into edges (edge_id, source_id, target_id, kind, neural_weight, strength, \
     confidence, valid_from, created_at, updated_at) \
     select $12, $13, $14, $15, $16, $17, $18, $19, $20, $20 \
     where exists (select 1 from conflict_queue where conflict_id = $1); "
);
const QUEUE_DETECTED_PARAMS: usize = 21;

fn bind_detected(q: Q<Sqlite>, hit: &DetectedConflict) -> Q<Sqlite> {
    let q = conflicts::bind(q, &hit.conflict).arg(Ts(time::now()));
    edges::bind(q, &hit.edge).arg(hit.conflict.key.clone())
}

/// A node's insert and its detected conflicts (none to be resolved) as one write, returning
/// the queued conflicts' rows in the order found.
pub fn node_write(
    node: &NewNode,
    tokens: &str,
    found: &[DetectedConflict],
) -> GroupedWrite<Sqlite> {
    let (node, tokens, found) = (node.clone(), tokens.to_owned(), found.to_vec());
    GroupedWrite {
        sql: node_write_sql(found.len()),
        params: INSERT_NODE_PARAMS + found.len() * QUEUE_DETECTED_PARAMS,
        returns_rows: !found.is_empty(),
        bind: Box::new(move |q| {
            let q = bind_insert::<SqliteStore>(q, &node, &tokens, None, &Change::written(&node));
            found.iter().fold(q, bind_detected)
        }),
    }
}

/// The statements of [`node_write`] with `conflicts` detected conflicts.
fn node_write_sql(conflicts: usize) -> Cow<'static, str> {
    if conflicts == 0 {
        return Cow::Borrowed(insert_node!());
    }
    let block = format!("{QUEUE_DETECTED}{}", conflicts::SELECT_ONE);
    let mut sql = String::from(insert_node!());
    for i in 0..conflicts {
        sql.push_str("; ");
        sql.push_str(&shift_params(
            &block,
            INSERT_NODE_PARAMS + i * QUEUE_DETECTED_PARAMS,
        ));
    }
    Cow::Owned(sql)
}

/// `writes` in one call, each with its own parameters (`$1..$17` of the first, `$18..`
/// of the second, …, as the binds of each write follow those of the one before), after
/// `begin immediate` when `begin`, and before `commit` when `commit`.
pub fn call_sql(writes: &[&GroupedWrite<Sqlite>], begin: bool, commit: bool) -> String {
    let mut statements: Vec<Cow<str>> = Vec::with_capacity(writes.len() + 2);
    if begin {
        statements.push("begin immediate".into());
    }
    let mut shift = 0;
    for w in writes {
        statements.push(match shift {
            0 => Cow::Borrowed(&*w.sql),
            by => shift_params(&w.sql, by).into(),
        });
        shift += w.params;
    }
    if commit {
        statements.push("commit".into());
    }
    statements.join("; ")
}

/// `sql` with every numbered parameter `$k` renamed `$(k + by)`.
pub fn shift_params(sql: &str, by: usize) -> String {
    let mut out = String::with_capacity(sql.len() + 16);
    let mut rest = sql;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..=at]);
        rest = &rest[at + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let k: usize = rest[..digits].parse().expect("a numbered parameter");
        out.push_str(&(k + by).to_string());
        rest = &rest[digits..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn highest_param(sql: &str) -> usize {
        sql.split('$')
            .skip(1)
            .map(|p| {
                let digits = p.bytes().take_while(u8::is_ascii_digit).count();
                p[..digits].parse::<usize>().unwrap()
            })
            .max()
            .unwrap_or(0)
    }

    fn write(conflicts: usize) -> GroupedWrite<Sqlite> {
        GroupedWrite {
            sql: node_write_sql(conflicts),
            params: INSERT_NODE_PARAMS + conflicts * QUEUE_DETECTED_PARAMS,
            returns_rows: conflicts > 0,
            bind: Box::new(|q| q),
        }
    }

    #[test]
    fn shifting_renames_every_parameter() {
        assert_eq!(
            shift_params("values ($1, $2, $11, $11)", 14),
            "values ($15, $16, $25, $25)"
        );
    }

    #[test]
    fn a_call_numbers_each_write_after_the_one_before() {
        let writes = [write(0), write(1), write(0)];
        let refs: Vec<_> = writes.iter().collect();
        let sql = call_sql(&refs, true, true);
        assert!(sql.starts_with("begin immediate; insert into nodes"));
        assert!(sql.ends_with("; commit"));
        let (node, conflict) = (INSERT_NODE_PARAMS, QUEUE_DETECTED_PARAMS);
        assert_eq!(highest_param(&sql), node + (node + conflict) + node);
        let third = 2 * node + conflict + 1;
        assert!(
            sql.contains(&format!("values (${third}, ${},", third + 1)),
            "the third write starts at ${third}"
        );
        let middle = call_sql(&refs[..1], false, false);
        assert!(middle.starts_with("insert into nodes") && !middle.contains("commit"));
    }

    #[test]
    fn each_write_takes_as_many_parameters_as_it_says() {
        assert_eq!(highest_param(insert_node!()), INSERT_NODE_PARAMS);
        assert_eq!(highest_param(QUEUE_DETECTED), QUEUE_DETECTED_PARAMS);
        // The read back binds the conflict's id, the first parameter of its block.
        assert_eq!(highest_param(conflicts::SELECT_ONE), 1);
        for k in 0..3 {
            let sql = node_write_sql(k);
            assert_eq!(
                highest_param(&sql),
                INSERT_NODE_PARAMS + k * QUEUE_DETECTED_PARAMS
            );
            assert_eq!(sql.matches("select c.conflict_id").count(), k);
        }
    }
}
