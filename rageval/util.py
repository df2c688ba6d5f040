"""Small pure helpers shared across the library: hashing, canonical JSON, how a value is shown."""
from __future__ import annotations

import hashlib
import json
import math
from typing import Any


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace, so equal values give equal strings."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def sha256_hex(text: str | bytes) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()


def stable_hash(value: Any, length: int = 16) -> str:
    """First ``length`` hex characters of sha256 over the canonical JSON of ``value``."""
    return sha256_hex(canonical_json(value))[:length]


#: how every table, text and page shows a value that is not there (an unscored mean, no CI)
MISSING = "—"


def shown(value: Any, fmt: str = "{:.3f}") -> str:
    """``value`` formatted with ``fmt``, or :data:`MISSING` for None and NaN.

    >>> shown(0.5), shown(None), shown(float("nan")), shown(0.123, "{:.2f}")
    ('0.500', '—', '—', '0.12')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    return fmt.format(value)
