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

T = TypeVar("T", bound="SweepDto")


@_attrs_define
class SweepDto:
    """A sweep and how far it got.

    Attributes:
        compared (int): Memories compared so far.
        conflicts_queued (int): Conflicts it queued (pairs queued before, or with a remembered verdict, are not queued
            again).
        created_at (datetime.datetime):
        id (UUID):
        status (str): `running`, `done`, `cancelled` or `failed`. Example: running.
        total (int): Active memories it compares: those that existed when it started (later writes are
            checked as they are written).
        updated_at (datetime.datetime):
        created_by (None | str | Unset): The key that started it; null without keys.
        error (None | str | Unset): Why it failed.
        eta_s (float | None | Unset): Seconds left at that rate, while it runs.
        finished_at (datetime.datetime | None | Unset):
        label (None | str | Unset):
        rate (float | None | Unset): Memories compared per second by its current run; null before a second of it passed.
        scope (None | str | Unset):
        since (datetime.datetime | None | Unset):
    """

    compared: int
    conflicts_queued: int
    created_at: datetime.datetime
    id: UUID
    status: str
    total: int
    updated_at: datetime.datetime
    created_by: None | str | Unset = UNSET
    error: None | str | Unset = UNSET
    eta_s: float | None | Unset = UNSET
    finished_at: datetime.datetime | None | Unset = UNSET
    label: None | str | Unset = UNSET
    rate: float | None | Unset = UNSET
    scope: None | str | Unset = UNSET
    since: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        compared = self.compared

        conflicts_queued = self.conflicts_queued

        created_at = self.created_at.isoformat()

        id = str(self.id)

        status = self.status

        total = self.total

        updated_at = self.updated_at.isoformat()

        created_by: None | str | Unset
        if isinstance(self.created_by, Unset):
            created_by = UNSET
        else:
            created_by = self.created_by

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        eta_s: float | None | Unset
        if isinstance(self.eta_s, Unset):
            eta_s = UNSET
        else:
            eta_s = self.eta_s

        finished_at: None | str | Unset
        if isinstance(self.finished_at, Unset):
            finished_at = UNSET
        elif isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        label: None | str | Unset
        if isinstance(self.label, Unset):
            label = UNSET
        else:
            label = self.label

        rate: float | None | Unset
        if isinstance(self.rate, Unset):
            rate = UNSET
        else:
            rate = self.rate

        scope: None | str | Unset
        if isinstance(self.scope, Unset):
            scope = UNSET
        else:
            scope = self.scope

        since: None | str | Unset
        if isinstance(self.since, Unset):
            since = UNSET
        elif isinstance(self.since, datetime.datetime):
            since = self.since.isoformat()
        else:
            since = self.since

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "compared": compared,
                "conflicts_queued": conflicts_queued,
                "created_at": created_at,
                "id": id,
                "status": status,
                "total": total,
                "updated_at": updated_at,
            }
        )
        if created_by is not UNSET:
            field_dict["created_by"] = created_by
        if error is not UNSET:
            field_dict["error"] = error
        if eta_s is not UNSET:
            field_dict["eta_s"] = eta_s
        if finished_at is not UNSET:
            field_dict["finished_at"] = finished_at
        if label is not UNSET:
            field_dict["label"] = label
        if rate is not UNSET:
            field_dict["rate"] = rate
        if scope is not UNSET:
            field_dict["scope"] = scope
        if since is not UNSET:
            field_dict["since"] = since

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        compared = d.pop("compared")

        conflicts_queued = d.pop("conflicts_queued")

        created_at = isoparse(d.pop("created_at"))

        id = UUID(d.pop("id"))

        status = d.pop("status")

        total = d.pop("total")

        updated_at = isoparse(d.pop("updated_at"))

        def _parse_created_by(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        created_by = _parse_created_by(d.pop("created_by", UNSET))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_eta_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        eta_s = _parse_eta_s(d.pop("eta_s", UNSET))

        def _parse_finished_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = isoparse(data)

                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        finished_at = _parse_finished_at(d.pop("finished_at", UNSET))

        def _parse_label(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        label = _parse_label(d.pop("label", UNSET))

        def _parse_rate(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        rate = _parse_rate(d.pop("rate", UNSET))

        def _parse_scope(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        scope = _parse_scope(d.pop("scope", UNSET))

        def _parse_since(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                since_type_0 = isoparse(data)

                return since_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        since = _parse_since(d.pop("since", UNSET))

        sweep_dto = cls(
            compared=compared,
            conflicts_queued=conflicts_queued,
            created_at=created_at,
            id=id,
            status=status,
            total=total,
            updated_at=updated_at,
            created_by=created_by,
            error=error,
            eta_s=eta_s,
            finished_at=finished_at,
            label=label,
            rate=rate,
            scope=scope,
            since=since,
        )

        sweep_dto.additional_properties = d
        return sweep_dto

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
