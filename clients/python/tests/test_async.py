"""AsyncConcord: the same behaviour as Concord, on asyncio."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from conftest import FAST_RETRY, AsyncRecorder, Server
from support import words

from concord_client import AsyncConcord
from concord_client._generated.api.conflicts import conflict_stats
from concord_client.errors import AlreadyResolved, NotFound
from concord_client.models import NodeWriteResponse, PatchNodeRequest


def client(server: Server) -> AsyncConcord:
    return AsyncConcord(server.url, server.admin_key, retry=FAST_RETRY, transport=AsyncRecorder())


def test_async_flow(server: Server, scope: str) -> None:
    async def main() -> None:
        async with client(server) as c:
            topic = words(5)
            old = await c.remember(topic, f"The {topic} timeout is 30 seconds", scope=scope)
            waiter = asyncio.create_task(anext(c.wait_for_conflicts(scope=scope, wait=10)))
            await asyncio.sleep(0.3)
            new = await c.remember(topic, f"The {topic} timeout is 60 seconds", scope=scope)
            assert isinstance(new, NodeWriteResponse) and isinstance(new.conflicts, list)
            conflict_id = new.conflicts[0].conflict_id
            woke = await asyncio.wait_for(waiter, 20)
            assert [w.id for w in woke.conflicts] == [conflict_id]

            listed = [x.id async for x in c.conflicts(scope=scope, page_size=1)]
            assert listed == [conflict_id]
            names = [n.id async for n in c.nodes(scope=scope, page_size=1)]
            assert set(names) == {old.node.id, new.node.id}

            events = c.events(last_event_id=0)
            async for event in events:
                if event.data.conflict_id == conflict_id:
                    assert event.type == "conflict.created"
                    break
            await events.aclose()

            assert (await c.recall(topic, scope=scope)).conflicts
            done = await c.resolve(conflict_id, "new_is_current", note="async")
            assert done.ok
            with pytest.raises(AlreadyResolved):
                await c.resolve(conflict_id, "keep_both")
            assert (await c.revert(conflict_id)).reverted == "new_is_current"
            assert (await c.conflict(conflict_id)).status == "pending"
            await c.update_node(new.node.id, PatchNodeRequest(confidence=0.5))
            assert (await c.node(new.node.id)).confidence == 0.5
            queued = await c.report_conflict(old.node.id, new_content="The timeout is 90 seconds")
            assert queued.detection.tier == "manual"
            stats = c.ok(await conflict_stats.asyncio_detailed(client=c.raw))
            assert stats.pending >= 2
            assert (await c.me()).role == "admin"
            await c.forget(old.node.id)
            with pytest.raises(NotFound):
                await c.node(old.node.id)
            with pytest.raises(NotFound):
                await c.conflict(uuid.uuid4())

    asyncio.run(main())
