//! Alignment: an updated memory is usually the old one with a span changed, so the two token
//! streams are diffed (longest common subsequence over stems) and the differing spans ("hunks")
//! are what the signals inspect. Common prefixes and suffixes are stripped first and the
//! quadratic core is bounded, so long bodies degrade to "not aligned" instead of slowing down.

use std::ops::Range;

use super::tokens::Token;

/// Largest middle section (product of lengths) diffed by dynamic programming.
const MAX_CELLS: usize = 160_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    pub a: Range<usize>,
    pub b: Range<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Alignment {
    pub hunks: Vec<Hunk>,
    /// Tokens matched in both streams.
    pub matched: usize,
    /// `matched` relative to the longer stream: 1.0 means identical.
    pub ratio: f64,
}

pub fn align(a: &[Token], b: &[Token]) -> Option<Alignment> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x.same_stem(y)).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x.same_stem(y))
        .count();
    let (ma, mb) = (prefix..a.len() - suffix, prefix..b.len() - suffix);
    if ma.len() * mb.len() > MAX_CELLS {
        return None;
    }
    let (mut hunks, core) = diff_core(&a[ma.clone()], &b[mb.clone()]);
    for h in &mut hunks {
        h.a = h.a.start + prefix..h.a.end + prefix;
        h.b = h.b.start + prefix..h.b.end + prefix;
    }
    let matched = prefix + suffix + core;
    let longest = a.len().max(b.len()).max(1);
    Some(Alignment {
        hunks,
        matched,
        ratio: matched as f64 / longest as f64,
    })
}

/// Whether aligning two streams could reach `ratio`: they cannot match more tokens than the
/// stems they share, counted with repeats. `a` and `b` are the streams' stem keys, sorted. The
/// bound is a merge, so pairs that share too few stems skip the quadratic diff.
pub fn could_reach(a: &[u64], b: &[u64], ratio: f64) -> bool {
    let (mut i, mut j, mut shared) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let longest = a.len().max(b.len()).max(1);
    shared as f64 / longest as f64 >= ratio
}

/// LCS table walk producing maximal runs of unmatched tokens.
fn diff_core(a: &[Token], b: &[Token]) -> (Vec<Hunk>, usize) {
    let (n, m) = (a.len(), b.len());
    let w = m + 1;
    let mut dp = vec![0u16; (n + 1) * w];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            dp[i * w + j] = if a[i].same_stem(&b[j]) {
                dp[(i + 1) * w + j + 1] + 1
            } else {
                dp[(i + 1) * w + j].max(dp[i * w + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut hunks = Vec::new();
    let mut open: Option<(usize, usize)> = None;
    while i < n || j < m {
        if i < n && j < m && a[i].same_stem(&b[j]) {
            close(&mut hunks, &mut open, i, j);
            i += 1;
            j += 1;
            continue;
        }
        open.get_or_insert((i, j));
        if j < m && (i == n || dp[i * w + j + 1] >= dp[(i + 1) * w + j]) {
            j += 1;
        } else {
            i += 1;
        }
    }
    close(&mut hunks, &mut open, n, m);
    (hunks, usize::from(dp[0]))
}

fn close(hunks: &mut Vec<Hunk>, open: &mut Option<(usize, usize)>, i: usize, j: usize) {
    if let Some((si, sj)) = open.take() {
        hunks.push(Hunk { a: si..i, b: sj..j });
    }
}

/// Alignment ratio above which two memories are versions of one statement.
pub const NEAR_DUPLICATE: f64 = 0.55;

#[cfg(test)]
mod tests;
