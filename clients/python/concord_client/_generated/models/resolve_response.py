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
    from ..models.action_dto import ActionDto


T = TypeVar("T", bound="ResolveResponse")


@_attrs_define
class ResolveResponse:
    """What the resolution did.

    Attributes:
        actions (list[ActionDto]): Every step taken, in order.
        conflict_id (UUID):
        ok (bool): Always true.
        replayed (bool): True when this reply is the stored result of an earlier identical request.
        resolution (str): The strategy applied.
        resolved_at (datetime.datetime):
        new_node_id (None | Unset | UUID): The new node (created from `new_content` when needed; deleted by `merge`).
        old_node_id (None | Unset | UUID):
        reason (None | str | Unset): Why the losing side stopped holding: `update` (it held until the winner's
            `observed_at`: its `valid_until`) or `correction` (it never held: `corrected`). Absent
            for `keep_both` and `merge`, which end nothing.
        reason_inferred (bool | None | Unset): True when concord chose the reason from the winner's words (the request
            gave none).
    """

    actions: list[ActionDto]
    conflict_id: UUID
    ok: bool
    replayed: bool
    resolution: str
    resolved_at: datetime.datetime
    new_node_id: None | Unset | UUID = UNSET
    old_node_id: None | Unset | UUID = UNSET
    reason: None | str | Unset = UNSET
    reason_inferred: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        actions = []
        for actions_item_data in self.actions:
            actions_item = actions_item_data.to_dict()
            actions.append(actions_item)

        conflict_id = str(self.conflict_id)

        ok = self.ok

        replayed = self.replayed

        resolution = self.resolution

        resolved_at = self.resolved_at.isoformat()

        new_node_id: None | str | Unset
        if isinstance(self.new_node_id, Unset):
            new_node_id = UNSET
        elif isinstance(self.new_node_id, UUID):
            new_node_id = str(self.new_node_id)
        else:
            new_node_id = self.new_node_id

        old_node_id: None | str | Unset
        if isinstance(self.old_node_id, Unset):
            old_node_id = UNSET
        elif isinstance(self.old_node_id, UUID):
            old_node_id = str(self.old_node_id)
        else:
            old_node_id = self.old_node_id

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        reason_inferred: bool | None | Unset
        if isinstance(self.reason_inferred, Unset):
            reason_inferred = UNSET
        else:
            reason_inferred = self.reason_inferred

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "actions": actions,
                "conflict_id": conflict_id,
                "ok": ok,
                "replayed": replayed,
                "resolution": resolution,
                "resolved_at": resolved_at,
            }
        )
        if new_node_id is not UNSET:
            field_dict["new_node_id"] = new_node_id
        if old_node_id is not UNSET:
            field_dict["old_node_id"] = old_node_id
        if reason is not UNSET:
            field_dict["reason"] = reason
        if reason_inferred is not UNSET:
            field_dict["reason_inferred"] = reason_inferred

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

        conflict_id = UUID(d.pop("conflict_id"))

        ok = d.pop("ok")

        replayed = d.pop("replayed")

        resolution = d.pop("resolution")

        resolved_at = isoparse(d.pop("resolved_at"))

        def _parse_new_node_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                new_node_id_type_0 = UUID(data)

                return new_node_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        new_node_id = _parse_new_node_id(d.pop("new_node_id", UNSET))

        def _parse_old_node_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                old_node_id_type_0 = UUID(data)

                return old_node_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        old_node_id = _parse_old_node_id(d.pop("old_node_id", UNSET))

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        def _parse_reason_inferred(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        reason_inferred = _parse_reason_inferred(d.pop("reason_inferred", UNSET))

        resolve_response = cls(
            actions=actions,
            conflict_id=conflict_id,
            ok=ok,
            replayed=replayed,
            resolution=resolution,
            resolved_at=resolved_at,
            new_node_id=new_node_id,
            old_node_id=old_node_id,
            reason=reason,
            reason_inferred=reason_inferred,
        )

        resolve_response.additional_properties = d
        return resolve_response

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
