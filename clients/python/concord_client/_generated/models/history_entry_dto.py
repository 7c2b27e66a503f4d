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
    from ..models.action_dto import ActionDto


T = TypeVar("T", bound="HistoryEntryDto")


@_attrs_define
class HistoryEntryDto:
    """One change of a conflict.

    Attributes:
        actions (list[ActionDto]): What the change did, in order.
        at (datetime.datetime):
        kind (str): `queued`, `resolved`, `reverted` or `auto_resolved`.
        by (None | str | Unset): Who made the change (`resolved_by`, `reverted_by`, `policy:<name>`); null when unnamed.
        key (None | str | Unset): The name of the API key that made it (`GET /audit`): for `queued` and `auto_resolved`,
            the key of the write that found the conflict; null without keys and for a sweep's.
        note (None | str | Unset):
        resolution (None | str | Unset): The strategy applied, or undone by a revert.
    """

    actions: list[ActionDto]
    at: datetime.datetime
    kind: str
    by: None | str | Unset = UNSET
    key: None | str | Unset = UNSET
    note: None | str | Unset = UNSET
    resolution: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        actions = []
        for actions_item_data in self.actions:
            actions_item = actions_item_data.to_dict()
            actions.append(actions_item)

        at = self.at.isoformat()

        kind = self.kind

        by: None | str | Unset
        if isinstance(self.by, Unset):
            by = UNSET
        else:
            by = self.by

        key: None | str | Unset
        if isinstance(self.key, Unset):
            key = UNSET
        else:
            key = self.key

        note: None | str | Unset
        if isinstance(self.note, Unset):
            note = UNSET
        else:
            note = self.note

        resolution: None | str | Unset
        if isinstance(self.resolution, Unset):
            resolution = UNSET
        else:
            resolution = self.resolution

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "actions": actions,
                "at": at,
                "kind": kind,
            }
        )
        if by is not UNSET:
            field_dict["by"] = by
        if key is not UNSET:
            field_dict["key"] = key
        if note is not UNSET:
            field_dict["note"] = note
        if resolution is not UNSET:
            field_dict["resolution"] = resolution

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.action_dto import ActionDto

        d = dict(src_dict)
        actions = []
        _actions = d.pop("actions")
        for actions_item_data in _actions:
            actions_item = ActionDto.from_dict(actions_item_data)

            actions.append(actions_item)

        at = isoparse(d.pop("at"))

        kind = d.pop("kind")

        def _parse_by(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        by = _parse_by(d.pop("by", UNSET))

        def _parse_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        key = _parse_key(d.pop("key", UNSET))

        def _parse_note(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        note = _parse_note(d.pop("note", UNSET))

        def _parse_resolution(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        resolution = _parse_resolution(d.pop("resolution", UNSET))

        history_entry_dto = cls(
            actions=actions,
            at=at,
            kind=kind,
            by=by,
            key=key,
            note=note,
            resolution=resolution,
        )

        history_entry_dto.additional_properties = d
        return history_entry_dto

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
