//! Latency samples and their summary: count, throughput, p50/p95/p99/max and errors by kind.
//! Every client records into its own `Samples`; they are merged once the run ends.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

#[derive(Default, Clone)]
pub struct Samples {
    pub micros: Vec<u64>,
    /// Error kind (`status 409`, `transport`) → count.
    pub errors: BTreeMap<String, u64>,
}

impl Samples {
    pub fn ok(&mut self, d: Duration) {
        self.micros.push(d.as_micros() as u64);
    }

    pub fn error(&mut self, kind: impl Into<String>) {
        *self.errors.entry(kind.into()).or_default() += 1;
    }

    pub fn merge(&mut self, other: Samples) {
        self.micros.extend(other.micros);
        for (k, v) in other.errors {
            *self.errors.entry(k).or_default() += v;
        }
    }

    pub fn summary(&self, name: &str, elapsed: Duration) -> Summary {
        let mut v = self.micros.clone();
        v.sort_unstable();
        let pct = |p: f64| -> f64 {
            if v.is_empty() {
                return 0.0;
            }
            let i = ((p / 100.0) * v.len() as f64).ceil() as usize;
            v[i.clamp(1, v.len()) - 1] as f64 / 1000.0
        };
        let errors: u64 = self.errors.values().sum();
        Summary {
            name: name.to_owned(),
            count: v.len() as u64,
            errors,
            error_kinds: self.errors.clone(),
            seconds: elapsed.as_secs_f64(),
            throughput: v.len() as f64 / elapsed.as_secs_f64().max(1e-9),
            p50_ms: pct(50.0),
            p95_ms: pct(95.0),
            p99_ms: pct(99.0),
            max_ms: v.last().map_or(0.0, |m| *m as f64 / 1000.0),
        }
    }
}

/// One measured operation of one run.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub name: String,
    pub count: u64,
    pub errors: u64,
    pub error_kinds: BTreeMap<String, u64>,
    pub seconds: f64,
    /// Successful requests per second of wall time.
    pub throughput: f64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

impl Summary {
    pub fn header() -> String {
        format!(
            "{:<28} {:>7} {:>9} {:>8} {:>8} {:>8} {:>8} {:>6}",
            "operation", "count", "req/s", "p50 ms", "p95 ms", "p99 ms", "max ms", "errors"
        )
    }

    pub fn line(&self) -> String {
        let mut s = format!(
            "{:<28} {:>7} {:>9.1} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>6}",
            self.name,
            self.count,
            self.throughput,
            self.p50_ms,
            self.p95_ms,
            self.p99_ms,
            self.max_ms,
            self.errors
        );
        if !self.error_kinds.is_empty() {
            s.push_str(&format!("  {:?}", self.error_kinds));
        }
        s
    }
}

/// Median of several runs' values (the mean of the middle two for an even count).
pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut v = values.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The median summary of several runs of one operation, field by field.
pub fn median_summary(runs: &[Summary]) -> Summary {
    let f = |g: fn(&Summary) -> f64| median(&runs.iter().map(g).collect::<Vec<_>>());
    let mut kinds = BTreeMap::new();
    for r in runs {
        for (k, v) in &r.error_kinds {
            *kinds.entry(k.clone()).or_default() += v;
        }
    }
    Summary {
        name: runs.first().map(|r| r.name.clone()).unwrap_or_default(),
        count: f(|s| s.count as f64) as u64,
        errors: runs.iter().map(|r| r.errors).sum(),
        error_kinds: kinds,
        seconds: f(|s| s.seconds),
        throughput: f(|s| s.throughput),
        p50_ms: f(|s| s.p50_ms),
        p95_ms: f(|s| s.p95_ms),
        p99_ms: f(|s| s.p99_ms),
        max_ms: f(|s| s.max_ms),
    }
}
