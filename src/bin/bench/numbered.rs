//! The numbered-subject scenario: a store holding one templated fact per service ("The cache ttl
//! for service N is V units."), then writes that change one service's value or state a new
//! service's. Only the writes are timed. Each changed fact must contradict its own service's
//! fact and nothing else, and a new service's fact nothing at all: the number that names a
//! subject is part of the subject, never the value.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde_json::{Value, json};

use crate::http::Client;
use crate::scenarios::drive;
use crate::stats::Summary;

/// What the writes found.
pub struct Outcome {
    pub summary: Summary,
    /// Conflicts queued by writes that changed a stored service's value.
    pub changed_conflicts: u64,
    /// Of those, conflicts against another service's fact (should be none).
    pub other_subject: u64,
    /// Conflicts queued by facts about services the store did not hold (should be none).
    pub new_subject_conflicts: u64,
    pub changed_writes: u64,
    pub new_writes: u64,
}

fn fact(service: u64, value: u64) -> Value {
    json!({
        "title": "Cache ttl",
        "body": format!("The cache ttl for service {service} is {value} units."),
    })
}

/// Stores one fact per service without detection (untimed); returns their node ids in order.
pub async fn seed(addr: &str, services: u64) -> anyhow::Result<Vec<String>> {
    let mut c = Client::new(addr);
    let mut ids = Vec::with_capacity(services as usize);
    for n in 0..services {
        let r = c.post("/nodes?detect=false", &fact(n, 9_000 + n)).await?;
        anyhow::ensure!(r.status == 201, "seeding answered {}", r.status);
        let id = r.json()?["node"]["id"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        ids.push(id);
    }
    Ok(ids)
}

/// Even requests change the value of a distinct stored service; odd ones state a new service.
pub async fn write(addr: &str, clients: usize, ids: Arc<Vec<String>>, requests: u64) -> Outcome {
    let services = ids.len() as u64;
    let requests = requests.min(2 * services);
    let next = Arc::new(AtomicU64::new(0));
    let counts: Arc<[AtomicU64; 3]> = Arc::new(Default::default());
    let c2 = counts.clone();
    let (samples, elapsed) = drive(addr, clients, move |_, mut c| {
        let (next, counts, ids) = (next.clone(), c2.clone(), ids.clone());
        async move {
            let mut s = crate::stats::Samples::default();
            loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                if n >= requests {
                    return s;
                }
                let (service, changed) = if n % 2 == 0 {
                    (n / 2, true)
                } else {
                    (services + n, false)
                };
                let t = Instant::now();
                match c.post("/nodes", &fact(service, 50_000 + n)).await {
                    Ok(r) if r.status == 201 => {
                        s.ok(t.elapsed());
                        let v: Value = serde_json::from_slice(&r.body).unwrap_or_default();
                        let hits = v["conflicts"].as_array().cloned().unwrap_or_default();
                        let own = ids.get(service as usize).map(String::as_str);
                        let other = hits
                            .iter()
                            .filter(|h| h["old_node_id"].as_str() != own)
                            .count() as u64;
                        let k = if changed { 0 } else { 2 };
                        counts[k].fetch_add(hits.len() as u64, Ordering::Relaxed);
                        if changed {
                            counts[1].fetch_add(other, Ordering::Relaxed);
                        }
                    }
                    Ok(r) => s.error(format!("status {}", r.status)),
                    Err(_) => s.error("transport"),
                }
            }
        }
    })
    .await;
    Outcome {
        summary: samples.summary("numbered POST /nodes", elapsed),
        changed_conflicts: counts[0].load(Ordering::Relaxed),
        other_subject: counts[1].load(Ordering::Relaxed),
        new_subject_conflicts: counts[2].load(Ordering::Relaxed),
        changed_writes: requests.div_ceil(2),
        new_writes: requests / 2,
    }
}
