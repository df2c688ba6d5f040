"""SQL for the persistent embedding cache (model, sha256 of text) -> vector."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from rageval.store.db import connect


class DuckDBEmbeddingCache:
    """``EmbeddingCache`` over the project's ``embedding_cache`` table."""

    def __init__(self, db: Path):
        self.db = db

    def get_many(self, model: str, keys: list[str]) -> dict[str, np.ndarray]:
        if not keys:
            return {}
        with connect(self.db) as con:
            rows = con.execute(
                "SELECT key, vector FROM embedding_cache WHERE model = ? AND list_contains(?, key)",
                [model, list(keys)],
            ).fetchall()
        return {k: np.asarray(v, dtype=np.float32) for k, v in rows}

    def put_many(self, model: str, items: dict[str, np.ndarray]) -> None:
        if not items:
            return
        with connect(self.db) as con:
            con.executemany(
                "INSERT INTO embedding_cache (model, key, vector) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                [[model, k, np.asarray(v, dtype=np.float32).tolist()] for k, v in items.items()],
            )
