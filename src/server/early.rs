//! Problem details for the requests hyper refuses before any middleware can run.
//!
//! hyper parses a request head itself and, when it cannot, writes a bare answer and closes the
//! connection: 400 for a head that is not HTTP/1.1 (a header value with a control character
//! such as DEL, a malformed request line), 414 for a request target over 65,534 bytes, 431 for
//! a head over [`MAX_HEAD_BYTES`] or with more than [`MAX_HEADERS`] fields. It offers no hook
//! for that answer, so the connection's writer recognises it (one of those statuses, an empty
//! body and no `x-content-type-options`, which every answer of the application carries) and
//! sends problem+json in its place, so that every refusal a client can get is one.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use hyper::rt::{Read, ReadBufCursor, Write};

use crate::api::error::ApiError;
pub use crate::config::{MAX_HEAD_BYTES, MAX_HEADERS};

/// A connection's I/O whose bare early refusals are rewritten as problem+json.
pub struct EarlyProblems<T> {
    inner: T,
    /// The replacement being written: its bytes, how many are written, and how many of
    /// hyper's bytes it stands for.
    pending: Option<(Vec<u8>, usize, usize)>,
}

impl<T> EarlyProblems<T> {
    pub fn new(inner: T) -> Self {
        Self {
            inner,
            pending: None,
        }
    }
}

/// The problem+json answer that replaces `head`, when `head` is one of hyper's own refusals.
fn replacement(head: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(head).ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    let status = match head.get(..13)? {
        "HTTP/1.1 400 " | "HTTP/1.0 400 " => 400,
        "HTTP/1.1 414 " | "HTTP/1.0 414 " => 414,
        "HTTP/1.1 431 " | "HTTP/1.0 431 " => 431,
        _ => return None,
    };
    let lower = head.to_ascii_lowercase();
    let ours = lower.contains("\r\nx-content-type-options:");
    let empty =
        lower.contains("\r\ncontent-length: 0\r\n") || lower.ends_with("\r\ncontent-length: 0");
    if ours || !empty || !body.is_empty() {
        return None;
    }
    let reason = head.get(13..)?.split("\r\n").next().unwrap_or("");
    Some(ApiError::RequestHead(status).raw_response(reason))
}

impl<T: Read + Unpin> Read for EarlyProblems<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: Write + Unpin> Write for EarlyProblems<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if this.pending.is_none()
            && let Some(bytes) = replacement(buf)
        {
            this.pending = Some((bytes, 0, buf.len()));
        }
        let Some((bytes, written, stands_for)) = &mut this.pending else {
            return Pin::new(&mut this.inner).poll_write(cx, buf);
        };
        while *written < bytes.len() {
            let n = ready!(Pin::new(&mut this.inner).poll_write(cx, &bytes[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        let stands_for = *stands_for;
        this.pending = None;
        Poll::Ready(Ok(stands_for))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    /// hyper then writes a response's head in one buffer, which is what is recognised.
    fn is_write_vectored(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::replacement;

    #[test]
    fn only_hypers_bare_refusals_are_replaced() {
        let bare = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n\
                     date: Fri, 27 Nov 2026 08:00:00 GMT\r\n\r\n";
        let out = String::from_utf8(replacement(bare).unwrap()).unwrap();
        assert!(out.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
        assert!(out.contains("content-type: application/problem+json\r\n"));
        assert!(out.contains("\"type\":\"/problems/headers-too-large\""));
        // The application's own answers carry nosniff, or a body, or another status.
        let ours = b"HTTP/1.1 400 Bad Request\r\nx-content-type-options: nosniff\r\n\
                     content-length: 0\r\n\r\n";
        assert!(replacement(ours).is_none());
        let with_body = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 2\r\n\r\n{}";
        assert!(replacement(with_body).is_none());
        let ok = b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n";
        assert!(replacement(ok).is_none());
        assert!(replacement(b"{\"HTTP/1.1 400 \"}").is_none());
    }
}
