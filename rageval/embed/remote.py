"""Sentence vectors from an OpenAI-compatible server (through the LLM client, which alone speaks HTTP to it)."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from rageval.embed.minilm import TokenVectors, l2_normalise
from rageval.errors import ConfigError, LLMError


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
