from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.policy_mark_dto import PolicyMarkDto


T = TypeVar("T", bound="DetectionDto")


@_attrs_define
class DetectionDto:
    """How a conflict was found.

    Attributes:
        explanation (str): The conflicting spans, e.g. `value changed: "80%" vs "60%"`.
        probability (float): Probability of a contradiction (0..1).
        signals (list[str]): `negation`, `replacement`, `value_change`, `scope_change`, `vector_similarity`.
        tier (str): `heuristic`, `vector`, `llm` or `manual`.
        llm_fallback (None | str | Unset): Why a configured LLM tier did not decide, when it did not.
        overlap (float | None | Unset): Token overlap (Jaccard) of the two texts.
        policy (None | PolicyMarkDto | Unset):
        similarity (float | None | Unset): Cosine similarity of the embeddings, when both have one.
    """

    explanation: str
    probability: float
    signals: list[str]
    tier: str
    llm_fallback: None | str | Unset = UNSET
    overlap: float | None | Unset = UNSET
    policy: None | PolicyMarkDto | Unset = UNSET
    similarity: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.policy_mark_dto import PolicyMarkDto

        explanation = self.explanation

        probability = self.probability

        signals = self.signals

        tier = self.tier

        llm_fallback: None | str | Unset
        if isinstance(self.llm_fallback, Unset):
            llm_fallback = UNSET
        else:
            llm_fallback = self.llm_fallback

        overlap: float | None | Unset
        if isinstance(self.overlap, Unset):
            overlap = UNSET
        else:
            overlap = self.overlap

        policy: dict[str, Any] | None | Unset
        if isinstance(self.policy, Unset):
            policy = UNSET
        elif isinstance(self.policy, PolicyMarkDto):
            policy = self.policy.to_dict()
        else:
            policy = self.policy

        similarity: float | None | Unset
        if isinstance(self.similarity, Unset):
            similarity = UNSET
        else:
            similarity = self.similarity

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "explanation": explanation,
                "probability": probability,
                "signals": signals,
                "tier": tier,
            }
        )
        if llm_fallback is not UNSET:
            field_dict["llm_fallback"] = llm_fallback
        if overlap is not UNSET:
            field_dict["overlap"] = overlap
        if policy is not UNSET:
            field_dict["policy"] = policy
        if similarity is not UNSET:
            field_dict["similarity"] = similarity

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.policy_mark_dto import PolicyMarkDto

        d = dict(src_dict)
        explanation = d.pop("explanation")

        probability = d.pop("probability")

        signals = cast(list[str], d.pop("signals"))

        tier = d.pop("tier")

        def _parse_llm_fallback(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        llm_fallback = _parse_llm_fallback(d.pop("llm_fallback", UNSET))

        def _parse_overlap(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        overlap = _parse_overlap(d.pop("overlap", UNSET))

        def _parse_policy(data: object) -> None | PolicyMarkDto | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                policy_type_0 = PolicyMarkDto.from_dict(data)

                return policy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PolicyMarkDto | Unset, data)

        policy = _parse_policy(d.pop("policy", UNSET))

        def _parse_similarity(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        similarity = _parse_similarity(d.pop("similarity", UNSET))

        detection_dto = cls(
            explanation=explanation,
            probability=probability,
            signals=signals,
            tier=tier,
            llm_fallback=llm_fallback,
            overlap=overlap,
            policy=policy,
            similarity=similarity,
        )

        detection_dto.additional_properties = d
        return detection_dto

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
