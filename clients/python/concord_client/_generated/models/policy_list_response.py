from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

if TYPE_CHECKING:
    from ..models.policy_rule_dto import PolicyRuleDto


T = TypeVar("T", bound="PolicyListResponse")


@_attrs_define
class PolicyListResponse:
    """The rules in force.

    Attributes:
        dry_run (bool): True when rules only record what they would do (`--policies-dry-run`).
        rules (list[PolicyRuleDto]): The rules in file order (the first match wins); empty when no policy file is set.
    """

    dry_run: bool
    rules: list[PolicyRuleDto]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        dry_run = self.dry_run

        rules = []
        for rules_item_data in self.rules:
            rules_item = rules_item_data.to_dict()
            rules.append(rules_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "dry_run": dry_run,
                "rules": rules,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.policy_rule_dto import PolicyRuleDto

        d = dict(src_dict)
        dry_run = d.pop("dry_run")

        rules = []
        _rules = d.pop("rules")
        for rules_item_data in _rules:
            rules_item = PolicyRuleDto.from_dict(rules_item_data)

            rules.append(rules_item)

        policy_list_response = cls(
            dry_run=dry_run,
            rules=rules,
        )

        policy_list_response.additional_properties = d
        return policy_list_response

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
