"""Idempotency keys and retries, as httpx transports, so every request takes the same path:
the hand-written methods, the generated operations and raw `httpx` calls through the client.

A key is set once per call, before the first attempt, and each retry sends the same request
object again, so the server executes the call once however many attempts reach it (concord
stores the first answer for a key and replays it).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid
from dataclasses import dataclass

import httpx

from .errors import IN_FLIGHT, RETRY_STATUSES, retry_after_seconds

UNSAFE_METHODS = frozenset({"POST", "PATCH", "DELETE", "PUT"})
# Failures of the connection, not of the request: a malformed URL or header fails alike on
# every attempt, so it is raised at once.
CONNECTION_ERRORS = (httpx.NetworkError, httpx.TimeoutException, httpx.RemoteProtocolError)
IDEMPOTENCY_KEY = "Idempotency-Key"


@dataclass(frozen=True)
class Retry:
    """How long to keep trying. Retries happen on 429, 503, 507, a 409
    `/problems/idempotency-in-flight` (the first attempt is still running) and on connection
    errors; the wait doubles from `backoff` up to `max_backoff`, with jitter, and is never
    shorter than the server's `Retry-After`. A `Retry-After` above `max_retry_after` ends the
    retries at once: the error is raised rather than blocking the caller that long."""

    attempts: int = 5
    backoff: float = 0.25
    max_backoff: float = 8.0
    max_retry_after: float = 60.0

    def delay(self, attempt: int, retry_after: float | None) -> float | None:
        """Seconds to wait before retry number `attempt` (0-based), or None to give up."""
        if attempt >= self.attempts:
            return None
        wait = min(self.max_backoff, self.backoff * 2.0**attempt) * random.uniform(0.5, 1.0)
        if retry_after is not None:
            if retry_after > self.max_retry_after:
                return None
            wait = max(wait, retry_after)
        return wait

    def reconnect_delay(self, failures: int, retry_after: float | None) -> float:
        """Seconds before a long poll or event stream reconnects; these never give up."""
        wait = min(self.max_backoff, self.backoff * 2.0**failures) * random.uniform(0.5, 1.0)
        return max(wait, min(retry_after or 0.0, self.max_retry_after))


DEFAULT_RETRY = Retry()
NO_RETRY = Retry(attempts=0)


def prepare(request: httpx.Request) -> None:
    if request.method in UNSAFE_METHODS and IDEMPOTENCY_KEY not in request.headers:
        request.headers[IDEMPOTENCY_KEY] = str(uuid.uuid4())


def _may_retry(status: int) -> bool:
    return status in RETRY_STATUSES or status == 409


def _wants_retry(response: httpx.Response) -> bool:
    if response.status_code in RETRY_STATUSES:
        return True
    if response.status_code != 409:
        return False
    try:
        return bool(json.loads(response.content).get("type") == IN_FLIGHT)
    except (ValueError, AttributeError):
        return False


class RetryTransport(httpx.BaseTransport):
    def __init__(self, inner: httpx.BaseTransport, retry: Retry) -> None:
        self._inner = inner
        self._retry = retry

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        prepare(request)
        attempt = 0
        while True:
            try:
                response = self._inner.handle_request(request)
            except CONNECTION_ERRORS:
                delay = self._retry.delay(attempt, None)
                if delay is None:
                    raise
            else:
                if not _may_retry(response.status_code):
                    return response
                response.read()
                delay = self._retry.delay(attempt, retry_after_seconds(response))
                if delay is None or not _wants_retry(response):
                    return response
                response.close()
            time.sleep(delay)
            attempt += 1

    def close(self) -> None:
        self._inner.close()


class AsyncRetryTransport(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport, retry: Retry) -> None:
        self._inner = inner
        self._retry = retry

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        prepare(request)
        attempt = 0
        while True:
            try:
                response = await self._inner.handle_async_request(request)
            except CONNECTION_ERRORS:
                delay = self._retry.delay(attempt, None)
                if delay is None:
                    raise
            else:
                if not _may_retry(response.status_code):
                    return response
                await response.aread()
                delay = self._retry.delay(attempt, retry_after_seconds(response))
                if delay is None or not _wants_retry(response):
                    return response
                await response.aclose()
            await asyncio.sleep(delay)
            attempt += 1

    async def aclose(self) -> None:
        await self._inner.aclose()
