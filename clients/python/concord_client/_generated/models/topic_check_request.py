from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from dateutil.parser import isoparse
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="TopicCheckRequest")


@_attrs_define
class TopicCheckRequest:
    """A topic to check.

    Attributes:
        topic (str): Words to search for (full-text, every word must match), 1..500 characters.
        as_of (datetime.datetime | None | Unset): Valid time, RFC 3339: report on what held at this instant (default
            now).
        known_at (datetime.datetime | None | Unset): System time, RFC 3339, not in the future: report as concord knew
            the memories then
            (default now).
        labels (list[str] | None | Unset): Only nodes with at least one of these labels (up to 32, each 1..64
            characters).
        limit (int | None | Unset): Nodes to analyse, 2..50 (default 20).
        scope (None | str | Unset): Only memories of this scope, 1..200 characters (one the key holds: 403
            `/problems/scope-forbidden` otherwise). Without it, every scope the key holds.
        sensitivity (None | str | Unset): `strict` flags any verdict (scope mismatches and vector-only evidence
            included),
            `balanced` (default) needs a text signal, `lenient` only direct contradictions and
            numeric mismatches above 0.7.
    """

    topic: str
    as_of: datetime.datetime | None | Unset = UNSET
    known_at: datetime.datetime | None | Unset = UNSET
    labels: list[str] | None | Unset = UNSET
    limit: int | None | Unset = UNSET
    scope: None | str | Unset = UNSET
    sensitivity: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        topic = self.topic

        as_of: None | str | Unset
        if isinstance(self.as_of, Unset):
            as_of = UNSET
        elif isinstance(self.as_of, datetime.datetime):
            as_of = self.as_of.isoformat()
        else:
            as_of = self.as_of

        known_at: None | str | Unset
        if isinstance(self.known_at, Unset):
            known_at = UNSET
        elif isinstance(self.known_at, datetime.datetime):
            known_at = self.known_at.isoformat()
        else:
            known_at = self.known_at

        labels: list[str] | None | Unset
        if isinstance(self.labels, Unset):
            labels = UNSET
        elif isinstance(self.labels, list):
            labels = self.labels

        else:
            labels = self.labels

        limit: int | None | Unset
        if isinstance(self.limit, Unset):
            limit = UNSET
        else:
            limit = self.limit

        scope: None | str | Unset
        if isinstance(self.scope, Unset):
            scope = UNSET
        else:
            scope = self.scope

        sensitivity: None | str | Unset
        if isinstance(self.sensitivity, Unset):
            sensitivity = UNSET
        else:
            sensitivity = self.sensitivity

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "topic": topic,
            }
        )
        if as_of is not UNSET:
            field_dict["as_of"] = as_of
        if known_at is not UNSET:
            field_dict["known_at"] = known_at
        if labels is not UNSET:
            field_dict["labels"] = labels
        if limit is not UNSET:
            field_dict["limit"] = limit
        if scope is not UNSET:
            field_dict["scope"] = scope
        if sensitivity is not UNSET:
            field_dict["sensitivity"] = sensitivity

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        topic = d.pop("topic")

        def _parse_as_of(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                as_of_type_0 = isoparse(data)

                return as_of_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        as_of = _parse_as_of(d.pop("as_of", UNSET))

        def _parse_known_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                known_at_type_0 = isoparse(data)

                return known_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        known_at = _parse_known_at(d.pop("known_at", UNSET))

        def _parse_labels(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                labels_type_0 = cast(list[str], data)

                return labels_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        labels = _parse_labels(d.pop("labels", UNSET))

        def _parse_limit(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        limit = _parse_limit(d.pop("limit", UNSET))

        def _parse_scope(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        scope = _parse_scope(d.pop("scope", UNSET))

        def _parse_sensitivity(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        sensitivity = _parse_sensitivity(d.pop("sensitivity", UNSET))

        topic_check_request = cls(
            topic=topic,
            as_of=as_of,
            known_at=known_at,
            labels=labels,
            limit=limit,
            scope=scope,
            sensitivity=sensitivity,
        )

        return topic_check_request
