"""Keys, the caller, the audit record, sweeps and the operational endpoints."""

from __future__ import annotations

import time
import uuid

import pytest
from conftest import FAST_RETRY, Server
from support import words

from concord_client import Concord
from concord_client._generated.api.keys import create_key, list_audit, list_keys, revoke_key
from concord_client._generated.api.nodes import create_batch
from concord_client._generated.api.operations import healthz, metrics, readyz
from concord_client._generated.api.sweeps import cancel_sweep, get_sweep, list_sweeps, start_sweep
from concord_client.errors import KeyExists, SweepRunning, Unauthorized
from concord_client.models import BatchNodeRequest, BatchRequest, CreateKeyRequest, SweepRequest


def test_operational_endpoints(concord: Concord) -> None:
    assert concord.ok(healthz.sync_detailed(client=concord.raw)).status == "ok"
    assert concord.ok(readyz.sync_detailed(client=concord.raw)).status == "ok"
    assert "concord_" in concord.ok(metrics.sync_detailed(client=concord.raw))


def test_keys_me_and_audit(concord: Concord, server: Server, recorder: object, scope: str) -> None:
    me = concord.me()
    assert me.role == "admin" and me.scopes == ["*"]

    name = "reviewer-" + uuid.uuid4().hex[:8]
    request = CreateKeyRequest(name=name, role="reviewer", scopes=[scope])
    made = concord.ok(create_key.sync_detailed(client=concord.raw, body=request))
    assert made.api_key.name == name and made.key
    with pytest.raises(KeyExists):
        create_key.sync_detailed(client=concord.raw, body=request)
    assert name in {k.name for k in concord.ok(list_keys.sync_detailed(client=concord.raw)).items}

    with Concord(server.url, made.key, retry=FAST_RETRY) as reviewer:
        assert reviewer.me().scopes == [scope]
        revoked = concord.ok(revoke_key.sync_detailed(name, client=concord.raw))
        assert revoked.revoked_at
        with pytest.raises(Unauthorized):
            reviewer.me()

    audit = concord.ok(list_audit.sync_detailed(client=concord.raw, key=me.name, limit=20))
    assert {"key.created", "key.revoked"} <= {e.action for e in audit.items}


def test_sweeps(concord: Concord, scope: str) -> None:
    # Memories written without detection, so the sweep has pairs to compare and takes a while.
    nodes = [
        BatchNodeRequest(
            title=f"{words(3)} limit", body=f"The {words(4)} limit is {i}", scope=scope
        )
        for i in range(1000)
    ]
    concord.ok(
        create_batch.sync_detailed(client=concord.raw, body=BatchRequest(nodes=nodes), detect=False)
    )
    sweep = concord.ok(
        start_sweep.sync_detailed(client=concord.raw, body=SweepRequest(scope=scope))
    )
    assert sweep.scope == scope
    with pytest.raises(SweepRunning) as refused:
        start_sweep.sync_detailed(client=concord.raw, body=SweepRequest(scope=scope))
    assert refused.value.body["sweep_id"] == str(sweep.id)

    cancelled = concord.ok(cancel_sweep.sync_detailed(sweep.id, client=concord.raw))
    assert cancelled.id == sweep.id
    deadline = time.monotonic() + 30
    while concord.ok(get_sweep.sync_detailed(sweep.id, client=concord.raw)).status == "running":
        assert time.monotonic() < deadline, "the sweep did not stop"
        time.sleep(0.1)
    assert concord.ok(get_sweep.sync_detailed(sweep.id, client=concord.raw)).status in {
        "cancelled",
        "done",
    }
    listed = concord.ok(list_sweeps.sync_detailed(client=concord.raw, limit=5))
    assert sweep.id in {s.id for s in listed.items}
