"""MiniLM sentence (and token) vectors kept on disk between runs of the training and validation scripts.

The scripts embed the same public texts again and again (every training round, every validation
run); :class:`DiskCachedMiniLM` computes a text's vectors once and keeps them in ``CACHE``
(``$RAGEVAL_BENCH_CACHE``, default ``~/.cache/rageval-bench``), one ``.npz`` per model, keyed by
the SHA-256 of the text. Vectors are stored as computed, so cached and fresh runs give the same figures.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Sequence

import numpy as np

from rageval.types import Resources
from rageval.util import sha256_hex

#: where the vectors (and train_correctness's feature cache) are kept
CACHE = Path(os.environ.get("RAGEVAL_BENCH_CACHE", Path.home() / ".cache" / "rageval-bench"))


class NpzStore:
    """Sentence vectors on disk, one .npz per model, keyed by sha256 of the text."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.memory: dict[str, dict[str, np.ndarray]] = {}
        self.dirty: set[str] = set()

    def _file(self, model: str) -> Path:
        return self.folder / (re.sub(r"[^A-Za-z0-9._-]", "_", model) + ".npz")

    def _load(self, model: str) -> dict[str, np.ndarray]:
        if model not in self.memory:
            f = self._file(model)
            self.memory[model] = dict(np.load(f)) if f.is_file() else {}
        return self.memory[model]

    def get_many(self, model: str, keys: list[str]) -> dict[str, np.ndarray]:
        known = self._load(model)
        return {k: known[k] for k in keys if k in known}

    def put_many(self, model: str, items: dict[str, np.ndarray]) -> None:
        self._load(model).update(items)
        self.dirty.add(model)

    def flush(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        for model in self.dirty:
            np.savez(self._file(model), **self.memory[model])
        self.dirty.clear()


class DiskCachedMiniLM:
    """MiniLM with disk-cached sentence vectors; token vectors are computed afresh unless
    ``cache_tokens`` (then they are kept too, in ``tokens-<model>.npz``, float32 as computed).

    Not rageval.embed.cache.CachedEmbedder (which keeps sentence vectors in a project's database):
    this one keeps them in files between script runs, can keep token vectors too, and counts in
    ``fresh`` the vectors it had to compute (the validation reports say how many)."""

    def __init__(self, store: NpzStore, cache_tokens: bool = False):
        from rageval.embed.minilm import MiniLMEmbedder

        self.inner = MiniLMEmbedder()
        self.name, self.dim, self.store = self.inner.name, self.inner.dim, store
        self.fresh = 0  # sentence vectors computed in this process (not found in the cache)
        self.cache_tokens = cache_tokens

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [sha256_hex(t) for t in texts]
        found = self.store.get_many(self.name, keys)
        missing = list(dict.fromkeys((k, t) for k, t in zip(keys, texts) if k not in found))
        if missing:
            fresh = self.inner.embed([t for _, t in missing])
            self.fresh += len(missing)
            new = {k: v for (k, _), v in zip(missing, fresh)}
            self.store.put_many(self.name, new)
            found.update(new)
        return np.stack([found[k] for k in keys]) if keys else np.zeros((0, self.dim), np.float32)

    def embed_tokens(self, texts: Sequence[str]):
        if not self.cache_tokens:
            return self.inner.embed_tokens(texts)
        from rageval.embed.minilm import TokenVectors

        model = "tokens-" + self.name
        keys = [sha256_hex(t) for t in texts]
        found = self.store.get_many(model, [k + ".v" for k in keys] + [k + ".i" for k in keys])
        missing = list(dict.fromkeys((k, t) for k, t in zip(keys, texts) if k + ".v" not in found))
        if missing:
            fresh = self.inner.embed_tokens([t for _, t in missing])
            new = {}
            for (k, _), tv in zip(missing, fresh):
                new[k + ".v"], new[k + ".i"] = tv.vectors, np.array(tv.ids, dtype=np.int64)
            self.store.put_many(model, new)
            found.update(new)
        return [
            TokenVectors(tokens=(), vectors=found[k + ".v"], ids=tuple(int(i) for i in found[k + ".i"])) for k in keys
        ]


def cached_resources(cache_tokens: bool = False) -> tuple[Resources, NpzStore]:
    store = NpzStore(CACHE)
    embedder = DiskCachedMiniLM(store, cache_tokens=cache_tokens)
    return Resources(embedder_factory=lambda: embedder), store
