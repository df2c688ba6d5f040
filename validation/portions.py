"""How the offline-verdicts validation splits a new human-labelled source: by a unit that keeps
related rows together (a source text, a knowledge snippet, a document, a question), ``dev_share``
percent of the units to the development portion and the rest to the report portion, by a seeded
sha256 of the unit's key; rows whose document was read before by another set are left out, and
every row left out is counted with its reason.

    portion = seeded_portion(seed, key, dev_share)   # "dev" when int(sha256(f"{seed}|{key}")[:8], 16) % 100 < dev_share
"""
from __future__ import annotations

import hashlib
from collections import Counter
from typing import Callable, Iterable

PORTIONS = ("dev", "report")


def norm(text: str) -> str:
    """Whitespace collapsed, lower case: the form keys and overlaps are compared in."""
    return " ".join(text.split()).lower()


def seeded_portion(seed: int, key: str, dev_share: int) -> str:
    """``dev`` for ``dev_share`` percent of keys (a seeded sha256 of the key), else ``report``."""
    h = int(hashlib.sha256(f"{seed}|{key}".encode()).hexdigest()[:8], 16)
    return "dev" if h % 100 < dev_share else "report"


def require_portion(portion: str, source: str) -> None:
    """A SystemExit naming the portions a new source has (no train portion: no rule is fitted)."""
    if portion not in PORTIONS:
        raise SystemExit(f"{source} has portions dev and report only (no train portion)")


def take(rows: Iterable[dict], portion: str, portion_of: Callable[[dict], str], left_out: Counter,
         read_before: list[str] | None = None, overlap: Callable[[dict], str] | None = None,
         why_read: Callable[[dict], str] | None = None) -> list[dict]:
    """The rows of ``portion``; every other row counted in ``left_out`` by reason: its ``overlap``
    text (normalised) found in a document of ``read_before`` (``why_read(row)``), or the other portion."""
    seen = "\n".join(norm(d) for d in read_before or [])
    out = []
    for row in rows:
        if overlap is not None and seen and overlap(row) in seen:
            left_out[why_read(row) if why_read else "document also in a set already read"] += 1
        elif portion_of(row) != portion:
            left_out[f"in the {'report' if portion == 'dev' else 'dev'} portion"] += 1
        else:
            out.append(row)
    return out
