"""The values every layer passes around: ``Sample`` in, ``Score`` out, and ``Resources``.

A leaf module: it imports nothing from rageval but ``errors``, so ingest, claims, metrics, runs
and views may all import it without an import circle. ``NEED_REASONS`` names the reason a
sample gets when it lacks an input a metric needs (``Score.unscored("no_reference")``).
"""
from __future__ import annotations

import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Mapping, Sequence

from rageval.errors import ConfigError

STATUSES = ("ok", "unscored", "failed")

#: the three claim labels a judge (an LLM or a person) gives, the one spelling every layer uses
SUPPORTED, CONTRADICTED, NOT_MENTIONED = "SUPPORTED", "CONTRADICTED", "NOT_MENTIONED"
LABELS = (SUPPORTED, CONTRADICTED, NOT_MENTIONED)
#: the fourth state: nothing decided the claim (offline, a claim the text does not prove)
UNVERIFIED = "UNVERIFIED"
#: every verdict a stored claim may carry: the judged labels, then UNVERIFIED
VERDICTS = LABELS + (UNVERIFIED,)
#: the verdicts that decide a claim (the claim metrics count these; coverage = decided / all)
DECIDED = LABELS

#: what a metric may need, and the reason given when a sample lacks it
NEED_REASONS = {
    "answer": "no_answer",
    "reference": "no_reference",
    "contexts": "no_contexts",
    "retrieved_ids": "no_retrieved_ids",
    "relevant_ids": "no_relevant_ids",
    "question": "no_question",
}


@dataclass(frozen=True)
class Sample:
    """One question with everything known about its answer.

    ``contexts`` are the retrieved texts in rank order and ``context_ids`` their chunk ids
    (empty when the answers come from another system without ids). ``relevant_ids`` maps a
    chunk or document id to a graded relevance (1 = relevant; higher = more relevant).
    """

    id: str
    question: str = ""
    answer: str | None = None
    contexts: tuple[str, ...] = ()
    references: tuple[str, ...] = ()
    retrieved_ids: tuple[str, ...] = ()
    relevant_ids: Mapping[str, float] = field(default_factory=dict)
    context_ids: tuple[str, ...] = ()
    domain: str | None = None

    def has(self, need: str) -> bool:
        """Whether this sample carries the input ``need`` (one of NEED_REASONS)."""
        if need == "answer":
            return self.answer is not None and self.answer.strip() != ""
        if need == "reference":
            return any(r.strip() for r in self.references)
        if need == "contexts":
            return any(c.strip() for c in self.contexts)
        if need == "retrieved_ids":
            return len(self.retrieved_ids) > 0
        if need == "relevant_ids":
            return any(g > 0 for g in self.relevant_ids.values())
        if need == "question":
            return self.question.strip() != ""
        raise ConfigError(f"unknown metric input {need!r}; known: {', '.join(NEED_REASONS)}")


@dataclass(frozen=True)
class Score:
    """A metric's verdict on one sample: a value with status ``ok``, or no value and a reason."""

    value: float | None
    status: str = "ok"
    reason: str | None = None
    details: Mapping[str, Any] | None = None

    @classmethod
    def ok(cls, value: float, details: Mapping[str, Any] | None = None) -> "Score":
        return cls(value=float(value), status="ok", details=details)

    @classmethod
    def unscored(cls, reason: str, details: Mapping[str, Any] | None = None) -> "Score":
        return cls(value=None, status="unscored", reason=reason, details=details)

    @classmethod
    def failed(cls, reason: str, details: Mapping[str, Any] | None = None) -> "Score":
        return cls(value=None, status="failed", reason=reason, details=details)


#: the offline backend each model role accepts by name (they need no LLM client)
OFFLINE = {"generator": ("extractive",), "judge": ("heuristic",), "embedder": ("local",)}
_ALIASES = {"minilm": "local"}  # other names of an offline backend


@dataclass(frozen=True)
class Spec:
    """Which model fills a role: an offline backend by name, or ``openai:MODEL`` on an
    OpenAI-compatible server. ``str(spec)`` is the canonical text (``openai:gpt-4o``, ``heuristic``).

    >>> Spec.parse("judge", " OpenAI : gpt-4o "), Spec.parse("embedder", "MiniLM")
    (Spec(role='judge', model='gpt-4o', offline=None), Spec(role='embedder', model=None, offline='local'))
    """

    role: str
    model: str | None = None  # the model name of an online spec
    offline: str | None = None  # the offline backend's name

    @classmethod
    def parse(cls, role: str, text: str | None) -> "Spec":
        """The spec in ``text`` for ``role`` (case and surrounding spaces do not matter);
        ConfigError naming the text and the fix for an empty model or an unknown backend."""
        if role not in OFFLINE:
            raise ConfigError(f"unknown model role {role!r}; roles are: {', '.join(OFFLINE)}")
        raw = "" if text is None else str(text)
        plain = raw.strip().lower()
        plain = _ALIASES.get(plain, plain)
        if plain in OFFLINE[role]:
            return cls(role, offline=plain)
        prefix, sep, model = raw.strip().partition(":")
        if sep and prefix.strip().lower() == "openai":
            if not model.strip():
                raise ConfigError(f"{role} {raw!r} names no model; write it as openai:MODEL, e.g. openai:gpt-4o-mini")
            return cls(role, model=model.strip())
        choices = " or ".join(f"'{name}'" for name in OFFLINE[role])
        raise ConfigError(f"{role} {raw!r} is not a known backend; use {choices} (offline) or openai:MODEL")

    @property
    def online(self) -> bool:
        return self.model is not None

    def __str__(self) -> str:
        return f"openai:{self.model}" if self.model is not None else str(self.offline)


#: the offline judge (rules and the local models): every judged metric's default
OFFLINE_JUDGE = Spec("judge", offline="heuristic")


@dataclass(frozen=True)
class Judge:
    """The judge role resolved once, by the model session (:mod:`rageval.llm.session`): its spec
    and the client whose judge role runs it (None offline). A judged metric asks it for its client
    (:meth:`client`) instead of parsing a judge text again.

    >>> str(Judge()), Judge().online
    ('heuristic', False)
    """

    spec: Spec = OFFLINE_JUDGE
    llm: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def of_client(cls, llm: Any) -> "Judge":
        """The judge that ``llm`` runs (its judge role's model), or the offline one without such a role
        (a client with no ``has_role`` is taken to have one)."""
        if llm is None or not getattr(llm, "has_role", lambda role: True)("judge"):
            return cls()
        return cls(Spec("judge", model=llm.model("judge")), llm)

    @property
    def online(self) -> bool:
        return self.spec.online

    def client(self, metric: str, configured: Spec) -> Any:
        """The client for ``metric``, whose judge is ``configured`` (the Spec
        :func:`rageval.metrics.base.get_metric` gave it); a ConfigError when no client runs an
        online judge or when it runs another model than the metric was configured with."""
        if self.llm is None or not self.spec.online:
            raise ConfigError(f"metric {metric} needs an LLM judge; set OPENAI_BASE_URL (and OPENAI_API_KEY) or "
                              "use --judge heuristic")
        if configured != self.spec:
            raise ConfigError(f"{metric} is configured with judge={str(configured)!r} but the judge role runs "
                              f"{self.spec.model!r}")
        return self.llm

    def __str__(self) -> str:
        return str(self.spec)


class Memo:
    """What the metrics of one ``evaluate`` call share: a value per key, computed once.

    The three claim metrics read one claim analysis per answer and the three AlignCheck metrics
    one alignment per batch; metrics judged online are scored in parallel threads, so a key
    being computed by one thread is waited for by the others, never computed twice. A value for
    which ``keep(value)`` is false (a failed analysis) is handed to whoever waited for it and
    then forgotten, so a later call asks again. ``evaluate`` makes a new Memo per call: nothing
    is shared across calls or held by the process.
    """

    def __init__(self) -> None:
        self._values: dict[Hashable, Future] = {}
        self._lock = threading.Lock()

    def many(self, keys: Sequence[Hashable], compute: Callable[[list[int]], Sequence[Any]],
             keep: Callable[[Any], bool] = lambda value: True) -> list[Any]:
        """The value of each key; ``compute(indices)`` returns the missing ones, in that order."""
        futures, mine = [], []
        with self._lock:
            for i, key in enumerate(keys):
                if key not in self._values:
                    self._values[key] = Future()
                    mine.append(i)
                futures.append(self._values[key])
        if mine:
            try:
                got = list(compute(mine))
            except BaseException as exc:
                with self._lock:
                    for i in mine:
                        self._values.pop(keys[i], None)
                for i in mine:
                    if not futures[i].done():
                        futures[i].set_exception(exc)
                raise
            for i, value in zip(mine, got):
                if not futures[i].done():
                    futures[i].set_result(value)
                if not keep(value):
                    with self._lock:
                        self._values.pop(keys[i], None)
        return [f.result() for f in futures]

    def one(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The value of ``key``, from ``compute()`` the first time."""
        return self.many([key], lambda _: [compute()])[0]


@dataclass
class Resources:
    """What metrics may borrow: the embedder, the judge, the LLM client, the language.

    ``embedder`` is created on first use by ``embedder_factory`` so lexical-only runs never
    load a model. ``judge`` is the judge role as the model session resolved it (:class:`Judge`);
    resources made by hand with only ``llm`` get the judge that client runs (:meth:`judge_role`).
    ``memo`` is what the metrics of one ``evaluate`` call share (:class:`Memo`).
    """

    embedder_factory: Callable[[], Any] | None = None
    judge: Judge | None = None
    llm: Any = None
    language: str = "en"
    memo: Memo = field(default_factory=Memo, repr=False, compare=False)
    _embedder: Any = field(default=None, repr=False)

    @property
    def embedder(self) -> Any:
        if self._embedder is None:
            if self.embedder_factory is None:
                raise ConfigError("these resources have no embedder_factory; score through "
                                  "rageval.metrics.base.evaluate (it supplies the offline model) "
                                  "or pass embedder_factory=")
            self._embedder = self.embedder_factory()
        return self._embedder

    def judge_role(self) -> Judge:
        """``judge``, else the judge that ``llm`` runs (:meth:`Judge.of_client`)."""
        return self.judge if self.judge is not None else Judge.of_client(self.llm)


@dataclass(frozen=True)
class Identity:
    """Who acts on a project: a person signed in through the identity provider (``via="oidc"``: the
    provider's ``subject`` and ``email``), a member named by the CLI's ``--as`` (``"cli"``), whoever
    holds a demo link (``"demo"``: a viewer of ``demo_project`` only), or the local user (``"local"``:
    the app without sign-in and the CLI on the server's own disk, owner of every project).
    :mod:`rageval.access` decides what each may do; ``rageval.project.Project.actor`` carries it."""

    subject: str
    email: str
    via: str = "oidc"
    demo_project: str | None = None

    @property
    def local(self) -> bool:
        return self.via == "local"

    def signature(self) -> str:
        """How the identity is shown and recorded: ``ann@example.com (sub 1234)``, ``local``."""
        return self.email if self.local else f"{self.email} ({self.via} {self.subject})"


#: the local user: the app without an ``[auth]`` section, the CLI without ``--as``
LOCAL = Identity("local", "local", "local")
