from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse
from typing_extensions import Self

T = TypeVar("T", bound="EdgeDto")


@_attrs_define
class EdgeDto:
    """A typed, weighted edge. `A supersedes B` means A replaced B.

    Attributes:
        confidence (float):
        created_at (datetime.datetime):
        id (UUID):
        kind (str): `[a-z_]{1,40}`; concord writes `contradicts`, `supersedes`, `relates_to`.
        neural_weight (float):
        source_id (UUID):
        strength (float):
        target_id (UUID):
        valid_from (datetime.datetime):
    """

    confidence: float
    created_at: datetime.datetime
    id: UUID
    kind: str
    neural_weight: float
    source_id: UUID
    strength: float
    target_id: UUID
    valid_from: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        confidence = self.confidence

        created_at = self.created_at.isoformat()

        id = str(self.id)

        kind = self.kind

        neural_weight = self.neural_weight

        source_id = str(self.source_id)

        strength = self.strength

        target_id = str(self.target_id)

        valid_from = self.valid_from.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "confidence": confidence,
                "created_at": created_at,
                "id": id,
                "kind": kind,
                "neural_weight": neural_weight,
                "source_id": source_id,
                "strength": strength,
                "target_id": target_id,
                "valid_from": valid_from,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        confidence = d.pop("confidence")

        created_at = isoparse(d.pop("created_at"))

        id = UUID(d.pop("id"))

        kind = d.pop("kind")

        neural_weight = d.pop("neural_weight")

        source_id = UUID(d.pop("source_id"))

        strength = d.pop("strength")

        target_id = UUID(d.pop("target_id"))

        valid_from = isoparse(d.pop("valid_from"))

        edge_dto = cls(
            confidence=confidence,
            created_at=created_at,
            id=id,
            kind=kind,
            neural_weight=neural_weight,
            source_id=source_id,
            strength=strength,
            target_id=target_id,
            valid_from=valid_from,
        )

        edge_dto.additional_properties = d
        return edge_dto

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
