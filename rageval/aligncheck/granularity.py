"""How fine-grained the check is: TF-IDF weights of entity types over the evaluated collection.

Each text is a bag of entity types (its NER labels with counts). Over the N texts of the
collection (every source and target text scored together), type t gets

    tf(t, d)  = count(t, d) / sum_u count(u, d)
    idf(t)    = ln((1 + N) / (1 + df(t))) + 1          (df(t) = texts with at least one t)
    w(t)      = sum_d tf(t, d) * idf(t)

(the smoothed idf of scikit-learn's ``TfidfVectorizer``, so a type found in every text keeps a
positive weight). The top-n types by ``w`` (ties by name) are kept; facts are only built for
subjects of a kept type. A granularity is ``"all"`` (every type, no weighting), an integer n as
text (``"3"``), or an explicit comma-separated list of types (``"PERSON,ORG"``, for a user who
wants to restrict the check to, say, diagnoses and treatments).
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from rageval.errors import ConfigError


@dataclass(frozen=True)
class Granularity:
    """A parsed granularity option: ``top_n`` (None = all) or an explicit ``types`` tuple."""

    top_n: int | None = None
    types: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """The part of a signature that pins it: ``all``, ``top3-tfidf`` or ``PERSON+ORG``."""
        if self.types:
            return "+".join(self.types)
        return "all" if self.top_n is None else f"top{self.top_n}-tfidf"


def parse_granularity(value: str | int) -> Granularity:
    """``"all"`` | ``"3"`` / ``3`` | ``"PERSON,ORG"`` -> :class:`Granularity`; anything else is a ConfigError.

    >>> parse_granularity("2").label, parse_granularity("org, person").label
    ('top2-tfidf', 'ORG+PERSON')
    """
    text = str(value).strip()
    if text.lower() in ("", "all"):
        return Granularity()
    if text.isdigit():
        n = int(text)
        if n < 1:
            raise ConfigError(f"aligncheck_types={value!r}: the number of kept entity types must be at least 1")
        return Granularity(top_n=n)
    types = tuple(sorted({t.strip().upper() for t in text.split(",") if t.strip()}))
    if not types or not all(t.replace("_", "").isalnum() for t in types):
        raise ConfigError(f"aligncheck_types={value!r}: use 'all', a number of types, or types such as 'PERSON,ORG'")
    return Granularity(types=types)


def type_weights(bags: Sequence[Counter]) -> dict[str, float]:
    """``w(t)`` of the module docstring for every type in ``bags`` (empty bags count in N)."""
    n = len(bags)
    df: Counter = Counter(t for bag in bags for t, c in bag.items() if c > 0)
    weights: dict[str, float] = {}
    for bag in bags:
        total = sum(bag.values())
        for t, c in bag.items():
            if c > 0:
                idf = math.log((1 + n) / (1 + df[t])) + 1.0
                weights[t] = weights.get(t, 0.0) + (c / total) * idf
    return weights


def kept_types(bags: Sequence[Counter], granularity: Granularity) -> tuple[str, ...]:
    """The types whose entities may be subjects, sorted by name.

    >>> kept_types([Counter({"PERSON": 3, "ORG": 1}), Counter({"PERSON": 1, "DATE": 1})], Granularity(top_n=1))
    ('PERSON',)
    """
    if granularity.types:
        return granularity.types
    weights = type_weights(bags)
    ranked = sorted(weights, key=lambda t: (-weights[t], t))
    if granularity.top_n is not None:
        ranked = ranked[: granularity.top_n]
    return tuple(sorted(ranked))
