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
    from ..models.recommendation_dto import RecommendationDto
    from ..models.wake_side import WakeSide


T = TypeVar("T", bound="WakeConflict")


@_attrs_define
class WakeConflict:
    """A conflict in the digest.

    Attributes:
        conflict_type (str):
        created_at (datetime.datetime):
        id (UUID):
        recommendation (RecommendationDto): What concord suggests.
        new (None | Unset | WakeSide):
        old (None | Unset | WakeSide):
    """

    conflict_type: str
    created_at: datetime.datetime
    id: UUID
    recommendation: RecommendationDto
    new: None | Unset | WakeSide = UNSET
    old: None | Unset | WakeSide = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.wake_side import WakeSide

        conflict_type = self.conflict_type

        created_at = self.created_at.isoformat()

        id = str(self.id)

        recommendation = self.recommendation.to_dict()

        new: dict[str, Any] | None | Unset
        if isinstance(self.new, Unset):
            new = UNSET
        elif isinstance(self.new, WakeSide):
            new = self.new.to_dict()
        else:
            new = self.new

        old: dict[str, Any] | None | Unset
        if isinstance(self.old, Unset):
            old = UNSET
        elif isinstance(self.old, WakeSide):
            old = self.old.to_dict()
        else:
            old = self.old

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "conflict_type": conflict_type,
                "created_at": created_at,
                "id": id,
                "recommendation": recommendation,
            }
        )
        if new is not UNSET:
            field_dict["new"] = new
        if old is not UNSET:
            field_dict["old"] = old

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.recommendation_dto import RecommendationDto
        from ..models.wake_side import WakeSide

        d = dict(src_dict)
        conflict_type = d.pop("conflict_type")

        created_at = isoparse(d.pop("created_at"))

        id = UUID(d.pop("id"))

        recommendation = RecommendationDto.from_dict(d.pop("recommendation"))

        def _parse_new(data: object) -> None | Unset | WakeSide:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                new_type_0 = WakeSide.from_dict(data)

                return new_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | WakeSide, data)

        new = _parse_new(d.pop("new", UNSET))

        def _parse_old(data: object) -> None | Unset | WakeSide:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                old_type_0 = WakeSide.from_dict(data)

                return old_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | WakeSide, data)

        old = _parse_old(d.pop("old", UNSET))

        wake_conflict = cls(
            conflict_type=conflict_type,
            created_at=created_at,
            id=id,
            recommendation=recommendation,
            new=new,
            old=old,
        )

        wake_conflict.additional_properties = d
        return wake_conflict

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
