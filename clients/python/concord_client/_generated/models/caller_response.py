from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

T = TypeVar("T", bound="CallerResponse")


@_attrs_define
class CallerResponse:
    """The key a request runs as, so that a client (the review console) shows who it is and
    offers only what the role may do.

        Attributes:
            name (str): The key's name; `config:N` for a key of `--api-keys`, `anonymous` without keys.
            permissions (list[str]): What the role may do: `read`, `write`, `resolve`, `admin`.
            role (str): `reader`, `agent`, `reviewer` or `admin`.
            scopes (list[str]): The scopes it reads and writes: exact names and `prefix*` patterns (`*`: every scope).
    """

    name: str
    permissions: list[str]
    role: str
    scopes: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        permissions = self.permissions

        role = self.role

        scopes = self.scopes

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "permissions": permissions,
                "role": role,
                "scopes": scopes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        permissions = cast(list[str], d.pop("permissions"))

        role = d.pop("role")

        scopes = cast(list[str], d.pop("scopes"))

        caller_response = cls(
            name=name,
            permissions=permissions,
            role=role,
            scopes=scopes,
        )

        caller_response.additional_properties = d
        return caller_response

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
