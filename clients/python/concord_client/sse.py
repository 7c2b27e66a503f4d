"""`GET /events` as Server-Sent Events: decoding the lines, and the events it yields."""

from __future__ import annotations

import json
from dataclasses import dataclass

from ._generated.models import EventData


@dataclass(frozen=True)
class Event:
    """One event: `id` is what `Last-Event-ID` resumes after, `type` the SSE `event:` name
    (`conflict.created`, `conflict.resolved`, `sweep.done`, ...), `data` its payload."""

    id: int | None
    type: str
    data: EventData


class Decoder:
    """Feeds lines (without their line break) and returns an event at each blank line that
    ends one, following the WHATWG event-stream rules concord's stream needs."""

    def __init__(self) -> None:
        self._type = ""
        self._id: str | None = None
        self._data: list[str] = []

    def feed(self, line: str) -> Event | None:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._type = value
        elif field == "id" and "\0" not in value:
            self._id = value
        return None

    def _dispatch(self) -> Event | None:
        data, kind, event_id = "\n".join(self._data), self._type, self._id
        self._data, self._type = [], ""
        if not data:
            return None
        payload = EventData.from_dict(json.loads(data))
        return Event(
            id=int(event_id) if event_id and event_id.isdigit() else None,
            type=kind or payload.type_,
            data=payload,
        )
