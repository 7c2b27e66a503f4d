from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="ProvenanceDto")


@_attrs_define
class ProvenanceDto:
    """How a memory was obtained, as its writer declares it (contract section 14). Written with
    the memory and never changed; its evidence strength reads it: `hearsay`, `inferred`,
    `scanned` and `web` count as weak evidence, `verified: true` as strong.

        Attributes:
            method (None | str | Unset): `observed`, `told_by_user`, `read_from_document`, `inferred`, `hearsay`, `scanned`
                or
                `web`.
            verified (bool | None | Unset): Whether the writer checked it (a signature, a second source).
    """

    method: None | str | Unset = UNSET
    verified: bool | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        method: None | str | Unset
        if isinstance(self.method, Unset):
            method = UNSET
        else:
            method = self.method

        verified: bool | None | Unset
        if isinstance(self.verified, Unset):
            verified = UNSET
        else:
            verified = self.verified

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if method is not UNSET:
            field_dict["method"] = method
        if verified is not UNSET:
            field_dict["verified"] = verified

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_method(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        method = _parse_method(d.pop("method", UNSET))

        def _parse_verified(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        verified = _parse_verified(d.pop("verified", UNSET))

        provenance_dto = cls(
            method=method,
            verified=verified,
        )

        return provenance_dto
