//! Handing freed memory back to the operating system. The allocator is the binary's choice
//! (`main.rs`), so the binary registers how to return its free pages ([`set_return_hook`]);
//! the library asks for that after it has dropped much at once (expired MCP sessions,
//! [`return_freed_soon`]). Without a hook (tests, other binaries) asking does nothing.
//!
//! mimalloc keeps a freed page with the thread that allocated it until that thread collects,
//! and purges free arena memory only when some thread allocates or collects: after a burst of
//! sessions expires on an idle server, nothing of that happens and the resident set stays at
//! its peak. The runtime's worker threads therefore run the hook as they next go idle
//! ([`on_worker_park`]), each once per request.

use std::cell::Cell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// How long a request waits for more: a sweep that closes thousands of sessions over a few
/// hundred milliseconds costs one collection per thread.
const SETTLE: Duration = Duration::from_secs(1);

static HOOK: OnceLock<fn()> = OnceLock::new();
/// Collections requested so far; a worker that has run fewer runs one when it parks.
static REQUESTED: AtomicU64 = AtomicU64::new(0);
static PENDING: AtomicBool = AtomicBool::new(false);

thread_local! {
    static DONE: Cell<u64> = const { Cell::new(0) };
}

/// Registers how to return free memory (once per process; later calls are ignored).
pub fn set_return_hook(hook: fn()) {
    let _ = HOOK.set(hook);
}

/// Asks every worker thread to return its free memory once things settle.
pub fn return_freed_soon() {
    if HOOK.get().is_none() || PENDING.swap(true, Ordering::AcqRel) {
        return;
    }
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        PENDING.store(false, Ordering::Release);
        return;
    };
    let workers = runtime.metrics().num_workers();
    runtime.spawn(async move {
        tokio::time::sleep(SETTLE).await;
        PENDING.store(false, Ordering::Release);
        REQUESTED.fetch_add(1, Ordering::AcqRel);
        // Parked workers run the hook only once woken: give each a moment of work.
        for _ in 0..workers {
            tokio::spawn(tokio::task::yield_now());
        }
        metrics::counter!("concord_memory_returns_total").increment(1);
    });
}

/// For the runtime's `on_thread_park`: runs the hook if a collection was requested since this
/// thread last ran it.
pub fn on_worker_park() {
    let requested = REQUESTED.load(Ordering::Acquire);
    if requested == 0 || DONE.get() >= requested {
        return;
    }
    DONE.set(requested);
    if let Some(hook) = HOOK.get() {
        hook();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static RUNS: AtomicU64 = AtomicU64::new(0);

    fn count() {
        RUNS.fetch_add(1, Ordering::SeqCst);
    }

    #[test]
    fn a_worker_runs_the_hook_once_per_request_and_never_unasked() {
        set_return_hook(count);
        // Nothing requested yet: parking costs a load and runs nothing.
        on_worker_park();
        assert_eq!(RUNS.load(Ordering::SeqCst), 0);
        REQUESTED.fetch_add(1, Ordering::AcqRel);
        on_worker_park();
        on_worker_park();
        assert_eq!(
            RUNS.load(Ordering::SeqCst),
            1,
            "one run per request per thread"
        );
        // Another thread has not run it yet.
        std::thread::spawn(on_worker_park).join().unwrap();
        assert_eq!(RUNS.load(Ordering::SeqCst), 2);
    }
}
