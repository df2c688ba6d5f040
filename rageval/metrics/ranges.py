"""The one rule for every number the gate reads: finite and inside its metric's declared range.

A value comes from a scored file, a baseline, a stored run or an imported Parquet part. It is
**sound** when it is a number (a JSON number, or a CSV cell that reads as one; ``true`` is not),
finite (not NaN, not infinite) and inside the range the metric declares (``Metric.range`` of the
registry's metric, a rubric metric's ``[0, 1]``), allowing
:data:`rageval.metrics.base.RANGE_TOLERANCE` of floating-point error at each end. A column that is
no registered metric has no declared range, so only finiteness is checked there.

A value that is not sound is never averaged or stored as ``ok``: its answer is **rejected** on that
metric with the reason (a :class:`Rejection`: where it was, the answer id, the metric, why) and
counted as unscored, which fails the gate unless ``--allow-unscored``.

>>> value_problem("token_f1", 25.0)
"25.0 is outside token_f1's range [0, 1]"
>>> value_problem("token_f1", float("inf")), value_problem("token_f1", "0.5"), value_problem("token_f1", True)
('inf is not a finite number', None, 'true is not a number')
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

from rageval.errors import RagevalError
from rageval.metrics.base import RANGE_TOLERANCE, get_metric

#: the most rejections listed in the gate's text and JSON (all are counted)
MAX_LISTED = 1000


@dataclass(frozen=True)
class Rejection:
    """An answer's value (``metric``) or whole row (``metric`` None) that the gate did not accept."""

    where: str           # "scores.jsonl row 4 (line 4)", "run 2026-...: stored score", "part-00000-00000.parquet row 3"
    id: str | None       # the answer id, None when the row had none
    metric: str | None
    reason: str

    def __str__(self) -> str:
        who = f"id {self.id!r}" if self.id is not None else "no id"
        return f"{self.where}, {who}" + (f", {self.metric}" if self.metric else "") + f": {self.reason}"

    def as_dict(self) -> dict[str, Any]:
        return {"where": self.where, "id": self.id, "metric": self.metric, "reason": self.reason}


@functools.lru_cache(maxsize=4096)
def bounds(metric: str) -> tuple[float, float]:
    """The metric's declared ``(low, high)`` (``ndcg@10`` and ``rubric:NAME`` included); ``(-inf, inf)``
    for a name that is no registered metric."""
    if metric.startswith("rubric:"):
        from rageval.metrics.rubric import RubricMetric

        return tuple(map(float, RubricMetric.range))  # type: ignore[return-value]
    try:
        low, high = get_metric(metric).range
    except RagevalError:
        return -math.inf, math.inf
    return float(low), float(high)


@functools.lru_cache(maxsize=4096)
def registered(metric: str) -> bool:
    """Whether ``metric`` names a registered metric (or a rubric), so its range is declared."""
    return not math.isinf(bounds(metric)[0]) or not math.isinf(bounds(metric)[1])


def range_text(metric: str) -> str:
    lo, hi = bounds(metric)
    return f"[{lo:g}, {hi:g}]"


def as_number(value: Any) -> float | None:
    """A JSON or CSV value as a float (NaN and infinities kept, to be rejected); None when it is none."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        try:
            return float(value)
        except OverflowError:  # an integer past a float's range
            return math.inf if value > 0 else -math.inf
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def empty(value: Any) -> bool:
    """No value at all: absent, null, an empty cell (a Parquet null arrives as None). A NaN is a value,
    and is rejected: a file that says NaN did not leave the cell empty."""
    return value is None or (isinstance(value, str) and not value.strip())


def value_problem(metric: str, value: Any) -> str | None:
    """None when ``value`` is sound for ``metric`` (module docstring), else why not, in words."""
    found = problem(metric, value)
    return None if found is None else found[1]


def problem(metric: str, value: Any) -> tuple[str, str] | None:
    """``(kind, detail)`` when ``value`` is not sound: the kind is what a count of unscored answers
    shows (``"not finite"``), the detail what the answer's rejection says."""
    number = as_number(value)
    if number is None:
        shown = "true" if value is True else "false" if value is False else repr(value)[:60]
        return "not a number", f"{shown} is not a number"
    if math.isnan(number):
        return "not a number", "NaN is not a number"
    if math.isinf(number):
        return "not finite", f"{'-' if number < 0 else ''}inf is not a finite number"
    lo, hi = bounds(metric)
    if not lo - RANGE_TOLERANCE <= number <= hi + RANGE_TOLERANCE:
        return f"outside {range_text(metric)}", f"{number!r} is outside {metric}'s range {range_text(metric)}"
    return None


def sound(metric: str, value: Any) -> float:
    """``value`` as a float inside the range (clipped by at most the tolerance); call after :func:`value_problem`."""
    lo, hi = bounds(metric)
    return min(max(float(as_number(value)), lo), hi)  # type: ignore[arg-type]
