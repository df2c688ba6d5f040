"""The embedding cache: each distinct text embedded once, and the factory of cached embedders.

:class:`CachedEmbedder` looks a text up in memory, then in the project's DuckDB cache, then asks
the wrapped embedder. :func:`get_embedder` keeps one :class:`Memory` per (project, spec) for the
whole process, and builds the embedder around it on every call with the caller's LLM client: a
run that closes its client at the end never leaves a closed client inside a shared embedder, so
a second run in the same process (the app) embeds through its own client.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Sequence

import numpy as np

from rageval.embed.minilm import MiniLMEmbedder, TokenVectors
from rageval.embed.protocol import Embedder, EmbeddingCache
from rageval.embed.remote import OpenAIEmbedder
from rageval.errors import ConfigError
from rageval.project import Project
from rageval.util import sha256_hex


class Memory:
    """In-process vectors, oldest dropped first: at most ``max_items`` sentence vectors (1.5 KB
    each for MiniLM) and ``max_token_items`` token matrices (up to 390 KB each)."""

    def __init__(self, max_items: int = 100_000, max_token_items: int = 2_000):
        self.max_items = max_items
        self.max_token_items = max_token_items
        self.vectors: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self.tokens: OrderedDict[tuple[str, str], TokenVectors] = OrderedDict()
        self.lock = threading.Lock()


class CachedEmbedder:
    """Wraps an Embedder so that each distinct text is embedded once.

    Key = (embedder name, sha256 of the text). Lookups go: the in-process ``memory``, then the
    optional persistent ``store`` (EmbeddingCache, sentence vectors only), then the wrapped
    embedder, called once per call with the distinct missing texts. ``memory`` may be shared by
    several CachedEmbedders of one name (:func:`get_embedder` shares it across runs while each
    run brings its own LLM client); by default each has its own.
    """

    def __init__(self, inner: Embedder, *, store: EmbeddingCache | None = None, memory: Memory | None = None):
        self.inner = inner
        self.store = store
        self.name = inner.name
        self.memory = memory if memory is not None else Memory()

    @property
    def dim(self) -> int:
        return self.inner.dim

    def _cached(self, memory: OrderedDict, limit: int, texts: Sequence[str], compute, store) -> list:
        hashes = [sha256_hex(t) for t in texts]
        with self.memory.lock:
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
        with self.memory.lock:
            for h, value in new.items():
                memory[(self.name, h)] = value
            while len(memory) > limit:
                memory.popitem(last=False)
        found.update(new)
        return [found[h] for h in hashes]

    def lookup(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """``{sha256(text): vector}`` of the ``texts`` whose sentence vectors are in memory or in
        the store (nothing is computed); found store rows are kept in memory."""
        hashes = list(dict.fromkeys(sha256_hex(t) for t in texts))
        with self.memory.lock:
            found = {h: self.memory.vectors[(self.name, h)] for h in hashes if (self.name, h) in self.memory.vectors}
        wanted = [h for h in hashes if h not in found]
        if wanted and self.store is not None:
            new = {h: _read_only(np.array(v, dtype=np.float32))
                   for h, v in self.store.get_many(self.name, wanted).items()}
            self._keep(new)
            found.update(new)
        return found

    def missing(self, texts: Sequence[str]) -> list[str]:
        """The distinct ``texts`` whose sentence vectors are neither in memory nor in the store."""
        found = self.lookup(texts)
        return [t for t in dict.fromkeys(texts) if sha256_hex(t) not in found]

    def remember(self, vectors: dict[str, np.ndarray]) -> None:
        """Keep ``{sha256(text): vector}`` computed elsewhere (a worker process): memory and store."""
        if not vectors:
            return
        if self.store is not None:
            self.store.put_many(self.name, vectors)
        self._keep({h: _read_only(np.array(v, dtype=np.float32)) for h, v in vectors.items()})

    def _keep(self, new: dict[str, np.ndarray]) -> None:
        with self.memory.lock:
            for h, value in new.items():
                self.memory.vectors[(self.name, h)] = value
            while len(self.memory.vectors) > self.memory.max_items:
                self.memory.vectors.popitem(last=False)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        def compute(fresh: list[str]) -> list[np.ndarray]:
            return [_read_only(row) for row in np.array(self.inner.embed(fresh), dtype=np.float32)]

        rows = self._cached(self.memory.vectors, self.memory.max_items, texts, compute, self.store)
        if not rows:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack(rows)

    def embed_tokens(self, texts: Sequence[str]) -> list[TokenVectors]:
        def compute(fresh: list[str]) -> list[TokenVectors]:
            out = self.inner.embed_tokens(fresh)
            for tv in out:
                _read_only(tv.vectors)
            return out

        return self._cached(self.memory.tokens, self.memory.max_token_items, texts, compute, None)


def _read_only(array: np.ndarray) -> np.ndarray:
    """The same array, made read-only so that a caller cannot corrupt a cached value."""
    array.setflags(write=False)
    return array


def make_embedder(spec: str, *, client: Any = None, store: EmbeddingCache | None = None,
                  memory: Memory | None = None) -> Embedder:
    """``"local"``/``"minilm"`` -> cached MiniLM; ``"openai:MODEL"`` -> cached OpenAI-compatible."""
    value = (spec or "").strip()
    if value.lower() in ("local", "minilm"):
        return CachedEmbedder(MiniLMEmbedder(), store=store, memory=memory)
    if value.lower().startswith("openai:"):
        model = value.split(":", 1)[1].strip()
        if not model:
            raise ConfigError(f"embedder={spec!r} names no model; use e.g. 'openai:text-embedding-3-small'")
        if client is None:
            raise ConfigError(
                f"embedder={spec!r} needs an LLM client: set OPENAI_BASE_URL / OPENAI_API_KEY, or use 'local'"
            )
        return CachedEmbedder(OpenAIEmbedder(client, model), store=store, memory=memory)
    raise ConfigError(f"embedder={spec!r} is not valid; choose 'local' (alias 'minilm') or 'openai:<model>'")


_MEMORIES: dict[tuple[str, str], Memory] = {}
_LOCK = threading.Lock()


def get_embedder(project: Project, spec: str, *, client: Any = None) -> Embedder:
    """A cached embedder for ``spec`` ("local" or "openai:MODEL") backed by the project's cache.

    The vectors already computed in this process for (project, spec) are shared; the embedder
    itself is new on every call and holds only this call's ``client`` (an ``openai:`` spec needs
    one: the caller owns it and closes it).
    """
    from rageval.store.embed_cache import DuckDBEmbeddingCache

    key = (str(project.db_path), (spec or "").strip().lower())
    with _LOCK:
        memory = _MEMORIES.setdefault(key, Memory())
    return make_embedder(spec, client=client, store=DuckDBEmbeddingCache(project.db_path), memory=memory)

