//! Where batches go: a running concord (`POST /nodes/batch`) or the database itself (the
//! same use case, in process). Both send each batch under an idempotency key made from its
//! content, so a batch whose commit landed before a crash is answered from its stored reply
//! on the next run instead of being written again; both read that reply the same way.

use std::time::{Duration, Instant};

use concord::domain::access::Caller;
use concord::domain::batch::{BatchInput, BatchNodeInput};
use concord::domain::contradiction::Sensitivity;
use concord::import::Item;
use concord::service::idempotency::{self, Claim};
use concord::service::{self, Services, batch, replies};
use concord::store::IdempotencyBegin;
use serde_json::Value;

/// How long a batch sent to a server waits for its key while the server still runs an
/// earlier request with it (a killed client's, until the server notices).
const IN_FLIGHT_PATIENCE: Duration = Duration::from_secs(180);

/// What a written batch did to each of its memories, in order.
pub type Outcomes = Vec<Written>;

/// One memory as written: its node's id and the conflicts its write queued.
#[derive(Debug, PartialEq)]
pub struct Written {
    pub id: String,
    pub conflicts: Vec<Queued>,
}

/// A conflict a write queued: its type and the stored node it contradicts.
#[derive(Debug, PartialEq)]
pub struct Queued {
    pub conflict_type: String,
    pub old_node_id: String,
}

pub enum Failure {
    /// Items the service refused (index in the batch, why); nothing of the batch was written.
    Items(Vec<(usize, String)>),
    /// The batch could not be written; the import stops.
    Fatal(String),
}

pub enum Sink {
    Http(Http),
    Direct(Box<Direct>),
}

pub struct Http {
    pub client: reqwest::Client,
    pub base: String,
    pub api_key: Option<String>,
    pub detect: bool,
    pub sensitivity: Option<Sensitivity>,
}

pub struct Direct {
    pub services: Services,
    /// Idempotency scope of this run's keys (`State::key_scope`), apart from HTTP clients'.
    pub scope: String,
    pub detect: bool,
    pub sensitivity: Option<Sensitivity>,
    /// Without keys (a scratch store for a dry run), batches are written unkeyed.
    pub keyed: bool,
}

/// The key of a batch: a digest of exactly what is sent, so the same batch always gets the
/// same key and any change of content a new one.
pub fn batch_key(items: &[Item]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for i in items {
        h.update(serde_json::to_vec(&i.record).expect("records serialise"));
        h.update(b"\n");
    }
    let digest = h.finalize();
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("import-{hex}")
}

impl Sink {
    pub async fn send(&self, items: &[Item]) -> Result<Outcomes, Failure> {
        let key = batch_key(items);
        match self {
            Sink::Http(h) => h.send(items, &key).await,
            Sink::Direct(d) => d.send(items, &key).await,
        }
    }
}

impl Http {
    async fn send(&self, items: &[Item], key: &str) -> Result<Outcomes, Failure> {
        let body = serde_json::json!({
            "nodes": items.iter().map(|i| &i.record).collect::<Vec<_>>(),
        });
        let mut url = format!("{}/nodes/batch?detect={}", self.base, self.detect);
        if let Some(s) = self.sensitivity {
            url.push_str(&format!("&sensitivity={}", s.as_str()));
        }
        let started = Instant::now();
        let mut failures = 0;
        loop {
            let mut req = self
                .client
                .post(&url)
                .header("Idempotency-Key", key)
                .json(&body);
            if let Some(k) = &self.api_key {
                req = req.bearer_auth(k);
            }
            let reply = match req.send().await {
                Ok(r) => r,
                Err(e) => {
                    failures += 1;
                    if failures > 3 {
                        return Err(Failure::Fatal(format!("cannot reach {}: {e}", self.base)));
                    }
                    tokio::time::sleep(Duration::from_millis(500 * failures)).await;
                    continue;
                }
            };
            let status = reply.status().as_u16();
            let retry_after = reply
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<u64>().ok());
            let text = reply.text().await.unwrap_or_default();
            let json: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            match status {
                200 | 201 => return outcomes(&json, items.len()),
                422 if refused_items(&json).is_some() => {
                    return Err(Failure::Items(refused_items(&json).unwrap_or_default()));
                }
                409 | 429 | 503 if started.elapsed() < IN_FLIGHT_PATIENCE => {
                    tokio::time::sleep(Duration::from_secs(retry_after.unwrap_or(2).clamp(1, 10)))
                        .await;
                }
                500..=599 if failures < 3 => {
                    failures += 1;
                    tokio::time::sleep(Duration::from_millis(500 * failures)).await;
                }
                _ => {
                    let detail = json
                        .get("detail")
                        .and_then(Value::as_str)
                        .map_or_else(|| text.chars().take(200).collect(), str::to_owned);
                    return Err(Failure::Fatal(format!(
                        "POST /nodes/batch answered {status}: {detail}"
                    )));
                }
            }
        }
    }
}

impl Direct {
    async fn send(&self, items: &[Item], key: &str) -> Result<Outcomes, Failure> {
        let svc = &self.services;
        if !self.keyed {
            return self.write(items, None).await;
        }
        let scope = self.scope.as_str();
        let fingerprint = format!("concord import {key}");
        let mut released = false;
        loop {
            let begun = idempotency::begin(svc, scope, key, &fingerprint)
                .await
                .map_err(fatal)?;
            match begun {
                IdempotencyBegin::Started => {
                    let claim = Claim::new(scope, key);
                    let result = self.write(items, Some(&claim)).await;
                    if !claim.saved() {
                        let _ = idempotency::abandon(svc, scope, key).await;
                    }
                    return result;
                }
                IdempotencyBegin::Replay(stored) => {
                    let json: Value = serde_json::from_slice(&stored.body).unwrap_or(Value::Null);
                    return outcomes(&json, items.len());
                }
                IdempotencyBegin::Mismatch => {
                    return Err(Failure::Fatal(format!(
                        "the batch key {key} was used for other content"
                    )));
                }
                // Only a run of this state file claims in this scope, and this run holds the
                // file: the claim is a killed run's. Its reply commits with its effect, so
                // an unanswered claim wrote nothing: release it and write.
                IdempotencyBegin::InFlight if !released => {
                    idempotency::abandon(svc, scope, key).await.map_err(fatal)?;
                    released = true;
                }
                IdempotencyBegin::InFlight => {
                    return Err(Failure::Fatal(format!("batch {key} stays claimed")));
                }
            }
        }
    }

    async fn write(&self, items: &[Item], claim: Option<&Claim>) -> Result<Outcomes, Failure> {
        let input = BatchInput {
            nodes: items
                .iter()
                .map(|i| BatchNodeInput {
                    reference: None,
                    node: i.record.to_input(),
                })
                .collect(),
            edges: Vec::new(),
        };
        let by = Some("import".to_owned());
        match batch::remember_all(
            &self.services,
            &Caller::anonymous(),
            input,
            by,
            self.detect,
            self.sensitivity,
            claim,
        )
        .await
        {
            Ok(written) => {
                let reply = replies::batch_written(&written);
                let json: Value = serde_json::from_slice(&reply.body).unwrap_or(Value::Null);
                outcomes(&json, items.len())
            }
            Err(service::Error::Invalid(errors)) => {
                let pointers: Vec<Value> = errors
                    .iter()
                    .map(|e| serde_json::json!({"pointer": e.pointer, "detail": e.detail}))
                    .collect();
                let json = serde_json::json!({ "errors": pointers });
                Err(Failure::Items(refused_items(&json).unwrap_or_default()))
            }
            Err(e) => Err(fatal(e)),
        }
    }
}

fn fatal(e: impl std::fmt::Display) -> Failure {
    Failure::Fatal(e.to_string())
}

/// Each node's id and queued conflicts from a batch reply (`{"nodes": [{"node",
/// "conflicts"?}]}`).
fn outcomes(reply: &Value, expected: usize) -> Result<Outcomes, Failure> {
    let nodes = reply
        .get("nodes")
        .and_then(Value::as_array)
        .filter(|n| n.len() == expected)
        .ok_or_else(|| Failure::Fatal("the batch reply does not list every node".into()))?;
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
    Ok(nodes
        .iter()
        .map(|n| Written {
            id: n
                .get("node")
                .map(|node| text(node, "id"))
                .unwrap_or_default(),
            conflicts: n
                .get("conflicts")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|c| Queued {
                    conflict_type: text(c, "conflict_type"),
                    old_node_id: text(c, "old_node_id"),
                })
                .collect(),
        })
        .collect())
}

/// The items a 422 names (`/nodes/{i}/field`), each with its reasons; `None` when the
/// refusal names no item (then the batch itself is at fault).
fn refused_items(problem: &Value) -> Option<Vec<(usize, String)>> {
    let mut by_item: std::collections::BTreeMap<usize, Vec<String>> = Default::default();
    for e in problem.get("errors")?.as_array()? {
        let pointer = e.get("pointer").and_then(Value::as_str).unwrap_or("");
        let detail = e.get("detail").and_then(Value::as_str).unwrap_or("invalid");
        let mut parts = pointer.trim_start_matches('/').splitn(3, '/');
        if parts.next() != Some("nodes") {
            return None;
        }
        let index: usize = parts.next()?.parse().ok()?;
        let field = parts.next().unwrap_or("");
        let reason = if field.is_empty() {
            detail.to_owned()
        } else {
            format!("{field}: {detail}")
        };
        by_item.entry(index).or_default().push(reason);
    }
    (!by_item.is_empty()).then(|| {
        by_item
            .into_iter()
            .map(|(i, r)| (i, r.join("; ")))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_is_read_per_item_and_one_naming_no_item_is_not() {
        let p = serde_json::json!({"errors": [
            {"pointer": "/nodes/3/embedding", "detail": "dimension 3, the store's is 4"},
            {"pointer": "/nodes/0/title", "detail": "is required"},
            {"pointer": "/nodes/3/labels/0", "detail": "too long"},
        ]});
        assert_eq!(
            refused_items(&p).unwrap(),
            vec![
                (0, "title: is required".into()),
                (
                    3,
                    "embedding: dimension 3, the store's is 4; labels/0: too long".into()
                )
            ]
        );
        let q = serde_json::json!({"errors": [{"pointer": "/nodes", "detail": "too many"}]});
        assert_eq!(refused_items(&q), None);
    }

    #[test]
    fn a_reply_gives_each_nodes_conflict_types_in_order() {
        let r = serde_json::json!({"nodes": [
            {"node": {"id": "a"}},
            {"node": {"id": "b"}, "conflicts": [{"conflict_type": "numeric-mismatch", "old_node_id": "a"}]},
        ], "edges": []});
        let got = outcomes(&r, 2).ok().unwrap();
        let queued = Queued {
            conflict_type: "numeric-mismatch".into(),
            old_node_id: "a".into(),
        };
        assert_eq!(
            got,
            vec![
                Written {
                    id: "a".into(),
                    conflicts: vec![]
                },
                Written {
                    id: "b".into(),
                    conflicts: vec![queued]
                }
            ]
        );
        assert!(outcomes(&r, 3).is_err());
    }
}
