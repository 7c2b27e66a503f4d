from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse
from typing_extensions import Self

from ..models.node_state_dto import NodeStateDto
from ..types import UNSET, Unset

T = TypeVar("T", bound="NodeVersionDto")


@_attrs_define
class NodeVersionDto:
    """One version of a memory: the whole node as it stood after one change, with when concord
    held it (system time), who made the change and in which conflict.

        Attributes:
            body (str):
            confidence (float):
            corrected (bool): True when a resolution said it was never true.
            kind (str): `created` (written, or put back by a revert), `changed` (an edit, a resolution, a
                revert) or `deleted` (a tombstone, with the last text).
            labels (list[str]):
            memory_type (str):
            node_id (UUID):
            observed_at (datetime.datetime): When the memory started to hold (valid time).
            recorded_at (datetime.datetime): When concord started to hold this version (RFC 3339, UTC, milliseconds).
            scope (str):
            state (NodeStateDto): Lifecycle state of a node; only `active` nodes take part in detection.
            title (str):
            version (int): 1, 2, … in the order of the changes.
            changed_by (None | str | Unset): Who made the change: a resolution's `resolved_by`, a revert's `reverted_by`,
                `policy:<name>`, `mcp:<client>`; null when the writer is not named.
            conflict_id (None | Unset | UUID): The conflict whose resolution or revert made the change.
            key (None | str | Unset): The name of the API key that made the change (`GET /audit`); null when the service
                runs without keys.
            source (None | str | Unset):
            valid_until (datetime.datetime | None | Unset): Until when it held (valid time); null while it holds.
    """

    body: str
    confidence: float
    corrected: bool
    kind: str
    labels: list[str]
    memory_type: str
    node_id: UUID
    observed_at: datetime.datetime
    recorded_at: datetime.datetime
    scope: str
    state: NodeStateDto
    title: str
    version: int
    changed_by: None | str | Unset = UNSET
    conflict_id: None | Unset | UUID = UNSET
    key: None | str | Unset = UNSET
    source: None | str | Unset = UNSET
    valid_until: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        body = self.body

        confidence = self.confidence

        corrected = self.corrected

        kind = self.kind

        labels = self.labels

        memory_type = self.memory_type

        node_id = str(self.node_id)

        observed_at = self.observed_at.isoformat()

        recorded_at = self.recorded_at.isoformat()

        scope = self.scope

        state = self.state.value

        title = self.title

        version = self.version

        changed_by: None | str | Unset
        if isinstance(self.changed_by, Unset):
            changed_by = UNSET
        else:
            changed_by = self.changed_by

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

        source: None | str | Unset
        if isinstance(self.source, Unset):
            source = UNSET
        else:
            source = self.source

        valid_until: None | str | Unset
        if isinstance(self.valid_until, Unset):
            valid_until = UNSET
        elif isinstance(self.valid_until, datetime.datetime):
            valid_until = self.valid_until.isoformat()
        else:
            valid_until = self.valid_until

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "body": body,
                "confidence": confidence,
                "corrected": corrected,
                "kind": kind,
                "labels": labels,
                "memory_type": memory_type,
                "node_id": node_id,
                "observed_at": observed_at,
                "recorded_at": recorded_at,
                "scope": scope,
                "state": state,
                "title": title,
                "version": version,
            }
        )
        if changed_by is not UNSET:
            field_dict["changed_by"] = changed_by
        if conflict_id is not UNSET:
            field_dict["conflict_id"] = conflict_id
        if key is not UNSET:
            field_dict["key"] = key
        if source is not UNSET:
            field_dict["source"] = source
        if valid_until is not UNSET:
            field_dict["valid_until"] = valid_until

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        body = d.pop("body")

        confidence = d.pop("confidence")

        corrected = d.pop("corrected")

        kind = d.pop("kind")

        labels = cast(list[str], d.pop("labels"))

        memory_type = d.pop("memory_type")

        node_id = UUID(d.pop("node_id"))

        observed_at = isoparse(d.pop("observed_at"))

        recorded_at = isoparse(d.pop("recorded_at"))

        scope = d.pop("scope")

        state = NodeStateDto(d.pop("state"))

        title = d.pop("title")

        version = d.pop("version")

        def _parse_changed_by(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        changed_by = _parse_changed_by(d.pop("changed_by", UNSET))

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

        def _parse_source(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source = _parse_source(d.pop("source", UNSET))

        def _parse_valid_until(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                valid_until_type_0 = isoparse(data)

                return valid_until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        valid_until = _parse_valid_until(d.pop("valid_until", UNSET))

        node_version_dto = cls(
            body=body,
            confidence=confidence,
            corrected=corrected,
            kind=kind,
            labels=labels,
            memory_type=memory_type,
            node_id=node_id,
            observed_at=observed_at,
            recorded_at=recorded_at,
            scope=scope,
            state=state,
            title=title,
            version=version,
            changed_by=changed_by,
            conflict_id=conflict_id,
            key=key,
            source=source,
            valid_until=valid_until,
        )

        node_version_dto.additional_properties = d
        return node_version_dto

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
