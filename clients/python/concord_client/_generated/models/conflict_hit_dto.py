from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.policy_mark_dto import PolicyMarkDto
    from ..models.recommendation_dto import RecommendationDto


T = TypeVar("T", bound="ConflictHitDto")


@_attrs_define
class ConflictHitDto:
    """A conflict found by a write or a check.

    Attributes:
        conflict_type (str):
        old_node_id (UUID):
        probability (float):
        recommendation (RecommendationDto): What concord suggests.
        signals (list[str]):
        conflict_id (None | Unset | UUID): The conflict that stands for this pair: on a write, the one it queued; on a
            check
            (which queues nothing), a pending conflict queued earlier or one decided `keep_both`,
            absent for a new finding.
        policy (None | PolicyMarkDto | Unset):
        resolution (None | str | Unset): The strategy a resolution policy applied in the same write; on a check,
            `keep_both`
            when a reviewer (or policy) decided earlier that both hold. Absent while the conflict
            is pending.
        resolved_by (None | str | Unset): `policy:<name>` when a resolution policy resolved the conflict in the same
            write; on a
            check, who decided `keep_both`.
    """

    conflict_type: str
    old_node_id: UUID
    probability: float
    recommendation: RecommendationDto
    signals: list[str]
    conflict_id: None | Unset | UUID = UNSET
    policy: None | PolicyMarkDto | Unset = UNSET
    resolution: None | str | Unset = UNSET
    resolved_by: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.policy_mark_dto import PolicyMarkDto

        conflict_type = self.conflict_type

        old_node_id = str(self.old_node_id)

        probability = self.probability

        recommendation = self.recommendation.to_dict()

        signals = self.signals

        conflict_id: None | str | Unset
        if isinstance(self.conflict_id, Unset):
            conflict_id = UNSET
        elif isinstance(self.conflict_id, UUID):
            conflict_id = str(self.conflict_id)
        else:
            conflict_id = self.conflict_id

        policy: dict[str, Any] | None | Unset
        if isinstance(self.policy, Unset):
            policy = UNSET
        elif isinstance(self.policy, PolicyMarkDto):
            policy = self.policy.to_dict()
        else:
            policy = self.policy

        resolution: None | str | Unset
        if isinstance(self.resolution, Unset):
            resolution = UNSET
        else:
            resolution = self.resolution

        resolved_by: None | str | Unset
        if isinstance(self.resolved_by, Unset):
            resolved_by = UNSET
        else:
            resolved_by = self.resolved_by

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "conflict_type": conflict_type,
                "old_node_id": old_node_id,
                "probability": probability,
                "recommendation": recommendation,
                "signals": signals,
            }
        )
        if conflict_id is not UNSET:
            field_dict["conflict_id"] = conflict_id
        if policy is not UNSET:
            field_dict["policy"] = policy
        if resolution is not UNSET:
            field_dict["resolution"] = resolution
        if resolved_by is not UNSET:
            field_dict["resolved_by"] = resolved_by

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.policy_mark_dto import PolicyMarkDto
        from ..models.recommendation_dto import RecommendationDto

        d = dict(src_dict)
        conflict_type = d.pop("conflict_type")

        old_node_id = UUID(d.pop("old_node_id"))

        probability = d.pop("probability")

        recommendation = RecommendationDto.from_dict(d.pop("recommendation"))

        signals = cast(list[str], d.pop("signals"))

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

        def _parse_policy(data: object) -> None | PolicyMarkDto | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                policy_type_0 = PolicyMarkDto.from_dict(data)

                return policy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PolicyMarkDto | Unset, data)

        policy = _parse_policy(d.pop("policy", UNSET))

        def _parse_resolution(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        resolution = _parse_resolution(d.pop("resolution", UNSET))

        def _parse_resolved_by(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        resolved_by = _parse_resolved_by(d.pop("resolved_by", UNSET))

        conflict_hit_dto = cls(
            conflict_type=conflict_type,
            old_node_id=old_node_id,
            probability=probability,
            recommendation=recommendation,
            signals=signals,
            conflict_id=conflict_id,
            policy=policy,
            resolution=resolution,
            resolved_by=resolved_by,
        )

        conflict_hit_dto.additional_properties = d
        return conflict_hit_dto

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
