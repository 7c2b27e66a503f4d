from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="RecallConflict")


@_attrs_define
class RecallConflict:
    """Two memories that disagree.

    Attributes:
        conflict_type (str): `direct-contradiction`, `numeric-mismatch`, `temporal-mismatch` or `scope-mismatch`.
        reasoning (str): What disagrees and why the recommendation.
        recommended_resolution (str): `prefer-recent`, `prefer-authoritative` or `escalate-to-user`.
        sources (list[UUID]): The older (or already stored) memory first; both are in `sources`.
        conflict_id (None | Unset | UUID): The queued conflict to resolve; absent when recall's own detection found the
            disagreement (nothing is queued by a recall).
    """

    conflict_type: str
    reasoning: str
    recommended_resolution: str
    sources: list[UUID]
    conflict_id: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        conflict_type = self.conflict_type

        reasoning = self.reasoning

        recommended_resolution = self.recommended_resolution

        sources = []
        for sources_item_data in self.sources:
            sources_item = str(sources_item_data)
            sources.append(sources_item)

        conflict_id: None | str | Unset
        if isinstance(self.conflict_id, Unset):
            conflict_id = UNSET
        elif isinstance(self.conflict_id, UUID):
            conflict_id = str(self.conflict_id)
        else:
            conflict_id = self.conflict_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "conflict_type": conflict_type,
                "reasoning": reasoning,
                "recommended_resolution": recommended_resolution,
                "sources": sources,
            }
        )
        if conflict_id is not UNSET:
            field_dict["conflict_id"] = conflict_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        conflict_type = d.pop("conflict_type")

        reasoning = d.pop("reasoning")

        recommended_resolution = d.pop("recommended_resolution")

        sources = []
        _sources = d.pop("sources")
        for sources_item_data in _sources:
            sources_item = UUID(sources_item_data)

            sources.append(sources_item)

        def _parse_conflict_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                conflict_id_type_0 = UUID(data)

                return conflict_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        conflict_id = _parse_conflict_id(d.pop("conflict_id", UNSET))

        recall_conflict = cls(
            conflict_type=conflict_type,
            reasoning=reasoning,
            recommended_resolution=recommended_resolution,
            sources=sources,
            conflict_id=conflict_id,
        )

        recall_conflict.additional_properties = d
        return recall_conflict

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
