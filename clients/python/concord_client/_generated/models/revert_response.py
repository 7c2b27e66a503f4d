from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse
from typing_extensions import Self

if TYPE_CHECKING:
    from ..models.action_dto import ActionDto


T = TypeVar("T", bound="RevertResponse")


@_attrs_define
class RevertResponse:
    """What the revert did.

    Attributes:
        actions (list[ActionDto]): Every change undone, in order (`edge_deleted`, `node_restored`, `node_body_restored`,
            `node_state_changed`, `edges_moved`, `node_deleted`); empty when the resolution changed
            no node or edge (`old_is_current` of text only). The conflict is `pending` again.
        conflict_id (UUID):
        ok (bool): Always true.
        replayed (bool): True when this reply is the stored result of an earlier revert.
        reverted (str): The strategy undone.
        reverted_at (datetime.datetime):
    """

    actions: list[ActionDto]
    conflict_id: UUID
    ok: bool
    replayed: bool
    reverted: str
    reverted_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        actions = []
        for actions_item_data in self.actions:
            actions_item = actions_item_data.to_dict()
            actions.append(actions_item)

        conflict_id = str(self.conflict_id)

        ok = self.ok

        replayed = self.replayed

        reverted = self.reverted

        reverted_at = self.reverted_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "actions": actions,
                "conflict_id": conflict_id,
                "ok": ok,
                "replayed": replayed,
                "reverted": reverted,
                "reverted_at": reverted_at,
            }
        )

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

        reverted = d.pop("reverted")

        reverted_at = isoparse(d.pop("reverted_at"))

        revert_response = cls(
            actions=actions,
            conflict_id=conflict_id,
            ok=ok,
            replayed=replayed,
            reverted=reverted,
            reverted_at=reverted_at,
        )

        revert_response.additional_properties = d
        return revert_response

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
