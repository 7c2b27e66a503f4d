"""What the sync and async clients share."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, TypeVar, overload
from uuid import UUID

import httpx

from ._generated.models import Problem
from ._generated.types import UNSET, Response, Unset
from .errors import UnexpectedResponse

T = TypeVar("T")
I_co = TypeVar("I_co", covariant=True)

# Reads beyond the longest long poll (`wait` is at most 60 s) and the event stream's 15 s
# keep-alive, so a read timeout means a dead connection, not a quiet server.
DEFAULT_TIMEOUT = httpx.Timeout(10.0, read=75.0)


class Page(Protocol[I_co]):
    @property
    def items(self) -> Sequence[I_co]: ...

    @property
    def next_cursor(self) -> None | str | Unset: ...


def headers(api_key: str | None, extra: Mapping[str, str] | None) -> dict[str, str]:
    out = {"User-Agent": "concord-client-python", **(extra or {})}
    if api_key is not None:
        out["Authorization"] = f"Bearer {api_key}"
    return out


def opt(value: T | None) -> T | Unset:
    """The generated operations spell "not given" as UNSET; the hand-written layer as None."""
    return UNSET if value is None else value


def uuid_of(value: UUID | str) -> UUID:
    return value if isinstance(value, UUID) else UUID(value)


def next_cursor(page: Page[object]) -> str | None:
    cursor = page.next_cursor
    return cursor if isinstance(cursor, str) and cursor else None


@overload
def ok(response: Response[T | Problem]) -> T: ...
@overload
def ok(response: Response[T]) -> T: ...
def ok(response: Response[T | Problem] | Response[T]) -> T:
    """The parsed body of a success. Error statuses never get here (the client raises a
    ConcordError first); a 204 or an undocumented status does, and is refused."""
    parsed = response.parsed
    if parsed is None or isinstance(parsed, Problem):
        raise UnexpectedResponse(int(response.status_code), "a documented success body")
    return parsed
