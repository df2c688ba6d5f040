"""Rank-based retrieval metrics with trec_eval's conventions (tested against pytrec_eval).

Per sample: the ranked list is ``retrieved_ids`` (duplicates after the first occurrence are
dropped, as a judged run holds each document once) and the judgments are ``relevant_ids``
(id -> grade; grade > 0 is relevant). Ids are matched exactly: the pipeline expands
document-level judgments into chunk ids before scoring.

``relevance="evidence"`` is for QA sets without relevance labels: the ranked list is
``contexts`` and a context is relevant (grade 1) when it contains the SQuAD-normalised form of
any reference answer as a run of whole tokens. Only retrieved contexts are ever judged, so
"all relevant" means "relevant among those retrieved": recall, nDCG and AP are then relative to
what the retriever found, and unscored (``no_evidence_in_contexts``) when it found nothing.
Signatures say ``rel:evidence`` so such values are never mixed with label-based ones.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from rageval.errors import ConfigError
from rageval.types import Resources, Sample, Score
from rageval.text.tokenize import answer_tokens, check_language, contains_tokens, normalization_name

RELEVANCE_MODES = ("labels", "evidence")


def judged_ranking(sample: Sample, relevance: str, language: str) -> tuple[list[float], list[float]]:
    """(grade of each retrieved item in rank order, grades of every known relevant item)."""
    if relevance == "labels":
        seen: set[str] = set()
        ranked: list[float] = []
        for rid in sample.retrieved_ids:
            if rid not in seen:
                seen.add(rid)
                ranked.append(max(float(sample.relevant_ids.get(rid, 0.0)), 0.0))
        return ranked, [float(g) for g in sample.relevant_ids.values() if g > 0]
    golds = [t for t in (answer_tokens(r, language) for r in sample.references) if t]
    ranked = [
        1.0 if any(contains_tokens(answer_tokens(ctx, language), g) for g in golds) else 0.0
        for ctx in sample.contexts
    ]
    return ranked, [g for g in ranked if g > 0]


def dcg(grades: Sequence[float]) -> float:
    """Sum of grade / log2(rank + 1) over ranks 1..len(grades)."""
    return sum(g / math.log2(i + 2) for i, g in enumerate(grades) if g > 0)


@dataclass(frozen=True)
class _Retrieval:
    relevance: str = "labels"
    language: str = "en"

    range = (0.0, 1.0)
    higher_is_better = True
    kind = "retrieval"
    languages = ("any",)
    needs_llm = False
    version = "v1"

    def __post_init__(self) -> None:
        if self.relevance not in RELEVANCE_MODES:
            raise ConfigError(f"relevance={self.relevance!r}; choose one of: {', '.join(RELEVANCE_MODES)}")
        object.__setattr__(self, "language", check_language(self.language))

    @property
    def needs(self) -> frozenset[str]:
        if self.relevance == "labels":
            return frozenset({"retrieved_ids", "relevant_ids"})
        return frozenset({"contexts", "reference"})

    def signature(self) -> str:
        rel = "rel:labels" if self.relevance == "labels" else f"rel:evidence|norm:{normalization_name(self.language)}"
        return f"{self.name}|{rel}|{self.version}"

    def _value(self, ranked: list[float], relevant: list[float]) -> float:
        raise NotImplementedError

    #: whether the value is undefined when no relevant item is known (evidence mode only)
    _needs_known_relevant = True

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        out = []
        for sample in samples:
            ranked, relevant = judged_ranking(sample, self.relevance, self.language)
            if not relevant and self._needs_known_relevant:
                reason = "no_relevant_ids" if self.relevance == "labels" else "no_evidence_in_contexts"
                out.append(Score.unscored(reason, {"relevance": self.relevance}))
                continue
            details = {
                "relevance": self.relevance,
                "relevant_ranks": [i + 1 for i, g in enumerate(ranked) if g > 0][:50],
                "n_relevant": len(relevant),
                "n_retrieved": len(ranked),
            }
            out.append(Score.ok(self._value(ranked, relevant), details))
        return out


@dataclass(frozen=True)
class _AtK(_Retrieval):
    k: int = 10

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.k < 1:
            raise ConfigError(f"k={self.k} must be at least 1")

    @property
    def name(self) -> str:
        return f"{self.base}@{self.k}"


@dataclass(frozen=True)
class RecallAtK(_AtK):
    """Share of the relevant items that appear in the top K (trec_eval ``recall_K``).

    Formula: recall@K = |relevant ∩ top-K| / |relevant|
    """

    base = "recall"

    def _value(self, ranked, relevant):
        return sum(1 for g in ranked[: self.k] if g > 0) / len(relevant)


@dataclass(frozen=True)
class PrecisionAtK(_AtK):
    """Share of the top K that is relevant; fewer than K retrieved counts as misses (trec_eval ``P_K``).

    Formula: precision@K = |relevant ∩ top-K| / K
    """

    base = "precision"
    _needs_known_relevant = False

    def _value(self, ranked, relevant):
        return sum(1 for g in ranked[: self.k] if g > 0) / self.k


@dataclass(frozen=True)
class HitRateAtK(_AtK):
    """Whether at least one relevant item is in the top K (trec_eval ``success_K``).

    Formula: hit_rate@K = 1 if |relevant ∩ top-K| > 0 else 0
    """

    base = "hit_rate"
    _needs_known_relevant = False

    def _value(self, ranked, relevant):
        return 1.0 if any(g > 0 for g in ranked[: self.k]) else 0.0


@dataclass(frozen=True)
class NdcgAtK(_AtK):
    """Normalised discounted cumulative gain with graded relevance (trec_eval ``ndcg_cut_K``).

    The gain is the grade; the ideal ranking sorts every judged relevant item by grade,
    including the ones that were not retrieved.

    Formula: ndcg@K = DCG@K / IDCG@K, DCG@K = sum_{r=1..K} grade_r / log2(r + 1)
    """

    base = "ndcg"

    def _value(self, ranked, relevant):
        return dcg(ranked[: self.k]) / dcg(sorted(relevant, reverse=True)[: self.k])


@dataclass(frozen=True)
class AveragePrecision(_Retrieval):
    """Average precision over all relevant items, whole ranking (trec_eval ``map``); its mean is MAP.

    Formula: AP = (1 / |relevant|) * sum over ranks r holding a relevant item of precision@r
    """

    name = "map"

    def _value(self, ranked, relevant):
        hits, total = 0, 0.0
        for rank, grade in enumerate(ranked, start=1):
            if grade > 0:
                hits += 1
                total += hits / rank
        return total / len(relevant)


@dataclass(frozen=True)
class ReciprocalRank(_Retrieval):
    """Reciprocal rank of the first relevant item, 0 when none is retrieved (trec_eval ``recip_rank``).

    Formula: RR = 1 / (rank of the first relevant item); MRR = mean of RR over questions
    """

    name = "mrr"
    _needs_known_relevant = False

    def _value(self, ranked, relevant):
        return next((1.0 / rank for rank, g in enumerate(ranked, start=1) if g > 0), 0.0)
