"""A typed Python client for concord. The models and operations are generated from concord's
OpenAPI document (`concord_client._generated`); `Concord` and `AsyncConcord` add keys,
idempotent retries, typed errors, paging, the wake loop and the event stream."""

from .aio import AsyncConcord
from .client import Concord
from .errors import ConcordError
from .sse import Event
from .transport import NO_RETRY, Retry

__all__ = ["AsyncConcord", "Concord", "ConcordError", "Event", "NO_RETRY", "Retry"]
