from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="EvidenceDto")


@_attrs_define
class EvidenceDto:
    """Evidence strength, read from the memory's title, the first 2,000 characters of its body
    and its source: hedges and weak sources ("someone said", "might", "draft", "OCR",
    "anonymous", "unverified"; their Chinese and Korean forms) lower it, strong markers
    ("signed", "verified", "per the contract") raise it, each kind once, from a neutral 0.5 by
    0.15 within 0.05..0.95. Text shaped like an instruction to the store ("ignore all
    previous records") is 0.05 and `injection`.

        Attributes:
            reasons (list[str]): Each cue found, e.g. `hedge "might" in the text`.
            strength (float): 0..1.
            injection (bool | Unset): Present and true when the text reads as an instruction to the store.
    """

    reasons: list[str]
    strength: float
    injection: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        reasons = self.reasons

        strength = self.strength

        injection = self.injection

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "reasons": reasons,
                "strength": strength,
            }
        )
        if injection is not UNSET:
            field_dict["injection"] = injection

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        reasons = cast(list[str], d.pop("reasons"))

        strength = d.pop("strength")

        injection = d.pop("injection", UNSET)

        evidence_dto = cls(
            reasons=reasons,
            strength=strength,
            injection=injection,
        )

        evidence_dto.additional_properties = d
        return evidence_dto

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
