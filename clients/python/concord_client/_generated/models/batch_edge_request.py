from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from dateutil.parser import isoparse
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="BatchEdgeRequest")


@_attrs_define
class BatchEdgeRequest:
    """An edge of a batch; its ends are a `ref` of the batch or the id of a stored node.

    Attributes:
        kind (str): `[a-z_]{1,40}`, e.g. `depends_on`.
        source (str): A node of the batch (its `ref`) or a stored node (its id).
        target (str): A node of the batch (its `ref`) or a stored node (its id); not the same node as
            `source`.
        confidence (float | None | Unset): 0..1, default 1.0.
        neural_weight (float | None | Unset): 0..1, default 0.5.
        strength (float | None | Unset): 0..1, default 0.5.
        valid_from (datetime.datetime | None | Unset): RFC 3339, UTC once its offset is applied between years 0000 and
            9999; default now.
    """

    kind: str
    source: str
    target: str
    confidence: float | None | Unset = UNSET
    neural_weight: float | None | Unset = UNSET
    strength: float | None | Unset = UNSET
    valid_from: datetime.datetime | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind

        source = self.source

        target = self.target

        confidence: float | None | Unset
        if isinstance(self.confidence, Unset):
            confidence = UNSET
        else:
            confidence = self.confidence

        neural_weight: float | None | Unset
        if isinstance(self.neural_weight, Unset):
            neural_weight = UNSET
        else:
            neural_weight = self.neural_weight

        strength: float | None | Unset
        if isinstance(self.strength, Unset):
            strength = UNSET
        else:
            strength = self.strength

        valid_from: None | str | Unset
        if isinstance(self.valid_from, Unset):
            valid_from = UNSET
        elif isinstance(self.valid_from, datetime.datetime):
            valid_from = self.valid_from.isoformat()
        else:
            valid_from = self.valid_from

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
                "source": source,
                "target": target,
            }
        )
        if confidence is not UNSET:
            field_dict["confidence"] = confidence
        if neural_weight is not UNSET:
            field_dict["neural_weight"] = neural_weight
        if strength is not UNSET:
            field_dict["strength"] = strength
        if valid_from is not UNSET:
            field_dict["valid_from"] = valid_from

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kind = d.pop("kind")

        source = d.pop("source")

        target = d.pop("target")

        def _parse_confidence(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        confidence = _parse_confidence(d.pop("confidence", UNSET))

        def _parse_neural_weight(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        neural_weight = _parse_neural_weight(d.pop("neural_weight", UNSET))

        def _parse_strength(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        strength = _parse_strength(d.pop("strength", UNSET))

        def _parse_valid_from(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                valid_from_type_0 = isoparse(data)

                return valid_from_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        valid_from = _parse_valid_from(d.pop("valid_from", UNSET))

        batch_edge_request = cls(
            kind=kind,
            source=source,
            target=target,
            confidence=confidence,
            neural_weight=neural_weight,
            strength=strength,
            valid_from=valid_from,
        )

        return batch_edge_request
