"""The values every layer passes around: ``Sample`` in, ``Score`` out, and ``Resources``.

A leaf module: it imports nothing from rageval but ``errors``, so ingest, claims, metrics, runs
and views may all import it without an import circle. ``NEED_REASONS`` names the reason a
sample gets when it lacks an input a metric needs (``Score.unscored("no_reference")``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from rageval.errors import ConfigError

STATUSES = ("ok", "unscored", "failed")

#: what a metric may need, and the reason given when a sample lacks it
NEED_REASONS = {
    "answer": "no_answer",
    "reference": "no_reference",
    "contexts": "no_contexts",
    "retrieved_ids": "no_retrieved_ids",
    "relevant_ids": "no_relevant_ids",
    "question": "no_question",
}


@dataclass(frozen=True)
class Sample:
    """One question with everything known about its answer.

    ``contexts`` are the retrieved texts in rank order and ``context_ids`` their chunk ids
    (empty when the answers come from another system without ids). ``relevant_ids`` maps a
    chunk or document id to a graded relevance (1 = relevant; higher = more relevant).
    """

    id: str
    question: str = ""
    answer: str | None = None
    contexts: tuple[str, ...] = ()
    references: tuple[str, ...] = ()
    retrieved_ids: tuple[str, ...] = ()
    relevant_ids: Mapping[str, float] = field(default_factory=dict)
    context_ids: tuple[str, ...] = ()
    domain: str | None = None

    def has(self, need: str) -> bool:
        """Whether this sample carries the input ``need`` (one of NEED_REASONS)."""
        if need == "answer":
            return self.answer is not None and self.answer.strip() != ""
        if need == "reference":
            return any(r.strip() for r in self.references)
        if need == "contexts":
            return any(c.strip() for c in self.contexts)
        if need == "retrieved_ids":
            return len(self.retrieved_ids) > 0
        if need == "relevant_ids":
            return any(g > 0 for g in self.relevant_ids.values())
        if need == "question":
            return self.question.strip() != ""
        raise ConfigError(f"unknown metric input {need!r}; known: {', '.join(NEED_REASONS)}")


@dataclass(frozen=True)
class Score:
    """A metric's verdict on one sample: a value with status ``ok``, or no value and a reason."""

    value: float | None
    status: str = "ok"
    reason: str | None = None
    details: Mapping[str, Any] | None = None

    @classmethod
    def ok(cls, value: float, details: Mapping[str, Any] | None = None) -> "Score":
        return cls(value=float(value), status="ok", details=details)

    @classmethod
    def unscored(cls, reason: str, details: Mapping[str, Any] | None = None) -> "Score":
        return cls(value=None, status="unscored", reason=reason, details=details)

    @classmethod
    def failed(cls, reason: str, details: Mapping[str, Any] | None = None) -> "Score":
        return cls(value=None, status="failed", reason=reason, details=details)


@dataclass
class Resources:
    """What metrics may borrow: the embedder, the judge, the LLM client, the language.

    ``embedder`` is created on first use by ``embedder_factory`` so lexical-only runs never
    load a model. ``judge`` is the task-level judge (heuristic offline, or LLM-backed).
    """

    embedder_factory: Callable[[], Any] | None = None
    judge: Any = None
    llm: Any = None
    language: str = "en"
    _embedder: Any = field(default=None, repr=False)

    @property
    def embedder(self) -> Any:
        if self._embedder is None:
            if self.embedder_factory is None:
                raise ConfigError("these resources have no embedder_factory; score through "
                                  "rageval.metrics.base.evaluate (it supplies the offline model) "
                                  "or pass embedder_factory=")
            self._embedder = self.embedder_factory()
        return self._embedder
