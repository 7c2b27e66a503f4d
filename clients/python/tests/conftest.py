"""A live concord for the tests: `concord serve` on a free loopback port with an admin key,
against the database named by CONCORD_TEST_DATABASE_URL (scripts/test-clients gives a fresh
SQLite file or PostgreSQL database; without it, a SQLite file in a temporary directory).

Every request the tests send goes through `Recorder`, which notes the OpenAPI operation it
exercised, so test_zz_operations.py can fail on any operation no test called.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from concord_client import Concord, Retry

REPO = Path(__file__).resolve().parents[3]
SPEC = json.loads((REPO / "openapi" / "openapi.json").read_text())
METHODS = ("get", "put", "post", "patch", "delete")


def spec_operations() -> set[tuple[str, str]]:
    return {
        (method.upper(), path)
        for path, item in SPEC["paths"].items()
        for method in item
        if method in METHODS
    }


def _template_pattern(path: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[^}]+\})", path)
    return re.compile("".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts) + "$")


# Literal paths first, so /conflicts/wake is not taken for /conflicts/{id}.
_TEMPLATES = sorted(
    ((path.count("{"), path, _template_pattern(path)) for path in SPEC["paths"]),
    key=lambda t: (t[0], t[1]),
)


def operation_of(method: str, path: str) -> tuple[str, str] | None:
    for _, template, pattern in _TEMPLATES:
        if pattern.match(path):
            return method, template
    return None


EXERCISED: set[tuple[str, str]] = set()


class Recorder(httpx.BaseTransport):
    """The real transport, noting each attempt (after the client set its headers). `before`
    may stand in for a request: it returns a response, raises, or returns None to send it."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.attempts: list[httpx.Request] = []
        self.statuses: list[tuple[str, int]] = []
        self.before: Callable[[httpx.Request], httpx.Response | None] | None = None

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.attempts.append(request)
        op = operation_of(request.method, request.url.path)
        if op is not None:
            EXERCISED.add(op)
        if self.before is not None:
            answer = self.before(request)
            if answer is not None:
                return answer
        response = self.inner.handle_request(request)
        self.statuses.append((request.url.path, response.status_code))
        return response

    def close(self) -> None:
        self.inner.close()


class AsyncRecorder(httpx.AsyncBaseTransport):
    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        op = operation_of(request.method, request.url.path)
        if op is not None:
            EXERCISED.add(op)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, binary: str, database_url: str, workdir: Path) -> None:
        self.binary = binary
        self.database_url = database_url
        self.workdir = workdir
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.admin_key = "admin-" + uuid.uuid4().hex
        self.proc: subprocess.Popen[bytes] | None = None
        self.lock = threading.Lock()

    def start(self) -> None:
        with self.lock:
            assert self.proc is None, "already running"
            log = open(self.workdir / "concord.log", "ab")  # noqa: SIM115 (the child owns it)
            self.proc = subprocess.Popen(
                [
                    self.binary,
                    "serve",
                    "--database-url",
                    self.database_url,
                    "--bind",
                    f"127.0.0.1:{self.port}",
                    "--api-keys",
                    self.admin_key,
                ],
                cwd=self.workdir,
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ, "CONCORD_LOG": os.environ.get("CONCORD_LOG", "warn")},
            )
            log.close()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"concord exited with {self.proc.returncode}: {self.log_tail()}")
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError("concord did not come up within 60 s: " + self.log_tail())

    def stop(self) -> None:
        with self.lock:
            if self.proc is None:
                return
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None

    def log_tail(self) -> str:
        path = self.workdir / "concord.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    binary = os.environ.get("CONCORD_BIN", str(REPO / "target" / "debug" / "concord"))
    with tempfile.TemporaryDirectory(prefix="concord-client-tests-") as tmp:
        url = os.environ.get("CONCORD_TEST_DATABASE_URL") or f"sqlite://{tmp}/concord.db"
        srv = Server(binary, url, Path(tmp))
        srv.start()
        try:
            yield srv
        finally:
            srv.stop()


# Tests fail fast rather than wait out a server that is gone; the restart tests ask for more.
FAST_RETRY = Retry(attempts=3, backoff=0.05, max_backoff=0.5)


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def concord(server: Server, recorder: Recorder) -> Iterator[Concord]:
    with Concord(server.url, server.admin_key, retry=FAST_RETRY, transport=recorder) as c:
        yield c


@pytest.fixture
def scope() -> str:
    """A scope of the test's own: detection, queues and wake-ups stay inside a scope, so tests
    sharing the server do not see each other's conflicts."""
    return "t-" + uuid.uuid4().hex[:12]
