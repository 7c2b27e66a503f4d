from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="RecommendationDto")


@_attrs_define
class RecommendationDto:
    """What concord suggests.

    Attributes:
        reasoning (str): One line of reasoning.
        resolution (str): `prefer-recent`, `prefer-authoritative` or `escalate-to-user`.
        strategy (None | str | Unset): Suggested strategy; null for `escalate-to-user`.
    """

    reasoning: str
    resolution: str
    strategy: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        reasoning = self.reasoning

        resolution = self.resolution

        strategy: None | str | Unset
        if isinstance(self.strategy, Unset):
            strategy = UNSET
        else:
            strategy = self.strategy

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "reasoning": reasoning,
                "resolution": resolution,
            }
        )
        if strategy is not UNSET:
            field_dict["strategy"] = strategy

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        reasoning = d.pop("reasoning")

        resolution = d.pop("resolution")

        def _parse_strategy(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        strategy = _parse_strategy(d.pop("strategy", UNSET))

        recommendation_dto = cls(
            reasoning=reasoning,
            resolution=resolution,
            strategy=strategy,
        )

        recommendation_dto.additional_properties = d
        return recommendation_dto

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
