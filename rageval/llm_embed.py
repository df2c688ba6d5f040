"""Embeddings for the LLM layer: :meth:`EmbeddingsMixin.embed`, part of :class:`rageval.llm.LLMClient`.

Kept apart so ``llm.py`` stays small; it uses the client's retry loop (``_call``), raw request
(``_post``), store and pool, and does not import ``openai`` itself. Each text is cached under
sha256 of canonical JSON of ``{"kind": "embed", "model", "text"}``; misses go out in batches of
``embed_batch`` texts (default 64) with ``encoding_format="float"`` (some servers speak no
base64), the batches concurrently on the client's pool.
"""
from __future__ import annotations

import time
from typing import Any

from rageval.errors import LLMError
from rageval.llm_parse import request_key


class EmbeddingsMixin:
    """``embed`` for LLMClient (see the module docstring)."""

    _embed_batch: int

    def _embed_call(self, model: str, batch: list[str]) -> list[list[float]]:
        key = request_key({"kind": "embed", "model": model, "texts": batch})
        start = time.perf_counter()

        def send(client: Any) -> tuple[list[list[float]], int]:
            reply = self._post(client, "/embeddings", {"model": model, "input": [t or " " for t in batch],
                                                       "encoding_format": "float"})
            rows = sorted(reply["data"], key=lambda d: d["index"])
            if len(rows) != len(batch):
                raise ValueError(f"asked for {len(batch)} embeddings, got {len(rows)}")
            tokens = (reply.get("usage") or {}).get("prompt_tokens")
            tokens = int(tokens) if tokens is not None else sum(len(t) for t in batch) // 4
            return [[float(x) for x in r["embedding"]] for r in rows], tokens

        try:
            (vectors, tokens), attempts = self._call("embedder", model, send)
        except LLMError as exc:
            self._log("embedder", model, key, "embed", latency_ms=(time.perf_counter() - start) * 1000,
                      cached=False, status="failed", error=self.scrub(str(exc)), attempts=getattr(exc, "attempts", 0))
            raise
        self._log("embedder", model, key, "embed", tokens_in=tokens, latency_ms=(time.perf_counter() - start) * 1000,
                  cached=False, status="ok", attempts=attempts)
        for text, vector in zip(batch, vectors):
            self._store.put(request_key({"kind": "embed", "model": model, "text": text}), model, {"vector": vector})
        return vectors

    def embed(self, texts: list[str], *, model: str | None = None) -> list[list[float]]:
        """Vectors of ``texts`` from the embedder role (``encoding_format="float"``), cached per text.

        Misses go out in batches of ``embed_batch`` texts, concurrently; raises LLMError when a
        batch still fails after its retries. One cached row is logged per call that had hits.
        """
        model = model or self._role("embedder").model
        start = time.perf_counter()
        keys = [request_key({"kind": "embed", "model": model, "text": t}) for t in texts]
        out: list[list[float] | None] = [None] * len(texts)
        hits: list[str] = []
        for i, key in enumerate(keys):
            reply = self._store.get(key)
            if reply is not None:
                out[i] = reply["vector"]
                hits.append(key)
        if hits:
            self._log("embedder", model, request_key({"kind": "embed", "model": model, "keys": hits}), "embed",
                      latency_ms=(time.perf_counter() - start) * 1000, cached=True, status="ok")
        missing = list(dict.fromkeys(t for t, v in zip(texts, out) if v is None))
        batches = [missing[i:i + self._embed_batch] for i in range(0, len(missing), self._embed_batch)]
        got: dict[str, list[float]] = {}
        for batch, vectors in zip(batches, self.map(lambda b: self._embed_call(model, b), batches)):
            got.update(zip(batch, vectors))
        return [list(v if v is not None else got[t]) for t, v in zip(texts, out)]  # copies: callers may mutate
