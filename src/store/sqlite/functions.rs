//! The steps of a candidate search that run in Rust, registered as SQL functions on each
//! connection so that the whole search is one statement. Between its statements the search
//! used to come back to the async side to pick the rarest tokens and to score their postings;
//! each statement was a hand-off to the connection's thread and back (about 65 µs at one
//! client, mostly the two threads waking each other on different cores). As functions the
//! same Rust code runs on the connection's thread, inside the statement.
//!
//! Both functions take and return JSON text, and both are pure: the same arguments give the
//! same result.

use std::ffi::{CString, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};

use libsqlite3_sys as ffi;

use crate::domain::retrieval::{best_hits, query_tokens, rarity};

use super::search::{buffered_postings, newest_postings};

/// `concord_rarest(stats, names)`: the tokens a search uses (`retrieval::query_tokens`), as
/// `[[term, docs], …]`, from the index's statistics (`[[term, docs], …]`) and the subject
/// names (`[name, …]`).
pub const RAREST: &str = "concord_rarest";

/// `concord_hits(tokens, walks, recent, per_token, wanted)`: the best `wanted` hits
/// (`[rowid, …]`, best first) of the `tokens` (as [`RAREST`] returns them), from each token's
/// merged postings (`walks`, `[[index, "rowid,rowid,…"], …]`, newest first, at most
/// `per_token` each) and the unmerged buffer (`recent`, `rowid term term…` comma-separated).
pub const HITS: &str = "concord_hits";

fn rarest(args: &[Arg]) -> Result<String, String> {
    let stats: Vec<(String, i64)> = json(args[0].text()?)?;
    let names: Vec<String> = json(args[1].text()?)?;
    Ok(serde_json::to_string(&query_tokens(&stats, &names)).expect("pairs serialise"))
}

fn hits(args: &[Arg]) -> Result<String, String> {
    let tokens: Vec<(String, i64)> = json(args[0].text()?)?;
    let walks: Vec<(usize, &str)> = json(args[1].text()?)?;
    let recent = args[2].text_or_null()?.unwrap_or_default();
    let (per_token, wanted) = (args[3].count()?, args[4].count()?);
    let mut merged = vec![""; tokens.len()];
    for (i, postings) in walks {
        *merged.get_mut(i).ok_or("a walk of no token")? = postings;
    }
    let buffered = buffered_postings(recent, &tokens);
    let walks = merged
        .iter()
        .zip(buffered)
        .map(|(merged, buffered)| newest_postings(merged, buffered, per_token))
        .enumerate();
    let weights: Vec<f64> = tokens.iter().map(|(_, docs)| rarity(*docs)).collect();
    let hits: Vec<i64> = best_hits(&weights, walks, wanted);
    Ok(serde_json::to_string(&hits).expect("integers serialise"))
}

fn json<'a, T: serde::Deserialize<'a>>(text: &'a str) -> Result<T, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

/// Registers the functions on connection `db`; registering them again replaces them.
///
/// # Safety
/// `db` must be an open connection that no other thread uses during the call.
pub unsafe fn register(db: *mut ffi::sqlite3) -> c_int {
    let functions: [(&str, c_int, Body); 2] = [(RAREST, 2, rarest), (HITS, 5, hits)];
    for (name, arity, body) in functions {
        let name = CString::new(name).expect("no NUL in a function name");
        // SAFETY: `db` is open and ours for the call (the caller's promise); `body` is a
        // plain function pointer, passed as the user data `call` reads back, so nothing
        // needs destroying.
        let rc = unsafe {
            ffi::sqlite3_create_function_v2(
                db,
                name.as_ptr(),
                arity,
                ffi::SQLITE_UTF8 | ffi::SQLITE_DETERMINISTIC | ffi::SQLITE_DIRECTONLY,
                body as *mut std::ffi::c_void,
                Some(call),
                None,
                None,
                None,
            )
        };
        if rc != ffi::SQLITE_OK {
            return rc;
        }
    }
    ffi::SQLITE_OK
}

type Body = fn(&[Arg]) -> Result<String, String>;

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

    fn count(&self) -> Result<usize, String> {
        // SAFETY: as in `text_or_null`.
        let n = unsafe { ffi::sqlite3_value_int64(self.0) };
        usize::try_from(n).map_err(|_| format!("{n} is not a count"))
    }
}

/// The entry point SQLite calls: runs the function in the user data on the arguments and
/// sets the result, or the error (a panic too: it must not unwind into SQLite).
unsafe extern "C" fn call(
    ctx: *mut ffi::sqlite3_context,
    argc: c_int,
    argv: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: SQLite passes the user data given at registration (a `Body`) and `argc`
    // arguments in `argv`, all valid for the call.
    let (body, args) = unsafe {
        let body: Body =
            std::mem::transmute::<*mut std::ffi::c_void, Body>(ffi::sqlite3_user_data(ctx));
        let args: Vec<Arg> = (0..argc as usize).map(|i| Arg(*argv.add(i))).collect();
        (body, args)
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| body(&args)))
        .unwrap_or_else(|_| Err("the function panicked".to_owned()));
    // SAFETY: `ctx` is the running call's; SQLite copies the text (`SQLITE_TRANSIENT`).
    unsafe {
        match outcome {
            Ok(text) => ffi::sqlite3_result_text(
                ctx,
                text.as_ptr().cast(),
                text.len() as c_int,
                ffi::SQLITE_TRANSIENT(),
            ),
            Err(message) => {
                ffi::sqlite3_result_error(ctx, message.as_ptr().cast(), message.len() as c_int)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use sqlx::{Row, SqlitePool};

    use super::*;

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

    #[sqlx::test(migrations = false)]
    async fn hits_score_merged_and_buffered_postings_as_retrieval_does(pool: SqlitePool) {
        let tokens = vec![("berlin".to_owned(), 3), ("lives".to_owned(), 40)];
        // Node 12 is buffered and holds both tokens; 9 holds both, merged; 7 only the rare one.
        let sql = format!(
            "select {HITS}('{}', '[[1, \"9,5,2\"], [0, \"9,7\"]]', \
             '12 lives berlin,14 moved', 10, 3)",
            serde_json::to_string(&tokens).unwrap()
        );
        let hits: Vec<i64> = serde_json::from_str(&call_sql(&pool, &sql).await.unwrap()).unwrap();
        let weights = [rarity(3), rarity(40)];
        let walks = vec![(0, vec![12, 9, 7]), (1, vec![12, 9, 5, 2])];
        assert_eq!(hits, best_hits::<i64, _>(&weights, walks, 3));
        assert_eq!(hits, [12, 9, 7]);
        // No buffer, and a token without postings.
        let sql = format!(
            "select {HITS}('{}', '[[0, \"4\"]]', null, 10, 5)",
            serde_json::to_string(&tokens).unwrap()
        );
        assert_eq!(call_sql(&pool, &sql).await.unwrap(), "[4]");
    }

    /// Bad arguments are the statement's error, never a crash.
    #[sqlx::test(migrations = false)]
    async fn bad_arguments_fail_the_statement(pool: SqlitePool) {
        for (sql, says) in [
            (format!("select {RAREST}('not json', '[]')"), "expected"),
            (format!("select {RAREST}(null, '[]')"), "null"),
            (
                format!("select {HITS}('[[\"a\", 1]]', '[[3, \"1\"]]', null, 1, 1)"),
                "no token",
            ),
            (
                format!("select {HITS}('[[\"a\", 1]]', '[]', null, -1, 1)"),
                "not a count",
            ),
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
        };
        let found = crate::store::sqlite::search::candidates_by_tokens(&mut conn, &q).await;
        assert!(found.unwrap().is_empty());
        sqlx::query(rarest).fetch_one(&mut *conn).await.unwrap();

        let dir = std::env::temp_dir().join(format!("concord-functions-{}", uuid::Uuid::now_v7()));
        std::fs::create_dir_all(&dir).unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.join("c.db").display());
        let store = crate::store::sqlite::SqliteStore::connect(&url, Default::default())
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
