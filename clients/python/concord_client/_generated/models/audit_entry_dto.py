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

T = TypeVar("T", bound="AuditEntryDto")


@_attrs_define
class AuditEntryDto:
    """One change and who made it.

    Attributes:
        action (str): `node.created`, `node.changed`, `node.deleted`, `conflict.queued`,
            `conflict.resolved`, `conflict.auto_resolved`, `conflict.reverted`, `key.created`,
            `key.revoked` or `sweep.started`. Example: conflict.resolved.
        at (datetime.datetime):
        target (str): What it changed: a memory's or conflict's id, a key's name, a sweep's id.
        by (None | str | Unset): What the writer called itself (`resolved_by`, `reverted_by`, `policy:<name>`,
            `mcp:<client>`), where it said.
        conflict_id (None | Unset | UUID): The conflict: the one changed, or whose resolution or revert changed the
            memory.
        key (None | str | Unset): The name of the API key that made it; null when the service ran without keys, for a
            key made on the command line, and for conflicts a sweep queued.
        version (int | None | Unset): For `node.*`, the version the change made (`GET /nodes/{id}/versions/{version}`).
    """

    action: str
    at: datetime.datetime
    target: str
    by: None | str | Unset = UNSET
    conflict_id: None | Unset | UUID = UNSET
    key: None | str | Unset = UNSET
    version: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        action = self.action

        at = self.at.isoformat()

        target = self.target

        by: None | str | Unset
        if isinstance(self.by, Unset):
            by = UNSET
        else:
            by = self.by

        conflict_id: None | str | Unset
        if isinstance(self.conflict_id, Unset):
            conflict_id = UNSET
        elif isinstance(self.conflict_id, UUID):
            conflict_id = str(self.conflict_id)
        else:
            conflict_id = self.conflict_id

        key: None | str | Unset
        if isinstance(self.key, Unset):
            key = UNSET
        else:
            key = self.key

        version: int | None | Unset
        if isinstance(self.version, Unset):
            version = UNSET
        else:
            version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
                "at": at,
                "target": target,
            }
        )
        if by is not UNSET:
            field_dict["by"] = by
        if conflict_id is not UNSET:
            field_dict["conflict_id"] = conflict_id
        if key is not UNSET:
            field_dict["key"] = key
        if version is not UNSET:
            field_dict["version"] = version

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        action = d.pop("action")

        at = isoparse(d.pop("at"))

        target = d.pop("target")

        def _parse_by(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        by = _parse_by(d.pop("by", UNSET))

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

        def _parse_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        key = _parse_key(d.pop("key", UNSET))

        def _parse_version(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        version = _parse_version(d.pop("version", UNSET))

        audit_entry_dto = cls(
            action=action,
            at=at,
            target=target,
            by=by,
            conflict_id=conflict_id,
            key=key,
            version=version,
        )

        audit_entry_dto.additional_properties = d
        return audit_entry_dto

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
