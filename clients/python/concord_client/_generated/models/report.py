from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.report_conflict import ReportConflict
    from ..models.report_source import ReportSource


T = TypeVar("T", bound="Report")


@_attrs_define
class Report:
    """A conflict-aware answer about a topic. `confidence`: `low` when a high-severity conflict
    exists, `med` with other conflicts or mostly unsure sources, else `high`. Severity: `high`
    for value-layer labels or probability ≥ 0.85, `medium` from 0.65, else `low`.

        Attributes:
            confidence (str): `high`, `med` or `low`.
            created_at (datetime.datetime):
            id (UUID):
            sources (list[ReportSource]):
            sources_analyzed (int):
            summary (str):
            topic (str):
            as_of (datetime.datetime | None | Unset): The valid time asked for; absent for a report about now.
            conflicts (list[ReportConflict] | Unset): Absent when none.
            known_at (datetime.datetime | None | Unset): The system time asked for; absent for a report about now.
    """

    confidence: str
    created_at: datetime.datetime
    id: UUID
    sources: list[ReportSource]
    sources_analyzed: int
    summary: str
    topic: str
    as_of: datetime.datetime | None | Unset = UNSET
    conflicts: list[ReportConflict] | Unset = UNSET
    known_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        confidence = self.confidence

        created_at = self.created_at.isoformat()

        id = str(self.id)

        sources = []
        for sources_item_data in self.sources:
            sources_item = sources_item_data.to_dict()
            sources.append(sources_item)

        sources_analyzed = self.sources_analyzed

        summary = self.summary

        topic = self.topic

        as_of: None | str | Unset
        if isinstance(self.as_of, Unset):
            as_of = UNSET
        elif isinstance(self.as_of, datetime.datetime):
            as_of = self.as_of.isoformat()
        else:
            as_of = self.as_of

        conflicts: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.conflicts, Unset):
            conflicts = []
            for conflicts_item_data in self.conflicts:
                conflicts_item = conflicts_item_data.to_dict()
                conflicts.append(conflicts_item)

        known_at: None | str | Unset
        if isinstance(self.known_at, Unset):
            known_at = UNSET
        elif isinstance(self.known_at, datetime.datetime):
            known_at = self.known_at.isoformat()
        else:
            known_at = self.known_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "confidence": confidence,
                "created_at": created_at,
                "id": id,
                "sources": sources,
                "sources_analyzed": sources_analyzed,
                "summary": summary,
                "topic": topic,
            }
        )
        if as_of is not UNSET:
            field_dict["as_of"] = as_of
        if conflicts is not UNSET:
            field_dict["conflicts"] = conflicts
        if known_at is not UNSET:
            field_dict["known_at"] = known_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.report_conflict import ReportConflict
        from ..models.report_source import ReportSource

        d = dict(src_dict)
        confidence = d.pop("confidence")

        created_at = isoparse(d.pop("created_at"))

        id = UUID(d.pop("id"))

        sources = []
        _sources = d.pop("sources")
        for sources_item_data in _sources:
            sources_item = ReportSource.from_dict(sources_item_data)

            sources.append(sources_item)

        sources_analyzed = d.pop("sources_analyzed")

        summary = d.pop("summary")

        topic = d.pop("topic")

        def _parse_as_of(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                as_of_type_0 = isoparse(data)

                return as_of_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        as_of = _parse_as_of(d.pop("as_of", UNSET))

        _conflicts = d.pop("conflicts", UNSET)
        conflicts: list[ReportConflict] | Unset = UNSET
        if _conflicts is not UNSET:
            conflicts = []
            for conflicts_item_data in _conflicts:
                conflicts_item = ReportConflict.from_dict(conflicts_item_data)

                conflicts.append(conflicts_item)

        def _parse_known_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                known_at_type_0 = isoparse(data)

                return known_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        known_at = _parse_known_at(d.pop("known_at", UNSET))

        report = cls(
            confidence=confidence,
            created_at=created_at,
            id=id,
            sources=sources,
            sources_analyzed=sources_analyzed,
            summary=summary,
            topic=topic,
            as_of=as_of,
            conflicts=conflicts,
            known_at=known_at,
        )

        report.additional_properties = d
        return report

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
