"""concord's RFC 9457 problem details as exceptions: one class per problem type.

Every error response becomes a `ConcordError` (raised by the client before any generated
parsing runs), so `except ScopeForbidden:` works the same for the hand-written methods and for
the generated operations called through `Concord.raw`.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

PROBLEM_PREFIX = "/problems/"


class ConcordError(Exception):
    """An error response. `type` is the problem type (e.g. `/problems/not-found`); `body` the
    whole problem document, extension members (`current`, `changes`, `node_id`, ...) included."""

    status: int
    type: str
    title: str
    detail: str
    errors: list[dict[str, str]]
    request_id: str | None
    retry_after: float | None
    body: dict[str, Any]

    def __init__(
        self,
        *,
        status: int,
        type: str,
        title: str,
        detail: str = "",
        errors: list[dict[str, str]] | None = None,
        request_id: str | None = None,
        retry_after: float | None = None,
        body: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(f"{status} {type}: {detail or title}")
        self.status = status
        self.type = type
        self.title = title
        self.detail = detail
        self.errors = errors or []
        self.request_id = request_id
        self.retry_after = retry_after
        self.body = body or {}

    @property
    def retryable(self) -> bool:
        """Whether the same request may succeed later (the client's own retries gave up)."""
        return self.status in RETRY_STATUSES or self.status >= 500 or self.type == IN_FLIGHT


class MalformedJson(ConcordError):
    """400: the body is not JSON."""


class MalformedRequest(ConcordError):
    """400: the request head is not valid HTTP/1.1."""


class Unauthorized(ConcordError):
    """401: no valid `Authorization: Bearer <key>` (none, wrong or revoked)."""


class RoleForbidden(ConcordError):
    """403: the key's role may not do this."""


class ScopeForbidden(ConcordError):
    """403: the key does not hold the scope written into."""


class ForeignOrigin(ConcordError):
    """403: `/mcp` called from a browser page of another origin."""


class NotFound(ConcordError):
    """404: unknown id or route (an id of a scope the key lacks looks the same)."""


class MethodNotAllowed(ConcordError):
    """405."""


class AlreadyResolved(ConcordError):
    """409: a different resolution for a resolved conflict; `body["current"]` holds the
    recorded one."""


class ConflictStale(ConcordError):
    """409 `/problems/stale-conflict`: the node the strategy keeps current is no longer active
    (`body["node_id"]`, `body["node_state"]`); nothing was written."""


class NotResolved(ConcordError):
    """409: a revert of a pending conflict."""


class RevertConflict(ConcordError):
    """409: later changes are in the way of a revert (`body["changes"]`); nothing was
    written."""


class KeyExists(ConcordError):
    """409: `POST /keys` with a name already taken."""


class SweepRunning(ConcordError):
    """409: a sweep runs already (`body["sweep_id"]`)."""


class IdempotencyInFlight(ConcordError):
    """409: a request with this `Idempotency-Key` is still running."""


class PayloadTooLarge(ConcordError):
    """413."""


class UriTooLong(ConcordError):
    """414."""


class UnsupportedMediaType(ConcordError):
    """415: not `Content-Type: application/json`."""


class ForeignHost(ConcordError):
    """421: a key-less server does not answer to this `Host`."""


class ValidationError(ConcordError):
    """422: invalid values; `errors` lists `{pointer, detail}`."""


class IdempotencyKeyReuse(ConcordError):
    """422: an `Idempotency-Key` reused with another request."""


class TooManyFailedKeys(ConcordError):
    """429: too many failed keys from this address; see `retry_after`."""


class HeadersTooLarge(ConcordError):
    """431."""


class InternalError(ConcordError):
    """500: a server fault (details only in the server's log, under `request_id`)."""


class ResolutionFailed(ConcordError):
    """500/503: a resolution step failed and everything was rolled back."""


class RevertFailed(ConcordError):
    """500/503: a revert step failed and everything was rolled back."""


class Unavailable(ConcordError):
    """503: the database is unreachable."""


class Busy(ConcordError):
    """503: another writer held the database's lock too long; nothing was written."""


class Overloaded(ConcordError):
    """503: too many requests in flight."""


class RequestTimeout(ConcordError):
    """503 `/problems/timeout`: the request ran too long and was rolled back."""


class McpSessionsFull(ConcordError):
    """503: no MCP session slot left."""


class McpClientSessionsFull(ConcordError):
    """503: this client holds its share of MCP sessions."""


class StorageFull(ConcordError):
    """507: the database's disk is full; nothing was written."""


IN_FLIGHT = PROBLEM_PREFIX + "idempotency-in-flight"
RETRY_STATUSES = frozenset({429, 503, 507})

BY_TYPE: dict[str, type[ConcordError]] = {
    PROBLEM_PREFIX + code: cls
    for code, cls in {
        "malformed-json": MalformedJson,
        "malformed-request": MalformedRequest,
        "unauthorized": Unauthorized,
        "role-forbidden": RoleForbidden,
        "scope-forbidden": ScopeForbidden,
        "foreign-origin": ForeignOrigin,
        "not-found": NotFound,
        "method-not-allowed": MethodNotAllowed,
        "already-resolved": AlreadyResolved,
        "stale-conflict": ConflictStale,
        "not-resolved": NotResolved,
        "revert-conflict": RevertConflict,
        "key-exists": KeyExists,
        "sweep-running": SweepRunning,
        "idempotency-in-flight": IdempotencyInFlight,
        "payload-too-large": PayloadTooLarge,
        "uri-too-long": UriTooLong,
        "unsupported-media-type": UnsupportedMediaType,
        "foreign-host": ForeignHost,
        "validation": ValidationError,
        "idempotency-key-reuse": IdempotencyKeyReuse,
        "too-many-failed-keys": TooManyFailedKeys,
        "headers-too-large": HeadersTooLarge,
        "internal": InternalError,
        "resolution-failed": ResolutionFailed,
        "revert-failed": RevertFailed,
        "unavailable": Unavailable,
        "busy": Busy,
        "overloaded": Overloaded,
        "timeout": RequestTimeout,
        "mcp-sessions-full": McpSessionsFull,
        "mcp-client-sessions-full": McpClientSessionsFull,
        "storage-full": StorageFull,
    }.items()
}


def retry_after_seconds(response: httpx.Response) -> float | None:
    """`Retry-After` in seconds; concord sends delta-seconds, never an HTTP date."""
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def error_from_response(response: httpx.Response) -> ConcordError:
    """The exception for an error response whose body has been read."""
    body: dict[str, Any] = {}
    try:
        parsed = json.loads(response.content)
        if isinstance(parsed, dict):
            body = parsed
    except ValueError:
        pass
    kind = str(body.get("type") or "about:blank")
    cls = BY_TYPE.get(kind, ConcordError)
    errors = body.get("errors")
    return cls(
        status=response.status_code,
        type=kind,
        title=str(body.get("title") or response.reason_phrase),
        detail=str(body.get("detail") or ""),
        errors=errors if isinstance(errors, list) else [],
        request_id=body.get("request_id") or response.headers.get("x-request-id"),
        retry_after=retry_after_seconds(response),
        body=body,
    )


class UnexpectedResponse(Exception):
    """A status the operation does not document as a success with a body (e.g. a 204 where a
    body was expected)."""

    def __init__(self, status: int, expected: str) -> None:
        super().__init__(f"expected {expected}, got status {status}")
        self.status = status
