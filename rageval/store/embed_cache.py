"""SQL for the persistent embedding cache (model, sha256 of text) -> float32 vector.

Vectors move in bulk both ways and round-trip bit for bit: a row holds ``dim`` and the
vector's raw little-endian float32 bytes (migration 005). A write is one ``INSERT ... SELECT``
from an Arrow table whose binary column is built from the NumPy matrix's own buffer (no
per-value Python floats); a read joins the wanted keys (an Arrow table) against the cache and
turns the returned bytes back into float32 arrays with ``np.frombuffer``. Models of any width
share the table.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from rageval.store.db import connect

_F32 = np.dtype("<f4")


class DuckDBEmbeddingCache:
    """``EmbeddingCache`` over the project's ``embedding_cache`` table."""

    def __init__(self, db: Path):
        self.db = db

    def get_many(self, model: str, keys: list[str]) -> dict[str, np.ndarray]:
        if not keys:
            return {}
        wanted = pa.table({"key": pa.array(list(dict.fromkeys(keys)), pa.string())})
        with connect(self.db) as con:
            con.register("_wanted_keys", wanted)
            try:
                found = con.sql(
                    "SELECT c.key, c.dim, c.vector FROM embedding_cache c JOIN _wanted_keys w ON c.key = w.key"
                    " WHERE c.model = ?",
                    params=[model],
                ).to_arrow_table()
            finally:
                con.unregister("_wanted_keys")
        if found.num_rows == 0:
            return {}
        names = found.column("key").to_pylist()
        dims = found.column("dim").to_pylist()
        flat = np.frombuffer(b"".join(found.column("vector").to_pylist()), dtype=_F32).astype(np.float32)
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
        dims = np.fromiter((v.size for v in vectors), dtype=np.int32, count=len(vectors))
        offsets = np.concatenate([[0], np.cumsum(dims.astype(np.int64) * _F32.itemsize)]).astype(np.int32)
        data = np.concatenate(vectors).tobytes()
        blobs = pa.Array.from_buffers(pa.binary(), len(keys), [None, pa.py_buffer(offsets.tobytes()),
                                                               pa.py_buffer(data)])
        table = pa.table({"model": pa.array([model] * len(keys), pa.string()),
                          "key": pa.array(keys, pa.string()), "dim": pa.array(dims, pa.int32()),
                          "vector": blobs})
        with connect(self.db) as con:
            con.register("_new_vectors", table)
            try:
                con.execute(
                    "INSERT INTO embedding_cache (model, key, dim, vector)"
                    " SELECT model, key, dim, vector FROM _new_vectors ON CONFLICT DO NOTHING"
                )
            finally:
                con.unregister("_new_vectors")
