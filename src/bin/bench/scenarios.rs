//! The HTTP scenarios. Every simulated client is one task with one keep-alive connection; a
//! shared counter hands out request numbers, so `requests` is the total over all clients.
//! Only the request itself is timed (bodies are generated before the clock starts).

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::http::Client;
use crate::stats::{Samples, Summary};
use crate::text;

/// Runs `f(client_index, client)` on `clients` tasks, each with its own warmed-up connection,
/// and returns the merged samples and the wall time of the whole run.
pub async fn drive<F, Fut>(addr: &str, clients: usize, f: F) -> (Samples, Duration)
where
    F: Fn(usize, Client) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = Samples> + Send + 'static,
{
    let mut conns = Vec::new();
    for _ in 0..clients {
        let mut c = Client::new(addr);
        let _ = c.get("/healthz").await;
        conns.push(c);
    }
    let started = Instant::now();
    let tasks: Vec<_> = conns
        .into_iter()
        .enumerate()
        .map(|(i, c)| tokio::spawn(f.clone()(i, c)))
        .collect();
    let mut all = Samples::default();
    for t in tasks {
        if let Ok(s) = t.await {
            all.merge(s);
        }
    }
    (all, started.elapsed())
}

fn status_error(s: &mut Samples, status: u16) {
    s.error(format!("status {status}"));
}

/// `POST /nodes` with detection. Returns the summary and how many conflicts were detected.
pub async fn write(
    addr: &str,
    clients: usize,
    requests: u64,
    nodes: u64,
    seed: u64,
    contradict_pct: u64,
) -> (Summary, u64) {
    let next = Arc::new(AtomicU64::new(0));
    let detected = Arc::new(AtomicU64::new(0));
    let d = detected.clone();
    let (samples, elapsed) = drive(addr, clients, move |_, mut c| {
        let (next, detected) = (next.clone(), d.clone());
        async move {
            let mut s = Samples::default();
            loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                if n >= requests {
                    return s;
                }
                let body = serde_json::to_vec(&text::write_body(seed, nodes, n, contradict_pct))
                    .expect("json");
                let t = Instant::now();
                match c.request("POST", "/nodes", Some(&body)).await {
                    Ok(r) if matches!(r.status, 200 | 201) => {
                        s.ok(t.elapsed());
                        detected.fetch_add(hits(&r.body).len() as u64, Ordering::Relaxed);
                    }
                    Ok(r) => status_error(&mut s, r.status),
                    Err(_) => s.error("transport"),
                }
            }
        }
    })
    .await;
    (
        samples.summary("write POST /nodes", elapsed),
        detected.load(Ordering::Relaxed),
    )
}

/// Conflict ids of a write reply's `conflicts` (absent when none).
fn hits(body: &[u8]) -> Vec<String> {
    let Ok(v) = serde_json::from_slice::<Value>(body) else {
        return Vec::new();
    };
    v.get("conflicts")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|h| h.get("conflict_id")?.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Every pending conflict id, oldest first (untimed setup of `resolve`).
pub async fn pending_ids(addr: &str) -> anyhow::Result<Vec<String>> {
    let mut c = Client::new(addr);
    let mut ids = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(k) => format!("/conflicts?limit=200&max_chars=100&cursor={k}"),
            None => "/conflicts?limit=200&max_chars=100".to_owned(),
        };
        let r = c.get(&path).await?;
        anyhow::ensure!(r.status == 200, "GET /conflicts answered {}", r.status);
        let v = r.json()?;
        for item in v["items"].as_array().into_iter().flatten() {
            if let Some(id) = item["id"].as_str() {
                ids.push(id.to_owned());
            }
        }
        match v["next_cursor"].as_str() {
            Some(k) => cursor = Some(k.to_owned()),
            None => return Ok(ids),
        }
    }
}

/// `POST /conflicts/{id}/resolve` with one strategy over pre-queued conflicts.
pub async fn resolve(addr: &str, clients: usize, ids: Vec<String>, strategy: &str) -> Summary {
    let ids = Arc::new(ids);
    let next = Arc::new(AtomicU64::new(0));
    let body =
        serde_json::to_vec(&json!({"resolution": strategy, "resolved_by": "bench"})).expect("json");
    let (samples, elapsed) = drive(addr, clients, move |_, mut c| {
        let (ids, next, body) = (ids.clone(), next.clone(), body.clone());
        async move {
            let mut s = Samples::default();
            loop {
                let n = next.fetch_add(1, Ordering::Relaxed) as usize;
                let Some(id) = ids.get(n) else { return s };
                let path = format!("/conflicts/{id}/resolve");
                let t = Instant::now();
                match c.request("POST", &path, Some(&body)).await {
                    Ok(r) if r.status == 200 => s.ok(t.elapsed()),
                    Ok(r) => status_error(&mut s, r.status),
                    Err(_) => s.error("transport"),
                }
            }
        }
    })
    .await;
    samples.summary(&format!("resolve {strategy}"), elapsed)
}

/// `requests` of `GET uri`, reported as `name`.
pub async fn get(addr: &str, clients: usize, requests: u64, name: &str, uri: &str) -> Summary {
    let next = Arc::new(AtomicU64::new(0));
    let uri = Arc::new(uri.to_owned());
    let (samples, elapsed) = drive(addr, clients, move |_, mut c| {
        let (next, uri) = (next.clone(), uri.clone());
        async move {
            let mut s = Samples::default();
            while next.fetch_add(1, Ordering::Relaxed) < requests {
                let t = Instant::now();
                match c.get(&uri).await {
                    Ok(r) if r.status == 200 => s.ok(t.elapsed()),
                    Ok(r) => status_error(&mut s, r.status),
                    Err(_) => s.error("transport"),
                }
            }
            s
        }
    })
    .await;
    samples.summary(name, elapsed)
}

/// `GET /conflicts?limit=50`; also returns the mean reply size in bytes.
pub async fn list(addr: &str, clients: usize, requests: u64) -> (Summary, f64) {
    let next = Arc::new(AtomicU64::new(0));
    let bytes = Arc::new(AtomicU64::new(0));
    let b = bytes.clone();
    let (samples, elapsed) = drive(addr, clients, move |_, mut c| {
        let (next, bytes) = (next.clone(), b.clone());
        async move {
            let mut s = Samples::default();
            while next.fetch_add(1, Ordering::Relaxed) < requests {
                let t = Instant::now();
                match c.get("/conflicts?limit=50").await {
                    Ok(r) if r.status == 200 => {
                        s.ok(t.elapsed());
                        bytes.fetch_add(r.body.len() as u64, Ordering::Relaxed);
                    }
                    Ok(r) => status_error(&mut s, r.status),
                    Err(_) => s.error("transport"),
                }
            }
            s
        }
    })
    .await;
    let mean = bytes.load(Ordering::Relaxed) as f64 / samples.micros.len().max(1) as f64;
    (
        samples.summary("list GET /conflicts?limit=50", elapsed),
        mean,
    )
}

/// The mixed load: `agents` clients write (with detection) and resolve what their writes
/// detected, while `reviewers` clients list pending conflicts, for `duration`.
pub async fn mixed(
    addr: &str,
    agents: usize,
    reviewers: usize,
    duration: Duration,
    nodes: u64,
    seed: u64,
) -> Vec<Summary> {
    let stop = Arc::new(AtomicBool::new(false));
    let next = Arc::new(AtomicU64::new(0));
    let results: Arc<Mutex<[Samples; 3]>> = Arc::default();
    let (st, r) = (stop.clone(), results.clone());
    let timer = tokio::spawn(async move {
        tokio::time::sleep(duration).await;
        st.store(true, Ordering::Relaxed);
    });
    let (_, elapsed) = drive(addr, agents + reviewers, move |i, mut c| {
        let (stop, next, results) = (stop.clone(), next.clone(), r.clone());
        async move {
            let mut local: [Samples; 3] = Default::default();
            let strategies = ["new_is_current", "keep_both", "old_is_current"];
            while !stop.load(Ordering::Relaxed) {
                if i >= agents {
                    let t = Instant::now();
                    match c.get("/conflicts?limit=50").await {
                        Ok(r) if r.status == 200 => local[2].ok(t.elapsed()),
                        Ok(r) => status_error(&mut local[2], r.status),
                        Err(_) => local[2].error("transport"),
                    }
                    continue;
                }
                let n = next.fetch_add(1, Ordering::Relaxed);
                let body = serde_json::to_vec(&text::write_body(seed, nodes, n, 30)).expect("json");
                let t = Instant::now();
                let found = match c.request("POST", "/nodes", Some(&body)).await {
                    Ok(r) if matches!(r.status, 200 | 201) => {
                        local[0].ok(t.elapsed());
                        hits(&r.body)
                    }
                    Ok(r) => {
                        status_error(&mut local[0], r.status);
                        continue;
                    }
                    Err(_) => {
                        local[0].error("transport");
                        continue;
                    }
                };
                if let Some(id) = found.first() {
                    let s = strategies[(n % 3) as usize];
                    let body = json!({"resolution": s, "resolved_by": "bench-agent"});
                    let t = Instant::now();
                    match c.post(&format!("/conflicts/{id}/resolve"), &body).await {
                        Ok(r) if r.status == 200 => local[1].ok(t.elapsed()),
                        Ok(r) => status_error(&mut local[1], r.status),
                        Err(_) => local[1].error("transport"),
                    }
                }
            }
            let mut all = results.lock().expect("lock");
            for (acc, l) in all.iter_mut().zip(local) {
                acc.merge(l);
            }
            Samples::default()
        }
    })
    .await;
    let _ = timer.await;
    let all = results.lock().expect("lock");
    vec![
        all[0].summary("mixed write POST /nodes", elapsed),
        all[1].summary("mixed resolve", elapsed),
        all[2].summary("mixed list GET /conflicts", elapsed),
    ]
}

/// Outcome of the wake scenario: measured, or skipped because the server lacks the endpoint.
pub enum Wake {
    Measured(Summary),
    Skipped(String),
}

/// Time from `POST /conflicts` (queueing) to the reply of `pollers` clients waiting on
/// `GET /conflicts/wake`, over `rounds` rounds (contract section 8).
pub async fn wake(
    addr: &str,
    queue_addr: Option<&str>,
    pollers: usize,
    rounds: u64,
) -> anyhow::Result<Wake> {
    let mut c = Client::new(addr);
    let probe = c.get("/conflicts/wake?wait=0").await?;
    if probe.status == 404 {
        return Ok(Wake::Skipped(
            "GET /conflicts/wake answered 404: this server has no wake endpoint yet".into(),
        ));
    }
    anyhow::ensure!(
        probe.status == 204 || probe.status == 200,
        "GET /conflicts/wake?wait=0 answered {}",
        probe.status
    );
    // The newest cursor (walking past every pending conflict), so that only conflicts
    // queued from now on wake the pollers.
    let mut start_cursor = None;
    let mut reply = probe;
    while reply.status == 200 {
        start_cursor = reply.json()?["cursor"].as_str().map(str::to_owned);
        let after = start_cursor.clone().unwrap_or_default();
        reply = c
            .get(&format!("/conflicts/wake?wait=0&max=20&after={after}"))
            .await?;
    }
    let r = c
        .post(
            "/nodes?detect=false",
            &json!({"title": "wake target", "body": "the wake scenario queues conflicts here"}),
        )
        .await?;
    anyhow::ensure!(r.status == 201, "POST /nodes answered {}", r.status);
    let old_id = r.json()?["node"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();

    // The node lives in the shared database, so another instance can queue against it.
    let mut queuer = queue_addr.map(Client::new);
    let queued_at: Arc<Mutex<Option<Instant>>> = Arc::default();
    let mut samples = Samples::default();
    let mut pollers_c: Vec<(Client, Option<String>)> = (0..pollers)
        .map(|_| (Client::new(addr), start_cursor.clone()))
        .collect();
    let started = Instant::now();
    for round in 0..rounds {
        *queued_at.lock().expect("lock") = None;
        let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel::<()>(pollers);
        let mut tasks = Vec::new();
        for (mut pc, cursor) in pollers_c.drain(..) {
            let (qa, ready) = (queued_at.clone(), ready_tx.clone());
            tasks.push(tokio::spawn(async move {
                let path = match &cursor {
                    Some(k) => format!("/conflicts/wake?after={k}&wait=30&max=1"),
                    None => "/conflicts/wake?wait=30&max=1".to_owned(),
                };
                let fut = pc.get(&path);
                let _ = ready.send(()).await;
                let reply = fut.await;
                let at = *qa.lock().expect("lock");
                let latency = at.map(|t| t.elapsed());
                let next = reply
                    .as_ref()
                    .ok()
                    .filter(|r| r.status == 200)
                    .and_then(|r| r.json().ok())
                    .and_then(|v| v["cursor"].as_str().map(str::to_owned))
                    .or(cursor);
                (pc, next, reply.map(|r| r.status), latency)
            }));
        }
        for _ in 0..pollers {
            ready_rx.recv().await;
        }
        // Let the server register every waiter before the conflict is queued.
        tokio::time::sleep(Duration::from_millis(30)).await;
        *queued_at.lock().expect("lock") = Some(Instant::now());
        let c = match &mut queuer {
            Some(q) => q,
            None => &mut c,
        };
        let body = json!({"old_node_id": old_id, "new_content": format!("wake round {round}: the setting changed")});
        match c.post("/conflicts", &body).await {
            Ok(r) if r.status == 201 => {}
            Ok(r) => status_error(&mut samples, r.status),
            Err(_) => samples.error("transport"),
        }
        for t in tasks {
            let (pc, next, status, latency) = t.await?;
            match (status, latency) {
                (Ok(200), Some(l)) => samples.ok(l),
                (Ok(204), _) => samples.error("no wake within 30 s"),
                (Ok(s), _) => status_error(&mut samples, s),
                (Err(_), _) => samples.error("transport"),
            }
            pollers_c.push((pc, next));
        }
    }
    Ok(Wake::Measured(
        samples.summary("wake queue→poller reply", started.elapsed()),
    ))
}
