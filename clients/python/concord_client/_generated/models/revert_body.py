from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="RevertBody")


@_attrs_define
class RevertBody:
    """Who reverts, and why.

    Attributes:
        note (None | str | Unset): Why, up to 10 000 characters.
        reverted_by (None | str | Unset): Who decided to undo, up to 200 characters.
    """

    note: None | str | Unset = UNSET
    reverted_by: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        note: None | str | Unset
        if isinstance(self.note, Unset):
            note = UNSET
        else:
            note = self.note

        reverted_by: None | str | Unset
        if isinstance(self.reverted_by, Unset):
            reverted_by = UNSET
        else:
            reverted_by = self.reverted_by

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if note is not UNSET:
            field_dict["note"] = note
        if reverted_by is not UNSET:
            field_dict["reverted_by"] = reverted_by

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_note(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        note = _parse_note(d.pop("note", UNSET))

        def _parse_reverted_by(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reverted_by = _parse_reverted_by(d.pop("reverted_by", UNSET))

        revert_body = cls(
            note=note,
            reverted_by=reverted_by,
        )

        return revert_body
