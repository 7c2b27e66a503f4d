"""Every problem type a client can provoke comes back as its own exception class, with the
problem's members."""

from __future__ import annotations

import threading
import uuid

import pytest
from conftest import FAST_RETRY, Recorder, Server
from support import contradiction

from concord_client import NO_RETRY, Concord, Retry
from concord_client._generated.api.keys import create_key
from concord_client.errors import (
    AlreadyResolved,
    ConcordError,
    ConflictStale,
    ForeignOrigin,
    HeadersTooLarge,
    IdempotencyInFlight,
    IdempotencyKeyReuse,
    MalformedJson,
    MethodNotAllowed,
    NotFound,
    NotResolved,
    PayloadTooLarge,
    RevertConflict,
    RoleForbidden,
    ScopeForbidden,
    TooManyFailedKeys,
    Unauthorized,
    UnsupportedMediaType,
    UriTooLong,
    ValidationError,
)
from concord_client.models import CreateKeyRequest, NodeStateDto, PatchNodeRequest


def key_for(concord: Concord, role: str, scope: str) -> str:
    request = CreateKeyRequest(name=f"{role}-{uuid.uuid4().hex[:8]}", role=role, scopes=[scope])
    return concord.ok(create_key.sync_detailed(client=concord.raw, body=request)).key


def test_validation(concord: Concord) -> None:
    with pytest.raises(ValidationError) as e:
        concord.remember("   ", confidence=2.0)
    problem = e.value
    assert problem.status == 422 and problem.type == "/problems/validation"
    assert {err["pointer"] for err in problem.errors} >= {"/title", "/confidence"}
    assert problem.title and problem.detail and problem.request_id


def test_http_level_problems(concord: Concord) -> None:
    http = concord.http
    with pytest.raises(MalformedJson) as e:
        http.post("/nodes", content=b"{", headers={"content-type": "application/json"})
    assert e.value.status == 400
    with pytest.raises(UnsupportedMediaType):
        http.post("/nodes", content=b"title", headers={"content-type": "text/plain"})
    with pytest.raises(MethodNotAllowed):
        http.put("/nodes", json={})
    with pytest.raises(NotFound) as missing:
        concord.node(uuid.uuid4())
    assert missing.value.request_id
    with pytest.raises(NotFound):
        http.get("/conflicts/not-a-uuid")  # a malformed id is 404 too
    with pytest.raises(PayloadTooLarge):
        concord.remember("big", "x" * (3 * 1024 * 1024))
    with pytest.raises(UriTooLong):
        http.get("/nodes/" + "n" * 40_000, params={"q": "q" * 40_000})
    with pytest.raises(HeadersTooLarge):
        http.get("/me", headers={f"x-filler-{i}": "1" for i in range(120)})
    with pytest.raises(ForeignOrigin):
        http.post(
            "/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={
                "origin": "https://elsewhere.example",
                "accept": "application/json, text/event-stream",
            },
        )


def test_roles_and_scopes(concord: Concord, server: Server, scope: str) -> None:
    with Concord(server.url, key_for(concord, "reader", scope), retry=FAST_RETRY) as reader:
        with pytest.raises(RoleForbidden) as e:
            reader.remember("x", "y", scope=scope)
        assert e.value.status == 403
    with Concord(server.url, key_for(concord, "agent", scope), retry=FAST_RETRY) as agent:
        agent.remember("mine", "in my scope", scope=scope)
        with pytest.raises(ScopeForbidden) as e:
            agent.remember("theirs", "in another scope", scope=scope + "-other")
        assert scope in e.value.detail
        # An id of a scope the key lacks is a plain 404.
        elsewhere = concord.remember("hidden", "not for the agent", scope=scope + "-other")
        with pytest.raises(NotFound):
            agent.node(elsewhere.node.id)


def test_resolution_problems(concord: Concord, scope: str) -> None:
    pair = contradiction(concord, scope)
    with pytest.raises(NotResolved):
        concord.revert(pair.conflict_id)
    concord.resolve(pair.conflict_id, "new_is_current")
    with pytest.raises(AlreadyResolved) as e:
        concord.resolve(pair.conflict_id, "old_is_current")
    assert e.value.body["current"]["resolution"] == "new_is_current"

    # Editing a node the resolution changed puts that change in the revert's way.
    concord.update_node(pair.old_id, PatchNodeRequest(body="edited after the decision"))
    with pytest.raises(RevertConflict) as blocked:
        concord.revert(pair.conflict_id)
    assert blocked.value.body["changes"]

    stale = contradiction(concord, scope)
    concord.update_node(stale.old_id, PatchNodeRequest(state=NodeStateDto.DORMANT))
    with pytest.raises(ConflictStale) as e2:
        concord.resolve(stale.conflict_id, "old_is_current")
    assert e2.value.body["node_id"] == str(stale.old_id)
    assert concord.conflict(stale.conflict_id).status == "pending"


def test_idempotency_key_reuse(concord: Concord, scope: str) -> None:
    key = {"Idempotency-Key": str(uuid.uuid4())}
    first = concord.http.post(
        "/nodes", json={"title": "a", "body": "one", "scope": scope}, headers=key
    )
    replay = concord.http.post(
        "/nodes", json={"title": "a", "body": "one", "scope": scope}, headers=key
    )
    assert replay.headers["idempotency-replayed"] == "true" and replay.json() == first.json()
    with pytest.raises(IdempotencyKeyReuse):
        concord.http.post("/nodes", json={"title": "a", "body": "two", "scope": scope}, headers=key)


def test_in_flight_duplicates_execute_once(concord: Concord, server: Server, scope: str) -> None:
    """A keyed request sent again while the first is still running executes once. The contract
    answers the duplicate 409 `/problems/idempotency-in-flight` (retried by the client until
    the first has finished, then replayed); a server may also hold the duplicate until the
    first commits and replay it at once (SQLite, whose writes queue on one connection, does)."""
    body = {
        "nodes": [
            {"title": f"bulk {i}", "body": f"item number {i}", "scope": scope} for i in range(400)
        ]
    }
    key = {"Idempotency-Key": str(uuid.uuid4())}
    results: dict[str, object] = {}

    def send(name: str, retry: Retry) -> None:
        with Concord(server.url, server.admin_key, retry=retry, transport=Recorder()) as c:
            try:
                results[name] = c.http.post("/nodes/batch", json=body, headers=key).json()
            except ConcordError as e:
                results[name] = e

    first = threading.Thread(target=send, args=("first", NO_RETRY))
    first.start()
    threading.Event().wait(0.1)
    duplicates = [
        threading.Thread(target=send, args=("plain", NO_RETRY)),
        threading.Thread(
            target=send, args=("retried", Retry(attempts=30, backoff=0.1, max_backoff=1.0))
        ),
    ]
    for t in duplicates:
        t.start()
    for t in [first, *duplicates]:
        t.join()
    assert isinstance(results["first"], dict)
    assert results["retried"] == results["first"]
    assert isinstance(results["plain"], IdempotencyInFlight) or results["plain"] == results["first"]
    assert len(list(concord.nodes(scope=scope, page_size=200))) == 400


def test_unauthorized_then_too_many_failed_keys(server: Server) -> None:
    """Runs last in this file: after it, this address gets 429 for bad keys for a minute."""
    with Concord(server.url, "not-a-key", retry=NO_RETRY) as stranger:
        with pytest.raises(Unauthorized) as e:
            stranger.me()
        assert e.value.status == 401
        with pytest.raises(TooManyFailedKeys) as locked:
            for _ in range(20):
                try:
                    stranger.me()
                except Unauthorized:
                    continue
        assert locked.value.retry_after is not None and locked.value.retry_after > 0
    # A client that honours Retry-After up to only 1 s gives up at once instead of waiting.
    with Concord(server.url, "not-a-key", retry=Retry(max_retry_after=1.0)) as stranger:
        with pytest.raises(TooManyFailedKeys):
            stranger.me()
