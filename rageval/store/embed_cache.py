"""SQL for the persistent embedding cache (model, sha256 of text) -> float32 vector.

Vectors move in bulk both ways and round-trip bit for bit: a row holds ``dim`` and the
vector's raw little-endian float32 bytes (migration 005). A write binds three list parameters
(keys, widths, each vector's raw bytes: no per-value Python floats), unnests them into a temporary table and copies it
with one ``INSERT
... SELECT``; a read selects the wanted keys (one list parameter) and turns the returned bytes
back into float32 arrays with ``np.frombuffer``. Models of any width share the table. Lists, not
Arrow tables: an Arrow array built from Python objects imports pandas (about 0.6 CPU-s), which
every short command would pay.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from rageval.store.db import connect, unnest_select

_F32 = np.dtype("<f4")


class DuckDBEmbeddingCache:
    """``EmbeddingCache`` over the project's ``embedding_cache`` table."""

    def __init__(self, db: Path):
        self.db = db

    def get_many(self, model: str, keys: list[str]) -> dict[str, np.ndarray]:
        if not keys:
            return {}
        with connect(self.db) as con:
            found = con.execute(
                "SELECT key, dim, vector FROM embedding_cache"
                " WHERE model = ? AND key IN (SELECT unnest(?::VARCHAR[]))",
                [model, list(dict.fromkeys(keys))],
            ).fetchall()
        if not found:
            return {}
        names = [k for k, _, _ in found]
        dims = [d for _, d, _ in found]
        flat = np.frombuffer(b"".join(v for _, _, v in found), dtype=_F32).astype(np.float32)
        if len(set(dims)) == 1:  # one model, one width: a single reshape
            matrix = flat.reshape(len(names), dims[0])
            return {k: matrix[i] for i, k in enumerate(names)}
        ends = np.cumsum(dims)
        return {k: flat[end - d:end] for k, d, end in zip(names, dims, ends)}

    def put_many(self, model: str, items: dict[str, np.ndarray]) -> None:
        if not items:
            return
        keys = list(items)
        vectors = [np.ascontiguousarray(items[k], dtype=_F32).reshape(-1) for k in keys]
        dims = [int(v.size) for v in vectors]
        blobs = [v.tobytes() for v in vectors]
        with connect(self.db) as con:  # a temporary table first: see rageval.store.items._BATCHES
            con.execute("CREATE OR REPLACE TEMP TABLE _new_vectors AS "
                        + unnest_select(("VARCHAR", "INTEGER", "BLOB"), ("key", "dim", "vector")), [keys, dims, blobs])
            try:
                con.execute("INSERT INTO embedding_cache (model, key, dim, vector)"
                            " SELECT ?, key, dim, vector FROM _new_vectors ON CONFLICT DO NOTHING", [model])
            finally:
                con.execute("DROP TABLE IF EXISTS _new_vectors")
