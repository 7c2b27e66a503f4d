from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.recall_conflict import RecallConflict
    from ..models.report_source import ReportSource


T = TypeVar("T", bound="Recall")


@_attrs_define
class Recall:
    """Memories that answer a query, and where they disagree.

    Attributes:
        query (str): The query, trimmed.
        sources (list[ReportSource]): Best match first; the other side of a pending conflict follows the matches.
        conflicts (list[RecallConflict] | Unset): Absent when the returned memories agree.
    """

    query: str
    sources: list[ReportSource]
    conflicts: list[RecallConflict] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        query = self.query

        sources = []
        for sources_item_data in self.sources:
            sources_item = sources_item_data.to_dict()
            sources.append(sources_item)

        conflicts: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.conflicts, Unset):
            conflicts = []
            for conflicts_item_data in self.conflicts:
                conflicts_item = conflicts_item_data.to_dict()
                conflicts.append(conflicts_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "query": query,
                "sources": sources,
            }
        )
        if conflicts is not UNSET:
            field_dict["conflicts"] = conflicts

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.recall_conflict import RecallConflict
        from ..models.report_source import ReportSource

        d = dict(src_dict)
        query = d.pop("query")

        sources = []
        _sources = d.pop("sources")
        for sources_item_data in _sources:
            sources_item = ReportSource.from_dict(sources_item_data)

            sources.append(sources_item)

        _conflicts = d.pop("conflicts", UNSET)
        conflicts: list[RecallConflict] | Unset = UNSET
        if _conflicts is not UNSET:
            conflicts = []
            for conflicts_item_data in _conflicts:
                conflicts_item = RecallConflict.from_dict(conflicts_item_data)

                conflicts.append(conflicts_item)

        recall = cls(
            query=query,
            sources=sources,
            conflicts=conflicts,
        )

        recall.additional_properties = d
        return recall

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
