"""Memories and edges: the node operations, through the hand-written methods where there is
one and through the generated operations (on the same client) for the rest."""

from __future__ import annotations

import uuid

import pytest
from support import contradiction

from concord_client import Concord
from concord_client._generated.api.edges import create_edge, list_edges
from concord_client._generated.api.nodes import (
    check_node,
    create_batch,
    get_timeline,
    get_version,
    list_versions,
)
from concord_client.errors import NotFound
from concord_client.models import (
    BatchEdgeRequest,
    BatchNodeRequest,
    BatchRequest,
    CreateEdgeRequest,
    NodeRestatedResponse,
    NodeStateDto,
    NodeWriteResponse,
    PatchNodeRequest,
)


def test_remember_read_patch_forget(concord: Concord, scope: str) -> None:
    written = concord.remember(
        "Deploy day", "Deploys happen on Tuesdays", labels=["Ops", "ops"], scope=scope
    )
    assert isinstance(written, NodeWriteResponse)
    node = written.node
    assert node.labels == ["ops"] and node.scope == scope and node.confidence == 0.8
    assert concord.node(node.id).body == "Deploys happen on Tuesdays"

    patched = concord.update_node(node.id, PatchNodeRequest(confidence=0.9, labels=["ops", "x"]))
    assert patched.confidence == 0.9 and patched.labels == ["ops", "x"]

    versions = concord.ok(list_versions.sync_detailed(node.id, client=concord.raw))
    assert [v.version for v in versions.items] == [1, 2]
    first = concord.ok(get_version.sync_detailed(node.id, 1, client=concord.raw))
    assert first.confidence == 0.8

    concord.forget(node.id)
    with pytest.raises(NotFound):
        concord.node(node.id)
    # A deleted memory keeps its versions.
    assert concord.ok(get_version.sync_detailed(node.id, 2, client=concord.raw)).version == 2


def test_restatement_is_not_stored_twice(concord: Concord, scope: str) -> None:
    first = concord.remember("Office", "The office is in Berlin", scope=scope, source="a")
    again = concord.remember("office", "The office is in  Berlin", scope=scope, source="b")
    assert isinstance(again, NodeRestatedResponse)
    assert again.restated and again.node.id == first.node.id and again.corroborated_by == ["b"]
    copy = concord.remember("Office", "The office is in Berlin", scope=scope, allow_duplicate=True)
    assert isinstance(copy, NodeWriteResponse) and copy.node.id != first.node.id


def test_node_paging_follows_the_cursor(concord: Concord, scope: str) -> None:
    label = "page-" + uuid.uuid4().hex[:8]
    ids = {
        concord.remember(
            f"Paged memory {i} {label}", f"entry {i}", scope=scope, labels=[label]
        ).node.id
        for i in range(7)
    }
    listed = list(concord.nodes(label=label, scope=scope, page_size=3))
    assert {n.id for n in listed} == ids and len(listed) == 7
    # Newest first without `q`.
    assert [n.created_at for n in listed] == sorted((n.created_at for n in listed), reverse=True)
    assert {n.id for n in concord.nodes(q=label, scope=scope, page_size=2)} == ids


def test_batch_edges_and_check(concord: Concord, scope: str) -> None:
    batch = BatchRequest(
        nodes=[
            BatchNodeRequest(
                title="Queue size", body="The queue holds 100 jobs", ref="q", scope=scope
            ),
            BatchNodeRequest(
                title="Worker", body="The worker drains the queue", ref="w", scope=scope
            ),
        ],
        edges=[BatchEdgeRequest(source="w", target="q", kind="depends_on")],
    )
    written = concord.ok(create_batch.sync_detailed(client=concord.raw, body=batch))
    queue, worker = (n.node for n in written.nodes)
    assert [n.ref for n in written.nodes] == ["q", "w"] and written.edges[0].kind == "depends_on"

    edge = concord.ok(
        create_edge.sync_detailed(
            client=concord.raw,
            body=CreateEdgeRequest(source_id=queue.id, target_id=worker.id, kind="relates_to"),
        )
    )
    both = concord.ok(list_edges.sync_detailed(queue.id, client=concord.raw, direction="both"))
    assert {e.id for e in both.items} >= {edge.id, written.edges[0].id}
    outgoing = concord.ok(list_edges.sync_detailed(queue.id, client=concord.raw, direction="out"))
    assert [e.id for e in outgoing.items] == [edge.id]

    # A check reports the node's pending conflicts and writes nothing.
    pair = contradiction(concord, scope)
    checked = concord.ok(check_node.sync_detailed(pair.new_id, client=concord.raw))
    assert isinstance(checked.conflicts, list)
    assert [h.conflict_id for h in checked.conflicts] == [pair.conflict_id]
    assert concord.ok(check_node.sync_detailed(queue.id, client=concord.raw)).node_id == queue.id


def test_recall_and_timeline(concord: Concord, scope: str) -> None:
    pair = contradiction(concord, scope)
    topic = concord.node(pair.old_id).title
    recalled = concord.recall(topic, scope=scope)
    assert {s.id for s in recalled.sources} >= {pair.old_id, pair.new_id}
    assert isinstance(recalled.conflicts, list)
    assert recalled.conflicts[0].conflict_id == pair.conflict_id

    concord.resolve(pair.conflict_id, "new_is_current", resolved_by="tests")
    assert concord.node(pair.old_id).state == NodeStateDto.DORMANT
    recalled = concord.recall(topic, scope=scope)
    assert [s.id for s in recalled.sources] == [pair.new_id]
    timeline = concord.ok(get_timeline.sync_detailed(pair.new_id, client=concord.raw))
    assert [e.node.id for e in timeline.entries] == [pair.old_id, pair.new_id]
