from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

if TYPE_CHECKING:
    from ..models.key_dto import KeyDto


T = TypeVar("T", bound="CreatedKeyResponse")


@_attrs_define
class CreatedKeyResponse:
    """A new key, shown this once.

    Attributes:
        api_key (KeyDto): A key as stored: never the key itself.
        key (str): The key, for `Authorization: Bearer <key>`. concord keeps only its digest: it cannot be
            shown again. Example: concord_q2Zb….
    """

    api_key: KeyDto
    key: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        api_key = self.api_key.to_dict()

        key = self.key

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "api_key": api_key,
                "key": key,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.key_dto import KeyDto

        d = dict(src_dict)
        api_key = KeyDto.from_dict(d.pop("api_key"))

        key = d.pop("key")

        created_key_response = cls(
            api_key=api_key,
            key=key,
        )

        created_key_response.additional_properties = d
        return created_key_response

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
