//! A small keep-alive HTTP/1.1 client over `tokio::net::TcpStream`: one connection per
//! simulated client, requests in sequence, `Content-Length` or chunked bodies. It adds no
//! dependency and costs little CPU, which matters when the server shares two cores with it.

use std::time::Duration;

use anyhow::{Context, bail};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// A reply: status and body (headers are not kept).
pub struct Reply {
    pub status: u16,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn json(&self) -> anyhow::Result<serde_json::Value> {
        Ok(serde_json::from_slice(&self.body)?)
    }
}

/// One persistent connection to `addr` (`host:port`).
pub struct Client {
    addr: String,
    conn: Option<BufReader<TcpStream>>,
    /// Per-request limit: a stuck request counts as an error instead of hanging the run.
    pub timeout: Duration,
    /// Sent as `Authorization: Bearer <key>` when set.
    pub key: Option<String>,
}

impl Client {
    pub fn new(addr: &str) -> Self {
        Self {
            addr: addr.to_owned(),
            conn: None,
            timeout: Duration::from_secs(30),
            key: None,
        }
    }

    pub async fn get(&mut self, path: &str) -> anyhow::Result<Reply> {
        self.request("GET", path, None).await
    }

    pub async fn post(&mut self, path: &str, body: &serde_json::Value) -> anyhow::Result<Reply> {
        let bytes = serde_json::to_vec(body)?;
        self.request("POST", path, Some(&bytes)).await
    }

    /// Sends one request; a connection the server closed in between is reopened once.
    pub async fn request(
        &mut self,
        method: &str,
        path: &str,
        body: Option<&[u8]>,
    ) -> anyhow::Result<Reply> {
        let reused = self.conn.is_some();
        match self.try_request(method, path, body).await {
            Ok(r) => Ok(r),
            Err(_) if reused => {
                self.conn = None;
                self.try_request(method, path, body).await
            }
            Err(e) => Err(e),
        }
    }

    async fn try_request(
        &mut self,
        method: &str,
        path: &str,
        body: Option<&[u8]>,
    ) -> anyhow::Result<Reply> {
        let timeout = self.timeout;
        match tokio::time::timeout(timeout, self.exchange(method, path, body)).await {
            Ok(Ok(r)) => Ok(r),
            Ok(Err(e)) => {
                self.conn = None;
                Err(e)
            }
            Err(_) => {
                self.conn = None;
                bail!("{method} {path}: no reply within {timeout:?}")
            }
        }
    }

    async fn exchange(
        &mut self,
        method: &str,
        path: &str,
        body: Option<&[u8]>,
    ) -> anyhow::Result<Reply> {
        if self.conn.is_none() {
            let s = TcpStream::connect(&self.addr)
                .await
                .with_context(|| format!("connect {}", self.addr))?;
            s.set_nodelay(true)?;
            self.conn = Some(BufReader::with_capacity(64 * 1024, s));
        }
        let conn = self.conn.as_mut().expect("connected above");
        let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {}\r\n", self.addr);
        if let Some(k) = &self.key {
            head.push_str(&format!("Authorization: Bearer {k}\r\n"));
        }
        if let Some(b) = body {
            head.push_str("Content-Type: application/json\r\n");
            head.push_str(&format!("Content-Length: {}\r\n", b.len()));
        }
        head.push_str("\r\n");
        let mut out = head.into_bytes();
        if let Some(b) = body {
            out.extend_from_slice(b);
        }
        conn.get_mut().write_all(&out).await?;
        let (reply, close) = read_reply(conn).await?;
        if close {
            self.conn = None;
        }
        Ok(reply)
    }
}

/// Reads one response; the flag says whether the server will close the connection.
async fn read_reply(conn: &mut BufReader<TcpStream>) -> anyhow::Result<(Reply, bool)> {
    let mut line = String::new();
    if conn.read_line(&mut line).await? == 0 {
        bail!("connection closed before the status line");
    }
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .with_context(|| format!("bad status line {line:?}"))?;
    let mut length: Option<usize> = None;
    let mut chunked = false;
    let mut close = false;
    loop {
        line.clear();
        if conn.read_line(&mut line).await? == 0 {
            bail!("connection closed inside the headers");
        }
        let h = line.trim_end();
        if h.is_empty() {
            break;
        }
        let Some((name, value)) = h.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            length = Some(value.parse()?);
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = value.eq_ignore_ascii_case("chunked");
        } else if name.eq_ignore_ascii_case("connection") {
            close = value.eq_ignore_ascii_case("close");
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            line.clear();
            conn.read_line(&mut line).await?;
            let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .with_context(|| format!("bad chunk size {line:?}"))?;
            let start = body.len();
            body.resize(start + size + 2, 0);
            conn.read_exact(&mut body[start..]).await?;
            body.truncate(start + size);
            if size == 0 {
                break;
            }
        }
    } else if let Some(n) = length {
        body.resize(n, 0);
        conn.read_exact(&mut body).await?;
    } else if status != 204 && status != 304 && !(100..200).contains(&status) {
        conn.read_to_end(&mut body).await?;
        close = true;
    }
    Ok((Reply { status, body }, close))
}
