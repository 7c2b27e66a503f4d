from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateConflictRequest")


@_attrs_define
class CreateConflictRequest:
    """A conflict found elsewhere, to queue for review.

    Attributes:
        old_node_id (UUID): The existing node the new knowledge contradicts.
        conflict_type (None | str | Unset): Default `direct-contradiction`.
        new_content (None | str | Unset): The new side as text only (give this or `new_node_id`, not both), up to 1 MiB.
        new_node_id (None | Unset | UUID): The new side as a stored node (give this or `new_content`, not both); must
            differ from
            `old_node_id`.
        note (None | str | Unset): A note for the reviewer, up to 10 000 characters.
    """

    old_node_id: UUID
    conflict_type: None | str | Unset = UNSET
    new_content: None | str | Unset = UNSET
    new_node_id: None | Unset | UUID = UNSET
    note: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        old_node_id = str(self.old_node_id)

        conflict_type: None | str | Unset
        if isinstance(self.conflict_type, Unset):
            conflict_type = UNSET
        else:
            conflict_type = self.conflict_type

        new_content: None | str | Unset
        if isinstance(self.new_content, Unset):
            new_content = UNSET
        else:
            new_content = self.new_content

        new_node_id: None | str | Unset
        if isinstance(self.new_node_id, Unset):
            new_node_id = UNSET
        elif isinstance(self.new_node_id, UUID):
            new_node_id = str(self.new_node_id)
        else:
            new_node_id = self.new_node_id

        note: None | str | Unset
        if isinstance(self.note, Unset):
            note = UNSET
        else:
            note = self.note

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "old_node_id": old_node_id,
            }
        )
        if conflict_type is not UNSET:
            field_dict["conflict_type"] = conflict_type
        if new_content is not UNSET:
            field_dict["new_content"] = new_content
        if new_node_id is not UNSET:
            field_dict["new_node_id"] = new_node_id
        if note is not UNSET:
            field_dict["note"] = note

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        old_node_id = UUID(d.pop("old_node_id"))

        def _parse_conflict_type(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        conflict_type = _parse_conflict_type(d.pop("conflict_type", UNSET))

        def _parse_new_content(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        new_content = _parse_new_content(d.pop("new_content", UNSET))

        def _parse_new_node_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                new_node_id_type_0 = UUID(data)

                return new_node_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        new_node_id = _parse_new_node_id(d.pop("new_node_id", UNSET))

        def _parse_note(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        note = _parse_note(d.pop("note", UNSET))

        create_conflict_request = cls(
            old_node_id=old_node_id,
            conflict_type=conflict_type,
            new_content=new_content,
            new_node_id=new_node_id,
            note=note,
        )

        return create_conflict_request
