"""One model session: the clients a piece of work's roles need, opened, set up and closed in one place.

A pipeline run, ``score`` and the app's upload scoring, ingest with an online embedder, each Ray
actor and the test set generator open their models here, so they all get the same settings:

- **roles**: ``{role: spec}``; only the online ones (``openai:MODEL``) get a client, and there is
  no client at all when every role is offline;
- **preflight**: on. Each role's server is checked (reachable, key accepted, model known) before
  that role's first network call, never when every reply comes from the cache; a failed check
  fails every call of the role at once with its reason (:attr:`ModelSession.preflight_error`),
  instead of each call retrying against a server that is not there;
- **concurrency**: model calls in flight, ``RunConfig.concurrency`` unless the caller gives its own;
- **cache**: replies are read from and written to ``store_path`` (the project's database by
  default) unless ``use_cache=False``; calls are logged under ``run_id``;
- **embedder**: the embedder role's model, built on first use (lexical-only work loads none),
  through the project's embedding cache when there is a project, and embedding through this
  session's client when it is an ``openai:`` model;
- **judge**: the judge role resolved once (:class:`rageval.types.Judge`): metrics get it in
  :meth:`ModelSession.resources` and never parse a judge text again.

The client is closed (the cache and call log flushed) when the session ends, on an error too.
This is the only module of the library that opens model clients (``tests/test_architecture.py``).
"""
from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping

from rageval.config import RunConfig
from rageval.project import Project
from rageval.types import Judge, Resources, Spec

#: the spec of a role the session was not asked for
_UNUSED = {"generator": "extractive", "judge": "heuristic", "embedder": "local"}


class ModelSession:
    """The open models of one piece of work; made by :func:`model_session` (or :meth:`open`)."""

    def __init__(self, roles: Mapping[str, Spec], llm: Any, project: Project | None) -> None:
        self.roles = dict(roles)
        self.llm = llm
        self.judge = Judge(self.spec("judge"), llm if self.spec("judge").online else None)
        self._project = project
        self._embedder: Any = None
        self._lock = threading.Lock()

    @classmethod
    def open(cls, roles: Mapping[str, str], *, project: Project | None = None, store_path: Path | str | None = None,
             run_id: str | None = None, concurrency: int = RunConfig.concurrency, use_cache: bool = True,
             env: Mapping[str, str] = os.environ) -> "ModelSession":
        """Open the client ``roles`` need (see the module docstring); the caller closes the session.
        ``store_path`` defaults to the project's database. A ConfigError names a role whose spec is
        not valid or whose key is missing."""
        specs = {role: Spec.parse(role, text) for role, text in roles.items()}
        online = {role: str(spec) for role, spec in specs.items() if spec.online}
        if not online:  # an offline session imports no client module
            return cls(specs, None, project)
        from rageval.llm.client import make_llm_client

        if store_path is None and project is not None:
            store_path = project.db_path
        llm = make_llm_client(online, store_path=Path(store_path) if store_path else None, run_id=run_id,
                              concurrency=concurrency, use_cache=use_cache, env=env,
                              preflight=True)
        return cls(specs, llm, project)

    def spec(self, role: str) -> Spec:
        """The spec of ``role``; the offline one for a role the session was not opened for."""
        return self.roles.get(role) or Spec.parse(role, _UNUSED[role])

    @property
    def embedder(self) -> Any:
        """The embedder role's model, made on first use (one per session)."""
        with self._lock:
            if self._embedder is None:
                from rageval.embed.cache import get_embedder, make_embedder

                spec = str(self.spec("embedder"))
                self._embedder = (get_embedder(self._project, spec, client=self.llm) if self._project is not None
                                  else make_embedder(spec, client=self.llm))
            return self._embedder

    def resources(self, language: str = RunConfig.language) -> Resources:
        """What the metrics borrow from this session: its embedder (made when first asked for),
        its resolved judge and its client."""
        return Resources(embedder_factory=lambda: self.embedder, judge=self.judge, llm=self.llm, language=language)

    @property
    def preflight_error(self) -> Any:
        """The first failed reachability check of a role (an LLMError), else None."""
        return None if self.llm is None else self.llm.preflight_error

    def flush(self) -> None:
        """Write the cached replies and the call log to the store now (a Ray actor between parts)."""
        if self.llm is not None:
            self.llm.flush()

    def close(self) -> None:
        """Close the client: wait for its calls, flush the cache and the call log. Idempotent."""
        if self.llm is not None:
            self.llm.close()


@contextmanager
def model_session(roles: Mapping[str, str], **settings: Any) -> Iterator[ModelSession]:
    """``with model_session({"judge": ..., "embedder": ...}, project=p) as s:`` the models those
    roles need, closed when the block ends, on an error too (settings: :meth:`ModelSession.open`)."""
    session = ModelSession.open(roles, **settings)
    try:
        yield session
    finally:
        session.close()
