"""An agent's memory loop with concord: remember a fact, learn from the reply that an update
contradicts it, decide (or hand the decision to a person), then recall what is current.

    python examples/python/agent_loop.py --url http://127.0.0.1:8080 [--key KEY]

Each run writes into a scope of its own, so runs never meet. It checks every outcome and
exits non-zero when one is not what concord promises.
"""

from __future__ import annotations

import argparse
import sys
import uuid
from typing import NoReturn
from uuid import UUID

from concord_client import Concord
from concord_client.models import ConflictHitDto, NodeWriteResponse

WHO = "agent-loop"
# Labels whose conflicts concord never lets a rule decide; the agent does not either.
FOR_A_PERSON = frozenset({"security", "data-integrity", "breaking-change"})


def fail(what: str) -> NoReturn:
    sys.exit(f"agent_loop: FAILED: {what}")


def expect(condition: bool, what: str) -> None:
    if not condition:
        fail(what)


def decide(hit: ConflictHitDto, labels: list[str]) -> str | None:
    """The agent's rule: follow concord when it recommends a strategy; when it leaves the
    choice open, a newer reading of the same number wins; memories labelled for a person, and
    anything else, go to the review console."""
    if not FOR_A_PERSON.isdisjoint(labels):
        return None
    if isinstance(hit.recommendation.strategy, str):
        return hit.recommendation.strategy
    if hit.conflict_type == "numeric-mismatch":
        return "new_is_current"
    return None


def remember(concord: Concord, scope: str, title: str, body: str, label: str) -> NodeWriteResponse:
    written = concord.remember(title, body, scope=scope, labels=[label], source="agent:notes")
    if not isinstance(written, NodeWriteResponse):
        fail(f"{body!r} was taken for a restatement of a stored memory")
    print(f"remembered  {body!r}")
    return written


def handle(concord: Concord, written: NodeWriteResponse) -> list[UUID]:
    """Decides the conflicts a write reported; returns those left for a person."""
    if not isinstance(written.conflicts, list):
        fail(f"{written.node.body!r} reported no conflict")
    left: list[UUID] = []
    for hit in written.conflicts:
        if not isinstance(hit.conflict_id, UUID):
            fail("a conflict came without its id")
        print(
            f"conflict    {hit.conflict_type}: concord recommends "
            f"{hit.recommendation.resolution} ({hit.recommendation.reasoning})"
        )
        strategy = decide(hit, written.node.labels)
        if strategy is None:
            left.append(hit.conflict_id)
            print("            -> left for a person in the review console")
            continue
        done = concord.resolve(
            hit.conflict_id, strategy, resolved_by=WHO, note="the newer reading wins"
        )
        print(f"            -> {strategy}: " + "; ".join(a.summary for a in done.actions))
    return left


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8080")
    parser.add_argument("--key", default=None, help="API key (when the server has keys)")
    parser.add_argument("--scope", default=None, help="default: a new scope for this run")
    args = parser.parse_args()
    scope = args.scope or f"agent-demo-{uuid.uuid4().hex[:8]}"

    with Concord(args.url, args.key) as concord:
        remember(concord, scope, "Cache TTL", "The cache TTL is 30 seconds", "cache")
        update = remember(concord, scope, "Cache TTL", "The cache TTL is 60 seconds", "cache")
        remember(concord, scope, "Password rotation", "Passwords rotate every 90 days", "security")
        rotation = remember(
            concord, scope, "Password rotation", "Passwords rotate every 30 days", "security"
        )
        expect(handle(concord, update) == [], "the agent decided the cache conflict itself")
        for_a_person = handle(concord, rotation)
        expect(len(for_a_person) == 1, "the security conflict went to a person")

        cache = concord.recall("cache TTL", scope=scope)
        bodies = [s.source_text for s in cache.sources]
        print(f"recall      cache TTL -> {bodies}")
        expect(bodies == ["The cache TTL is 60 seconds"], "recall shows only the current TTL")
        expect(not cache.conflicts, "recall reports no disagreement about the TTL any more")

        rotation_recall = concord.recall("passwords rotate", scope=scope)
        flagged = [c.conflict_id for c in rotation_recall.conflicts or []]
        print(f"recall      passwords rotate -> pending conflicts {flagged}")
        expect(flagged == for_a_person, "recall flags the conflict a person must decide")
        queue = [c.id for c in concord.conflicts(scope=scope)]
        expect(queue == for_a_person, "the review queue holds the security conflict alone")
    print("agent_loop: OK")


if __name__ == "__main__":
    main()
