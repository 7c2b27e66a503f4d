from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="PolicyMatchDto")


@_attrs_define
class PolicyMatchDto:
    """The conditions of a rule; all must hold, and an absent one matches anything.

    Attributes:
        conflict_types (list[str] | None | Unset): The conflict type is one of these.
        labels (list[str] | None | Unset): Either node carries one of these labels.
        memory_types (list[str] | None | Unset): The nodes' memory type is one of these.
        min_credibility_gap (float | None | Unset): The source of the side the action keeps current is at least this
            much more credible
            (either side for `keep_both` and `merge`); no source or no verdicts counts as 0.5.
        min_probability (float | None | Unset): The detection probability is at least this.
        recommendation (list[str] | None | Unset): `recommendation.resolution` is one of these.
        same_source (bool | None | Unset): `true`: both nodes name the same source; `false`: they do not (or one names
            none).
    """

    conflict_types: list[str] | None | Unset = UNSET
    labels: list[str] | None | Unset = UNSET
    memory_types: list[str] | None | Unset = UNSET
    min_credibility_gap: float | None | Unset = UNSET
    min_probability: float | None | Unset = UNSET
    recommendation: list[str] | None | Unset = UNSET
    same_source: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        conflict_types: list[str] | None | Unset
        if isinstance(self.conflict_types, Unset):
            conflict_types = UNSET
        elif isinstance(self.conflict_types, list):
            conflict_types = self.conflict_types

        else:
            conflict_types = self.conflict_types

        labels: list[str] | None | Unset
        if isinstance(self.labels, Unset):
            labels = UNSET
        elif isinstance(self.labels, list):
            labels = self.labels

        else:
            labels = self.labels

        memory_types: list[str] | None | Unset
        if isinstance(self.memory_types, Unset):
            memory_types = UNSET
        elif isinstance(self.memory_types, list):
            memory_types = self.memory_types

        else:
            memory_types = self.memory_types

        min_credibility_gap: float | None | Unset
        if isinstance(self.min_credibility_gap, Unset):
            min_credibility_gap = UNSET
        else:
            min_credibility_gap = self.min_credibility_gap

        min_probability: float | None | Unset
        if isinstance(self.min_probability, Unset):
            min_probability = UNSET
        else:
            min_probability = self.min_probability

        recommendation: list[str] | None | Unset
        if isinstance(self.recommendation, Unset):
            recommendation = UNSET
        elif isinstance(self.recommendation, list):
            recommendation = self.recommendation

        else:
            recommendation = self.recommendation

        same_source: bool | None | Unset
        if isinstance(self.same_source, Unset):
            same_source = UNSET
        else:
            same_source = self.same_source

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if conflict_types is not UNSET:
            field_dict["conflict_types"] = conflict_types
        if labels is not UNSET:
            field_dict["labels"] = labels
        if memory_types is not UNSET:
            field_dict["memory_types"] = memory_types
        if min_credibility_gap is not UNSET:
            field_dict["min_credibility_gap"] = min_credibility_gap
        if min_probability is not UNSET:
            field_dict["min_probability"] = min_probability
        if recommendation is not UNSET:
            field_dict["recommendation"] = recommendation
        if same_source is not UNSET:
            field_dict["same_source"] = same_source

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_conflict_types(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                conflict_types_type_0 = cast(list[str], data)

                return conflict_types_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        conflict_types = _parse_conflict_types(d.pop("conflict_types", UNSET))

        def _parse_labels(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                labels_type_0 = cast(list[str], data)

                return labels_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        labels = _parse_labels(d.pop("labels", UNSET))

        def _parse_memory_types(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                memory_types_type_0 = cast(list[str], data)

                return memory_types_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        memory_types = _parse_memory_types(d.pop("memory_types", UNSET))

        def _parse_min_credibility_gap(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        min_credibility_gap = _parse_min_credibility_gap(d.pop("min_credibility_gap", UNSET))

        def _parse_min_probability(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        min_probability = _parse_min_probability(d.pop("min_probability", UNSET))

        def _parse_recommendation(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                recommendation_type_0 = cast(list[str], data)

                return recommendation_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        recommendation = _parse_recommendation(d.pop("recommendation", UNSET))

        def _parse_same_source(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        same_source = _parse_same_source(d.pop("same_source", UNSET))

        policy_match_dto = cls(
            conflict_types=conflict_types,
            labels=labels,
            memory_types=memory_types,
            min_credibility_gap=min_credibility_gap,
            min_probability=min_probability,
            recommendation=recommendation,
            same_source=same_source,
        )

        policy_match_dto.additional_properties = d
        return policy_match_dto

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
