from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.node_state_dto import NodeStateDto
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.action_dto import ActionDto
    from ..models.change_dto import ChangeDto
    from ..models.current_resolution import CurrentResolution
    from ..models.field_error_dto import FieldErrorDto


T = TypeVar("T", bound="Problem")


@_attrs_define
class Problem:
    """RFC 9457 problem details, with concord's extension members.

    Attributes:
        detail (str): What went wrong this time.
        request_id (str): The request id, also sent as the `x-request-id` header.
        status (int): HTTP status code.
        title (str): Short summary, the same for every occurrence of the type.
        type_ (str): Stable problem type, e.g. `/problems/not-found`.
        changes (list[ChangeDto] | None | Unset): The later changes in the way of a revert (`/problems/revert-
            conflict`).
        current (CurrentResolution | None | Unset):
        errors (list[FieldErrorDto] | None | Unset): Invalid fields (422).
        failed_action (None | str | Unset): The step that failed (`/problems/resolution-failed`, `/problems/revert-
            failed`).
        node_id (None | Unset | UUID): The node that is no longer active (`/problems/stale-conflict`).
        node_state (NodeStateDto | None | Unset):
        partial_actions (list[ActionDto] | None | Unset): Steps done before the failure, now rolled back
            (`/problems/resolution-failed`,
            `/problems/revert-failed`).
        retryable (bool | None | Unset): Whether repeating the request may succeed.
        rolled_back (bool | None | Unset): Always true on `/problems/resolution-failed` and `/problems/revert-failed`:
            nothing was
            written.
        sweep_id (None | Unset | UUID): The sweep that is running (`/problems/sweep-running`).
    """

    detail: str
    request_id: str
    status: int
    title: str
    type_: str
    changes: list[ChangeDto] | None | Unset = UNSET
    current: CurrentResolution | None | Unset = UNSET
    errors: list[FieldErrorDto] | None | Unset = UNSET
    failed_action: None | str | Unset = UNSET
    node_id: None | Unset | UUID = UNSET
    node_state: NodeStateDto | None | Unset = UNSET
    partial_actions: list[ActionDto] | None | Unset = UNSET
    retryable: bool | None | Unset = UNSET
    rolled_back: bool | None | Unset = UNSET
    sweep_id: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.current_resolution import CurrentResolution

        detail = self.detail

        request_id = self.request_id

        status = self.status

        title = self.title

        type_ = self.type_

        changes: list[dict[str, Any]] | None | Unset
        if isinstance(self.changes, Unset):
            changes = UNSET
        elif isinstance(self.changes, list):
            changes = []
            for changes_type_0_item_data in self.changes:
                changes_type_0_item = changes_type_0_item_data.to_dict()
                changes.append(changes_type_0_item)

        else:
            changes = self.changes

        current: dict[str, Any] | None | Unset
        if isinstance(self.current, Unset):
            current = UNSET
        elif isinstance(self.current, CurrentResolution):
            current = self.current.to_dict()
        else:
            current = self.current

        errors: list[dict[str, Any]] | None | Unset
        if isinstance(self.errors, Unset):
            errors = UNSET
        elif isinstance(self.errors, list):
            errors = []
            for errors_type_0_item_data in self.errors:
                errors_type_0_item = errors_type_0_item_data.to_dict()
                errors.append(errors_type_0_item)

        else:
            errors = self.errors

        failed_action: None | str | Unset
        if isinstance(self.failed_action, Unset):
            failed_action = UNSET
        else:
            failed_action = self.failed_action

        node_id: None | str | Unset
        if isinstance(self.node_id, Unset):
            node_id = UNSET
        elif isinstance(self.node_id, UUID):
            node_id = str(self.node_id)
        else:
            node_id = self.node_id

        node_state: None | str | Unset
        if isinstance(self.node_state, Unset):
            node_state = UNSET
        elif isinstance(self.node_state, NodeStateDto):
            node_state = self.node_state.value
        else:
            node_state = self.node_state

        partial_actions: list[dict[str, Any]] | None | Unset
        if isinstance(self.partial_actions, Unset):
            partial_actions = UNSET
        elif isinstance(self.partial_actions, list):
            partial_actions = []
            for partial_actions_type_0_item_data in self.partial_actions:
                partial_actions_type_0_item = partial_actions_type_0_item_data.to_dict()
                partial_actions.append(partial_actions_type_0_item)

        else:
            partial_actions = self.partial_actions

        retryable: bool | None | Unset
        if isinstance(self.retryable, Unset):
            retryable = UNSET
        else:
            retryable = self.retryable

        rolled_back: bool | None | Unset
        if isinstance(self.rolled_back, Unset):
            rolled_back = UNSET
        else:
            rolled_back = self.rolled_back

        sweep_id: None | str | Unset
        if isinstance(self.sweep_id, Unset):
            sweep_id = UNSET
        elif isinstance(self.sweep_id, UUID):
            sweep_id = str(self.sweep_id)
        else:
            sweep_id = self.sweep_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "detail": detail,
                "request_id": request_id,
                "status": status,
                "title": title,
                "type": type_,
            }
        )
        if changes is not UNSET:
            field_dict["changes"] = changes
        if current is not UNSET:
            field_dict["current"] = current
        if errors is not UNSET:
            field_dict["errors"] = errors
        if failed_action is not UNSET:
            field_dict["failed_action"] = failed_action
        if node_id is not UNSET:
            field_dict["node_id"] = node_id
        if node_state is not UNSET:
            field_dict["node_state"] = node_state
        if partial_actions is not UNSET:
            field_dict["partial_actions"] = partial_actions
        if retryable is not UNSET:
            field_dict["retryable"] = retryable
        if rolled_back is not UNSET:
            field_dict["rolled_back"] = rolled_back
        if sweep_id is not UNSET:
            field_dict["sweep_id"] = sweep_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.action_dto import ActionDto
        from ..models.change_dto import ChangeDto
        from ..models.current_resolution import CurrentResolution
        from ..models.field_error_dto import FieldErrorDto

        d = dict(src_dict)
        detail = d.pop("detail")

        request_id = d.pop("request_id")

        status = d.pop("status")

        title = d.pop("title")

        type_ = d.pop("type")

        def _parse_changes(data: object) -> list[ChangeDto] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                changes_type_0 = []
                _changes_type_0 = data
                for changes_type_0_item_data in _changes_type_0:
                    changes_type_0_item = ChangeDto.from_dict(changes_type_0_item_data)

                    changes_type_0.append(changes_type_0_item)

                return changes_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ChangeDto] | None | Unset, data)

        changes = _parse_changes(d.pop("changes", UNSET))

        def _parse_current(data: object) -> CurrentResolution | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                current_type_0 = CurrentResolution.from_dict(data)

                return current_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CurrentResolution | None | Unset, data)

        current = _parse_current(d.pop("current", UNSET))

        def _parse_errors(data: object) -> list[FieldErrorDto] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                errors_type_0 = []
                _errors_type_0 = data
                for errors_type_0_item_data in _errors_type_0:
                    errors_type_0_item = FieldErrorDto.from_dict(errors_type_0_item_data)

                    errors_type_0.append(errors_type_0_item)

                return errors_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[FieldErrorDto] | None | Unset, data)

        errors = _parse_errors(d.pop("errors", UNSET))

        def _parse_failed_action(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        failed_action = _parse_failed_action(d.pop("failed_action", UNSET))

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

        def _parse_node_state(data: object) -> NodeStateDto | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                node_state_type_0 = NodeStateDto(data)

                return node_state_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(NodeStateDto | None | Unset, data)

        node_state = _parse_node_state(d.pop("node_state", UNSET))

        def _parse_partial_actions(data: object) -> list[ActionDto] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                partial_actions_type_0 = []
                _partial_actions_type_0 = data
                for partial_actions_type_0_item_data in _partial_actions_type_0:
                    partial_actions_type_0_item = ActionDto.from_dict(partial_actions_type_0_item_data)

                    partial_actions_type_0.append(partial_actions_type_0_item)

                return partial_actions_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ActionDto] | None | Unset, data)

        partial_actions = _parse_partial_actions(d.pop("partial_actions", UNSET))

        def _parse_retryable(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        retryable = _parse_retryable(d.pop("retryable", UNSET))

        def _parse_rolled_back(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        rolled_back = _parse_rolled_back(d.pop("rolled_back", UNSET))

        def _parse_sweep_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sweep_id_type_0 = UUID(data)

                return sweep_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        sweep_id = _parse_sweep_id(d.pop("sweep_id", UNSET))

        problem = cls(
            detail=detail,
            request_id=request_id,
            status=status,
            title=title,
            type_=type_,
            changes=changes,
            current=current,
            errors=errors,
            failed_action=failed_action,
            node_id=node_id,
            node_state=node_state,
            partial_actions=partial_actions,
            retryable=retryable,
            rolled_back=rolled_back,
            sweep_id=sweep_id,
        )

        problem.additional_properties = d
        return problem

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
