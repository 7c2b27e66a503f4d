from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="SourceDto")


@_attrs_define
class SourceDto:
    """One source and its record.

    Attributes:
        contradicted (int): Resolutions that made this source's side dormant, in the scopes the caller's key holds.
        credibility (float): The mean of a Beta posterior with four virtual verdicts split as the starting trust
            says (`trust`, else 0.5): a source without verdicts is at its starting trust, one
            verdict moves a neutral one by 0.1. Recommendations prefer a side whose source is at
            least 0.2 more credible (`prefer-authoritative`), and policy rules may require it
            (`min_trust`, `max_trust`, `min_credibility_gap`).
        nodes (int): Nodes stored with this source, in the scopes the caller's key holds.
        source (str): The `source` string of nodes.
        upheld (int): Resolutions that kept this source's side current, in the scopes the caller's key holds.
        trust (float | None | Unset): The starting trust the policy file's `[trust]` table gives this source (the most
            specific pattern that names it); absent when none does.
    """

    contradicted: int
    credibility: float
    nodes: int
    source: str
    upheld: int
    trust: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        contradicted = self.contradicted

        credibility = self.credibility

        nodes = self.nodes

        source = self.source

        upheld = self.upheld

        trust: float | None | Unset
        if isinstance(self.trust, Unset):
            trust = UNSET
        else:
            trust = self.trust

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "contradicted": contradicted,
                "credibility": credibility,
                "nodes": nodes,
                "source": source,
                "upheld": upheld,
            }
        )
        if trust is not UNSET:
            field_dict["trust"] = trust

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        contradicted = d.pop("contradicted")

        credibility = d.pop("credibility")

        nodes = d.pop("nodes")

        source = d.pop("source")

        upheld = d.pop("upheld")

        def _parse_trust(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        trust = _parse_trust(d.pop("trust", UNSET))

        source_dto = cls(
            contradicted=contradicted,
            credibility=credibility,
            nodes=nodes,
            source=source,
            upheld=upheld,
            trust=trust,
        )

        source_dto.additional_properties = d
        return source_dto

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
