"""The three claim labels and one claim's verdict, shared by the offline verifier and the judge."""
from __future__ import annotations

from dataclasses import dataclass

SUPPORTED, CONTRADICTED, NOT_MENTIONED = "SUPPORTED", "CONTRADICTED", "NOT_MENTIONED"
LABELS = (SUPPORTED, CONTRADICTED, NOT_MENTIONED)


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
