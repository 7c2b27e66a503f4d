from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse
from typing_extensions import Self

from ..models.node_state_dto import NodeStateDto
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.evidence_dto import EvidenceDto
    from ..models.provenance_dto import ProvenanceDto


T = TypeVar("T", bound="NodeDto")


@_attrs_define
class NodeDto:
    """A node. Nodes inside conflicts always carry their full body.

    Attributes:
        body (str): Up to 1 MiB.
        confidence (float): 0..1.
        corrected (bool): True when a resolution said the memory was never true (a correction).
        created_at (datetime.datetime):
        evidence (EvidenceDto): Evidence strength, read from the memory's title, the first 2,000 characters of its body
            and its source: hedges and weak sources ("someone said", "might", "draft", "OCR",
            "anonymous", "unverified"; their Chinese and Korean forms) lower it, strong markers
            ("signed", "verified", "per the contract") raise it, each kind once, from a neutral 0.5 by
            0.15 within 0.05..0.95. Text shaped like an instruction to the store ("ignore all
            previous records") is 0.05 and `injection`.
        has_embedding (bool): Whether an embedding is stored (embeddings are write-only).
        id (UUID): UUID v7.
        labels (list[str]): Trimmed, lowercased, deduplicated; at most 32.
        memory_type (str): `[a-z0-9_-]{1,40}`.
        observed_at (datetime.datetime): When the knowledge was observed (RFC 3339, UTC, milliseconds).
        scope (str): Detection compares nodes of the same scope only.
        state (NodeStateDto): Lifecycle state of a node; only `active` nodes take part in detection.
        title (str): 1..500 characters, trimmed.
        updated_at (datetime.datetime):
        conflict_ids (list[UUID] | None | Unset): Pending conflicts of this node; present only when it has any (node
            reads only).
        provenance (None | ProvenanceDto | Unset):
        source (None | str | Unset): Where the knowledge came from, e.g. `file:src/cache.rs:42`.
        valid_until (datetime.datetime | None | Unset): Valid time: until when the memory held (set when a resolution
            said it was replaced
            by an update); null while it holds.
    """

    body: str
    confidence: float
    corrected: bool
    created_at: datetime.datetime
    evidence: EvidenceDto
    has_embedding: bool
    id: UUID
    labels: list[str]
    memory_type: str
    observed_at: datetime.datetime
    scope: str
    state: NodeStateDto
    title: str
    updated_at: datetime.datetime
    conflict_ids: list[UUID] | None | Unset = UNSET
    provenance: None | ProvenanceDto | Unset = UNSET
    source: None | str | Unset = UNSET
    valid_until: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.provenance_dto import ProvenanceDto

        body = self.body

        confidence = self.confidence

        corrected = self.corrected

        created_at = self.created_at.isoformat()

        evidence = self.evidence.to_dict()

        has_embedding = self.has_embedding

        id = str(self.id)

        labels = self.labels

        memory_type = self.memory_type

        observed_at = self.observed_at.isoformat()

        scope = self.scope

        state = self.state.value

        title = self.title

        updated_at = self.updated_at.isoformat()

        conflict_ids: list[str] | None | Unset
        if isinstance(self.conflict_ids, Unset):
            conflict_ids = UNSET
        elif isinstance(self.conflict_ids, list):
            conflict_ids = []
            for conflict_ids_type_0_item_data in self.conflict_ids:
                conflict_ids_type_0_item = str(conflict_ids_type_0_item_data)
                conflict_ids.append(conflict_ids_type_0_item)

        else:
            conflict_ids = self.conflict_ids

        provenance: dict[str, Any] | None | Unset
        if isinstance(self.provenance, Unset):
            provenance = UNSET
        elif isinstance(self.provenance, ProvenanceDto):
            provenance = self.provenance.to_dict()
        else:
            provenance = self.provenance

        source: None | str | Unset
        if isinstance(self.source, Unset):
            source = UNSET
        else:
            source = self.source

        valid_until: None | str | Unset
        if isinstance(self.valid_until, Unset):
            valid_until = UNSET
        elif isinstance(self.valid_until, datetime.datetime):
            valid_until = self.valid_until.isoformat()
        else:
            valid_until = self.valid_until

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "body": body,
                "confidence": confidence,
                "corrected": corrected,
                "created_at": created_at,
                "evidence": evidence,
                "has_embedding": has_embedding,
                "id": id,
                "labels": labels,
                "memory_type": memory_type,
                "observed_at": observed_at,
                "scope": scope,
                "state": state,
                "title": title,
                "updated_at": updated_at,
            }
        )
        if conflict_ids is not UNSET:
            field_dict["conflict_ids"] = conflict_ids
        if provenance is not UNSET:
            field_dict["provenance"] = provenance
        if source is not UNSET:
            field_dict["source"] = source
        if valid_until is not UNSET:
            field_dict["valid_until"] = valid_until

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.evidence_dto import EvidenceDto
        from ..models.provenance_dto import ProvenanceDto

        d = dict(src_dict)
        body = d.pop("body")

        confidence = d.pop("confidence")

        corrected = d.pop("corrected")

        created_at = isoparse(d.pop("created_at"))

        evidence = EvidenceDto.from_dict(d.pop("evidence"))

        has_embedding = d.pop("has_embedding")

        id = UUID(d.pop("id"))

        labels = cast(list[str], d.pop("labels"))

        memory_type = d.pop("memory_type")

        observed_at = isoparse(d.pop("observed_at"))

        scope = d.pop("scope")

        state = NodeStateDto(d.pop("state"))

        title = d.pop("title")

        updated_at = isoparse(d.pop("updated_at"))

        def _parse_conflict_ids(data: object) -> list[UUID] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                conflict_ids_type_0 = []
                _conflict_ids_type_0 = data
                for conflict_ids_type_0_item_data in _conflict_ids_type_0:
                    conflict_ids_type_0_item = UUID(conflict_ids_type_0_item_data)

                    conflict_ids_type_0.append(conflict_ids_type_0_item)

                return conflict_ids_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[UUID] | None | Unset, data)

        conflict_ids = _parse_conflict_ids(d.pop("conflict_ids", UNSET))

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

        def _parse_source(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source = _parse_source(d.pop("source", UNSET))

        def _parse_valid_until(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                valid_until_type_0 = isoparse(data)

                return valid_until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        valid_until = _parse_valid_until(d.pop("valid_until", UNSET))

        node_dto = cls(
            body=body,
            confidence=confidence,
            corrected=corrected,
            created_at=created_at,
            evidence=evidence,
            has_embedding=has_embedding,
            id=id,
            labels=labels,
            memory_type=memory_type,
            observed_at=observed_at,
            scope=scope,
            state=state,
            title=title,
            updated_at=updated_at,
            conflict_ids=conflict_ids,
            provenance=provenance,
            source=source,
            valid_until=valid_until,
        )

        node_dto.additional_properties = d
        return node_dto

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
