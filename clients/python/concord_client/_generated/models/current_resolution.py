from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

if TYPE_CHECKING:
    from ..models.action_dto import ActionDto


T = TypeVar("T", bound="CurrentResolution")


@_attrs_define
class CurrentResolution:
    """The resolution a conflict already has.

    Attributes:
        actions (list[ActionDto]): What it did.
        resolution (str): Strategy used.
        resolved_at (str): When it was resolved.
    """

    actions: list[ActionDto]
    resolution: str
    resolved_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        actions = []
        for actions_item_data in self.actions:
            actions_item = actions_item_data.to_dict()
            actions.append(actions_item)

        resolution = self.resolution

        resolved_at = self.resolved_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "actions": actions,
                "resolution": resolution,
                "resolved_at": resolved_at,
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

        resolution = d.pop("resolution")

        resolved_at = d.pop("resolved_at")

        current_resolution = cls(
            actions=actions,
            resolution=resolution,
            resolved_at=resolved_at,
        )

        current_resolution.additional_properties = d
        return current_resolution

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
