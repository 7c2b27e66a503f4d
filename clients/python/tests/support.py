"""Small builders the tests share."""

from __future__ import annotations

import random
import string
from dataclasses import dataclass
from uuid import UUID

from concord_client import Concord
from concord_client.models import NodeWriteResponse


@dataclass(frozen=True)
class Pair:
    old_id: UUID
    new_id: UUID
    conflict_id: UUID


def words(n: int) -> str:
    """Made-up words (letters only: digits would read as values that changed), so memories of
    different tests share too few words to be compared."""
    return " ".join(
        "".join(random.choices(string.ascii_lowercase, k=random.randint(6, 9))) for _ in range(n)
    )


def contradiction(c: Concord, scope: str, *, labels: list[str] | None = None) -> Pair:
    """Two memories whose numbers disagree: concord queues a numeric-mismatch between them."""
    topic = words(5)
    old = c.remember(topic, f"The {topic} timeout is 30 seconds", scope=scope, labels=labels)
    new = c.remember(topic, f"The {topic} timeout is 60 seconds", scope=scope, labels=labels)
    assert isinstance(new, NodeWriteResponse) and isinstance(new.conflicts, list), new
    (hit,) = new.conflicts
    assert isinstance(hit.conflict_id, UUID)
    return Pair(old.node.id, new.node.id, hit.conflict_id)
