"""Retries: the same Idempotency-Key on every attempt, back-off that honours Retry-After, and
a write retried across a server restart that executes once."""

from __future__ import annotations

import threading
from collections.abc import Callable

import httpx
import pytest
from conftest import Recorder, Server

from concord_client import NO_RETRY, Concord, Retry
from concord_client.errors import AlreadyResolved, StorageFull, Unavailable

PROBLEM = {"content-type": "application/problem+json"}


def problem(status: int, code: str, retry_after: str | None = None) -> httpx.Response:
    headers = dict(PROBLEM, **({"retry-after": retry_after} if retry_after else {}))
    body = {
        "type": f"/problems/{code}",
        "title": code,
        "status": status,
        "detail": code,
        "request_id": "r",
    }
    return httpx.Response(status, json=body, headers=headers)


NODE_ID = "01a21e3e-c0f5-7126-bc1f-59da2fea6515"
ME = {"name": "k", "role": "admin", "scopes": ["*"], "permissions": ["read"]}


def scripted(
    answers: list[httpx.Response | Exception], seen: list[httpx.Request]
) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    return httpx.MockTransport(handler)


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    waited: list[float] = []
    monkeypatch.setattr("concord_client.transport.time.sleep", waited.append)
    return waited


def client(
    answers: list[httpx.Response | Exception], seen: list[httpx.Request], retry: Retry = NO_RETRY
) -> Concord:
    return Concord("http://concord.test", "k", retry=retry, transport=scripted(answers, seen))


def test_retries_keep_one_key_and_honour_retry_after(sleeps: list[float]) -> None:
    seen: list[httpx.Request] = []
    answers: list[httpx.Response | Exception] = [
        httpx.ConnectError("refused"),
        problem(503, "unavailable", retry_after="2"),
        problem(429, "too-many-failed-keys", retry_after="1"),
        problem(409, "idempotency-in-flight", retry_after="1"),
        problem(507, "storage-full", retry_after="3"),
        httpx.Response(201, json={"ok": True}),
    ]
    with client(answers, seen, Retry(attempts=5, backoff=0.01)) as c:
        written = c.http.post("/nodes", json={"title": "t"})
    assert written.status_code == 201
    keys = {r.headers["idempotency-key"] for r in seen}
    assert len(seen) == 6 and len(keys) == 1
    assert seen[0].headers["authorization"] == "Bearer k"
    assert sleeps[0] < 0.02 and sleeps[1:] == [2.0, 1.0, 1.0, 3.0]


def test_each_call_has_its_own_key_and_reads_have_none(sleeps: list[float]) -> None:
    seen: list[httpx.Request] = []
    answers: list[httpx.Response | Exception] = [
        httpx.Response(201, json={}),
        httpx.Response(201, json={}),
        httpx.Response(200, json=ME),
        httpx.Response(204),
    ]
    with client(answers, seen) as c:
        c.http.post("/nodes", json={"title": "t"})
        c.http.post("/nodes", json={"title": "t"})
        assert c.me().role == "admin"
        c.forget(NODE_ID)
    assert seen[0].headers["idempotency-key"] != seen[1].headers["idempotency-key"]
    assert "idempotency-key" not in seen[2].headers
    assert "idempotency-key" in seen[3].headers  # DELETE
    assert sleeps == []


def test_giving_up_raises_the_typed_error(sleeps: list[float]) -> None:
    seen: list[httpx.Request] = []
    with client([problem(503, "unavailable")] * 3, seen, Retry(attempts=2, backoff=0.01)) as c:
        with pytest.raises(Unavailable) as e:
            c.node(NODE_ID)
    assert len(seen) == 3 and e.value.retryable
    # A Retry-After longer than the client will wait ends the retries at once.
    seen.clear()
    with client(
        [problem(507, "storage-full", retry_after="30")], seen, Retry(max_retry_after=5)
    ) as c:
        with pytest.raises(StorageFull) as full:
            c.remember("t")
    assert len(seen) == 1 and full.value.retry_after == 30.0
    seen.clear()
    with client([httpx.ConnectError("refused")], seen, NO_RETRY) as c:
        with pytest.raises(httpx.ConnectError):
            c.node(NODE_ID)
    # Other 409s are answers, not reasons to wait.
    seen.clear()
    with client([problem(409, "already-resolved")], seen, Retry(backoff=0.01)) as c:
        with pytest.raises(AlreadyResolved):
            c.resolve(NODE_ID, "keep_both")
    assert len(seen) == 1


def restart_during(server: Server, recorder: Recorder, deliver_first: bool) -> Callable[[], None]:
    """On the first POST /nodes: deliver it (or not) and lose the reply, then take the server
    down and bring it back a second later, while the client keeps retrying."""
    restarted = threading.Thread(target=lambda: (threading.Event().wait(1.0), server.start()))

    def before(request: httpx.Request) -> httpx.Response | None:
        if request.method != "POST" or request.url.path != "/nodes" or restarted.ident:
            return None
        if deliver_first:
            reply = recorder.inner.handle_request(request)
            reply.read()
            assert reply.status_code == 201, reply.text
        server.stop()
        restarted.start()
        raise httpx.ReadError("the connection dropped before the reply arrived")

    recorder.before = before
    return restarted.join


@pytest.mark.parametrize("deliver_first", [True, False], ids=["reply-lost", "never-arrived"])
def test_write_retried_across_a_restart_executes_once(
    server: Server, scope: str, deliver_first: bool
) -> None:
    recorder = Recorder()
    wait_restart = restart_during(server, recorder, deliver_first)
    patient = Retry(attempts=60, backoff=0.05, max_backoff=0.5)
    with Concord(server.url, server.admin_key, retry=patient, transport=recorder) as c:
        written = c.remember("Restart proof", "written exactly once", scope=scope)
        wait_restart()
        posts = [r for r in recorder.attempts if r.method == "POST"]
        assert len(posts) >= 3, "the call did not retry while the server was down"
        assert len({r.headers["idempotency-key"] for r in posts}) == 1
        stored = list(c.nodes(scope=scope))
        assert [n.id for n in stored] == [written.node.id]
