from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

if TYPE_CHECKING:
    from ..models.timeline_entry_dto import TimelineEntryDto


T = TypeVar("T", bound="TimelineResponse")


@_attrs_define
class TimelineResponse:
    """The memories that superseded one another about one subject, oldest first.

    Attributes:
        entries (list[TimelineEntryDto]): Oldest first, at most 100.
        node_id (UUID):
        summary (str): The chain in one sentence, e.g. "“Region is us-east-1” until 2026-03-01, replaced as
            decided by ops-lead; then “Region is eu-west-1”."
    """

    entries: list[TimelineEntryDto]
    node_id: UUID
    summary: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        entries = []
        for entries_item_data in self.entries:
            entries_item = entries_item_data.to_dict()
            entries.append(entries_item)

        node_id = str(self.node_id)

        summary = self.summary

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "entries": entries,
                "node_id": node_id,
                "summary": summary,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.timeline_entry_dto import TimelineEntryDto

        d = dict(src_dict)
        entries = []
        _entries = d.pop("entries")
        for entries_item_data in _entries:
            entries_item = TimelineEntryDto.from_dict(entries_item_data)

            entries.append(entries_item)

        node_id = UUID(d.pop("node_id"))

        summary = d.pop("summary")

        timeline_response = cls(
            entries=entries,
            node_id=node_id,
            summary=summary,
        )

        timeline_response.additional_properties = d
        return timeline_response

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
