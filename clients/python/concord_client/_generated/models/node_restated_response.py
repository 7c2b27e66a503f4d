from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

if TYPE_CHECKING:
    from ..models.node_dto import NodeDto


T = TypeVar("T", bound="NodeRestatedResponse")


@_attrs_define
class NodeRestatedResponse:
    """A restatement: the stored memory the write repeated, word for word (whitespace and case
    aside); nothing new was stored.

        Attributes:
            corroborated_by (list[str]): Every source that restated the memory (other than its own), oldest first.
            node (NodeDto): A node. Nodes inside conflicts always carry their full body.
            restated (bool): Always `true`.
    """

    corroborated_by: list[str]
    node: NodeDto
    restated: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        corroborated_by = self.corroborated_by

        node = self.node.to_dict()

        restated = self.restated

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "corroborated_by": corroborated_by,
                "node": node,
                "restated": restated,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.node_dto import NodeDto

        d = dict(src_dict)
        corroborated_by = cast(list[str], d.pop("corroborated_by"))

        node = NodeDto.from_dict(d.pop("node"))

        restated = d.pop("restated")

        node_restated_response = cls(
            corroborated_by=corroborated_by,
            node=node,
            restated=restated,
        )

        node_restated_response.additional_properties = d
        return node_restated_response

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
