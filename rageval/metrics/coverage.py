"""Coverage of the metrics that count decided claims (faithfulness, the claim shares,
groundedness, RAGAS answer correctness offline).

``coverage = #decided / #all`` where a claim (or answer sentence, or statement) is *decided* when
its verdict is not UNVERIFIED. The value is computed on the decided ones only; with none decided
it is unscored with reason :data:`NO_DECIDED` (never 0 or 1 by default). The coverage is stored
in ``Score.details["coverage"]`` with ``n_decided`` and ``n_all``, and every view that shows such
a value shows the coverage beside it (:func:`coverage_of`).
"""
from __future__ import annotations

import json
from typing import Any, Mapping

from rageval.types import Score

#: the metrics whose values count decided claims only and carry a coverage (their ``<metric>_coverage``
#: column in score files and exports)
COVERAGE_METRICS = ("faithfulness", "contradicted_share", "not_mentioned_share", "groundedness",
                    "ragas_answer_correctness")

#: the reason of a value computed on no decided claim; a judge decides what containment cannot
NO_DECIDED = ("no_decided_claims: every claim is UNVERIFIED (offline only a claim copied from a context is "
              "decided); a judge decides the rest (--judge openai:MODEL, or the Run page's Judge)")


def coverage_score(hits: float, decided: int, total: int, details: Mapping[str, Any], *,
                   value: float | None = None) -> Score:
    """``hits / decided`` (or ``value`` when given) with ``coverage = decided / total`` in the
    details; unscored :data:`NO_DECIDED` when nothing is decided.

    >>> s = coverage_score(2, 2, 5, {})
    >>> s.value, s.details["coverage"]
    (1.0, 0.4)
    >>> coverage_score(0, 0, 3, {}).status
    'unscored'
    """
    extra = {**details, "coverage": round(decided / total, 6) if total else None, "n_decided": decided, "n_all": total}
    if decided == 0:
        return Score.unscored(NO_DECIDED, extra)
    return Score.ok(hits / decided if value is None else value, extra)


def coverage_of(details: Any) -> float | None:
    """The coverage stored in a score's details (a dict or its JSON text), None when it has none."""
    if isinstance(details, str):
        try:
            details = json.loads(details)
        except ValueError:
            return None
    if not isinstance(details, Mapping):
        return None
    cov = details.get("coverage")
    return float(cov) if isinstance(cov, (int, float)) and not isinstance(cov, bool) else None
