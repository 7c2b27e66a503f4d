//! The steps of a candidate search that run in Rust, registered as SQL functions on each
//! connection so that the whole search is one statement. Between its statements the search
//! used to come back to the async side to pick the rarest tokens and to score their postings;
//! each statement was a hand-off to the connection's thread and back (about 65 µs at one
//! client, mostly the two threads waking each other on different cores). As functions the
//! same Rust code runs on the connection's thread, inside the statement.
//!
//! The functions are pure: the same arguments give the same result. Postings go from SQLite
//! to Rust as blobs of rowids, not as text: a few thousand rowids are walked per write, and
//! rendering each as text, joining, quoting and parsing them again cost more than walking.

use std::ffi::{CString, c_int, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;

use libsqlite3_sys as ffi;

use crate::domain::retrieval::{best_hits, query_tokens, rarity};

/// `concord_rarest(stats, names)`: the tokens a search uses (`retrieval::query_tokens`), as
/// `[[term, docs], …]`, from the index's statistics (`[[term, docs], …]`) and the subject
/// names (`[name, …]`).
pub const RAREST: &str = "concord_rarest";

/// `concord_walk(rowid)`, an aggregate: the rowids it is given, newest (largest) first, as
/// a blob of little-endian 64-bit integers.
pub const WALK: &str = "concord_walk";

/// `concord_hits(index, walk, tokens, recent, per_token, wanted)`, an aggregate over the
/// `tokens` (as [`RAREST`] returns them, the same in every row): the best `wanted` hits
/// (`[rowid, …]`, best first) from each token's merged postings (`walk`, as [`WALK`] returns
/// them, at most `per_token`, for the token at `index`) and the unmerged buffer (`recent`,
/// `rowid term term…` comma-separated). Over no rows, no hits.
pub const HITS: &str = "concord_hits";

/// `concord_in_scopes(scopes, patterns)`: 1 when the caller's scope patterns hold every
/// scope of the row (`domain::access::in_scopes`), else 0; the scope filter of every read.
pub const IN_SCOPES: &str = "concord_in_scopes";

fn in_scopes(args: &[Arg]) -> Result<Out, String> {
    let held = crate::domain::access::in_scopes(args[0].text_or_null()?, args[1].text_or_null()?);
    Ok(Out::Int(held as i64))
}

fn rarest(args: &[Arg]) -> Result<Out, String> {
    let stats: Vec<(String, i64)> = json(args[0].text()?)?;
    let names: Vec<String> = json(args[1].text()?)?;
    let picked = serde_json::to_string(&query_tokens(&stats, &names)).expect("pairs serialise");
    Ok(Out::Text(picked))
}

#[derive(Default)]
struct Walk(Vec<i64>);

impl Aggregate for Walk {
    fn step(&mut self, args: &[Arg]) -> Result<(), String> {
        self.0.push(args[0].int());
        Ok(())
    }

    fn finish(mut self) -> Result<Out, String> {
        // Already in this order when the rows came so; a sort of sorted rowids is one pass.
        self.0.sort_unstable_by(|a, b| b.cmp(a));
        Ok(Out::Blob(
            self.0.iter().flat_map(|n| n.to_le_bytes()).collect(),
        ))
    }
}

#[derive(Default)]
struct Hits {
    /// What every row repeats, read from the first.
    search: Option<Search>,
    walks: Vec<(usize, Vec<i64>)>,
}

struct Search {
    tokens: Vec<(String, i64)>,
    recent: String,
    per_token: usize,
    wanted: usize,
}

impl Aggregate for Hits {
    fn step(&mut self, args: &[Arg]) -> Result<(), String> {
        if self.search.is_none() {
            let tokens = json(args[2].text()?)?;
            let recent = args[3].text_or_null()?.unwrap_or_default().to_owned();
            self.search = Some(Search {
                tokens,
                recent,
                per_token: args[4].count()?,
                wanted: args[5].count()?,
            });
        }
        let walk = args[1].blob()?;
        if walk.len() % 8 != 0 {
            return Err("a walk is not a list of rowids".to_owned());
        }
        let rowids = walk
            .chunks_exact(8)
            .map(|b| i64::from_le_bytes(b.try_into().expect("chunks of eight")));
        self.walks.push((args[0].count()?, rowids.collect()));
        Ok(())
    }

    fn finish(self) -> Result<Out, String> {
        let Some(Search {
            tokens,
            recent,
            per_token,
            wanted,
        }) = self.search
        else {
            return Ok(Out::Text("[]".to_owned()));
        };
        let mut merged: Vec<&[i64]> = vec![&[]; tokens.len()];
        for (i, walk) in &self.walks {
            *merged.get_mut(*i).ok_or("a walk of no token")? = walk;
        }
        let buffered = buffered_postings(&recent, &tokens);
        let walks = merged
            .iter()
            .zip(buffered)
            .map(|(merged, buffered)| newest_postings(merged, buffered, per_token))
            .enumerate();
        let weights: Vec<f64> = tokens.iter().map(|(_, docs)| rarity(*docs)).collect();
        let hits: Vec<i64> = best_hits(&weights, walks, wanted);
        Ok(Out::Text(
            serde_json::to_string(&hits).expect("integers serialise"),
        ))
    }
}

/// The buffered nodes (`recent`, as [`HITS`] takes them) that hold each token.
fn buffered_postings(recent: &str, tokens: &[(String, i64)]) -> Vec<Vec<i64>> {
    let mut out = vec![Vec::new(); tokens.len()];
    if recent.is_empty() {
        return out;
    }
    // Thousands of buffered terms are looked up per write: a hash beats comparing each with
    // every token, and FxHash beats SipHash on these short keys (not attacker-chosen here).
    let index: rustc_hash::FxHashMap<&str, usize> = tokens
        .iter()
        .enumerate()
        .map(|(i, (t, _))| (t.as_str(), i))
        .collect();
    for (node, terms) in recent.split(',').filter_map(|e| e.split_once(' ')) {
        let Ok(node) = node.parse::<i64>() else {
            continue;
        };
        for term in terms.split(' ') {
            if let Some(&i) = index.get(term) {
                out[i].push(node);
            }
        }
    }
    out
}

/// A token's postings, newest first and at most `limit`: the merged ones (`merged`, already
/// the newest `limit` of `node_tokens`, newest first) and the buffered ones. A node is in
/// only one of the two. Buffered nodes are the newest as long as rowids only grow, which the
/// schema does not promise, so the two are merged by rowid.
fn newest_postings(merged: &[i64], mut buffered: Vec<i64>, limit: usize) -> Vec<i64> {
    if buffered.is_empty() {
        return merged.to_vec();
    }
    buffered.sort_unstable_by(|a, b| b.cmp(a));
    let mut merged = merged.iter().copied().peekable();
    let mut buffered = buffered.into_iter().peekable();
    let mut all = Vec::with_capacity(limit.min(4096));
    while all.len() < limit {
        let next = match (merged.peek(), buffered.peek()) {
            (Some(m), Some(b)) if m >= b => merged.next(),
            (_, Some(_)) => buffered.next(),
            (Some(_), None) => merged.next(),
            (None, None) => break,
        };
        let next = next.expect("peeked");
        if all.last() != Some(&next) {
            all.push(next);
        }
    }
    all
}

/// `concord_rows(value, …)`, an aggregate: its rows packed into one blob, each row the
/// values it is given in order (see [`unpack`]). Rows reach the async side as one value
/// instead of a message each, and without the quoting and parsing of JSON.
pub const ROWS: &str = "concord_rows";

#[derive(Default)]
struct Rows(Vec<u8>);

impl Aggregate for Rows {
    fn step(&mut self, args: &[Arg]) -> Result<(), String> {
        for arg in args {
            arg.pack(&mut self.0)?;
        }
        Ok(())
    }

    fn finish(self) -> Result<Out, String> {
        Ok(Out::Blob(self.0))
    }
}

/// A value [`ROWS`] packed: a tag byte, then the value (integers and reals as 8 bytes,
/// little-endian; text and blobs as their length in 4 bytes, then their bytes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Packed<'a> {
    Null,
    Int(i64),
    Real(f64),
    Text(&'a str),
    Blob(&'a [u8]),
}

const NULL: u8 = 0;
const INT: u8 = 1;
const REAL: u8 = 2;
const TEXT: u8 = 3;
const BLOB: u8 = 4;

/// The values of a blob [`ROWS`] returned, in order.
pub fn unpack(mut packed: &[u8]) -> Result<Vec<Packed<'_>>, String> {
    fn take<'a>(packed: &mut &'a [u8], n: usize) -> Result<&'a [u8], String> {
        if packed.len() < n {
            return Err("packed rows end early".to_owned());
        }
        let (head, rest) = packed.split_at(n);
        *packed = rest;
        Ok(head)
    }
    let eight = |b: &[u8]| -> [u8; 8] { b.try_into().expect("eight bytes") };
    let mut values = Vec::new();
    while let Some((&tag, rest)) = packed.split_first() {
        packed = rest;
        let value = match tag {
            NULL => Packed::Null,
            INT => Packed::Int(i64::from_le_bytes(eight(take(&mut packed, 8)?))),
            REAL => Packed::Real(f64::from_le_bytes(eight(take(&mut packed, 8)?))),
            TEXT | BLOB => {
                let len = u32::from_le_bytes(take(&mut packed, 4)?.try_into().expect("four"));
                let bytes = take(&mut packed, len as usize)?;
                if tag == BLOB {
                    Packed::Blob(bytes)
                } else {
                    let text = std::str::from_utf8(bytes).map_err(|_| "text is not UTF-8")?;
                    Packed::Text(text)
                }
            }
            _ => return Err(format!("unknown tag {tag} in packed rows")),
        };
        values.push(value);
    }
    Ok(values)
}

fn json<'a, T: serde::Deserialize<'a>>(text: &'a str) -> Result<T, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

/// Registers the functions on connection `db`; registering them again replaces them.
///
/// # Safety
/// `db` must be an open connection that no other thread uses during the call.
pub unsafe fn register(db: *mut ffi::sqlite3) -> c_int {
    let functions: [(&str, c_int, Entry); 5] = [
        (IN_SCOPES, 2, Entry::Scalar(in_scopes)),
        (RAREST, 2, Entry::Scalar(rarest)),
        (WALK, 1, Entry::Aggregate(step::<Walk>, finish::<Walk>)),
        (HITS, 6, Entry::Aggregate(step::<Hits>, finish::<Hits>)),
        // Any number of arguments.
        (ROWS, -1, Entry::Aggregate(step::<Rows>, finish::<Rows>)),
    ];
    for (name, arity, entry) in functions {
        let (user_data, call, step, finish) = match entry {
            Entry::Scalar(body) => (body as *mut c_void, Some(scalar as Call), None, None),
            Entry::Aggregate(step, finish) => (ptr::null_mut(), None, Some(step), Some(finish)),
        };
        let name = CString::new(name).expect("no NUL in a function name");
        // SAFETY: `db` is open and ours for the call (the caller's promise). The user data is
        // a plain function pointer (read back by `scalar`) or nothing: none needs destroying.
        let rc = unsafe {
            ffi::sqlite3_create_function_v2(
                db,
                name.as_ptr(),
                arity,
                ffi::SQLITE_UTF8 | ffi::SQLITE_DETERMINISTIC | ffi::SQLITE_DIRECTONLY,
                user_data,
                call,
                step,
                finish,
                None,
            )
        };
        if rc != ffi::SQLITE_OK {
            return rc;
        }
    }
    ffi::SQLITE_OK
}

type Call = unsafe extern "C" fn(*mut ffi::sqlite3_context, c_int, *mut *mut ffi::sqlite3_value);
type Final = unsafe extern "C" fn(*mut ffi::sqlite3_context);

/// How SQLite calls a function: a scalar through [`scalar`] with its body as the user data,
/// an aggregate through its row's and its end's entry points.
enum Entry {
    Scalar(Scalar),
    Aggregate(Call, Final),
}

/// A function's result.
enum Out {
    Int(i64),
    Text(String),
    Blob(Vec<u8>),
}

type Scalar = fn(&[Arg]) -> Result<Out, String>;

/// An aggregate function: a fresh state (`default`) takes each row's arguments, then gives
/// the result.
trait Aggregate: Default {
    fn step(&mut self, args: &[Arg]) -> Result<(), String>;
    fn finish(self) -> Result<Out, String>;
}

/// One argument of a call, valid for the call.
struct Arg(*mut ffi::sqlite3_value);

impl Arg {
    fn text_or_null(&self) -> Result<Option<&str>, String> {
        // SAFETY: the value is an argument of the running call; its text stays valid until
        // the call returns or the value is converted again, and it is converted only here.
        unsafe {
            if ffi::sqlite3_value_type(self.0) == ffi::SQLITE_NULL {
                return Ok(None);
            }
            let ptr = ffi::sqlite3_value_text(self.0);
            let len = ffi::sqlite3_value_bytes(self.0);
            if ptr.is_null() {
                return Ok(Some(""));
            }
            let bytes = std::slice::from_raw_parts(ptr, len as usize);
            std::str::from_utf8(bytes)
                .map(Some)
                .map_err(|_| "an argument is not UTF-8".to_owned())
        }
    }

    fn text(&self) -> Result<&str, String> {
        self.text_or_null()?
            .ok_or_else(|| "an argument is null".to_owned())
    }

    /// A blob argument's bytes (none for a null).
    fn blob(&self) -> Result<&[u8], String> {
        // SAFETY: as in `text_or_null`.
        unsafe {
            match ffi::sqlite3_value_type(self.0) {
                ffi::SQLITE_NULL => Ok(&[]),
                ffi::SQLITE_BLOB => {
                    let ptr = ffi::sqlite3_value_blob(self.0);
                    let len = ffi::sqlite3_value_bytes(self.0);
                    if ptr.is_null() {
                        return Ok(&[]);
                    }
                    Ok(std::slice::from_raw_parts(ptr.cast(), len as usize))
                }
                _ => Err("an argument is not a blob".to_owned()),
            }
        }
    }

    /// Appends the value, tagged, to `out` (see [`Packed`]).
    fn pack(&self, out: &mut Vec<u8>) -> Result<(), String> {
        let bytes = |out: &mut Vec<u8>, tag: u8, b: &[u8]| -> Result<(), String> {
            let len = u32::try_from(b.len()).map_err(|_| "a value over 4 GiB".to_owned())?;
            out.push(tag);
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(b);
            Ok(())
        };
        // SAFETY: as in `text_or_null`.
        match unsafe { ffi::sqlite3_value_type(self.0) } {
            ffi::SQLITE_INTEGER => {
                out.push(INT);
                out.extend_from_slice(&self.int().to_le_bytes());
            }
            ffi::SQLITE_FLOAT => {
                out.push(REAL);
                // SAFETY: as in `text_or_null`.
                let real = unsafe { ffi::sqlite3_value_double(self.0) };
                out.extend_from_slice(&real.to_le_bytes());
            }
            ffi::SQLITE_TEXT => bytes(out, TEXT, self.text()?.as_bytes())?,
            ffi::SQLITE_BLOB => bytes(out, BLOB, self.blob()?)?,
            _ => out.push(NULL),
        }
        Ok(())
    }

    fn int(&self) -> i64 {
        // SAFETY: as in `text_or_null`.
        unsafe { ffi::sqlite3_value_int64(self.0) }
    }

    fn count(&self) -> Result<usize, String> {
        let n = self.int();
        usize::try_from(n).map_err(|_| format!("{n} is not a count"))
    }
}

/// The arguments of a call.
///
/// # Safety
/// `argv` must hold `argc` values valid for the call.
unsafe fn args(argc: c_int, argv: *mut *mut ffi::sqlite3_value) -> Vec<Arg> {
    // SAFETY: the caller's promise.
    (0..argc as usize)
        .map(|i| Arg(unsafe { *argv.add(i) }))
        .collect()
}

/// Runs `body`, turning a panic into an error: it must not unwind into SQLite.
fn guarded<T>(body: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|_| Err("the function panicked".into()))
}

/// The entry point of a scalar function: runs the function in the user data.
unsafe extern "C" fn scalar(
    ctx: *mut ffi::sqlite3_context,
    argc: c_int,
    argv: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: SQLite passes the user data given at registration (a `Scalar`) and `argc`
    // arguments in `argv`, all valid for the call.
    let (body, args) = unsafe {
        let body = std::mem::transmute::<*mut c_void, Scalar>(ffi::sqlite3_user_data(ctx));
        (body, args(argc, argv))
    };
    // SAFETY: `ctx` is the running call's.
    unsafe { set_result(ctx, guarded(|| body(&args))) }
}

/// The slot of an aggregate call's state in SQLite's memory for the call: zeroed when SQLite
/// allocates it (on the first row); null when it never did (`bytes` 0, no row).
///
/// # Safety
/// `ctx` must be a running aggregate call of `A`.
unsafe fn slot<A>(ctx: *mut ffi::sqlite3_context, bytes: usize) -> *mut *mut A {
    // SAFETY: the caller's promise.
    unsafe { ffi::sqlite3_aggregate_context(ctx, bytes as c_int).cast() }
}

/// The entry point of an aggregate's row: the state is boxed on the first row, its pointer
/// kept in SQLite's memory for the call.
unsafe extern "C" fn step<A: Aggregate>(
    ctx: *mut ffi::sqlite3_context,
    argc: c_int,
    argv: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: `ctx` is a running call of `A`; the slot, once allocated, holds null or the
    // pointer this function boxed, which only `finish` takes back.
    unsafe {
        let slot = slot::<A>(ctx, std::mem::size_of::<*mut A>());
        if slot.is_null() {
            ffi::sqlite3_result_error_nomem(ctx);
            return;
        }
        if (*slot).is_null() {
            *slot = Box::into_raw(Box::<A>::default());
        }
        let (state, args) = (&mut **slot, args(argc, argv));
        if let Err(message) = guarded(|| state.step(&args)) {
            result_error(ctx, &message);
        }
    }
}

/// The entry point of an aggregate's end (SQLite calls it once per call, after an error too):
/// takes the state back and sets the result.
unsafe extern "C" fn finish<A: Aggregate>(ctx: *mut ffi::sqlite3_context) {
    // SAFETY: as in `step`; the pointer is taken out of the slot before it is freed.
    unsafe {
        let slot = slot::<A>(ctx, 0);
        let state = if slot.is_null() || (*slot).is_null() {
            A::default()
        } else {
            let state = *Box::from_raw(*slot);
            *slot = ptr::null_mut();
            state
        };
        set_result(ctx, guarded(|| state.finish()));
    }
}

/// # Safety
/// `ctx` must be the running call's.
unsafe fn set_result(ctx: *mut ffi::sqlite3_context, out: Result<Out, String>) {
    // SAFETY: the caller's promise; SQLite copies the value (`SQLITE_TRANSIENT`).
    unsafe {
        match out {
            Ok(Out::Int(n)) => ffi::sqlite3_result_int64(ctx, n),
            Ok(Out::Text(text)) => ffi::sqlite3_result_text(
                ctx,
                text.as_ptr().cast(),
                text.len() as c_int,
                ffi::SQLITE_TRANSIENT(),
            ),
            Ok(Out::Blob(blob)) => ffi::sqlite3_result_blob(
                ctx,
                blob.as_ptr().cast(),
                blob.len() as c_int,
                ffi::SQLITE_TRANSIENT(),
            ),
            Err(message) => result_error(ctx, &message),
        }
    }
}

/// # Safety
/// `ctx` must be the running call's.
unsafe fn result_error(ctx: *mut ffi::sqlite3_context, message: &str) {
    // SAFETY: the caller's promise; SQLite copies the message.
    unsafe { ffi::sqlite3_result_error(ctx, message.as_ptr().cast(), message.len() as c_int) }
}

#[cfg(test)]
mod tests {
    use sqlx::{Row, SqlitePool};

    use super::*;

    #[test]
    fn buffered_postings_are_sorted_in_with_the_merged_ones() {
        assert_eq!(newest_postings(&[9, 7, 3], vec![], 2), [9, 7, 3]);
        assert_eq!(newest_postings(&[9, 7, 3], vec![12, 5], 4), [12, 9, 7, 5]);
        assert_eq!(newest_postings(&[], vec![12, 5], 4), [12, 5]);
        assert_eq!(newest_postings(&[9, 7], vec![7], 4), [9, 7]);
        assert_eq!(
            newest_postings(&[9, 7, 3], vec![5, 12, 1], 10),
            [12, 9, 7, 5, 3, 1]
        );
        assert_eq!(newest_postings(&[9, 7, 3], vec![5, 12, 1], 3), [12, 9, 7]);
        assert_eq!(newest_postings(&[9, 7, 3], vec![2, 1], 4), [9, 7, 3, 2]);
    }

    #[test]
    fn buffered_nodes_are_matched_to_the_tokens_they_hold() {
        let tokens: Vec<(String, i64)> = ["berlin", "lives", "absent"]
            .iter()
            .map(|t| (t.to_string(), 1))
            .collect();
        let recent = "12 lives berlin,14 moved berlin,15 ,x lives,16 berlins";
        assert_eq!(
            buffered_postings(recent, &tokens),
            [vec![12, 14], vec![12], vec![]]
        );
        assert_eq!(
            buffered_postings("", &tokens),
            [vec![], vec![], vec![]] as [Vec<i64>; 3]
        );
    }

    async fn call_sql(pool: &SqlitePool, sql: &str) -> Result<String, String> {
        let mut conn = pool.acquire().await.unwrap();
        crate::store::sqlite::register_functions(&mut conn)
            .await
            .unwrap();
        sqlx::query(sqlx::AssertSqlSafe(sql.to_owned()))
            .fetch_one(&mut *conn)
            .await
            .map(|row| row.get::<String, _>(0))
            .map_err(|e| e.to_string())
    }

    #[sqlx::test(migrations = false)]
    async fn the_rarest_tokens_are_those_retrieval_picks(pool: SqlitePool) {
        let stats = vec![
            ("common".to_owned(), 1_500),
            ("berlin".to_owned(), 3),
            ("42".to_owned(), 1),
            ("never".to_owned(), 0),
            ("lives".to_owned(), 40),
        ];
        let names = vec!["berlin".to_owned()];
        let sql = format!(
            "select {RAREST}('{}', '{}')",
            serde_json::to_string(&stats).unwrap(),
            serde_json::to_string(&names).unwrap()
        );
        let picked: Vec<(String, i64)> =
            serde_json::from_str(&call_sql(&pool, &sql).await.unwrap()).unwrap();
        assert_eq!(picked, query_tokens(&stats, &names));
        assert_eq!(picked[0], ("berlin".to_owned(), 3));
    }

    /// Two tokens' walks (the second given out of order) and the buffer, scored.
    const WALKS: &str = "with walks(i, walk) as (\
        select 0, (select concord_walk(column1) from (values (9), (7))) union all \
        select 1, (select concord_walk(column1) from (values (5), (9), (2)))) ";

    #[sqlx::test(migrations = false)]
    async fn hits_score_merged_and_buffered_postings_as_retrieval_does(pool: SqlitePool) {
        let tokens = r#"'[["berlin", 3], ["lives", 40]]'"#;
        // Node 12 is buffered and holds both tokens; 9 holds both, merged; 7 only the rare one.
        let sql = format!(
            "{WALKS} select {HITS}(i, walk, {tokens}, '12 lives berlin,14 moved', 10, 3) \
             from walks"
        );
        let hits: Vec<i64> = serde_json::from_str(&call_sql(&pool, &sql).await.unwrap()).unwrap();
        let weights = [rarity(3), rarity(40)];
        let walks = vec![(0, vec![12, 9, 7]), (1, vec![12, 9, 5, 2])];
        assert_eq!(hits, best_hits::<i64, _>(&weights, walks, 3));
        assert_eq!(hits, [12, 9, 7]);
        // No buffer, two wanted.
        let sql = format!("{WALKS} select {HITS}(i, walk, {tokens}, null, 10, 2) from walks");
        assert_eq!(call_sql(&pool, &sql).await.unwrap(), "[9,7]");
        // No token, no hits.
        let sql =
            format!("{WALKS} select {HITS}(i, walk, {tokens}, null, 1, 5) from walks where 0");
        assert_eq!(call_sql(&pool, &sql).await.unwrap(), "[]");
    }

    /// Every kind of value comes back as it went in, row after row; no row, no values.
    #[sqlx::test(migrations = false)]
    async fn rows_are_packed_and_unpacked_as_they_were(pool: SqlitePool) {
        let mut conn = pool.acquire().await.unwrap();
        crate::store::sqlite::register_functions(&mut conn)
            .await
            .unwrap();
        let packed: Vec<u8> = sqlx::query_scalar(
            "select concord_rows(a, b, c, d, e) from (\
               select 1 as a, -9223372036854775808 as b, 0.1 + 0.2 as c, 'é \"x\"' as d, \
                      x'00ff' as e \
               union all select null, 7, 1.0 / 3.0, '', x'')",
        )
        .fetch_one(&mut *conn)
        .await
        .unwrap();
        assert_eq!(
            unpack(&packed).unwrap(),
            [
                Packed::Int(1),
                Packed::Int(i64::MIN),
                Packed::Real(0.1 + 0.2),
                Packed::Text("é \"x\""),
                Packed::Blob(&[0, 255]),
                Packed::Null,
                Packed::Int(7),
                Packed::Real(1.0 / 3.0),
                Packed::Text(""),
                Packed::Blob(&[]),
            ]
        );
        let none: Vec<u8> = sqlx::query_scalar("select concord_rows(1) where 0")
            .fetch_one(&mut *conn)
            .await
            .unwrap();
        assert!(unpack(&none).unwrap().is_empty());
        for bad in [
            &[9u8][..],
            &[INT, 1, 2],
            &[TEXT, 5, 0, 0, 0, b'a'],
            &[TEXT, 1, 0, 0, 0, 0xff],
        ] {
            assert!(unpack(bad).is_err(), "{bad:?}");
        }
    }

    /// Bad arguments are the statement's error, never a crash.
    #[sqlx::test(migrations = false)]
    async fn bad_arguments_fail_the_statement(pool: SqlitePool) {
        let hits = |args: &str| format!("select {HITS}({args})");
        for (sql, says) in [
            (format!("select {RAREST}('not json', '[]')"), "expected"),
            (format!("select {RAREST}(null, '[]')"), "null"),
            (hits(r#"3, x'', '[["a", 1]]', null, 1, 1"#), "no token"),
            (
                hits(r#"0, x'01', '[["a", 1]]', null, 1, 1"#),
                "not a list of rowids",
            ),
            (hits(r#"0, 'text', '[["a", 1]]', null, 1, 1"#), "not a blob"),
            (hits(r#"0, x'', '[["a", 1]]', null, -1, 1"#), "not a count"),
            (hits("0, x'', 'nope', null, 1, 1"), "expected"),
        ] {
            let e = call_sql(&pool, &sql).await.unwrap_err();
            assert!(e.contains(says), "{sql}: {e}");
        }
    }

    /// A connection from a pool the store did not configure gets the functions at its first
    /// search; one the store opened has them from the start.
    #[sqlx::test(migrations = "migrations/sqlite")]
    async fn every_connection_gets_the_functions(pool: SqlitePool) {
        let rarest = "select concord_rarest('[]', '[]')";
        let mut conn = pool.acquire().await.unwrap();
        let missing = sqlx::query(rarest).fetch_one(&mut *conn).await;
        assert!(
            missing
                .unwrap_err()
                .to_string()
                .contains("no such function")
        );
        let q = crate::store::CandidateQuery {
            exclude: None,
            scope: "default".into(),
            memory_type: "fact".into(),
            tokens: vec!["berlin".into()],
            names: Vec::new(),
            labels: Vec::new(),
            with_embedding: false,
            limit: 5,
            newest: 0,
            before: None,
            docs: None,
            hits: None,
        };
        let found = crate::store::sqlite::search::candidates_by_tokens(&mut conn, &q).await;
        assert!(found.unwrap().is_empty());
        sqlx::query(rarest).fetch_one(&mut *conn).await.unwrap();

        let dir = std::env::temp_dir().join(format!("concord-functions-{}", uuid::Uuid::now_v7()));
        std::fs::create_dir_all(&dir).unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.join("c.db").display());
        let store = crate::store::sqlite::SqliteStore::connect(
            &url,
            crate::store::sqlite::SqliteOptions::default(),
        )
        .await
        .unwrap();
        let mut conn = store.pool.acquire().await.unwrap();
        let configured = sqlx::query(rarest).fetch_one(&mut *conn).await;
        drop(conn);
        store.pool.close().await;
        std::fs::remove_dir_all(&dir).unwrap();
        configured.unwrap();
    }
}
