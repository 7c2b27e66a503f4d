from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="EventData")


@_attrs_define
class EventData:
    """The `data` of an event.

    Attributes:
        created_at (datetime.datetime):
        type_ (str): `conflict.created`, `conflict.resolved` or `conflict.reverted`; `sweep.started`,
            `sweep.progress` (at most every 2 s), `sweep.done`, `sweep.cancelled` or `sweep.failed`.
        conflict_id (None | Unset | UUID): The conflict, for `conflict.*` events.
        sweep_id (None | Unset | UUID): The sweep, for `sweep.*` events (`GET /sweeps/{id}` has its progress).
    """

    created_at: datetime.datetime
    type_: str
    conflict_id: None | Unset | UUID = UNSET
    sweep_id: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        type_ = self.type_

        conflict_id: None | str | Unset
        if isinstance(self.conflict_id, Unset):
            conflict_id = UNSET
        elif isinstance(self.conflict_id, UUID):
            conflict_id = str(self.conflict_id)
        else:
            conflict_id = self.conflict_id

        sweep_id: None | str | Unset
        if isinstance(self.sweep_id, Unset):
            sweep_id = UNSET
        elif isinstance(self.sweep_id, UUID):
            sweep_id = str(self.sweep_id)
        else:
            sweep_id = self.sweep_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "type": type_,
            }
        )
        if conflict_id is not UNSET:
            field_dict["conflict_id"] = conflict_id
        if sweep_id is not UNSET:
            field_dict["sweep_id"] = sweep_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = isoparse(d.pop("created_at"))

        type_ = d.pop("type")

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

        def _parse_sweep_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sweep_id_type_0 = UUID(data)

                return sweep_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        sweep_id = _parse_sweep_id(d.pop("sweep_id", UNSET))

        event_data = cls(
            created_at=created_at,
            type_=type_,
            conflict_id=conflict_id,
            sweep_id=sweep_id,
        )

        event_data.additional_properties = d
        return event_data

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
