from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

T = TypeVar("T", bound="ReportConflict")


@_attrs_define
class ReportConflict:
    """Two sources that contradict each other.

    Attributes:
        claims (list[str]): Their texts, in the same order.
        conflict_type (str):
        probability (float):
        reasoning (str):
        recommended_resolution (str):
        severity (str): `high`, `medium` or `low`.
        sources (list[UUID]): Older source first.
    """

    claims: list[str]
    conflict_type: str
    probability: float
    reasoning: str
    recommended_resolution: str
    severity: str
    sources: list[UUID]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        claims = self.claims

        conflict_type = self.conflict_type

        probability = self.probability

        reasoning = self.reasoning

        recommended_resolution = self.recommended_resolution

        severity = self.severity

        sources = []
        for sources_item_data in self.sources:
            sources_item = str(sources_item_data)
            sources.append(sources_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "claims": claims,
                "conflict_type": conflict_type,
                "probability": probability,
                "reasoning": reasoning,
                "recommended_resolution": recommended_resolution,
                "severity": severity,
                "sources": sources,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        claims = cast(list[str], d.pop("claims"))

        conflict_type = d.pop("conflict_type")

        probability = d.pop("probability")

        reasoning = d.pop("reasoning")

        recommended_resolution = d.pop("recommended_resolution")

        severity = d.pop("severity")

        sources = []
        _sources = d.pop("sources")
        for sources_item_data in _sources:
            sources_item = UUID(sources_item_data)

            sources.append(sources_item)

        report_conflict = cls(
            claims=claims,
            conflict_type=conflict_type,
            probability=probability,
            reasoning=reasoning,
            recommended_resolution=recommended_resolution,
            severity=severity,
            sources=sources,
        )

        report_conflict.additional_properties = d
        return report_conflict

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
