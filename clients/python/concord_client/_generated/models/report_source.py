from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

T = TypeVar("T", bound="ReportSource")


@_attrs_define
class ReportSource:
    """One node a report or a recall cites (also the wire form: recall and reports share it).

    Attributes:
        confidence (str): `high` (≥ 0.8), `med` (≥ 0.5) or `low`.
        id (UUID):
        provenance (str): The node's `source`, or `node:<id>` when it has none.
        source_text (str): The node's body.
    """

    confidence: str
    id: UUID
    provenance: str
    source_text: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        confidence = self.confidence

        id = str(self.id)

        provenance = self.provenance

        source_text = self.source_text

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "confidence": confidence,
                "id": id,
                "provenance": provenance,
                "source_text": source_text,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        confidence = d.pop("confidence")

        id = UUID(d.pop("id"))

        provenance = d.pop("provenance")

        source_text = d.pop("source_text")

        report_source = cls(
            confidence=confidence,
            id=id,
            provenance=provenance,
            source_text=source_text,
        )

        report_source.additional_properties = d
        return report_source

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
