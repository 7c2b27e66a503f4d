"""Fixtures for the review console's browser tests: a concord server (a second one with API keys,
a third with the example resolution policies) on the databases run.sh names, an HTTP client to seed and check data through the API, and
Playwright pages driving the system Chromium that record every request they make."""

import json
import os
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect, sync_playwright

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
API_KEY = "browser-test-key"
# The README's "Trust and quarantine" example: weak or untrusted claims wait in quarantine.
QUARANTINE_POLICIES = Path(__file__).resolve().parents[2] / "examples/policies/trust-and-quarantine.toml"

expect.set_options(timeout=10_000)


class Reply:
    def __init__(self, status, headers, text):
        self.status = status
        self.headers = headers
        self.text = text

    @property
    def json(self):
        return json.loads(self.text) if self.text else None


class Api:
    """A small JSON client for seeding and checking concord through its HTTP API."""

    def __init__(self, base, key=None):
        self.base = base
        self.key = key

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if self.key:
            req.add_header("Authorization", f"Bearer {self.key}")
        try:
            with urllib.request.urlopen(req, timeout=30) as res:
                return Reply(res.status, res.headers, res.read().decode())
        except urllib.error.HTTPError as e:
            return Reply(e.code, e.headers, e.read().decode())

    def ok(self, method, path, body=None):
        r = self.call(method, path, body)
        assert 200 <= r.status < 300, f"{method} {path} -> {r.status}: {r.text}"
        return r.json

    def get(self, path):
        return self.ok("GET", path)

    def post(self, path, body):
        return self.ok("POST", path, body)

    def node(self, title, body, labels, **extra):
        return self.post("/nodes", {"title": title, "body": body, "labels": labels, **extra})

    def conflict(self, label, old_body, new_body, title=None, **extra):
        """Two nodes that contradict each other; returns the pending conflict. Each pair gets a
        scope of its own, so detection never pairs it with another test's nodes."""
        title = title or f"Setting {uuid.uuid4().hex[:6]}"
        extra.setdefault("scope", f"s{uuid.uuid4().hex[:12]}")
        old = self.node(title, old_body, [label], **extra)
        new = self.node(title, new_body, [label], **extra)
        hits = new.get("conflicts")
        assert hits, f"no conflict detected between {old_body!r} and {new_body!r}"
        return self.get(f"/conflicts/{hits[0]['conflict_id']}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, database_url, keys=None, policies=None):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        args = [os.environ["CONCORD_BIN"], "serve", "--bind", f"127.0.0.1:{self.port}",
                "--database-url", database_url]
        if keys:
            args += ["--api-keys", keys]
        if policies:
            args += ["--policies", str(policies)]
        self.log = tempfile.NamedTemporaryFile(prefix="concord-browser-", suffix=".log", delete=False)
        env = dict(os.environ, CONCORD_LOG="warn")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"concord exited early; log in {self.log.name}")
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"concord did not start; log in {self.log.name}")
                time.sleep(0.1)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture(scope="session")
def server():
    s = Server(os.environ["CONCORD_DATABASE_URL"])
    yield s
    s.stop()


@pytest.fixture(scope="session")
def keyed_server():
    s = Server(os.environ["CONCORD_DATABASE_URL_KEYED"], keys=API_KEY)
    yield s
    s.stop()


@pytest.fixture(scope="session")
def policy_server():
    """A server that applies examples/policies/trust-and-quarantine.toml to what is written."""
    s = Server(os.environ["CONCORD_DATABASE_URL_POLICIES"], policies=QUARANTINE_POLICIES)
    yield s
    s.stop()


@pytest.fixture(scope="session")
def api(server):
    return Api(server.base)


@pytest.fixture(scope="session")
def policy_api(policy_server):
    return Api(policy_server.base)


@pytest.fixture
def label():
    """A label of this test's own, so it sees only its own conflicts."""
    return f"t{uuid.uuid4().hex[:10]}"


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


class Recorded:
    """A page plus everything it asked for and every script error it raised."""

    def __init__(self, page, base):
        self.page = page
        self.base = base
        self.requests = []
        self.errors = []
        page.on("request", lambda r: self.requests.append(r.url))
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def foreign_requests(self):
        own = urlsplit(self.base).netloc
        return [u for u in self.requests if urlsplit(u).netloc != own]


def open_page(browser, base, width=1280, height=900, reviewer="Test Reviewer"):
    ctx = browser.new_context(viewport={"width": width, "height": height})
    if reviewer:
        ctx.add_init_script(
            "if (!localStorage.getItem('concord.reviewer')) "
            f"localStorage.setItem('concord.reviewer', {json.dumps(reviewer)});"
        )
    return ctx, Recorded(ctx.new_page(), base)


def check_and_close(ctx, rec):
    try:
        assert rec.foreign_requests() == [], "the page asked another host"
        assert rec.errors == [], "script errors on the page"
    finally:
        ctx.close()


@pytest.fixture
def page(browser, server):
    """A desktop-width page on the key-less server, reviewer name already chosen."""
    ctx, rec = open_page(browser, server.base)
    yield rec.page
    check_and_close(ctx, rec)


@pytest.fixture
def recorded(browser, server):
    """Like `page`, with no reviewer name yet, and the request log exposed."""
    ctx, rec = open_page(browser, server.base, reviewer=None)
    yield rec
    check_and_close(ctx, rec)


@pytest.fixture
def make_page(browser, server):
    """Opens further pages (other widths, the keyed server)."""
    opened = []

    def make(base=None, **kw):
        ctx, rec = open_page(browser, base or server.base, **kw)
        opened.append((ctx, rec))
        return rec

    yield make
    for ctx, rec in opened:
        check_and_close(ctx, rec)
