"""Process-wide shared resources: embedders (one per project and spec) and the LLM client."""
from __future__ import annotations

import threading
from typing import Any

from rageval.project import Project

_EMBEDDERS: dict[tuple[str, str], Any] = {}
_LOCK = threading.Lock()


def get_embedder(project: Project, spec: str, *, client: Any = None) -> Any:
    """The cached embedder for ``spec`` ("local" or "openai:MODEL") backed by the project's cache.

    An ``openai:`` embedder without a ``client`` gets its own LLM client for the embedder role
    (base URL and key from the environment), so ``ingest --embedder openai:MODEL`` works alone.
    """
    from rageval.embed import make_embedder
    from rageval.store.embed_cache import DuckDBEmbeddingCache

    if client is None and spec.startswith("openai:"):
        from rageval.llm.client import make_llm_client

        client = make_llm_client({"embedder": spec}, store_path=project.db_path)
    key = (str(project.db_path), spec)
    with _LOCK:
        if key not in _EMBEDDERS:
            _EMBEDDERS[key] = make_embedder(spec, client=client, store=DuckDBEmbeddingCache(project.db_path))
        return _EMBEDDERS[key]
