"""The test doubles every test file shares: one fake embedder, one bag-of-words embedder.

(The fake LLM server is devtools/llm_server.py, its scripted judge devtools/judge_responder.py.)
"""
from __future__ import annotations

import hashlib
import re
import zlib

import numpy as np

from rageval.embed.minilm import TokenVectors
from rageval.types import Resources


class FakeEmbedder:
    """Deterministic, context-free: a word's vector comes from its hash (or from ``fixed``).

    Tokens are lowercase whitespace-separated words; ids are stable integers; the sentence
    vector is the L2-normalised mean of the word vectors.
    """

    name = "fake-hash-embedder"

    def __init__(self, dim: int = 16, fixed: dict[str, list[float]] | None = None, name: str | None = None):
        self.dim = dim
        self.fixed = {k: np.asarray(v, dtype=np.float32) for k, v in (fixed or {}).items()}
        self.calls: list[int] = []  # batch sizes of embed_tokens calls
        self.seen: list[str] = []  # every text given to embed
        if name is not None:
            self.name = name  # e.g. the local model's name, to stand in for it

    def _vec(self, word: str) -> np.ndarray:
        if word in self.fixed:
            return self.fixed[word]
        seed = int(hashlib.sha256(word.encode()).hexdigest()[:8], 16)
        return np.random.default_rng(seed).normal(size=self.dim).astype(np.float32)

    def embed_tokens(self, texts):
        self.calls.append(len(texts))
        out = []
        for t in texts:
            words = tuple(t.lower().split())
            vecs = np.stack([self._vec(w) for w in words]) if words else np.zeros((0, self.dim), np.float32)
            ids = tuple(int(hashlib.sha256(w.encode()).hexdigest()[:6], 16) for w in words)
            out.append(TokenVectors(tokens=words, vectors=vecs, ids=ids))
        return out

    def embed(self, texts):
        self.seen.extend(texts)
        rows = []
        for tv in self.embed_tokens(texts):
            m = tv.vectors.mean(axis=0) if len(tv.tokens) else np.zeros(self.dim, np.float32)
            rows.append(m / max(float(np.linalg.norm(m)), 1e-12))
        return np.stack(rows).astype(np.float32) if rows else np.zeros((0, self.dim), np.float32)


def fake_resources(embedder=None) -> Resources:
    embedder = embedder or FakeEmbedder()
    return Resources(embedder_factory=lambda: embedder)


class BowEmbedder:
    """Deterministic hashed bag-of-words vectors (L2-normalised): a transparent stand-in for MiniLM."""

    name = "bow-test"

    def __init__(self, dim: int = 256):
        self.dim = dim
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in re.findall(r"[a-z0-9]+", t.lower()):
                out[i, zlib.crc32(w.encode()) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)
