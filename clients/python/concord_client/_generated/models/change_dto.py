from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="ChangeDto")


@_attrs_define
class ChangeDto:
    """A change made after a resolution that a revert would overwrite.

    Attributes:
        change (str): `node_edited`, `node_deleted`, `resolved_again`, `pair_pending`, `node_linked`,
            `edge_changed`, `conflict_changed` or `no_pre_image`.
        detail (str): The change, in words.
        conflict_id (None | Unset | UUID): The conflict that resolved the node again, holds the pair, or changed.
        edge_id (None | Unset | UUID): The edge that changed.
        linked_id (None | Unset | UUID): The edge or conflict linked to a node the resolution created.
        node_id (None | Unset | UUID): The node edited, deleted, resolved again or linked.
    """

    change: str
    detail: str
    conflict_id: None | Unset | UUID = UNSET
    edge_id: None | Unset | UUID = UNSET
    linked_id: None | Unset | UUID = UNSET
    node_id: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        change = self.change

        detail = self.detail

        conflict_id: None | str | Unset
        if isinstance(self.conflict_id, Unset):
            conflict_id = UNSET
        elif isinstance(self.conflict_id, UUID):
            conflict_id = str(self.conflict_id)
        else:
            conflict_id = self.conflict_id

        edge_id: None | str | Unset
        if isinstance(self.edge_id, Unset):
            edge_id = UNSET
        elif isinstance(self.edge_id, UUID):
            edge_id = str(self.edge_id)
        else:
            edge_id = self.edge_id

        linked_id: None | str | Unset
        if isinstance(self.linked_id, Unset):
            linked_id = UNSET
        elif isinstance(self.linked_id, UUID):
            linked_id = str(self.linked_id)
        else:
            linked_id = self.linked_id

        node_id: None | str | Unset
        if isinstance(self.node_id, Unset):
            node_id = UNSET
        elif isinstance(self.node_id, UUID):
            node_id = str(self.node_id)
        else:
            node_id = self.node_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "change": change,
                "detail": detail,
            }
        )
        if conflict_id is not UNSET:
            field_dict["conflict_id"] = conflict_id
        if edge_id is not UNSET:
            field_dict["edge_id"] = edge_id
        if linked_id is not UNSET:
            field_dict["linked_id"] = linked_id
        if node_id is not UNSET:
            field_dict["node_id"] = node_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        change = d.pop("change")

        detail = d.pop("detail")

        def _parse_conflict_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                conflict_id_type_0 = UUID(data)

                return conflict_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        conflict_id = _parse_conflict_id(d.pop("conflict_id", UNSET))

        def _parse_edge_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                edge_id_type_0 = UUID(data)

                return edge_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        edge_id = _parse_edge_id(d.pop("edge_id", UNSET))

        def _parse_linked_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                linked_id_type_0 = UUID(data)

                return linked_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        linked_id = _parse_linked_id(d.pop("linked_id", UNSET))

        def _parse_node_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                node_id_type_0 = UUID(data)

                return node_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        node_id = _parse_node_id(d.pop("node_id", UNSET))

        change_dto = cls(
            change=change,
            detail=detail,
            conflict_id=conflict_id,
            edge_id=edge_id,
            linked_id=linked_id,
            node_id=node_id,
        )

        change_dto.additional_properties = d
        return change_dto

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
