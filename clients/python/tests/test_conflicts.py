"""The conflict queue: queueing, listing and paging, each strategy, replays, revert, history,
and the reports around it."""

from __future__ import annotations

from uuid import UUID

from support import contradiction

from concord_client import Concord
from concord_client._generated.api.conflicts import (
    check_topic,
    conflict_history,
    conflict_stats,
    list_policies,
    list_reports,
    resolve_contradiction,
)
from concord_client._generated.api.sources import list_sources
from concord_client.models import NodeStateDto, ResolveRequest, TopicCheckRequest


def test_queue_lists_pages_and_counts(concord: Concord, scope: str) -> None:
    pairs = [contradiction(concord, scope) for _ in range(5)]
    listed = list(concord.conflicts(scope=scope, page_size=2))
    assert [c.id for c in listed] == [p.conflict_id for p in pairs]  # oldest first
    first = listed[0]
    assert first.status == "pending" and first.conflict_type == "numeric-mismatch"
    assert first.old_node is not None and first.old_node.body.endswith("30 seconds")
    newest = list(concord.conflicts(scope=scope, order="newest", page_size=3))
    assert [c.id for c in newest] == [p.conflict_id for p in reversed(pairs)]

    stats = concord.ok(conflict_stats.sync_detailed(client=concord.raw))
    assert stats.pending >= 5 and stats.by_type.additional_properties["numeric-mismatch"] >= 5


def test_manual_conflict_is_queued_once(concord: Concord, scope: str) -> None:
    old = concord.remember("Region", "We deploy to eu-west-1", scope=scope).node
    queued = concord.report_conflict(
        old.id, new_content="We deploy to us-east-1", note="seen in CI"
    )
    assert queued.detection.tier == "manual" and queued.new_content == "We deploy to us-east-1"
    again = concord.report_conflict(old.id, new_content="We deploy to us-east-1")
    assert again.id == queued.id
    # Keeping both creates the new side from its text.
    done = concord.resolve(queued.id, "keep_both", note="both regions are used")
    assert done.ok and isinstance(done.new_node_id, UUID)
    assert concord.node(done.new_node_id).body == "We deploy to us-east-1"


def test_resolve_replay_revert_and_history(concord: Concord, scope: str) -> None:
    pair = contradiction(concord, scope)
    done = concord.resolve(pair.conflict_id, "new_is_current", resolved_by="ada", note="newer")
    assert done.ok and not done.replayed and done.resolution == "new_is_current"
    assert {a.action for a in done.actions} >= {"node_state_changed", "edge_created"}
    # Retrying the same decision (a new Idempotency-Key: a second call) replays it.
    assert concord.resolve(pair.conflict_id, "new_is_current").replayed

    conflict = concord.conflict(pair.conflict_id)
    assert conflict.status == "resolved" and conflict.resolved_by == "ada"

    undone = concord.revert(pair.conflict_id, reverted_by="grace", note="wrong pair")
    assert undone.ok and undone.reverted == "new_is_current"
    assert concord.node(pair.old_id).state == NodeStateDto.ACTIVE
    assert concord.conflict(pair.conflict_id).status == "pending"

    history = concord.ok(conflict_history.sync_detailed(pair.conflict_id, client=concord.raw))
    assert [e.kind for e in history.items] == ["queued", "resolved", "reverted"]

    merged = concord.resolve(pair.conflict_id, "merge", merged_content="The timeout is 60 s now")
    assert merged.resolution == "merge"
    assert concord.node(pair.old_id).body == "The timeout is 60 s now"


def test_resolve_by_body_and_old_is_current(concord: Concord, scope: str) -> None:
    pair = contradiction(concord, scope)
    request = ResolveRequest(conflict_id=pair.conflict_id, resolution="old_is_current")
    done = concord.ok(resolve_contradiction.sync_detailed(client=concord.raw, body=request))
    assert done.resolution == "old_is_current" and done.reason == "correction"
    assert concord.node(pair.new_id).state == NodeStateDto.DORMANT
    assert concord.node(pair.old_id).state == NodeStateDto.ACTIVE


def test_topic_report_sources_and_policies(concord: Concord, scope: str) -> None:
    pair = contradiction(concord, scope)
    topic = concord.node(pair.old_id).title
    report = concord.ok(
        check_topic.sync_detailed(
            client=concord.raw, body=TopicCheckRequest(topic=topic, scope=scope)
        )
    )
    assert report.sources_analyzed >= 2 and isinstance(report.conflicts, list)
    reports = concord.ok(list_reports.sync_detailed(client=concord.raw, limit=50))
    assert report.id in {r.id for r in reports.items}

    concord.resolve(pair.conflict_id, "new_is_current")
    sources = concord.ok(list_sources.sync_detailed(client=concord.raw))
    assert isinstance(sources.items, list)
    policies = concord.ok(list_policies.sync_detailed(client=concord.raw))
    assert policies.rules == [] and policies.dry_run is False
