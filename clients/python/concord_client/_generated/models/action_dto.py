from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="ActionDto")


@_attrs_define
class ActionDto:
    """One step a resolution or a revert took. Which id fields are present depends on `action`.

    Attributes:
        action (str): `node_created`, `node_state_changed`, `edge_created`, `node_body_merged`,
            `edges_moved`, `node_deleted` or `conflict_resolved`; a revert also reports
            `edge_deleted`, `node_restored` and `node_body_restored`.
        summary (str): One human line, e.g. `Node … active → dormant`.
        chars_added (int | None | Unset):
        conflict_id (None | Unset | UUID):
        count (int | None | Unset):
        edge_id (None | Unset | UUID):
        from_ (None | str | Unset):
        from_node_id (None | Unset | UUID):
        kind (None | str | Unset):
        node_id (None | Unset | UUID):
        source_id (None | Unset | UUID):
        target_id (None | Unset | UUID):
        to (None | str | Unset):
        to_node_id (None | Unset | UUID):
    """

    action: str
    summary: str
    chars_added: int | None | Unset = UNSET
    conflict_id: None | Unset | UUID = UNSET
    count: int | None | Unset = UNSET
    edge_id: None | Unset | UUID = UNSET
    from_: None | str | Unset = UNSET
    from_node_id: None | Unset | UUID = UNSET
    kind: None | str | Unset = UNSET
    node_id: None | Unset | UUID = UNSET
    source_id: None | Unset | UUID = UNSET
    target_id: None | Unset | UUID = UNSET
    to: None | str | Unset = UNSET
    to_node_id: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        action = self.action

        summary = self.summary

        chars_added: int | None | Unset
        if isinstance(self.chars_added, Unset):
            chars_added = UNSET
        else:
            chars_added = self.chars_added

        conflict_id: None | str | Unset
        if isinstance(self.conflict_id, Unset):
            conflict_id = UNSET
        elif isinstance(self.conflict_id, UUID):
            conflict_id = str(self.conflict_id)
        else:
            conflict_id = self.conflict_id

        count: int | None | Unset
        if isinstance(self.count, Unset):
            count = UNSET
        else:
            count = self.count

        edge_id: None | str | Unset
        if isinstance(self.edge_id, Unset):
            edge_id = UNSET
        elif isinstance(self.edge_id, UUID):
            edge_id = str(self.edge_id)
        else:
            edge_id = self.edge_id

        from_: None | str | Unset
        if isinstance(self.from_, Unset):
            from_ = UNSET
        else:
            from_ = self.from_

        from_node_id: None | str | Unset
        if isinstance(self.from_node_id, Unset):
            from_node_id = UNSET
        elif isinstance(self.from_node_id, UUID):
            from_node_id = str(self.from_node_id)
        else:
            from_node_id = self.from_node_id

        kind: None | str | Unset
        if isinstance(self.kind, Unset):
            kind = UNSET
        else:
            kind = self.kind

        node_id: None | str | Unset
        if isinstance(self.node_id, Unset):
            node_id = UNSET
        elif isinstance(self.node_id, UUID):
            node_id = str(self.node_id)
        else:
            node_id = self.node_id

        source_id: None | str | Unset
        if isinstance(self.source_id, Unset):
            source_id = UNSET
        elif isinstance(self.source_id, UUID):
            source_id = str(self.source_id)
        else:
            source_id = self.source_id

        target_id: None | str | Unset
        if isinstance(self.target_id, Unset):
            target_id = UNSET
        elif isinstance(self.target_id, UUID):
            target_id = str(self.target_id)
        else:
            target_id = self.target_id

        to: None | str | Unset
        if isinstance(self.to, Unset):
            to = UNSET
        else:
            to = self.to

        to_node_id: None | str | Unset
        if isinstance(self.to_node_id, Unset):
            to_node_id = UNSET
        elif isinstance(self.to_node_id, UUID):
            to_node_id = str(self.to_node_id)
        else:
            to_node_id = self.to_node_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
                "summary": summary,
            }
        )
        if chars_added is not UNSET:
            field_dict["chars_added"] = chars_added
        if conflict_id is not UNSET:
            field_dict["conflict_id"] = conflict_id
        if count is not UNSET:
            field_dict["count"] = count
        if edge_id is not UNSET:
            field_dict["edge_id"] = edge_id
        if from_ is not UNSET:
            field_dict["from"] = from_
        if from_node_id is not UNSET:
            field_dict["from_node_id"] = from_node_id
        if kind is not UNSET:
            field_dict["kind"] = kind
        if node_id is not UNSET:
            field_dict["node_id"] = node_id
        if source_id is not UNSET:
            field_dict["source_id"] = source_id
        if target_id is not UNSET:
            field_dict["target_id"] = target_id
        if to is not UNSET:
            field_dict["to"] = to
        if to_node_id is not UNSET:
            field_dict["to_node_id"] = to_node_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        action = d.pop("action")

        summary = d.pop("summary")

        def _parse_chars_added(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        chars_added = _parse_chars_added(d.pop("chars_added", UNSET))

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

        def _parse_count(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        count = _parse_count(d.pop("count", UNSET))

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

        def _parse_from_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        from_ = _parse_from_(d.pop("from", UNSET))

        def _parse_from_node_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                from_node_id_type_0 = UUID(data)

                return from_node_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        from_node_id = _parse_from_node_id(d.pop("from_node_id", UNSET))

        def _parse_kind(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        kind = _parse_kind(d.pop("kind", UNSET))

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

        def _parse_source_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                source_id_type_0 = UUID(data)

                return source_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        source_id = _parse_source_id(d.pop("source_id", UNSET))

        def _parse_target_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                target_id_type_0 = UUID(data)

                return target_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        target_id = _parse_target_id(d.pop("target_id", UNSET))

        def _parse_to(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        to = _parse_to(d.pop("to", UNSET))

        def _parse_to_node_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                to_node_id_type_0 = UUID(data)

                return to_node_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        to_node_id = _parse_to_node_id(d.pop("to_node_id", UNSET))

        action_dto = cls(
            action=action,
            summary=summary,
            chars_added=chars_added,
            conflict_id=conflict_id,
            count=count,
            edge_id=edge_id,
            from_=from_,
            from_node_id=from_node_id,
            kind=kind,
            node_id=node_id,
            source_id=source_id,
            target_id=target_id,
            to=to,
            to_node_id=to_node_id,
        )

        action_dto.additional_properties = d
        return action_dto

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
