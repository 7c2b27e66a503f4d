"""The wake loop and the event stream, both across a server restart."""

from __future__ import annotations

import threading
import time
from uuid import UUID

import httpx
from conftest import Recorder, Server
from support import contradiction

from concord_client import Concord, Event


def test_wait_for_conflicts_yields_each_once_across_a_restart(
    concord: Concord, server: Server, recorder: Recorder, scope: str
) -> None:
    seen: list[UUID] = []
    arrived = threading.Condition()

    def daemon() -> None:
        for batch in concord.wait_for_conflicts(scope=scope, wait=1, max_conflicts=2):
            with arrived:
                seen.extend(c.id for c in batch.conflicts)
                arrived.notify_all()
            if len(seen) >= 4:
                return

    def wait_for(n: int) -> None:
        with arrived:
            assert arrived.wait_for(lambda: len(seen) >= n, timeout=30), seen

    thread = threading.Thread(target=daemon, daemon=True)
    thread.start()
    time.sleep(1.5)  # long enough for one empty long poll (204)
    first = [contradiction(concord, scope) for _ in range(3)]
    wait_for(3)
    server.stop()
    time.sleep(0.5)  # the daemon meets a closed port and keeps reconnecting
    server.start()
    last = contradiction(concord, scope)
    wait_for(4)
    thread.join(timeout=10)
    assert seen == [p.conflict_id for p in [*first, last]]
    assert ("/conflicts/wake", 204) in recorder.statuses


def test_events_resume_with_last_event_id_after_a_restart(
    concord: Concord, server: Server, recorder: Recorder, scope: str
) -> None:
    resumed_from: list[str | None] = []

    def note_connects(request: httpx.Request) -> httpx.Response | None:
        if request.url.path == "/events":
            resumed_from.append(request.headers.get("last-event-id"))
        return None

    recorder.before = note_connects
    before = contradiction(concord, scope)
    mine = {before.conflict_id}

    # From the start of the log, so nothing depends on when the connection opens.
    stream = concord.events(last_event_id=0)

    def until(conflict_id: UUID) -> list[Event]:
        got: list[Event] = []
        for event in stream:
            got.append(event)
            if event.type == "conflict.created" and event.data.conflict_id == conflict_id:
                return got
        raise AssertionError("the stream ended")

    replayed = until(before.conflict_id)
    last_before_drop = replayed[-1].id
    assert last_before_drop is not None

    server.stop()  # drops the connection; the generator is paused, so it notices on resuming
    server.start()
    after = [contradiction(concord, scope) for _ in range(2)]
    mine |= {p.conflict_id for p in after}
    resumed = until(after[-1].conflict_id)

    ids = [e.id for e in replayed + resumed]
    assert ids == sorted(ids) and len(set(ids)) == len(ids), "an event came twice or out of order"
    ours = [e.data.conflict_id for e in resumed if e.data.conflict_id in mine]
    assert ours == [p.conflict_id for p in after]
    assert resumed_from[0] == "0" and len(resumed_from) >= 2
    # Reconnected after the last event it had yielded, not from the start or from now.
    assert int(resumed_from[-1] or -1) >= last_before_drop
    stream.close()
