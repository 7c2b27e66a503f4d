from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

T = TypeVar("T", bound="PolicyMarkDto")


@_attrs_define
class PolicyMarkDto:
    """A resolution policy that fired on a conflict.

    Attributes:
        action (str): The strategy of the rule. Example: new_is_current.
        dry_run (bool): True when policies run dry: the conflict was left pending and only this record (and
            the `queued` history entry's note) says what the rule would have done.
        name (str): The rule's name; a resolution it made has `resolved_by` = `policy:<name>`. Example: newer-sensor-
            wins.
    """

    action: str
    dry_run: bool
    name: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        action = self.action

        dry_run = self.dry_run

        name = self.name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
                "dry_run": dry_run,
                "name": name,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        action = d.pop("action")

        dry_run = d.pop("dry_run")

        name = d.pop("name")

        policy_mark_dto = cls(
            action=action,
            dry_run=dry_run,
            name=name,
        )

        policy_mark_dto.additional_properties = d
        return policy_mark_dto

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
