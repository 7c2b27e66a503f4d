from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

if TYPE_CHECKING:
    from ..models.policy_match_dto import PolicyMatchDto


T = TypeVar("T", bound="PolicyRuleDto")


@_attrs_define
class PolicyRuleDto:
    """One rule.

    Attributes:
        action (str): The strategy it resolves with: `new_is_current`, `old_is_current`, `keep_both` or
            `merge` (merge appends the new text to the old node under a dated separator). Example: new_is_current.
        match (PolicyMatchDto): The conditions of a rule; all must hold, and an absent one matches anything.
        match_all (bool): The rule matches every conflict (the explicit opt-in for a rule without conditions).
        name (str): Unique name; its resolutions have `resolved_by` = `policy:<name>`. Example: newer-sensor-wins.
    """

    action: str
    match: PolicyMatchDto
    match_all: bool
    name: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        action = self.action

        match = self.match.to_dict()

        match_all = self.match_all

        name = self.name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
                "match": match,
                "match_all": match_all,
                "name": name,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.policy_match_dto import PolicyMatchDto

        d = dict(src_dict)
        action = d.pop("action")

        match = PolicyMatchDto.from_dict(d.pop("match"))

        match_all = d.pop("match_all")

        name = d.pop("name")

        policy_rule_dto = cls(
            action=action,
            match=match,
            match_all=match_all,
            name=name,
        )

        policy_rule_dto.additional_properties = d
        return policy_rule_dto

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
