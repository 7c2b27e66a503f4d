from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from dateutil.parser import isoparse
from typing_extensions import Self

from ..models.node_state_dto import NodeStateDto
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.provenance_dto import ProvenanceDto


T = TypeVar("T", bound="CreateNodeRequest")


@_attrs_define
class CreateNodeRequest:
    """A node to store.

    Attributes:
        title (str): 1..500 characters after trimming.
        body (None | str | Unset): Up to 1 MiB. Default empty.
        confidence (float | None | Unset): 0..1, default 0.8.
        embedding (list[float] | None | Unset): Write-only, 1..8192 numbers. Every embedding in one store has the same
            dimension
            (else 422).
        labels (list[str] | None | Unset): Up to 32 labels of 1..64 characters; stored trimmed, lowercased,
            deduplicated.
        memory_type (None | str | Unset): `[a-z0-9_-]{1,40}`, default `fact`.
        observed_at (datetime.datetime | None | Unset): RFC 3339, UTC once its offset is applied between years 0000 and
            9999; default: now.
        provenance (None | ProvenanceDto | Unset):
        scope (None | str | Unset): Default `default`. Detection compares nodes of one scope only. 1..200 characters.
        source (None | str | Unset): Up to 500 characters.
        state (NodeStateDto | None | Unset):
    """

    title: str
    body: None | str | Unset = UNSET
    confidence: float | None | Unset = UNSET
    embedding: list[float] | None | Unset = UNSET
    labels: list[str] | None | Unset = UNSET
    memory_type: None | str | Unset = UNSET
    observed_at: datetime.datetime | None | Unset = UNSET
    provenance: None | ProvenanceDto | Unset = UNSET
    scope: None | str | Unset = UNSET
    source: None | str | Unset = UNSET
    state: NodeStateDto | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.provenance_dto import ProvenanceDto

        title = self.title

        body: None | str | Unset
        if isinstance(self.body, Unset):
            body = UNSET
        else:
            body = self.body

        confidence: float | None | Unset
        if isinstance(self.confidence, Unset):
            confidence = UNSET
        else:
            confidence = self.confidence

        embedding: list[float] | None | Unset
        if isinstance(self.embedding, Unset):
            embedding = UNSET
        elif isinstance(self.embedding, list):
            embedding = self.embedding

        else:
            embedding = self.embedding

        labels: list[str] | None | Unset
        if isinstance(self.labels, Unset):
            labels = UNSET
        elif isinstance(self.labels, list):
            labels = self.labels

        else:
            labels = self.labels

        memory_type: None | str | Unset
        if isinstance(self.memory_type, Unset):
            memory_type = UNSET
        else:
            memory_type = self.memory_type

        observed_at: None | str | Unset
        if isinstance(self.observed_at, Unset):
            observed_at = UNSET
        elif isinstance(self.observed_at, datetime.datetime):
            observed_at = self.observed_at.isoformat()
        else:
            observed_at = self.observed_at

        provenance: dict[str, Any] | None | Unset
        if isinstance(self.provenance, Unset):
            provenance = UNSET
        elif isinstance(self.provenance, ProvenanceDto):
            provenance = self.provenance.to_dict()
        else:
            provenance = self.provenance

        scope: None | str | Unset
        if isinstance(self.scope, Unset):
            scope = UNSET
        else:
            scope = self.scope

        source: None | str | Unset
        if isinstance(self.source, Unset):
            source = UNSET
        else:
            source = self.source

        state: None | str | Unset
        if isinstance(self.state, Unset):
            state = UNSET
        elif isinstance(self.state, NodeStateDto):
            state = self.state.value
        else:
            state = self.state

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "title": title,
            }
        )
        if body is not UNSET:
            field_dict["body"] = body
        if confidence is not UNSET:
            field_dict["confidence"] = confidence
        if embedding is not UNSET:
            field_dict["embedding"] = embedding
        if labels is not UNSET:
            field_dict["labels"] = labels
        if memory_type is not UNSET:
            field_dict["memory_type"] = memory_type
        if observed_at is not UNSET:
            field_dict["observed_at"] = observed_at
        if provenance is not UNSET:
            field_dict["provenance"] = provenance
        if scope is not UNSET:
            field_dict["scope"] = scope
        if source is not UNSET:
            field_dict["source"] = source
        if state is not UNSET:
            field_dict["state"] = state

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.provenance_dto import ProvenanceDto

        d = dict(src_dict)
        title = d.pop("title")

        def _parse_body(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        body = _parse_body(d.pop("body", UNSET))

        def _parse_confidence(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        confidence = _parse_confidence(d.pop("confidence", UNSET))

        def _parse_embedding(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                embedding_type_0 = cast(list[float], data)

                return embedding_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None | Unset, data)

        embedding = _parse_embedding(d.pop("embedding", UNSET))

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

        def _parse_memory_type(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        memory_type = _parse_memory_type(d.pop("memory_type", UNSET))

        def _parse_observed_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                observed_at_type_0 = isoparse(data)

                return observed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        observed_at = _parse_observed_at(d.pop("observed_at", UNSET))

        def _parse_provenance(data: object) -> None | ProvenanceDto | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                provenance_type_0 = ProvenanceDto.from_dict(data)

                return provenance_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ProvenanceDto | Unset, data)

        provenance = _parse_provenance(d.pop("provenance", UNSET))

        def _parse_scope(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        scope = _parse_scope(d.pop("scope", UNSET))

        def _parse_source(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source = _parse_source(d.pop("source", UNSET))

        def _parse_state(data: object) -> NodeStateDto | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                state_type_0 = NodeStateDto(data)

                return state_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(NodeStateDto | None | Unset, data)

        state = _parse_state(d.pop("state", UNSET))

        create_node_request = cls(
            title=title,
            body=body,
            confidence=confidence,
            embedding=embedding,
            labels=labels,
            memory_type=memory_type,
            observed_at=observed_at,
            provenance=provenance,
            scope=scope,
            source=source,
            state=state,
        )

        return create_node_request
