//! Which tokens of a new text to look candidates up by. A query over common tokens makes the
//! index rank most of the store on every write; the rarest tokens find the same near
//! duplicates (two texts that overlap share their rare words too) at a bounded cost.

/// Picks the rarest tokens, by document frequency, until their postings would exceed
/// `budget` documents, keeping at least `min` tokens. Numbers are skipped while words remain:
/// a changed value is exactly what differs between a fact and its update. Numbers in `names`
/// name the subject ("service 3") and count as words: among facts that differ only in that
/// number, they are what finds the right one. Tokens no document has cannot find anything and
/// are dropped.
pub fn rarest_tokens(
    stats: &[(String, i64)],
    names: &[String],
    budget: i64,
    min: usize,
    max: usize,
) -> Vec<(String, i64)> {
    let is_number = |t: &str| {
        t.chars().all(|c| c.is_ascii_digit() || c == '.') && !names.iter().any(|n| n == t)
    };
    let mut seen: Vec<&(String, i64)> = stats.iter().filter(|(_, df)| *df > 0).collect();
    let words = seen.iter().filter(|(t, _)| !is_number(t)).count();
    if words >= min {
        seen.retain(|(t, _)| !is_number(t));
    }
    seen.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
    let mut out = Vec::new();
    let mut postings = 0;
    for (token, df) in seen {
        if out.len() >= max || (out.len() >= min && postings + df > budget) {
            break;
        }
        postings += df;
        out.push((token.clone(), *df));
    }
    out
}

/// Postings the index may rank per candidate search, and how many tokens it may use: the same
/// budget on both databases, so both retrieve the same candidates.
pub const RANKING_BUDGET: i64 = 2_000;
const MIN_QUERY_TOKENS: usize = 2;

/// Index hits examined per candidate wanted: hits in other scopes, types or states are
/// filtered out after the postings are scored.
pub const INDEX_HITS_PER_CANDIDATE: usize = 4;
const MAX_QUERY_TOKENS: usize = 12;

/// The tokens a candidate search uses, with their document frequencies, from the index's
/// document frequencies `stats`.
pub fn query_tokens(stats: &[(String, i64)], names: &[String]) -> Vec<(String, i64)> {
    rarest_tokens(
        stats,
        names,
        RANKING_BUDGET,
        MIN_QUERY_TOKENS,
        MAX_QUERY_TOKENS,
    )
}

/// How much sharing a token says about two memories being about the same thing: the rarer,
/// the more (an inverse document frequency). The corpus size is a constant, so a token's
/// weight does not depend on the store's size; only the weights' order and ratios matter.
pub fn rarity(docs: i64) -> f64 {
    (1.0 + 1_000_000.0 / docs.max(1) as f64).ln()
}

/// The nodes a candidate search found, best first: walking each query token's postings,
/// a node scores the weights of the tokens it holds; ties go to the newer node (the larger
/// key). `walks` pair a token's index in `weights` with the nodes its postings name, in any
/// order: weights are added in token order, so that two nodes holding the same tokens tie
/// exactly. At most `limit` are kept.
pub fn best_hits<K, I>(
    weights: &[f64],
    walks: impl IntoIterator<Item = (usize, I)>,
    limit: usize,
) -> Vec<K>
where
    K: Copy + Eq + std::hash::Hash + Ord,
    I: IntoIterator<Item = K>,
{
    let mut walks: Vec<(usize, I::IntoIter)> = walks
        .into_iter()
        .map(|(token, nodes)| (token, nodes.into_iter()))
        .collect();
    walks.sort_by_key(|(token, _)| *token);
    // Keys are row ids and UUIDs, not attacker-chosen strings: a fast hash beats SipHash here
    // (a few thousand postings are scored per write). Sized for every posting up front: growing
    // it step by step rehashed the scores several times per write.
    let postings = walks.iter().map(|(_, nodes)| nodes.size_hint().0).sum();
    let mut scores: rustc_hash::FxHashMap<K, f64> =
        rustc_hash::FxHashMap::with_capacity_and_hasher(postings, Default::default());
    for (token, nodes) in walks {
        let weight = weights[token];
        for node in nodes {
            *scores.entry(node).or_insert(0.0) += weight;
        }
    }
    let mut hits: Vec<(K, f64)> = scores.into_iter().collect();
    let best_first = |a: &(K, f64), b: &(K, f64)| b.1.total_cmp(&a.1).then_with(|| b.0.cmp(&a.0));
    if hits.len() > limit && limit > 0 {
        hits.select_nth_unstable_by(limit - 1, best_first);
    }
    hits.truncate(limit);
    hits.sort_unstable_by(best_first);
    hits.into_iter().map(|(k, _)| k).collect()
}

/// The postings of the nodes passed so far, per scope and index token, each in the order the
/// nodes were added (their key order). A sweep passes every stored node in id order and
/// searches here what a write's search would have found among the nodes stored before it,
/// instead of walking the store's postings once per memory.
#[derive(Default)]
pub struct Postings<K> {
    by_scope: std::collections::HashMap<String, std::collections::HashMap<String, Vec<K>>>,
}

impl<K: Copy + Eq + std::hash::Hash + Ord> Postings<K> {
    /// Adds node `key` of `scope` under each of its distinct `tokens`. Keys must come in
    /// increasing order: a token's newest postings are the last ones.
    pub fn add<'t>(&mut self, scope: &str, key: K, tokens: impl IntoIterator<Item = &'t str>) {
        let postings = match self.by_scope.get_mut(scope) {
            Some(p) => p,
            None => self.by_scope.entry(scope.to_owned()).or_default(),
        };
        for token in tokens {
            let nodes = match postings.get_mut(token) {
                Some(n) => n,
                None => postings.entry(token.to_owned()).or_default(),
            };
            debug_assert!(
                nodes.last().is_none_or(|last| *last <= key),
                "keys in order"
            );
            if nodes.last() != Some(&key) {
                nodes.push(key);
            }
        }
    }

    /// How many of the passed nodes of `scope` hold each of `tokens` that some node holds,
    /// each token once, sorted: the document frequencies of the nodes passed.
    pub fn docs(&self, scope: &str, tokens: &[String]) -> Vec<(String, i64)> {
        let Some(postings) = self.by_scope.get(scope) else {
            return Vec::new();
        };
        let mut out: Vec<(String, i64)> = tokens
            .iter()
            .filter_map(|t| postings.get(t).map(|n| (t.clone(), n.len() as i64)))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The best `wanted` hits of a candidate search by `tokens` (as [`query_tokens`] chose
    /// them) among the nodes passed in `scope`: each token's newest `per_token` postings
    /// ranked by [`best_hits`], as the store's own search ranks its index.
    pub fn hits(
        &self,
        scope: &str,
        tokens: &[(String, i64)],
        per_token: usize,
        wanted: usize,
    ) -> Vec<K> {
        let Some(postings) = self.by_scope.get(scope) else {
            return Vec::new();
        };
        let walks = tokens.iter().enumerate().filter_map(|(i, (token, _))| {
            let nodes = postings.get(token)?;
            Some((i, nodes.iter().rev().take(per_token).copied()))
        });
        let weights: Vec<f64> = tokens.iter().map(|(_, docs)| rarity(*docs)).collect();
        best_hits(&weights, walks, wanted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_are_ranked_by_the_weights_of_the_tokens_they_hold_then_newest_first() {
        let weights = [3.0, 1.0, 1.0];
        let walks = vec![(2, vec![8, 3]), (0, vec![9, 4, 2]), (1, vec![8, 4, 3])];
        // 4 holds 3 + 1; 9 holds 3; 8 and 3 hold 1 + 1 (8 is newer); 2 holds 3.
        assert_eq!(best_hits(&weights, walks.clone(), 10), vec![4, 9, 2, 8, 3]);
        assert_eq!(best_hits(&weights, walks.clone(), 3), vec![4, 9, 2]);
        assert_eq!(best_hits(&weights, walks, 0), Vec::<i32>::new());
        let none: Vec<(usize, Vec<i32>)> = Vec::new();
        assert_eq!(best_hits(&weights, none, 5), Vec::<i32>::new());
    }

    fn names(tokens: Vec<(String, i64)>) -> Vec<String> {
        tokens.into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn rarer_tokens_weigh_more_and_every_weight_is_positive() {
        assert!(rarity(1) > rarity(2));
        assert!(rarity(2) > rarity(2_000));
        assert!(rarity(2_000) > rarity(100_000));
        assert!(rarity(10_000_000) > 0.0);
        assert_eq!(rarity(0), rarity(1));
        // Two shared rare words outweigh one shared common word and one rare one.
        assert!(2.0 * rarity(50) > rarity(50) + rarity(30_000));
    }

    fn stats(pairs: &[(&str, i64)]) -> Vec<(String, i64)> {
        pairs.iter().map(|(t, d)| (t.to_string(), *d)).collect()
    }

    #[test]
    fn the_rarest_words_are_chosen_within_the_budget() {
        let s = stats(&[
            ("team", 27000),
            ("sync", 2500),
            ("relay", 3300),
            ("budget", 6700),
            ("45", 140),
        ]);
        assert_eq!(
            names(rarest_tokens(&s, &[], 2000, 2, 12)),
            vec!["sync", "relay"]
        );
        assert_eq!(
            names(rarest_tokens(&s, &[], 20000, 2, 12)),
            vec!["sync", "relay", "budget"]
        );
    }

    #[test]
    fn a_number_naming_the_subject_counts_as_a_word() {
        let s = stats(&[("3", 1), ("cache", 2000), ("ttl", 2000), ("9003", 1)]);
        let names = ["3".to_string()];
        assert_eq!(
            rarest_tokens(&s, &names, 2000, 2, 12),
            vec![("3".to_string(), 1), ("cache".to_string(), 2000)]
        );
    }

    #[test]
    fn numbers_are_used_only_when_too_few_words_remain() {
        let s = stats(&[("45", 3), ("ttl", 10)]);
        assert_eq!(
            names(rarest_tokens(&s, &[], 1000, 2, 12)),
            vec!["45", "ttl"]
        );
        let s = stats(&[("45", 3), ("ttl", 10), ("cache", 20)]);
        assert_eq!(
            names(rarest_tokens(&s, &[], 1000, 2, 12)),
            vec!["ttl", "cache"]
        );
    }

    #[test]
    fn tokens_no_document_has_are_dropped() {
        let s = stats(&[("new", 0), ("cache", 5)]);
        assert_eq!(names(rarest_tokens(&s, &[], 1000, 2, 12)), vec!["cache"]);
    }

    #[test]
    fn passed_postings_count_and_rank_as_the_index_does() {
        let mut p = Postings::default();
        p.add("s", 1, ["cache", "ttl"]);
        p.add("s", 2, ["cache", "relay"]);
        p.add("other", 3, ["cache"]);
        p.add("s", 4, ["cache", "ttl", "ttl"]);
        let tokens = ["ttl", "cache", "nowhere", "ttl"].map(String::from);
        let docs = p.docs("s", &tokens);
        assert_eq!(docs, stats(&[("cache", 3), ("ttl", 2)]));
        assert!(p.docs("none", &tokens).is_empty());
        // 4 and 1 hold both; 4 is newer. 2 holds only the commoner one.
        assert_eq!(p.hits("s", &docs, 10, 10), vec![4, 1, 2]);
        // At most the newest `per_token` postings of each token are walked.
        assert_eq!(p.hits("s", &docs, 1, 10), vec![4]);
        assert_eq!(p.hits("s", &docs, 10, 2), vec![4, 1]);
        assert!(p.hits("none", &docs, 10, 10).is_empty());
    }
}
