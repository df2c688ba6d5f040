"""Embeddings for the LLM layer: :class:`Embeddings`, which :class:`rageval.llm.client.LLMClient` holds.

It does no HTTP itself: the client hands it its retry loop, raw request, call log, cache
and pool. Each text is cached under sha256 of canonical JSON of ``{"kind": "embed", "model",
"text", "server"}`` (the server's base URL: two servers' vectors never mix); misses go out in batches of
``batch`` texts (default 64) with
``encoding_format="float"`` (some servers speak no base64), the batches concurrently on the pool.
"""
from __future__ import annotations

import time
from typing import Any, Callable

from rageval.errors import LLMError
from rageval.llm.replies import request_key


class Embeddings:
    """The embedder role's calls (see the module docstring)."""

    def __init__(self, *, call: Callable, post: Callable, log: Callable, store: Any, map_fn: Callable,
                 scrub: Callable[[str], str], batch: int = 64):
        self._call, self._post, self._log, self._store = call, post, log, store
        self._map, self._scrub, self._batch = map_fn, scrub, int(batch)

    def _embed_call(self, model: str, server: str, batch: list[str]) -> list[list[float]]:
        key = request_key({"kind": "embed", "model": model, "texts": batch, "server": server})
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
            (vectors, tokens), attempts = self._call("embedder", model, send,
                                                     tokens=sum(len(t) for t in batch) // 4 + 1)
        except LLMError as exc:
            self._log("embedder", model, key, "embed", latency_ms=(time.perf_counter() - start) * 1000,
                      cached=False, status="failed", error=self._scrub(str(exc)),
                      attempts=getattr(exc, "attempts", 0))
            raise
        self._log("embedder", model, key, "embed", tokens_in=tokens, latency_ms=(time.perf_counter() - start) * 1000,
                  cached=False, status="ok", attempts=attempts)
        for text, vector in zip(batch, vectors):
            self._store.put(request_key({"kind": "embed", "model": model, "text": text, "server": server}), model,
                            {"vector": vector})
        return vectors

    def embed(self, texts: list[str], model: str, server: str) -> list[list[float]]:
        """Vectors of ``texts`` from ``model``, cached per text; LLMError when a batch still fails.

        One cached row is logged per call that had hits.
        """
        start = time.perf_counter()
        keys = [request_key({"kind": "embed", "model": model, "text": t, "server": server}) for t in texts]
        out: list[list[float] | None] = [None] * len(texts)
        hits: list[str] = []
        for i, key in enumerate(keys):
            reply = self._store.get(key)
            if reply is not None:
                out[i] = reply["vector"]
                hits.append(key)
        if hits:
            self._log("embedder", model, request_key({"kind": "embed", "model": model, "keys": hits, "server": server}),
                      "embed",
                      latency_ms=(time.perf_counter() - start) * 1000, cached=True, status="ok")
        missing = list(dict.fromkeys(t for t, v in zip(texts, out) if v is None))
        batches = [missing[i:i + self._batch] for i in range(0, len(missing), self._batch)]
        got: dict[str, list[float]] = {}
        for batch, vectors in zip(batches, self._map(lambda b: self._embed_call(model, server, b), batches)):
            got.update(zip(batch, vectors))
        return [list(v if v is not None else got[t]) for t, v in zip(texts, out)]  # copies: callers may mutate
