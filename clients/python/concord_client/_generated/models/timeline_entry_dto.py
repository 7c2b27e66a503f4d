from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.node_dto import NodeDto
    from ..models.replacement_dto import ReplacementDto


T = TypeVar("T", bound="TimelineEntryDto")


@_attrs_define
class TimelineEntryDto:
    """One memory of a timeline: the memory (its `observed_at`, `valid_until` and `corrected`
    say when it held) and what replaced it.

        Attributes:
            node (NodeDto): A node. Nodes inside conflicts always carry their full body.
            replaced_by (None | ReplacementDto | Unset):
    """

    node: NodeDto
    replaced_by: None | ReplacementDto | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.replacement_dto import ReplacementDto

        node = self.node.to_dict()

        replaced_by: dict[str, Any] | None | Unset
        if isinstance(self.replaced_by, Unset):
            replaced_by = UNSET
        elif isinstance(self.replaced_by, ReplacementDto):
            replaced_by = self.replaced_by.to_dict()
        else:
            replaced_by = self.replaced_by

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "node": node,
            }
        )
        if replaced_by is not UNSET:
            field_dict["replaced_by"] = replaced_by

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.node_dto import NodeDto
        from ..models.replacement_dto import ReplacementDto

        d = dict(src_dict)
        node = NodeDto.from_dict(d.pop("node"))

        def _parse_replaced_by(data: object) -> None | ReplacementDto | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                replaced_by_type_0 = ReplacementDto.from_dict(data)

                return replaced_by_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReplacementDto | Unset, data)

        replaced_by = _parse_replaced_by(d.pop("replaced_by", UNSET))

        timeline_entry_dto = cls(
            node=node,
            replaced_by=replaced_by,
        )

        timeline_entry_dto.additional_properties = d
        return timeline_entry_dto

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
