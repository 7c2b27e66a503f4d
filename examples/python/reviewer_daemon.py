"""A reviewer daemon: waits on concord's wake feed for new conflicts, applies a simple policy,
and resolves each one with a note saying why; conflicts the policy will not decide stay in the
queue for a person.

    python examples/python/reviewer_daemon.py --url http://127.0.0.1:8080 --key KEY --scope team-a

With --demo it makes its own conflicts in a new scope while it waits, handles them, checks
that each ended as the policy says, and exits (non-zero when one did not).
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from uuid import UUID

from concord_client import Concord
from concord_client.errors import AlreadyResolved, ConflictStale, NotFound
from concord_client.models import ConflictDto

WHO = "reviewer-daemon"
FOR_A_PERSON = frozenset({"security", "data-integrity", "breaking-change"})


@dataclass(frozen=True)
class Decision:
    strategy: str
    note: str


def policy(conflict: ConflictDto) -> Decision | None:
    labels = set(conflict.old_node.labels if conflict.old_node else [])
    labels |= set(conflict.new_node.labels if conflict.new_node else [])
    if labels & FOR_A_PERSON:
        return None
    recommended = conflict.recommendation
    if isinstance(recommended.strategy, str):
        return Decision(recommended.strategy, f"{WHO}: as recommended ({recommended.reasoning})")
    if conflict.conflict_type in ("numeric-mismatch", "temporal-mismatch"):
        return Decision("new_is_current", f"{WHO}: the newer {conflict.conflict_type} reading wins")
    return Decision("keep_both", f"{WHO}: no rule for {conflict.conflict_type}; both kept, linked")


def review(concord: Concord, conflict_id: UUID) -> Decision | None:
    try:
        conflict = concord.conflict(conflict_id)
    except NotFound:  # deleted since it was queued
        return None
    if conflict.status != "pending":
        return None
    decision = policy(conflict)
    if decision is None:
        print(f"left        {conflict.conflict_type} {conflict_id} for a person")
        return None
    try:
        concord.resolve(conflict_id, decision.strategy, resolved_by=WHO, note=decision.note)
    except (AlreadyResolved, ConflictStale) as e:  # someone else decided, or a node moved on
        print(f"skipped     {conflict_id}: {e.detail}")
        return None
    print(f"resolved    {conflict_id} with {decision.strategy}: {decision.note}")
    return decision


def seed(concord: Concord, scope: str) -> None:
    """--demo: three contradictions, written while the daemon is already waiting."""
    time.sleep(1.0)
    pairs = [
        ("Build workers", "CI runs 4 build workers", "CI runs 8 build workers", ["ci"]),
        ("Build cache", "The build cache is on", "The build cache is not on", ["ci"]),
        (
            "Token lifetime",
            "API tokens expire after 24 hours",
            "API tokens expire after 12 hours",
            ["security"],
        ),
    ]
    for title, old, new, labels in pairs:
        concord.remember(title, old, scope=scope, labels=labels)
        concord.remember(title, new, scope=scope, labels=labels)


def expect(condition: bool, what: str) -> None:
    if not condition:
        sys.exit(f"reviewer_daemon: FAILED: {what}")


def run(
    concord: Concord, scope: str | None, wait: int, stop_after: int | None
) -> tuple[list[UUID], dict[UUID, Decision]]:
    """The daemon: every conflict the wake feed brings is reviewed once, in order."""
    seen: list[UUID] = []
    decided: dict[UUID, Decision] = {}
    for batch in concord.wait_for_conflicts(scope=scope, wait=wait):
        for waiting in batch.conflicts:
            seen.append(waiting.id)
            decision = review(concord, waiting.id)
            if decision is not None:
                decided[waiting.id] = decision
        if stop_after is not None and len(seen) >= stop_after:
            break
    return seen, decided


def check_demo(
    concord: Concord, scope: str, seen: list[UUID], decided: dict[UUID, Decision]
) -> None:
    expect(len(seen) == 3 and len(set(seen)) == 3, f"each conflict woke it once: {seen}")
    expect(len(decided) == 2, "the two CI conflicts were decided")
    for conflict_id, decision in decided.items():
        after = concord.conflict(conflict_id)
        expect(after.status == "resolved", f"{conflict_id} is resolved")
        expect(after.resolution == decision.strategy, f"{conflict_id} used the policy's strategy")
        expect(after.note == decision.note and after.resolved_by == WHO, "its note and name kept")
    left = [c.id for c in concord.conflicts(scope=scope)]
    expect(len(left) == 1 and left[0] not in decided, "the security conflict still waits")
    mine = [c.id for c in concord.conflicts(scope=scope, status="resolved", resolved_by=WHO)]
    expect(sorted(mine) == sorted(decided), "the queue lists what the daemon resolved")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8080")
    parser.add_argument("--key", default=None, help="API key of a reviewer (or admin)")
    parser.add_argument("--scope", default=None, help="only this scope's conflicts")
    parser.add_argument("--wait", type=int, default=30, help="seconds per long poll (0..60)")
    parser.add_argument("--demo", action="store_true", help="make conflicts, handle them, check")
    args = parser.parse_args()

    with Concord(args.url, args.key) as concord:
        if not args.demo:
            run(concord, args.scope, args.wait, None)
            return
        scope = args.scope or f"reviewer-demo-{uuid.uuid4().hex[:8]}"
        threading.Thread(target=seed, args=(concord, scope), daemon=True).start()
        seen, decided = run(concord, scope, args.wait, 3)
        check_demo(concord, scope, seen, decided)
    print("reviewer_daemon: OK")


if __name__ == "__main__":
    main()
