"""Small pure helpers shared across the library: hashing, canonical JSON, how a value is shown."""
from __future__ import annotations

import hashlib
import json
import math
import re
from types import ModuleType
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


_TABLE_NAME = re.compile(r"^_?[A-Z][A-Z0-9_]*$")


def _table_value(value: Any) -> Any:
    if isinstance(value, re.Pattern):
        return {"pattern": value.pattern, "flags": value.flags}
    if isinstance(value, (set, frozenset)):
        return sorted((_table_value(v) for v in value), key=canonical_json)
    if isinstance(value, dict):
        return sorted(([_table_value(k), _table_value(v)] for k, v in value.items()), key=canonical_json)
    if isinstance(value, (list, tuple)):
        return [_table_value(v) for v in value]
    return value if isinstance(value, (str, int, float, bool)) or value is None else repr(type(value))


def tables_hash(*modules: ModuleType) -> str:
    """8 hex characters over every constant table of ``modules`` (module-level names in capitals,
    such as ``UNITS`` or ``_EN_SMALL``: dicts, lists, sets, strings, numbers, regexes), so a
    signature that includes it moves whenever a word list or unit table changes."""
    tables = [[m.__name__, name, _table_value(value)] for m in modules for name, value in sorted(vars(m).items())
              if _TABLE_NAME.match(name) and not isinstance(value, (ModuleType, type)) and not callable(value)]
    return stable_hash(tables, 8)
