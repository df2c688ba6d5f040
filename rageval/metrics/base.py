"""The metric contract (``Sample`` in, ``Score`` out), metrics by name from ``METRICS``, and ``evaluate``.

A metric is a small frozen dataclass with

- ``name`` (e.g. ``"ndcg@10"``), ``needs`` (inputs it cannot do without), ``range``,
  ``higher_is_better``, ``kind`` and ``languages``;
- ``signature()``: a string that pins every setting that can change a value
  (``"token_f1|norm:squad|v1"``); two values are comparable only when signatures are equal;
- ``score_batch(samples, resources) -> list[Score]``, one Score per sample, in order.

Its docstring states the formula. :func:`evaluate` is the one evaluation path: it checks
``needs`` for every sample, so a metric only ever sees samples that have what it needs, and the
others get ``Score.unscored("no_reference")`` and the like; never a silent 0 or NaN.
"""
from __future__ import annotations

import dataclasses
import math
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

from rageval.errors import ConfigError, RagevalError
from rageval.metrics import METRICS
from rageval.types import NEED_REASONS, OFFLINE, OFFLINE_JUDGE, STATUSES, Memo, Resources, Sample, Score, Spec  # noqa: F401 (the metric contract's types)


@runtime_checkable
class Metric(Protocol):
    name: str
    needs: frozenset[str]
    range: tuple[float, float]
    higher_is_better: bool
    kind: str  # retrieval | lexical | semantic | judged | claims

    def signature(self) -> str: ...

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]: ...


_AT_K = re.compile(r"^(?P<base>[a-z_0-9]+)@(?P<k>\d+)$")


def _build(factory: Callable[..., Metric], options: Mapping[str, Any], name: str) -> Metric:
    # Options such as judge= or language= go to every metric that has such a field and are
    # ignored by the others, so one --judge flag configures a whole metric list.
    accepted = {f.name for f in dataclasses.fields(factory)} if dataclasses.is_dataclass(factory) else set()
    kwargs = {k: v for k, v in options.items() if k in accepted}
    if "judge" in kwargs:
        kwargs["judge"] = judge_spec(kwargs["judge"], name)
    return factory(**kwargs)


def judge_spec(judge: Spec | str, metric: str) -> Spec:
    """The judge a metric holds: ``judge`` itself when resolved (a Spec, e.g. the model session's),
    else its text parsed, here and only here (a ConfigError naming ``metric`` and the fix)."""
    if isinstance(judge, Spec):
        return judge
    try:
        return Spec.parse("judge", judge)
    except ConfigError as exc:
        raise ConfigError(f"{metric}: {exc}") from None


def get_metric(name: str, **options: Any) -> Metric:
    """A configured metric from its name: ``"token_f1"``, ``"ndcg@10"``, ``"recall@5"``.

    Keyword options (``judge="openai:gpt-4o"``, ``language="it"``) are passed to the metrics
    that have a field of that name; a judge text becomes its Spec here (:func:`judge_spec`: metrics
    hold the resolved judge, and their signatures never parse a text). ``rubric:NAME`` is a user's
    rubric (rageval.prompts.rubric), found in the option ``rubrics`` (name -> Rubric) and judged by ``judge``.
    """
    name = name.strip()
    if name.startswith("rubric:"):
        return _rubric_metric(name, options)
    if name in METRICS and not name.endswith("@K"):
        return _build(METRICS[name], options, name)
    match = _AT_K.match(name)
    if match and f"{match['base']}@K" in METRICS:
        k = int(match["k"])
        if k < 1:
            raise ConfigError(f"{name}: K must be at least 1")
        return _build(METRICS[f"{match['base']}@K"], {**options, "k": k}, name)
    raise ConfigError(f"unknown metric {name!r}; known: {', '.join(metric_names())}")


def _rubric_metric(name: str, options: Mapping[str, Any]) -> Metric:
    from rageval.metrics.rubric import RubricMetric

    rubrics = options.get("rubrics") or {}
    rubric = rubrics.get(name.split(":", 1)[1])
    if rubric is None:
        raise ConfigError(f"unknown rubric metric {name!r}; add the rubric with `rageval rubric add FILE` "
                          "(or --rubric FILE) and name it rubric:NAME")
    return RubricMetric(rubric, judge=judge_spec(options.get("judge", OFFLINE_JUDGE), name))


def metric_names() -> list[str]:
    """Every registered name, ``@K`` ones shown with a literal K."""
    return sorted(METRICS)


def metric_options() -> set[str]:
    """Every option name some registered metric takes (its dataclass fields)."""
    return {f.name for factory in METRICS.values() if dataclasses.is_dataclass(factory)
            for f in dataclasses.fields(factory)} | {"rubrics"}


def parse_metric_list(text: str | Sequence[str], **options: Any) -> list[Metric]:
    """``"token_f1,ndcg@10"`` (or a list of names) -> configured metrics, in the order given.

    An option that no registered metric takes is an error (a typo such as ``judeg=`` must not
    be ignored silently); an option that only some of the listed metrics take goes to those.
    """
    names = [n for n in (text.split(",") if isinstance(text, str) else text) if n.strip()]
    if not names:
        raise ConfigError("no metrics given; choose from: " + ", ".join(metric_names()))
    unknown = sorted(set(options) - metric_options())
    if unknown:
        raise ConfigError(f"unknown metric option(s) {', '.join(unknown)}; "
                          f"known: {', '.join(sorted(metric_options()))}")
    if isinstance(options.get("judge"), str):  # parsed once for the list (an unreadable text: each metric names it)
        try:
            options = {**options, "judge": Spec.parse("judge", options["judge"])}
        except ConfigError:
            pass
    return [get_metric(n, **options) for n in names]


def online_judged(metric: Metric) -> bool:
    """Whether an online LLM judges ``metric``: it asks a judge (``needs_llm``) and its judge (a Spec
    since :func:`get_metric`) is online."""
    return bool(getattr(metric, "needs_llm", False)) and getattr(metric, "judge", OFFLINE_JUDGE).online


class _SerialEmbedder:
    """The run's embedder with one caller at a time (metrics scored in parallel share it)."""

    def __init__(self, inner: Any):
        self._inner, self._lock = inner, threading.Lock()

    def embed(self, texts: Any) -> Any:
        with self._lock:
            return self._inner.embed(texts)

    def embed_tokens(self, texts: Any) -> Any:
        with self._lock:
            return self._inner.embed_tokens(texts)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def shared_embedder(resources: Resources) -> Resources:
    """``resources`` for metrics (or batches) scored in parallel: the embedder made once and serialised."""
    lock, made = threading.Lock(), []

    def factory() -> Any:
        with lock:
            if not made:
                made.append(_SerialEmbedder(resources.embedder))
            return made[0]

    return dataclasses.replace(resources, embedder_factory=factory, _embedder=None)


#: how far outside its range a value may stray by floating-point error before it is a bug
RANGE_TOLERANCE = 1e-6


def in_range(score: Score, metric: Metric) -> Score:
    """Clip an ``ok`` value into ``metric.range`` at the boundary, or fail it with a reason.

    ``lo - 1e-6 <= v < lo`` becomes ``lo`` and ``hi < v <= hi + 1e-6`` becomes ``hi`` (BLEU's
    1.0000000000000004 on an exact match is 1.0); a value further out, NaN or infinite is
    ``failed`` with ``out_of_range: ...`` / ``not_a_number`` instead of being stored.
    """
    if score.status != "ok" or score.value is None:
        return score
    v = float(score.value)
    lo, hi = metric.range
    if math.isnan(v) or math.isinf(v):
        return Score.failed("not_a_number", score.details)
    if lo <= v <= hi:
        return score
    if lo - RANGE_TOLERANCE <= v < lo or hi < v <= hi + RANGE_TOLERANCE:
        return Score(value=min(max(v, lo), hi), status="ok", reason=score.reason, details=score.details)
    return Score.failed(f"out_of_range: {v!r} outside [{lo}, {hi}]", score.details)


def evaluate(
    samples: Sequence[Sample],
    metrics: Sequence[Metric],
    resources: Resources | None = None,
    *,
    progress: Callable[[str, int, int], None] | None = None,
) -> dict[str, list[Score]]:
    """Score every sample with every metric: ``{metric.name: [Score per sample]}``.

    Samples lacking a need get ``unscored`` with its reason; a metric that raises marks the
    samples it was given ``failed`` with the error's reason, and the other metrics go on.

    Metrics judged by an online LLM are scored at the same time, each in its own thread, so
    all their calls meet in the client's one pool (bounded by its concurrency) instead of
    running metric after metric in waves. Metrics that read one analysis (the three claim
    shares, the three AlignCheck metrics) share it through ``resources.memo``, new for each call:
    the first computes it, the others wait for it. The others run here, one after another. The
    embedder is shared and called by one metric at a time.

    Every value passes :func:`in_range` (clipped at the boundary, or failed with a reason).
    """
    resources = dataclasses.replace(with_default_embedder(resources or Resources()), memo=Memo())
    judged = [m for m in metrics if online_judged(m)]
    out: dict[str, list[Score]] = {}
    done = [0]
    lock = threading.Lock()

    def finish(metric: Metric, scores: list[Score]) -> None:
        with lock:
            out[metric.name] = scores
            done[0] += 1
            if progress is not None:
                progress(metric.name, done[0], len(metrics))

    if len(judged) > 1:
        shared = shared_embedder(resources)

        def run(metric: Metric) -> None:
            finish(metric, _score_metric(samples, metric, shared))

        with ThreadPoolExecutor(max_workers=len(judged), thread_name_prefix="rageval-metric") as pool:
            futures = [pool.submit(run, m) for m in judged]
            for metric in metrics:
                if not online_judged(metric):
                    finish(metric, _score_metric(samples, metric, shared))
            for future in futures:
                future.result()  # re-raises what a metric raised beyond RagevalError
    else:
        for metric in metrics:
            finish(metric, _score_metric(samples, metric, resources))
    return {metric.name: out[metric.name] for metric in metrics}


def _local_embedder() -> Any:
    from rageval.embed.cache import make_embedder

    return make_embedder("local")


def with_default_embedder(resources: Resources) -> Resources:
    """``resources`` with the offline model as its embedder when none was given (made on first use)."""
    if resources.embedder_factory is not None or resources._embedder is not None:
        return resources
    return dataclasses.replace(resources, embedder_factory=_local_embedder)


def _score_metric(samples: Sequence[Sample], metric: Metric, resources: Resources) -> list[Score]:
    scores: list[Score | None] = [None] * len(samples)
    eligible: list[int] = []
    for i, sample in enumerate(samples):
        missing = [n for n in sorted(metric.needs) if n in NEED_REASONS and not sample.has(n)]
        if missing:
            scores[i] = Score.unscored(NEED_REASONS[missing[0]])
        else:
            eligible.append(i)
    if eligible:
        try:
            got = metric.score_batch([samples[i] for i in eligible], resources)
            if len(got) != len(eligible):
                raise RagevalError(
                    f"metric {metric.name} returned {len(got)} scores for {len(eligible)} samples"
                )
        except RagevalError as exc:
            reason = getattr(exc, "reason", None) or f"error: {exc}"
            got = [Score.failed(reason) for _ in eligible]
        for i, score in zip(eligible, got):
            scores[i] = in_range(score, metric)
    return [s for s in scores if s is not None]
