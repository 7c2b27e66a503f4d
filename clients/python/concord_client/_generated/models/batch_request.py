from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.batch_edge_request import BatchEdgeRequest
    from ..models.batch_node_request import BatchNodeRequest


T = TypeVar("T", bound="BatchRequest")


@_attrs_define
class BatchRequest:
    """Memories to store together, with optional edges among them.

    Attributes:
        nodes (list[BatchNodeRequest]): 1..1000 nodes, written (and detected) in this order. Read as JSON first and each
            item then as a node, so that an error points into its item (`/nodes/3/title`).
        edges (list[BatchEdgeRequest] | Unset): Up to 10,000 edges; default none.
    """

    nodes: list[BatchNodeRequest]
    edges: list[BatchEdgeRequest] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        nodes = []
        for nodes_item_data in self.nodes:
            nodes_item = nodes_item_data.to_dict()
            nodes.append(nodes_item)

        edges: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.edges, Unset):
            edges = []
            for edges_item_data in self.edges:
                edges_item = edges_item_data.to_dict()
                edges.append(edges_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "nodes": nodes,
            }
        )
        if edges is not UNSET:
            field_dict["edges"] = edges

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.batch_edge_request import BatchEdgeRequest
        from ..models.batch_node_request import BatchNodeRequest

        d = dict(src_dict)
        nodes = []
        _nodes = d.pop("nodes")
        for nodes_item_data in _nodes:
            nodes_item = BatchNodeRequest.from_dict(nodes_item_data)

            nodes.append(nodes_item)

        _edges = d.pop("edges", UNSET)
        edges: list[BatchEdgeRequest] | Unset = UNSET
        if _edges is not UNSET:
            edges = []
            for edges_item_data in _edges:
                edges_item = BatchEdgeRequest.from_dict(edges_item_data)

                edges.append(edges_item)

        batch_request = cls(
            nodes=nodes,
            edges=edges,
        )

        return batch_request
