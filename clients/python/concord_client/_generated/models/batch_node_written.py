from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.conflict_hit_dto import ConflictHitDto
    from ..models.node_dto import NodeDto


T = TypeVar("T", bound="BatchNodeWritten")


@_attrs_define
class BatchNodeWritten:
    """One node of a written batch.

    Attributes:
        node (NodeDto): A node. Nodes inside conflicts always carry their full body.
        conflicts (list[ConflictHitDto] | None | Unset): Conflicts detected and queued by this node's write (against the
            store or an earlier
            node of the batch); absent when none.
        ref (None | str | Unset): The item's `ref`, when it had one.
    """

    node: NodeDto
    conflicts: list[ConflictHitDto] | None | Unset = UNSET
    ref: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        node = self.node.to_dict()

        conflicts: list[dict[str, Any]] | None | Unset
        if isinstance(self.conflicts, Unset):
            conflicts = UNSET
        elif isinstance(self.conflicts, list):
            conflicts = []
            for conflicts_type_0_item_data in self.conflicts:
                conflicts_type_0_item = conflicts_type_0_item_data.to_dict()
                conflicts.append(conflicts_type_0_item)

        else:
            conflicts = self.conflicts

        ref: None | str | Unset
        if isinstance(self.ref, Unset):
            ref = UNSET
        else:
            ref = self.ref

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "node": node,
            }
        )
        if conflicts is not UNSET:
            field_dict["conflicts"] = conflicts
        if ref is not UNSET:
            field_dict["ref"] = ref

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.conflict_hit_dto import ConflictHitDto
        from ..models.node_dto import NodeDto

        d = dict(src_dict)
        node = NodeDto.from_dict(d.pop("node"))

        def _parse_conflicts(data: object) -> list[ConflictHitDto] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                conflicts_type_0 = []
                _conflicts_type_0 = data
                for conflicts_type_0_item_data in _conflicts_type_0:
                    conflicts_type_0_item = ConflictHitDto.from_dict(conflicts_type_0_item_data)

                    conflicts_type_0.append(conflicts_type_0_item)

                return conflicts_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ConflictHitDto] | None | Unset, data)

        conflicts = _parse_conflicts(d.pop("conflicts", UNSET))

        def _parse_ref(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ref = _parse_ref(d.pop("ref", UNSET))

        batch_node_written = cls(
            node=node,
            conflicts=conflicts,
            ref=ref,
        )

        batch_node_written.additional_properties = d
        return batch_node_written

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
