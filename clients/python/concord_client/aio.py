"""The asyncio client: `Concord`'s methods as coroutines and async iterators."""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from types import TracebackType
from uuid import UUID

import httpx

from ._common import DEFAULT_TIMEOUT, Page, T, headers, next_cursor, ok, opt, uuid_of
from ._generated.api.conflicts import (
    create_conflict,
    get_conflict,
    list_conflicts,
    resolve_conflict,
    revert_conflict,
    wake_conflicts,
)
from ._generated.api.keys import who_am_i
from ._generated.api.nodes import (
    create_node,
    delete_node,
    get_node,
    list_nodes,
    patch_node,
    recall_memories,
)
from ._generated.client import Client
from ._generated.models import (
    CallerResponse,
    ConflictDto,
    ConflictListResponse,
    CreateConflictRequest,
    CreateNodeRequest,
    NodeDto,
    NodeListResponse,
    NodeRestatedResponse,
    NodeStateDto,
    NodeWriteResponse,
    PatchNodeRequest,
    Recall,
    ResolveBody,
    ResolveResponse,
    RevertBody,
    RevertResponse,
    WakeResponse,
)
from ._generated.types import UNSET, Unset
from .errors import ConcordError, UnexpectedResponse, error_from_response
from .sse import Decoder, Event
from .transport import CONNECTION_ERRORS, DEFAULT_RETRY, AsyncRetryTransport, Retry


async def _raise_for_problem(response: httpx.Response) -> None:
    if response.status_code >= 400:
        await response.aread()
        raise error_from_response(response)


async def _items(fetch: Callable[[str | Unset], Awaitable[Page[T]]]) -> AsyncIterator[T]:
    cursor: str | Unset = UNSET
    while True:
        page = await fetch(cursor)
        for item in page.items:
            yield item
        following = next_cursor(page)
        if following is None:
            return
        cursor = following


class AsyncConcord:
    """A concord server, for asyncio. `api_key` goes out as `Authorization: Bearer <key>`; every POST, PATCH
    and DELETE carries an `Idempotency-Key`, the same on each retry (see `Retry`); error
    responses raise `concord_client.errors.ConcordError` subclasses.

    `raw` is the generated client on the same connection, retries and errors, for the
    operations without a method here::

        from concord_client._generated.api.sweeps import start_sweep
        sweep = concord.ok(await start_sweep.asyncio_detailed(client=concord.raw, body=SweepRequest()))
    """

    ok = staticmethod(ok)

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        retry: Retry = DEFAULT_RETRY,
        timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
        transport: httpx.AsyncBaseTransport | None = None,
        extra_headers: Mapping[str, str] | None = None,
    ) -> None:
        self.retry = retry
        self.http = httpx.AsyncClient(
            base_url=base_url,
            headers=headers(api_key, extra_headers),
            timeout=timeout,
            transport=AsyncRetryTransport(transport or httpx.AsyncHTTPTransport(), retry),
            event_hooks={"response": [_raise_for_problem]},
        )
        self.raw = Client(base_url=base_url).set_async_httpx_client(self.http)

    async def aclose(self) -> None:
        await self.http.aclose()

    async def __aenter__(self) -> AsyncConcord:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def me(self) -> CallerResponse:
        return ok(await who_am_i.asyncio_detailed(client=self.raw))

    # Memories

    async def remember(
        self,
        title: str,
        body: str | None = None,
        *,
        labels: list[str] | None = None,
        memory_type: str | None = None,
        scope: str | None = None,
        source: str | None = None,
        confidence: float | None = None,
        observed_at: datetime.datetime | None = None,
        detect: bool | None = None,
        sensitivity: str | None = None,
        allow_duplicate: bool | None = None,
    ) -> NodeWriteResponse | NodeRestatedResponse:
        """Store a memory. A `NodeWriteResponse`'s `conflicts` lists what it contradicts (UNSET
        when nothing); a `NodeRestatedResponse` means an active memory of the scope already says
        the same (nothing new stored, unless `allow_duplicate`)."""
        request = CreateNodeRequest(
            title=title,
            body=opt(body),
            labels=opt(labels),
            memory_type=opt(memory_type),
            scope=opt(scope),
            source=opt(source),
            confidence=opt(confidence),
            observed_at=opt(observed_at),
        )
        response = await create_node.asyncio_detailed(
            client=self.raw,
            body=request,
            detect=opt(detect),
            sensitivity=opt(sensitivity),
            allow_duplicate=opt(allow_duplicate),
        )
        if isinstance(response.parsed, (NodeWriteResponse, NodeRestatedResponse)):
            return response.parsed
        raise UnexpectedResponse(response.status_code, "201 or 200")

    async def node(self, node_id: UUID | str) -> NodeDto:
        return ok(await get_node.asyncio_detailed(uuid_of(node_id), client=self.raw))

    async def update_node(self, node_id: UUID | str, changes: PatchNodeRequest) -> NodeDto:
        return ok(
            await patch_node.asyncio_detailed(uuid_of(node_id), client=self.raw, body=changes)
        )

    async def forget(self, node_id: UUID | str) -> None:
        await delete_node.asyncio_detailed(uuid_of(node_id), client=self.raw)

    def nodes(
        self,
        *,
        q: str | None = None,
        label: str | None = None,
        memory_type: str | None = None,
        scope: str | None = None,
        state: NodeStateDto | None = None,
        page_size: int | None = None,
    ) -> AsyncIterator[NodeDto]:
        """Every matching memory, fetching pages of `page_size` as the iteration goes."""

        async def page(cursor: str | Unset) -> NodeListResponse:
            return ok(
                await list_nodes.asyncio_detailed(
                    client=self.raw,
                    q=opt(q),
                    label=opt(label),
                    memory_type=opt(memory_type),
                    scope=opt(scope),
                    state=opt(state),
                    limit=opt(page_size),
                    cursor=cursor,
                )
            )

        return _items(page)

    async def recall(
        self,
        q: str,
        *,
        label: str | None = None,
        scope: str | None = None,
        limit: int | None = None,
    ) -> Recall:
        return ok(
            await recall_memories.asyncio_detailed(
                client=self.raw, q=q, label=opt(label), scope=opt(scope), limit=opt(limit)
            )
        )

    # Conflicts

    def conflicts(
        self,
        *,
        status: str | None = None,
        conflict_type: str | None = None,
        label: str | None = None,
        scope: str | None = None,
        order: str | None = None,
        resolved_by: str | None = None,
        page_size: int | None = None,
    ) -> AsyncIterator[ConflictDto]:
        """Every matching conflict (pending ones by default), page by page."""

        async def page(cursor: str | Unset) -> ConflictListResponse:
            return ok(
                await list_conflicts.asyncio_detailed(
                    client=self.raw,
                    status=opt(status),
                    conflict_type=opt(conflict_type),
                    label=opt(label),
                    scope=opt(scope),
                    order=opt(order),
                    resolved_by=opt(resolved_by),
                    limit=opt(page_size),
                    cursor=cursor,
                )
            )

        return _items(page)

    async def conflict(self, conflict_id: UUID | str) -> ConflictDto:
        return ok(await get_conflict.asyncio_detailed(uuid_of(conflict_id), client=self.raw))

    async def report_conflict(
        self,
        old_node_id: UUID | str,
        *,
        new_node_id: UUID | str | None = None,
        new_content: str | None = None,
        conflict_type: str | None = None,
        note: str | None = None,
    ) -> ConflictDto:
        """Queue a contradiction found elsewhere (the existing one if the pair is queued)."""
        request = CreateConflictRequest(
            old_node_id=uuid_of(old_node_id),
            new_node_id=UNSET if new_node_id is None else uuid_of(new_node_id),
            new_content=opt(new_content),
            conflict_type=opt(conflict_type),
            note=opt(note),
        )
        return ok(await create_conflict.asyncio_detailed(client=self.raw, body=request))

    async def resolve(
        self,
        conflict_id: UUID | str,
        resolution: str,
        *,
        merged_content: str | None = None,
        resolved_by: str | None = None,
        note: str | None = None,
        reason: str | None = None,
    ) -> ResolveResponse:
        """Apply `new_is_current`, `old_is_current`, `keep_both` or `merge`, in one
        transaction. A retry of the same decision answers `replayed: true`."""
        request = ResolveBody(
            resolution=resolution,
            merged_content=opt(merged_content),
            resolved_by=opt(resolved_by),
            note=opt(note),
            reason=opt(reason),
        )
        return ok(
            await resolve_conflict.asyncio_detailed(
                uuid_of(conflict_id), client=self.raw, body=request
            )
        )

    async def revert(
        self, conflict_id: UUID | str, *, reverted_by: str | None = None, note: str | None = None
    ) -> RevertResponse:
        request = RevertBody(reverted_by=opt(reverted_by), note=opt(note))
        return ok(
            await revert_conflict.asyncio_detailed(
                uuid_of(conflict_id), client=self.raw, body=request
            )
        )

    # Waiting

    async def wait_for_conflicts(
        self,
        *,
        scope: str | None = None,
        wait: int = 30,
        max_conflicts: int | None = None,
        preview_chars: int | None = None,
        after: str | None = None,
    ) -> AsyncIterator[WakeResponse]:
        """Long-polls `GET /conflicts/wake` for ever, yielding each batch of newly pending
        conflicts once. The cursor of the last batch is kept (also across reconnects), so a
        conflict is yielded once however the connection fares; `after` starts from a cursor a
        previous run kept. Errors a retry cannot cure (401, 403, 422) are raised."""
        cursor = after
        failures = 0
        while True:
            try:
                response = await wake_conflicts.asyncio_detailed(
                    client=self.raw,
                    after=opt(cursor),
                    wait=wait,
                    scope=opt(scope),
                    max_=opt(max_conflicts),
                    preview_chars=opt(preview_chars),
                )
            except (*CONNECTION_ERRORS, ConcordError) as e:
                if isinstance(e, ConcordError) and not e.retryable:
                    raise
                retry_after = e.retry_after if isinstance(e, ConcordError) else None
                await asyncio.sleep(self.retry.reconnect_delay(failures, retry_after))
                failures += 1
                continue
            failures = 0
            if isinstance(response.parsed, WakeResponse):
                cursor = response.parsed.cursor
                yield response.parsed

    async def events(self, *, last_event_id: int | None = None) -> AsyncIterator[Event]:
        """`GET /events` for ever. After a dropped connection (or a server restart) it
        reconnects with `Last-Event-ID`, so no event is lost or repeated; `last_event_id`
        resumes after an event a previous run saw (0: the whole log). Without it the stream
        starts from now, and until its first event there is no id to resume from: a
        reconnect then starts from now again."""
        failures = 0
        while True:
            extra = {} if last_event_id is None else {"Last-Event-ID": str(last_event_id)}
            try:
                async with self.http.stream("GET", "/events", headers=extra) as response:
                    failures = 0
                    decoder = Decoder()
                    async for line in response.aiter_lines():
                        event = decoder.feed(line)
                        if event is not None:
                            if event.id is not None:
                                last_event_id = event.id
                            yield event
            except (*CONNECTION_ERRORS, ConcordError) as e:
                if isinstance(e, ConcordError) and not e.retryable:
                    raise
            await asyncio.sleep(self.retry.reconnect_delay(failures, None))
            failures += 1
