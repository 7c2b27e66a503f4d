//! A bounded, in-process memo of values derived from stored rows (detection keeps each stored
//! memory's analysis here), keyed by row id and checked against a fingerprint of the row's
//! text on every read. The fingerprint makes it correct without invalidation: a row edited
//! here, by a resolution, or by another instance on the same PostgreSQL database comes back
//! from the store with other text, misses, and is derived again. The bound, in bytes, keeps
//! memory flat however large the store grows and however long its memories are. The oldest
//! entries go first, but one read since it was kept, or since it last came up for eviction,
//! gets a second chance (the CLOCK approximation of least recently used): the candidates a
//! store's writes meet again and again stay, where oldest-first evicted them as soon as any.
//! A value read in passing is kept only when it is met a second time
//! ([`Memo::get_or_derive_recurring`]), so one met once never pushes out one met often.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use uuid::Uuid;

/// What a kept value costs, in bytes (its heap included).
pub trait Weigh {
    fn weight(&self) -> usize;
}

pub struct Memo<T> {
    /// The most bytes kept, as the values weigh themselves.
    budget: usize,
    inner: Mutex<Entries<T>>,
    /// Values derived on a miss of [`Memo::get_or_derive`] or
    /// [`Memo::get_or_derive_recurring`], since the memo was made.
    derived: AtomicU64,
}

struct Entries<T> {
    /// Hashed with foldhash: every candidate judged looks its analysis up here, and with
    /// std's SipHash the lookups were about a twentieth of a sweep's CPU.
    by_id: foldhash::HashMap<Uuid, Entry<T>>,
    /// Ids in insertion order, each once, for eviction.
    order: VecDeque<Uuid>,
    /// What the kept values weigh together.
    weight: usize,
    /// Ids whose value [`Memo::get_or_derive_recurring`] derived and did not keep.
    missed: foldhash::HashSet<Uuid>,
}

/// Misses [`Memo::get_or_derive_recurring`] remembers, at most; then they are forgotten all
/// at once. A megabyte or two.
const MISSES: usize = 1 << 16;

struct Entry<T> {
    fingerprint: u64,
    value: Arc<T>,
    weight: usize,
    /// Read since it was kept or last came up for eviction.
    read: bool,
}

impl<T: Weigh> Memo<T> {
    /// A memo of at most `budget` bytes; 0 keeps nothing.
    pub fn new(budget: usize) -> Self {
        Self {
            budget,
            inner: Mutex::new(Entries {
                by_id: foldhash::HashMap::default(),
                order: VecDeque::new(),
                weight: 0,
                missed: foldhash::HashSet::default(),
            }),
            derived: AtomicU64::new(0),
        }
    }

    /// The value kept for `id` if it was derived from text with this `fingerprint`; otherwise
    /// `derive()`, kept for next time. `derive` runs outside the lock, so a slow derivation
    /// never holds up other readers.
    pub fn get_or_derive(&self, id: Uuid, fingerprint: u64, derive: impl FnOnce() -> T) -> Arc<T> {
        if let Some(hit) = self.get(id, fingerprint) {
            return hit;
        }
        let value = Arc::new(derive());
        self.derived.fetch_add(1, Ordering::Relaxed);
        self.put(id, fingerprint, Arc::clone(&value));
        value
    }

    /// [`Memo::get_or_derive`] for a value read in passing (a candidate's analysis): what is
    /// derived is kept only when the same id missed before (since the misses were last
    /// forgotten), so a value met again is kept and one met once is not. A large store's
    /// candidates are spread over all of it: keeping every one met saved a 100k sweep only
    /// 5% of its analyses, and the churn cost it more than that (BENCHMARKS.md, session 37).
    pub fn get_or_derive_recurring(
        &self,
        id: Uuid,
        fingerprint: u64,
        derive: impl FnOnce() -> T,
    ) -> Arc<T> {
        if let Some(hit) = self.get(id, fingerprint) {
            return hit;
        }
        let value = Arc::new(derive());
        self.derived.fetch_add(1, Ordering::Relaxed);
        if self.missed_before(id) {
            self.put(id, fingerprint, Arc::clone(&value));
        }
        value
    }

    /// Whether `id` missed before; remembers that it did now.
    fn missed_before(&self, id: Uuid) -> bool {
        if self.budget == 0 {
            return false;
        }
        let mut entries = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.missed.remove(&id) {
            return true;
        }
        if entries.missed.len() >= MISSES {
            entries.missed.clear();
        }
        entries.missed.insert(id);
        false
    }

    /// Whether a value derived from text with this `fingerprint` is kept for `id` (not a read:
    /// it earns the entry no second chance).
    pub fn holds(&self, id: Uuid, fingerprint: u64) -> bool {
        let entries = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        (entries.by_id.get(&id)).is_some_and(|e| e.fingerprint == fingerprint)
    }

    /// Keeps `value` for `id` only where that evicts nothing and replaces nothing: for
    /// filling the memo ahead of need, which must never push out what use put there. A
    /// filled entry counts as older than every other, so it is the first to go, and of two
    /// filled entries the later filled goes first. Returns whether there was room (an id
    /// already kept counts as room: nothing to do).
    pub fn fill(&self, id: Uuid, fingerprint: u64, value: Arc<T>) -> bool {
        let weight = value.weight();
        let mut entries = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.by_id.contains_key(&id) {
            return true;
        }
        if entries.weight + weight > self.budget {
            return false;
        }
        entries.by_id.insert(
            id,
            Entry {
                fingerprint,
                value,
                weight,
                read: false,
            },
        );
        entries.order.push_front(id);
        entries.weight += weight;
        true
    }

    fn get(&self, id: Uuid, fingerprint: u64) -> Option<Arc<T>> {
        let mut entries = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        match entries.by_id.get_mut(&id) {
            Some(e) if e.fingerprint == fingerprint => {
                e.read = true;
                Some(Arc::clone(&e.value))
            }
            _ => None,
        }
    }

    /// Keeps `value`, derived from text with this `fingerprint`, for `id`; a value heavier
    /// than the whole budget is not kept.
    pub fn put(&self, id: Uuid, fingerprint: u64, value: Arc<T>) {
        let weight = value.weight();
        if weight > self.budget {
            return;
        }
        // What leaves the memo is dropped after the lock is released: freeing an analysis is
        // many deallocations, and every other judging thread waited for them.
        let mut gone: Vec<Arc<T>> = Vec::new();
        // Every critical section leaves the map, the order and the weight consistent, so a
        // poisoned lock (a panic elsewhere while holding it) still guards valid entries.
        let mut guard = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let entries = &mut *guard;
        let entry = Entry {
            fingerprint,
            value,
            weight,
            read: false,
        };
        match entries.by_id.insert(id, entry) {
            Some(replaced) => {
                entries.weight -= replaced.weight;
                gone.push(replaced.value);
            }
            None => entries.order.push_back(id),
        }
        entries.weight += weight;
        // Each entry passed over loses its mark, so within one round of the order something
        // unmarked comes up.
        while entries.weight > self.budget {
            let Some(oldest) = entries.order.pop_front() else {
                break;
            };
            if let Some(e) = entries.by_id.get_mut(&oldest)
                && std::mem::take(&mut e.read)
            {
                entries.order.push_back(oldest);
            } else if let Some(evicted) = entries.by_id.remove(&oldest) {
                entries.weight -= evicted.weight;
                gone.push(evicted.value);
            }
        }
        drop(guard);
        drop(gone);
    }

    /// What the kept values weigh together, in bytes.
    pub fn weight(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .weight
    }

    /// Entries kept now.
    pub fn len(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .by_id
            .len()
    }

    /// How many times [`Memo::get_or_derive`] or [`Memo::get_or_derive_recurring`] missed
    /// and derived its value.
    pub fn derived(&self) -> u64 {
        self.derived.load(Ordering::Relaxed)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    fn id(n: u128) -> Uuid {
        Uuid::from_u128(n)
    }

    /// Numbers weigh one byte; text its length.
    impl Weigh for i32 {
        fn weight(&self) -> usize {
            1
        }
    }
    impl Weigh for u128 {
        fn weight(&self) -> usize {
            1
        }
    }
    impl Weigh for &str {
        fn weight(&self) -> usize {
            self.len()
        }
    }

    #[test]
    fn a_value_is_derived_once_while_its_text_is_unchanged() {
        let memo = Memo::new(64);
        let calls = Cell::new(0);
        let derive = || {
            calls.set(calls.get() + 1);
            "analysis"
        };
        let first = memo.get_or_derive(id(1), 7, derive);
        let second = memo.get_or_derive(id(1), 7, derive);
        assert_eq!(calls.get(), 1);
        assert_eq!(memo.derived(), 1);
        assert!(Arc::ptr_eq(&first, &second));
    }

    #[test]
    fn a_value_read_in_passing_is_kept_once_it_is_met_again() {
        let memo = Memo::new(64);
        let calls = Cell::new(0);
        let derive = || {
            calls.set(calls.get() + 1);
            "analysis"
        };
        memo.get_or_derive_recurring(id(1), 7, derive);
        assert!(!memo.holds(id(1), 7), "met once: derived, not kept");
        memo.get_or_derive_recurring(id(1), 7, derive);
        assert!(memo.holds(id(1), 7), "met again: kept");
        memo.get_or_derive_recurring(id(1), 7, derive);
        assert_eq!(calls.get(), 2, "then read from the memo");
        // A memory's own value is kept at once, as before.
        memo.get_or_derive(id(2), 7, derive);
        assert!(memo.holds(id(2), 7));
        // A memo that keeps nothing remembers no misses either.
        let none = Memo::new(0);
        for _ in 0..3 {
            none.get_or_derive_recurring(id(1), 7, derive);
        }
        assert!(none.is_empty() && none.inner.lock().unwrap().missed.is_empty());
    }

    #[test]
    fn misses_are_forgotten_all_at_once_when_too_many() {
        let memo = Memo::new(usize::MAX);
        for n in 0..MISSES as u128 {
            memo.get_or_derive_recurring(id(n), 0, || n);
        }
        assert_eq!(memo.inner.lock().unwrap().missed.len(), MISSES);
        memo.get_or_derive_recurring(id(u128::MAX), 0, || 0);
        assert_eq!(
            memo.inner.lock().unwrap().missed.len(),
            1,
            "forgotten, the newest kept"
        );
        memo.get_or_derive_recurring(id(0), 0, || 0);
        assert!(!memo.holds(id(0), 0), "a miss forgotten counts as a first");
        memo.get_or_derive_recurring(id(u128::MAX), 0, || 0);
        assert!(memo.holds(id(u128::MAX), 0));
    }

    #[test]
    fn changed_text_is_derived_again_and_replaces_the_entry() {
        let memo = Memo::new(64);
        memo.get_or_derive(id(1), 7, || "old");
        let edited = memo.get_or_derive(id(1), 8, || "newer");
        assert_eq!(*edited, "newer");
        assert_eq!(*memo.get_or_derive(id(1), 8, || "again"), "newer");
        assert_eq!(memo.len(), 1);
        assert_eq!(memo.weight(), 5, "the replaced value no longer counts");
    }

    #[test]
    fn the_budget_is_in_bytes_and_a_value_heavier_than_it_is_not_kept() {
        let memo = Memo::new(10);
        for (n, text) in [(1, "four"), (2, "five5"), (3, "six666")] {
            memo.get_or_derive(id(n), 0, || text);
        }
        assert_eq!(
            memo.len(),
            1,
            "5 + 6 bytes exceed 10: only the newest stays"
        );
        assert_eq!(memo.weight(), 6);
        memo.get_or_derive(id(4), 0, || "eleven bytes");
        assert_eq!(
            memo.len(),
            1,
            "a value heavier than the budget evicts nothing"
        );
        assert_eq!(*memo.get_or_derive(id(3), 0, || "again!"), "six666");
    }

    #[test]
    fn the_oldest_entries_go_first_beyond_the_budget() {
        let memo = Memo::new(2);
        for n in 1..=3 {
            memo.get_or_derive(id(n), 0, || n);
        }
        assert_eq!(memo.len(), 2);
        assert_eq!(*memo.get_or_derive(id(1), 0, || 10), 10, "1 was evicted");
        assert_eq!(*memo.get_or_derive(id(3), 0, || 30), 3, "3 was kept");
    }

    #[test]
    fn an_entry_read_since_it_was_kept_gets_one_second_chance() {
        let memo = Memo::new(2);
        memo.get_or_derive(id(1), 0, || 1);
        memo.get_or_derive(id(2), 0, || 2);
        assert_eq!(*memo.get_or_derive(id(1), 0, || 10), 1, "read");
        memo.get_or_derive(id(3), 0, || 3);
        assert!(memo.holds(id(1), 0), "1 was read: passed over");
        assert!(!memo.holds(id(2), 0), "2 was not: it went");
        memo.get_or_derive(id(4), 0, || 4);
        assert!(memo.holds(id(1), 0), "passed over, 1 went behind 3");
        assert!(!memo.holds(id(3), 0));
        // Looking (`holds`) is not reading: 1's mark is spent, and it goes in its turn.
        memo.get_or_derive(id(5), 0, || 5);
        assert!(!memo.holds(id(1), 0));
        assert!(memo.holds(id(4), 0) && memo.holds(id(5), 0));
    }

    #[test]
    fn a_replaced_entry_keeps_one_place_in_the_eviction_order() {
        let memo = Memo::new(2);
        memo.get_or_derive(id(1), 0, || 1);
        memo.get_or_derive(id(1), 1, || 11);
        memo.get_or_derive(id(2), 0, || 2);
        memo.get_or_derive(id(3), 0, || 3);
        assert_eq!(memo.len(), 2);
        assert_eq!(*memo.get_or_derive(id(2), 0, || 20), 2, "2 was kept");
    }

    #[test]
    fn filling_never_evicts_or_replaces_and_says_when_the_memo_is_full() {
        let memo = Memo::new(10);
        memo.get_or_derive(id(1), 7, || "written");
        assert!(
            memo.fill(id(1), 8, Arc::new("stale")),
            "a kept id is no reason to stop"
        );
        assert_eq!(
            *memo.get_or_derive(id(1), 7, || "again"),
            "written",
            "not replaced"
        );
        assert!(memo.holds(id(1), 7) && !memo.holds(id(1), 8));
        assert!(memo.fill(id(2), 0, Arc::new("abc")));
        assert!(
            !memo.fill(id(3), 0, Arc::new("abc")),
            "7 + 3 + 3 bytes exceed 10"
        );
        assert_eq!(memo.len(), 2, "nothing was evicted");
        assert!(memo.holds(id(2), 0) && !memo.holds(id(3), 0));
        assert!(memo.fill(id(4), 0, Arc::new("")), "what fits still goes in");
    }

    #[test]
    fn filled_entries_go_before_used_ones_and_the_last_filled_first() {
        let memo = Memo::new(3);
        memo.get_or_derive(id(1), 0, || 1);
        assert!(memo.fill(id(2), 0, Arc::new(2)));
        assert!(memo.fill(id(3), 0, Arc::new(3)));
        assert!(!memo.fill(id(4), 0, Arc::new(4)), "full");
        memo.get_or_derive(id(5), 0, || 5);
        assert!(!memo.holds(id(3), 0), "the last filled went first");
        memo.get_or_derive(id(6), 0, || 6);
        assert!(!memo.holds(id(2), 0), "then the other filled one");
        assert!(memo.holds(id(1), 0), "the entry kept by use stayed");
    }

    #[test]
    fn a_budget_of_zero_keeps_nothing() {
        let memo = Memo::new(0);
        memo.get_or_derive(id(1), 0, || 1);
        assert!(memo.is_empty());
        assert_eq!(*memo.get_or_derive(id(1), 0, || 2), 2);
    }
}
