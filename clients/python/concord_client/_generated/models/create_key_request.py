from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

T = TypeVar("T", bound="CreateKeyRequest")


@_attrs_define
class CreateKeyRequest:
    """A key to make.

    Attributes:
        name (str): Unique name, 1..64 characters of `A-Za-z0-9._-` starting with a letter or digit; never
            reused, also after the key is revoked. Example: team-a-agent.
        role (str): `reader`, `agent`, `reviewer` or `admin` (README, "Keys and roles"). Example: agent.
        scopes (list[str]): Scopes the key may use: exact names, or prefixes ending in `*` (`team-a/*`; `*` is every
            scope). At least one. Example: ['team-a/*'].
    """

    name: str
    role: str
    scopes: list[str]

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        role = self.role

        scopes = self.scopes

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "role": role,
                "scopes": scopes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        role = d.pop("role")

        scopes = cast(list[str], d.pop("scopes"))

        create_key_request = cls(
            name=name,
            role=role,
            scopes=scopes,
        )

        return create_key_request
