"""The embedder contract: every embedder returns float32 sentence vectors of shape ``(n, dim)``
whose rows have unit L2 norm (a row that is exactly zero stays zero), so cosine similarity is a
dot product; ``embed_tokens`` gives contextual token vectors (the local model only).
"""
from __future__ import annotations

from typing import Protocol, Sequence

import numpy as np

from rageval.embed.minilm import TokenVectors


class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors; ``name`` pins the model (a signature)."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_tokens(self, texts: Sequence[str]) -> list[TokenVectors]: ...


class EmbeddingCache(Protocol):
    """A persistent store of sentence vectors keyed by (model name, sha256 of the text)."""

    def get_many(self, model: str, keys: list[str]) -> dict[str, np.ndarray]: ...

    def put_many(self, model: str, items: dict[str, np.ndarray]) -> None: ...
