from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="ResolveBody")


@_attrs_define
class ResolveBody:
    """How to resolve a conflict (the conflict named by the path).

    Attributes:
        resolution (str): `new_is_current`, `old_is_current`, `keep_both` or `merge`.
        merged_content (None | str | Unset): Replaces the old node's body, up to 1 MiB: only with `merge` (422 with
            another strategy).
        note (None | str | Unset): Why, up to 10 000 characters.
        reason (None | str | Unset): Why the losing side stops holding: `update` (it was true until the winner's
            `observed_at`) or `correction` (it never held). Only with `new_is_current` and
            `old_is_current` (which is always a correction); when absent, concord chooses from
            the winner's words and reports its choice.
        resolved_by (None | str | Unset): Who decided, up to 200 characters.
    """

    resolution: str
    merged_content: None | str | Unset = UNSET
    note: None | str | Unset = UNSET
    reason: None | str | Unset = UNSET
    resolved_by: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        resolution = self.resolution

        merged_content: None | str | Unset
        if isinstance(self.merged_content, Unset):
            merged_content = UNSET
        else:
            merged_content = self.merged_content

        note: None | str | Unset
        if isinstance(self.note, Unset):
            note = UNSET
        else:
            note = self.note

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        resolved_by: None | str | Unset
        if isinstance(self.resolved_by, Unset):
            resolved_by = UNSET
        else:
            resolved_by = self.resolved_by

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "resolution": resolution,
            }
        )
        if merged_content is not UNSET:
            field_dict["merged_content"] = merged_content
        if note is not UNSET:
            field_dict["note"] = note
        if reason is not UNSET:
            field_dict["reason"] = reason
        if resolved_by is not UNSET:
            field_dict["resolved_by"] = resolved_by

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        resolution = d.pop("resolution")

        def _parse_merged_content(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        merged_content = _parse_merged_content(d.pop("merged_content", UNSET))

        def _parse_note(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        note = _parse_note(d.pop("note", UNSET))

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        def _parse_resolved_by(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        resolved_by = _parse_resolved_by(d.pop("resolved_by", UNSET))

        resolve_body = cls(
            resolution=resolution,
            merged_content=merged_content,
            note=note,
            reason=reason,
            resolved_by=resolved_by,
        )

        return resolve_body
