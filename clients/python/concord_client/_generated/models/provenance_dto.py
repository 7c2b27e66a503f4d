from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from typing_extensions import Self

from ..models.provenance_method_dto import ProvenanceMethodDto
from ..types import UNSET, Unset

T = TypeVar("T", bound="ProvenanceDto")


@_attrs_define
class ProvenanceDto:
    """How a memory was obtained, as its writer declares it (contract section 14). Written with
    the memory and never changed; its evidence strength reads it: `hearsay`, `inferred`,
    `scanned` and `web` count as weak evidence, `verified: true` as strong.

        Attributes:
            method (None | ProvenanceMethodDto | Unset):
            replaces (list[UUID] | None | Unset): Ids of memories the writer declares this one replaces (at most 100, a
                repeat counts once; on
                `POST /nodes` and MCP `remember`): each must be a current memory of the same scope,
                and is queued as a conflict with the new memory that the policies decide like any
                detected one, so a declaration never makes a memory current that a policy would not.
            verified (bool | None | Unset): Whether the writer checked it (a signature, a second source).
    """

    method: None | ProvenanceMethodDto | Unset = UNSET
    replaces: list[UUID] | None | Unset = UNSET
    verified: bool | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        method: None | str | Unset
        if isinstance(self.method, Unset):
            method = UNSET
        elif isinstance(self.method, ProvenanceMethodDto):
            method = self.method.value
        else:
            method = self.method

        replaces: list[str] | None | Unset
        if isinstance(self.replaces, Unset):
            replaces = UNSET
        elif isinstance(self.replaces, list):
            replaces = []
            for replaces_type_0_item_data in self.replaces:
                replaces_type_0_item = str(replaces_type_0_item_data)
                replaces.append(replaces_type_0_item)

        else:
            replaces = self.replaces

        verified: bool | None | Unset
        if isinstance(self.verified, Unset):
            verified = UNSET
        else:
            verified = self.verified

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if method is not UNSET:
            field_dict["method"] = method
        if replaces is not UNSET:
            field_dict["replaces"] = replaces
        if verified is not UNSET:
            field_dict["verified"] = verified

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_method(data: object) -> None | ProvenanceMethodDto | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                method_type_0 = ProvenanceMethodDto(data)

                return method_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ProvenanceMethodDto | Unset, data)

        method = _parse_method(d.pop("method", UNSET))

        def _parse_replaces(data: object) -> list[UUID] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                replaces_type_0 = []
                _replaces_type_0 = data
                for replaces_type_0_item_data in _replaces_type_0:
                    replaces_type_0_item = UUID(replaces_type_0_item_data)

                    replaces_type_0.append(replaces_type_0_item)

                return replaces_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[UUID] | None | Unset, data)

        replaces = _parse_replaces(d.pop("replaces", UNSET))

        def _parse_verified(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        verified = _parse_verified(d.pop("verified", UNSET))

        provenance_dto = cls(
            method=method,
            replaces=replaces,
            verified=verified,
        )

        return provenance_dto
