"""Checks of a validated judge reply that depend on the call, not on the reply's shape: that its
entries are numbered 1..n once each (:func:`numbered_entries`) and that a passage number names a
passage that was sent (:func:`passage_index`). Free of pydantic, so that a metric module can
import them without loading the reply models (:mod:`rageval.prompts.schemas`).
"""
from __future__ import annotations

from typing import Any, Sequence


def numbered_entries(items: Sequence[Any], field: str, n: int) -> list[Any]:
    """Entries 1..n in order, by their ``field`` number (position when absent); ValueError unless
    every number from 1 to n has exactly one entry."""
    found: dict[int, Any] = {}
    for pos, item in enumerate(items, 1):
        k = getattr(item, field)
        k = pos if k is None else k
        if not 1 <= k <= n:
            raise ValueError(f"{field} must be a number from 1 to {n}")
        found[k] = item
    if sorted(found) != list(range(1, n + 1)):
        raise ValueError(f"expected exactly one entry for each of the {n} {field}s")
    return [found[k] for k in range(1, n + 1)]


def passage_index(value: int | None, n: int) -> int | None:
    """``value`` when it names one of ``n`` passages (or is None); ValueError otherwise."""
    if value is not None and not 1 <= value <= n:
        raise ValueError(f"passage must be a number from 1 to {n} or null")
    return value
