from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.action_dto import ActionDto
    from ..models.detection_dto import DetectionDto
    from ..models.history_entry_dto import HistoryEntryDto
    from ..models.node_dto import NodeDto
    from ..models.recommendation_dto import RecommendationDto


T = TypeVar("T", bound="ConflictDto")


@_attrs_define
class ConflictDto:
    """A conflict with both sides in full.

    Attributes:
        conflict_type (str): `direct-contradiction`, `numeric-mismatch`, `temporal-mismatch` or `scope-mismatch`.
        created_at (datetime.datetime):
        detection (DetectionDto): How a conflict was found.
        id (UUID):
        recommendation (RecommendationDto): What concord suggests.
        status (str): `pending` or `resolved`.
        actions (list[ActionDto] | None | Unset): What the resolution did.
        latest (HistoryEntryDto | None | Unset):
        new_content (None | str | Unset): The new side's text when it is not (or no longer) a node.
        new_node (NodeDto | None | Unset):
        note (None | str | Unset):
        old_node (NodeDto | None | Unset):
        resolution (None | str | Unset): The strategy it was resolved with.
        resolved_at (datetime.datetime | None | Unset):
        resolved_by (None | str | Unset):
    """

    conflict_type: str
    created_at: datetime.datetime
    detection: DetectionDto
    id: UUID
    recommendation: RecommendationDto
    status: str
    actions: list[ActionDto] | None | Unset = UNSET
    latest: HistoryEntryDto | None | Unset = UNSET
    new_content: None | str | Unset = UNSET
    new_node: NodeDto | None | Unset = UNSET
    note: None | str | Unset = UNSET
    old_node: NodeDto | None | Unset = UNSET
    resolution: None | str | Unset = UNSET
    resolved_at: datetime.datetime | None | Unset = UNSET
    resolved_by: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.history_entry_dto import HistoryEntryDto
        from ..models.node_dto import NodeDto

        conflict_type = self.conflict_type

        created_at = self.created_at.isoformat()

        detection = self.detection.to_dict()

        id = str(self.id)

        recommendation = self.recommendation.to_dict()

        status = self.status

        actions: list[dict[str, Any]] | None | Unset
        if isinstance(self.actions, Unset):
            actions = UNSET
        elif isinstance(self.actions, list):
            actions = []
            for actions_type_0_item_data in self.actions:
                actions_type_0_item = actions_type_0_item_data.to_dict()
                actions.append(actions_type_0_item)

        else:
            actions = self.actions

        latest: dict[str, Any] | None | Unset
        if isinstance(self.latest, Unset):
            latest = UNSET
        elif isinstance(self.latest, HistoryEntryDto):
            latest = self.latest.to_dict()
        else:
            latest = self.latest

        new_content: None | str | Unset
        if isinstance(self.new_content, Unset):
            new_content = UNSET
        else:
            new_content = self.new_content

        new_node: dict[str, Any] | None | Unset
        if isinstance(self.new_node, Unset):
            new_node = UNSET
        elif isinstance(self.new_node, NodeDto):
            new_node = self.new_node.to_dict()
        else:
            new_node = self.new_node

        note: None | str | Unset
        if isinstance(self.note, Unset):
            note = UNSET
        else:
            note = self.note

        old_node: dict[str, Any] | None | Unset
        if isinstance(self.old_node, Unset):
            old_node = UNSET
        elif isinstance(self.old_node, NodeDto):
            old_node = self.old_node.to_dict()
        else:
            old_node = self.old_node

        resolution: None | str | Unset
        if isinstance(self.resolution, Unset):
            resolution = UNSET
        else:
            resolution = self.resolution

        resolved_at: None | str | Unset
        if isinstance(self.resolved_at, Unset):
            resolved_at = UNSET
        elif isinstance(self.resolved_at, datetime.datetime):
            resolved_at = self.resolved_at.isoformat()
        else:
            resolved_at = self.resolved_at

        resolved_by: None | str | Unset
        if isinstance(self.resolved_by, Unset):
            resolved_by = UNSET
        else:
            resolved_by = self.resolved_by

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "conflict_type": conflict_type,
                "created_at": created_at,
                "detection": detection,
                "id": id,
                "recommendation": recommendation,
                "status": status,
            }
        )
        if actions is not UNSET:
            field_dict["actions"] = actions
        if latest is not UNSET:
            field_dict["latest"] = latest
        if new_content is not UNSET:
            field_dict["new_content"] = new_content
        if new_node is not UNSET:
            field_dict["new_node"] = new_node
        if note is not UNSET:
            field_dict["note"] = note
        if old_node is not UNSET:
            field_dict["old_node"] = old_node
        if resolution is not UNSET:
            field_dict["resolution"] = resolution
        if resolved_at is not UNSET:
            field_dict["resolved_at"] = resolved_at
        if resolved_by is not UNSET:
            field_dict["resolved_by"] = resolved_by

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.action_dto import ActionDto
        from ..models.detection_dto import DetectionDto
        from ..models.history_entry_dto import HistoryEntryDto
        from ..models.node_dto import NodeDto
        from ..models.recommendation_dto import RecommendationDto

        d = dict(src_dict)
        conflict_type = d.pop("conflict_type")

        created_at = isoparse(d.pop("created_at"))

        detection = DetectionDto.from_dict(d.pop("detection"))

        id = UUID(d.pop("id"))

        recommendation = RecommendationDto.from_dict(d.pop("recommendation"))

        status = d.pop("status")

        def _parse_actions(data: object) -> list[ActionDto] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                actions_type_0 = []
                _actions_type_0 = data
                for actions_type_0_item_data in _actions_type_0:
                    actions_type_0_item = ActionDto.from_dict(actions_type_0_item_data)

                    actions_type_0.append(actions_type_0_item)

                return actions_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ActionDto] | None | Unset, data)

        actions = _parse_actions(d.pop("actions", UNSET))

        def _parse_latest(data: object) -> HistoryEntryDto | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                latest_type_0 = HistoryEntryDto.from_dict(data)

                return latest_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HistoryEntryDto | None | Unset, data)

        latest = _parse_latest(d.pop("latest", UNSET))

        def _parse_new_content(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        new_content = _parse_new_content(d.pop("new_content", UNSET))

        def _parse_new_node(data: object) -> NodeDto | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                new_node_type_0 = NodeDto.from_dict(data)

                return new_node_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(NodeDto | None | Unset, data)

        new_node = _parse_new_node(d.pop("new_node", UNSET))

        def _parse_note(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        note = _parse_note(d.pop("note", UNSET))

        def _parse_old_node(data: object) -> NodeDto | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                old_node_type_0 = NodeDto.from_dict(data)

                return old_node_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(NodeDto | None | Unset, data)

        old_node = _parse_old_node(d.pop("old_node", UNSET))

        def _parse_resolution(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        resolution = _parse_resolution(d.pop("resolution", UNSET))

        def _parse_resolved_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                resolved_at_type_0 = isoparse(data)

                return resolved_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        resolved_at = _parse_resolved_at(d.pop("resolved_at", UNSET))

        def _parse_resolved_by(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        resolved_by = _parse_resolved_by(d.pop("resolved_by", UNSET))

        conflict_dto = cls(
            conflict_type=conflict_type,
            created_at=created_at,
            detection=detection,
            id=id,
            recommendation=recommendation,
            status=status,
            actions=actions,
            latest=latest,
            new_content=new_content,
            new_node=new_node,
            note=note,
            old_node=old_node,
            resolution=resolution,
            resolved_at=resolved_at,
            resolved_by=resolved_by,
        )

        conflict_dto.additional_properties = d
        return conflict_dto

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
