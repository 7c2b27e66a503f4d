from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.conflict_stats_response_by_type import ConflictStatsResponseByType


T = TypeVar("T", bound="ConflictStatsResponse")


@_attrs_define
class ConflictStatsResponse:
    """Queue counters, cheap enough to poll.

    Attributes:
        by_type (ConflictStatsResponseByType): Pending conflicts per type.
        pending (int): Pending conflicts.
        resolved (int): Resolved conflicts.
        oldest_pending_at (datetime.datetime | None | Unset): Creation time of the oldest pending conflict.
    """

    by_type: ConflictStatsResponseByType
    pending: int
    resolved: int
    oldest_pending_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        by_type = self.by_type.to_dict()

        pending = self.pending

        resolved = self.resolved

        oldest_pending_at: None | str | Unset
        if isinstance(self.oldest_pending_at, Unset):
            oldest_pending_at = UNSET
        elif isinstance(self.oldest_pending_at, datetime.datetime):
            oldest_pending_at = self.oldest_pending_at.isoformat()
        else:
            oldest_pending_at = self.oldest_pending_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "by_type": by_type,
                "pending": pending,
                "resolved": resolved,
            }
        )
        if oldest_pending_at is not UNSET:
            field_dict["oldest_pending_at"] = oldest_pending_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.conflict_stats_response_by_type import ConflictStatsResponseByType

        d = dict(src_dict)
        by_type = ConflictStatsResponseByType.from_dict(d.pop("by_type"))

        pending = d.pop("pending")

        resolved = d.pop("resolved")

        def _parse_oldest_pending_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                oldest_pending_at_type_0 = isoparse(data)

                return oldest_pending_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        oldest_pending_at = _parse_oldest_pending_at(d.pop("oldest_pending_at", UNSET))

        conflict_stats_response = cls(
            by_type=by_type,
            pending=pending,
            resolved=resolved,
            oldest_pending_at=oldest_pending_at,
        )

        conflict_stats_response.additional_properties = d
        return conflict_stats_response

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
