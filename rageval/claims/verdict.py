"""The claim verdicts and one claim's verdict record, shared by the offline checks and the judge.

A judge (an LLM or a person) says SUPPORTED, CONTRADICTED or NOT_MENTIONED. Offline, a claim the
text proves (:mod:`rageval.claims.containment`) is SUPPORTED and every other claim is UNVERIFIED:
it keeps its most likely evidence sentence and the checks' ``hints``, which are hints for a
person, never a verdict.
"""
from __future__ import annotations

from dataclasses import dataclass

from rageval.types import (  # noqa: F401 (the claim labels)
    CONTRADICTED, DECIDED, LABELS, NOT_MENTIONED, SUPPORTED, UNVERIFIED, VERDICTS)

#: a verifier whose parameter file names no ``low_confidence_below`` of its own marks verdicts
#: under this confidence "low confidence"
DEFAULT_LOW_CONFIDENCE_BELOW = 0.9


@dataclass(frozen=True)
class Verdict:
    """One claim's verdict with its evidence: the quoted sentence, which context it came from
    (0-based index into the contexts) and its character span inside that context string."""

    label: str
    evidence: str | None = None
    context_index: int | None = None
    span: tuple[int, int] | None = None
    reason: str = ""
    mismatch: str | None = None
    coverage: float = 0.0
    similarity: float = 0.0
    conflict: bool = False
    novel: tuple[str, ...] = ()
    confidence: float | None = None  # the offline verifier's calibrated probability of ``label``
    probabilities: dict | None = None  # the learned verifier's probability of each label
    evidence_role: str | None = None  # "support", "refutes" or "closest passage"
    quote_span: tuple[int, int] | None = None  # a copied claim's exact span in the context (containment)
    low_confidence: bool = False  # confidence below the verifier's low_confidence_below threshold
    hints: tuple[str, ...] = ()  # what the offline checks noticed between the claim and its evidence
