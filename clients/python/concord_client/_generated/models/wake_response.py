from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

if TYPE_CHECKING:
    from ..models.wake_conflict import WakeConflict


T = TypeVar("T", bound="WakeResponse")


@_attrs_define
class WakeResponse:
    """Pending conflicts after the cursor.

    Attributes:
        conflicts (list[WakeConflict]): The oldest pending conflicts after the cursor, at most `max`.
        cursor (str): Pass as `after` next time.
        message (str): Ready-to-read text: each conflict's OLD and NEW side, then `... and N more`.
        more (int): Pending conflicts after these.
        pending_total (int): All pending conflicts.
    """

    conflicts: list[WakeConflict]
    cursor: str
    message: str
    more: int
    pending_total: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        conflicts = []
        for conflicts_item_data in self.conflicts:
            conflicts_item = conflicts_item_data.to_dict()
            conflicts.append(conflicts_item)

        cursor = self.cursor

        message = self.message

        more = self.more

        pending_total = self.pending_total

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "conflicts": conflicts,
                "cursor": cursor,
                "message": message,
                "more": more,
                "pending_total": pending_total,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.wake_conflict import WakeConflict

        d = dict(src_dict)
        conflicts = []
        _conflicts = d.pop("conflicts")
        for conflicts_item_data in _conflicts:
            conflicts_item = WakeConflict.from_dict(conflicts_item_data)

            conflicts.append(conflicts_item)

        cursor = d.pop("cursor")

        message = d.pop("message")

        more = d.pop("more")

        pending_total = d.pop("pending_total")

        wake_response = cls(
            conflicts=conflicts,
            cursor=cursor,
            message=message,
            more=more,
            pending_total=pending_total,
        )

        wake_response.additional_properties = d
        return wake_response

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
