//! A batch's candidate searches ranked from postings this process keeps in memory, where the
//! backend keeps them (SQLite, opened for a bulk import): the store's index ranks the same
//! hits by walking its postings once per memory. Ranked here, the database only reads the
//! candidates' rows, each straight from the table by its rowid (a direct import about 1.1x
//! faster, BENCHMARKS.md).
//!
//! The postings must be exactly the store's when a batch searches: the backend brings them in
//! step in the batch's write transaction, before its first search ([`Backend::batch_ranking`]),
//! and a batch adds each of its nodes as it writes it, so its later nodes find its earlier
//! ones. Only a batch whose judging changes no node uses them (`BatchJudge::overlaps`): its
//! writes are then only inserts.
//!
//! [`Backend::batch_ranking`]: super::backend::Backend::batch_ranking

use uuid::Uuid;

use super::{CandidateQuery, Hits};
use crate::domain::retrieval::{INDEX_HITS_PER_CANDIDATE, Postings, RANKING_BUDGET, query_tokens};

/// Every stored node's postings, keyed by its place in insertion order (SQLite's rowid).
#[derive(Default)]
pub struct MemoryPostings {
    postings: Postings<i64>,
    /// The key of the last node added (0 before any), and its id.
    last: (i64, Option<Uuid>),
    /// The backend's count of the changes to its postings other than new nodes, when they
    /// were last brought in step (`None`: never, or no longer to be trusted).
    pub(super) reshapes: Option<i64>,
}

/// A batch's use of the postings: held for its whole write transaction.
pub type BatchRanking<'a> = tokio::sync::MutexGuard<'a, MemoryPostings>;

impl MemoryPostings {
    /// The last node added: its key and id.
    pub fn last(&self) -> (i64, Option<Uuid>) {
        self.last
    }

    /// Forgets every posting (before they are read again from the start).
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    /// Adds node `id` of `scope`, its index tokens `tokens` (space-separated), stored at `key`:
    /// keys must come in increasing order.
    pub fn add_stored(&mut self, key: i64, id: Uuid, scope: &str, tokens: &str) {
        self.postings
            .add(scope, key, tokens.split(' ').filter(|t| !t.is_empty()));
        self.last = (key, Some(id));
    }

    /// Adds a node being written now: the store gives it the key after the last.
    pub fn add_new(&mut self, id: Uuid, scope: &str, tokens: &str) {
        self.add_stored(self.last.0 + 1, id, scope, tokens);
    }

    /// Ranks `q`'s hits as the store's index would rank them now ([`CandidateQuery::hits`],
    /// by their keys), with the statistics it would use ([`CandidateQuery::docs`]).
    pub fn rank(&self, q: &mut CandidateQuery) {
        let docs = self.postings.docs(&q.scope, &q.tokens);
        let chosen = query_tokens(&docs, &q.names);
        let wanted = q.limit * INDEX_HITS_PER_CANDIDATE;
        let keys = self
            .postings
            .hits(&q.scope, &chosen, RANKING_BUDGET as usize, wanted);
        q.hits = Some(Hits::Keys(keys));
        q.docs = Some(docs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(tokens: &[&str]) -> CandidateQuery {
        CandidateQuery {
            exclude: None,
            scope: "s".into(),
            memory_type: "fact".into(),
            tokens: tokens.iter().map(|t| t.to_string()).collect(),
            names: Vec::new(),
            labels: Vec::new(),
            with_embedding: false,
            limit: 2,
            newest: 0,
            before: None,
            docs: None,
            hits: None,
        }
    }

    #[test]
    fn a_search_ranks_stored_and_new_nodes_of_its_scope_newest_first_on_ties() {
        let ids: Vec<Uuid> = (0..4).map(|_| Uuid::now_v7()).collect();
        let mut p = MemoryPostings::default();
        p.add_stored(3, ids[0], "s", "cache ttl");
        p.add_stored(7, ids[1], "other", "cache ttl");
        p.add_new(ids[2], "s", "cache relay");
        assert_eq!(p.last(), (8, Some(ids[2])));
        p.add_new(ids[3], "s", "cache ttl seconds");

        let mut q = query(&["ttl", "cache"]);
        p.rank(&mut q);

        assert_eq!(q.hits, Some(Hits::Keys(vec![9, 3, 8])));
        let docs = vec![("cache".to_string(), 3), ("ttl".to_string(), 2)];
        assert_eq!(q.docs, Some(docs));
        p.clear();
        assert_eq!(p.last(), (0, None));
        p.rank(&mut q);
        assert_eq!(q.hits, Some(Hits::Keys(Vec::new())));
    }
}
