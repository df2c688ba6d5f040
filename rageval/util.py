"""Small pure helpers shared across the library: hashing and canonical JSON."""
from __future__ import annotations

import hashlib
import json
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
