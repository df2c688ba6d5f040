"""Embedders: the ``Embedder`` protocol, an OpenAI-compatible embedder, the cache, and the factory.

Every embedder returns float32 sentence vectors of shape ``(n, dim)`` whose rows have unit L2
norm (a row that is exactly zero stays zero), so cosine similarity is a dot product. The
offline model (all-MiniLM-L6-v2 in NumPy) lives in :mod:`rageval.embed.minilm`.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Protocol, Sequence

import numpy as np

from rageval.errors import ConfigError, LLMError
from rageval.embed.minilm import MINILM_PIP, MiniLMEmbedder, TokenVectors, l2_normalise, minilm_folder  # noqa: F401 (re-exported)
from rageval.util import sha256_hex


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

class OpenAIEmbedder:
    """Sentence vectors from an OpenAI-compatible server through ``client.embed(texts, model=)``.

    ``client`` is any object with ``embed(texts: list[str], *, model: str) -> list[list[float]]``
    (``rageval.llm.client.LLMClient``). Vectors are L2-normalised here whatever the server returns.
    Empty strings are sent as a single space, since OpenAI's API rejects empty inputs.
    ``dim`` is learnt from the first reply (one probe call if read before any), unless given.
    """

    def __init__(self, client: Any, model: str, *, dim: int | None = None, batch_size: int = 256):
        if not model:
            raise ConfigError("the OpenAI embedder needs a model name, e.g. 'openai:text-embedding-3-small'")
        if batch_size < 1:
            raise ConfigError(f"batch_size={batch_size} must be >= 1")
        self.client = client
        self.model = model
        self.name = f"openai:{model}"
        self.batch_size = batch_size
        self._dim = dim

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.embed(["dimension probe"])
        return int(self._dim)  # type: ignore[arg-type]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        sent = [t if t else " " for t in texts]
        rows: list[list[float]] = []
        for start in range(0, len(sent), self.batch_size):
            part = sent[start : start + self.batch_size]
            reply = self.client.embed(part, model=self.model)
            if len(reply) != len(part):
                raise LLMError(
                    f"embedding model {self.model!r} returned {len(reply)} vectors for {len(part)} texts",
                    reason="bad_embedding_reply",
                )
            rows.extend(reply)
        widths = {len(r) for r in rows}
        if len(widths) != 1 or 0 in widths or (self._dim is not None and widths != {self._dim}):
            raise LLMError(
                f"embedding model {self.model!r} returned vectors of sizes {sorted(widths)}"
                + (f", expected {self._dim}" if self._dim is not None else ""),
                reason="bad_embedding_reply",
            )
        matrix = np.asarray(rows, dtype=np.float32)
        self._dim = matrix.shape[1]
        return l2_normalise(matrix)

    def embed_tokens(self, texts: Sequence[str]) -> list[TokenVectors]:
        raise ConfigError("token embeddings need the local embedder")


class CachedEmbedder:
    """Wraps an Embedder so that each distinct text is embedded once.

    Key = (embedder name, sha256 of the text). Lookups go: this process's memory, then the
    optional persistent ``store`` (EmbeddingCache, sentence vectors only), then the wrapped
    embedder, called once per call with the distinct missing texts. The in-process memories keep
    at most ``max_items`` sentence vectors (1.5 KB each for MiniLM) and ``max_token_items`` token
    matrices (up to 390 KB each), dropping the oldest first.
    """

    def __init__(
        self,
        inner: Embedder,
        *,
        store: EmbeddingCache | None = None,
        max_items: int = 100_000,
        max_token_items: int = 2_000,
    ):
        self.inner = inner
        self.store = store
        self.max_items = max_items
        self.max_token_items = max_token_items
        self.name = inner.name
        self._vectors: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._tokens: OrderedDict[tuple[str, str], TokenVectors] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        return self.inner.dim

    def _cached(self, memory: OrderedDict, limit: int, texts: Sequence[str], compute, store) -> list:
        hashes = [sha256_hex(t) for t in texts]
        with self._lock:
            found = {h: memory[(self.name, h)] for h in hashes if (self.name, h) in memory}
        missing: dict[str, str] = {}
        for h, t in zip(hashes, texts):
            if h not in found:
                missing.setdefault(h, t)
        new: dict[str, Any] = {}
        if missing and store is not None:
            for h, vec in store.get_many(self.name, list(missing)).items():
                if h in missing:
                    new[h] = _read_only(np.array(vec, dtype=np.float32))
                    del missing[h]
        if missing:
            keys = list(missing)
            computed = dict(zip(keys, compute([missing[h] for h in keys])))
            if store is not None:
                store.put_many(self.name, computed)
            new.update(computed)
        with self._lock:
            for h, value in new.items():
                memory[(self.name, h)] = value
            while len(memory) > limit:
                memory.popitem(last=False)
        found.update(new)
        return [found[h] for h in hashes]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        def compute(fresh: list[str]) -> list[np.ndarray]:
            return [_read_only(row) for row in np.array(self.inner.embed(fresh), dtype=np.float32)]

        rows = self._cached(self._vectors, self.max_items, texts, compute, self.store)
        if not rows:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack(rows)

    def embed_tokens(self, texts: Sequence[str]) -> list[TokenVectors]:
        def compute(fresh: list[str]) -> list[TokenVectors]:
            out = self.inner.embed_tokens(fresh)
            for tv in out:
                _read_only(tv.vectors)
            return out

        return self._cached(self._tokens, self.max_token_items, texts, compute, None)


def _read_only(array: np.ndarray) -> np.ndarray:
    """The same array, made read-only so that a caller cannot corrupt a cached value."""
    array.setflags(write=False)
    return array


def make_embedder(spec: str, *, client: Any = None, store: EmbeddingCache | None = None) -> Embedder:
    """``"local"``/``"minilm"`` -> cached MiniLM; ``"openai:MODEL"`` -> cached OpenAI-compatible."""
    value = (spec or "").strip()
    if value.lower() in ("local", "minilm"):
        return CachedEmbedder(MiniLMEmbedder(), store=store)
    if value.lower().startswith("openai:"):
        model = value.split(":", 1)[1].strip()
        if not model:
            raise ConfigError(f"embedder={spec!r} names no model; use e.g. 'openai:text-embedding-3-small'")
        if client is None:
            raise ConfigError(
                f"embedder={spec!r} needs an LLM client: set OPENAI_BASE_URL / OPENAI_API_KEY, or use 'local'"
            )
        return CachedEmbedder(OpenAIEmbedder(client, model), store=store)
    raise ConfigError(f"embedder={spec!r} is not valid; choose 'local' (alias 'minilm') or 'openai:<model>'")
