"""The estimate shown before a run: model calls (an upper bound), tokens and cost.

Calls. Each judged metric declares ``llm_calls(shape) -> int``: the most judge calls it makes
for one item of that shape (:class:`CallShape`: retrieved passages, non-empty references, the
answer when known), e.g. ``context_relevance`` one per passage, ``ragas_answer_correctness`` one
per reference, ``faithfulness`` 1 extraction + ``ceil(MAX_CLAIMS / CLAIMS_PER_CALL)``
verifications. Metrics of one family (``llm_family``: faithfulness, contradicted_share and
not_mentioned_share share one claim analysis) count once. The sum over the items, plus one
generator call per item, plus the embedder's batches, is a true upper bound on the calls that
get an answer, BEFORE retries and re-asks, which can add to it:

- a reply that does not parse or validate is re-asked once (at most doubling that call);
- a failed attempt (429, 5xx, timeout, connection error) is retried up to ``max_retries``
  times (default 6);
- while a server's structured-output mode is found, up to two requests per call in flight
  (at most ``2 x concurrency``) are rejected with a 400 before the run settles on a mode;
- the reachability check before a role's first network call (``GET /models``, and one tiny
  request when the model is not listed).

Cache hits are not subtracted (an unchanged re-run makes zero calls).

Tokens are estimated as ``ceil(characters / 4)`` - a rough rule for English text and OpenAI
tokenizers (typically within +-25%; more for code or other scripts).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from rageval.llm.cost import Prices, cost_usd, load_prices
from rageval.types import Spec

EMBED_BATCH = 64
#: characters of instructions a prompt adds around the item's own text (rough, for estimates)
PROMPT_CHARS = {"generator": 800, "judge": 1200}
#: average lengths assumed when no samples are given
DEFAULT_CHARS = {"question": 60, "answer": 400, "contexts": 5000, "references": 200}


def estimate_tokens(text: str | None) -> int:
    """``ceil(len(text) / 4)``: a rough token count for English text (see the module doc)."""
    return math.ceil(len(text or "") / 4)


@dataclass(frozen=True)
class RoleEstimate:
    role: str
    model: str
    calls: int
    tokens_in: int
    tokens_out: int
    cost_usd: float | None


@dataclass(frozen=True)
class RunEstimate:
    """Calls, tokens and cost a run will need at most (cache hits not subtracted)."""

    calls: int
    tokens_in: int
    tokens_out: int
    cost_usd: float | None            # of the priced models; None when no model used has a price
    roles: tuple[RoleEstimate, ...]
    unpriced: tuple[str, ...]         # models used that have no price
    note: str = ("upper bound before retries and re-asks (each unusable reply is re-asked once, each failed "
                 "attempt retried up to 6 times); tokens ~ characters/4; cache hits not subtracted")


@dataclass(frozen=True)
class CallShape:
    """What a metric's judge calls for one item depend on."""

    passages: int           # retrieved passages (contexts) of the item
    references: int         # non-empty reference answers
    answer: str | None      # the answer, when known (None before generation)


#: passages assumed per item when neither the sample nor ``top_k`` says
DEFAULT_PASSAGES = 5


def call_shape(sample: Any, top_k: int | None = None) -> CallShape:
    """The :class:`CallShape` of a sample (object or dict); ``top_k`` stands in for unknown contexts."""
    contexts = _field(sample, "contexts") if sample is not None else None
    refs = _field(sample, "references") if sample is not None else None
    answer = _field(sample, "answer") if sample is not None else None
    passages = len(contexts) if contexts is not None else (top_k if top_k is not None else DEFAULT_PASSAGES)
    references = sum(1 for r in refs if str(r).strip()) if refs is not None else 1
    return CallShape(passages, references, answer if isinstance(answer, str) else None)


def metric_calls(metric: Any, shape: CallShape) -> int:
    """The most judge calls ``metric`` makes for one item of ``shape`` (``llm_calls``, else the
    older constant ``llm_calls_per_item``, default 1)."""
    declared = getattr(metric, "llm_calls", None)
    if callable(declared):
        return int(declared(shape))
    return math.ceil(float(getattr(metric, "llm_calls_per_item", 1.0)))


def _field(sample: Any, name: str) -> Any:
    return sample.get(name) if isinstance(sample, Mapping) else getattr(sample, name, None)


def _average_chars(samples: Sequence[Any] | None) -> dict[str, float]:
    """Average characters per sample of each text field; the typical length where no sample has it."""
    out = dict(DEFAULT_CHARS)
    for name in DEFAULT_CHARS:
        lengths = []
        for sample in samples or ():
            value = _field(sample, name)
            if isinstance(value, str):
                lengths.append(len(value))
            elif value is not None:
                lengths.append(sum(len(str(v)) for v in value))
        if lengths:
            out[name] = sum(lengths) / len(lengths)
    return out


def estimate_run(
    n_items: int, metrics: Sequence[Any], roles: Mapping[str, str], *,
    samples: Sequence[Any] | None = None, prices: Prices | None = None,
    max_answer_tokens: int | None = None, top_k: int | None = None,
) -> RunEstimate:
    """Estimate the model calls, tokens and cost of scoring ``n_items`` items.

    ``roles`` maps a role to its spec (``"openai:gpt-4o"`` or an offline name); offline roles
    cost nothing. ``metrics`` are metric objects: one counts when ``needs_llm`` is true and its
    ``judge`` is ``openai:MODEL``; it makes at most :func:`metric_calls` calls per item (see the
    module doc; one family counts once) of about prompt + question + answer + contexts tokens
    in (the prompt: the metric's ``llm_prompt_chars``, else ``PROMPT_CHARS["judge"]``) and
    ``llm_tokens_out`` (default 150) out. With one sample per item the calls are summed
    over the samples; with fewer samples than items, the largest per-sample count is used for
    every item (still a bound when the samples are typical of the items). The generator (when online)
    makes one call per item;
    the embedder (when online) embeds each question, plus answers and references for metrics of
    kind "semantic", in batches of 64. ``samples`` (objects or dicts with question, answer,
    contexts, references) give the average text lengths; a field no sample has (before a run:
    answer, contexts) gets a typical length (``DEFAULT_CHARS``).
    """
    prices = load_prices() if prices is None else prices
    chars = _average_chars(samples)
    tok = {name: math.ceil(value / 4) for name, value in chars.items()}
    answer_out = max_answer_tokens or max(tok["answer"], 1)
    per_model: dict[tuple[str, str], list[float]] = {}

    def add(role: str, model: str, calls: float, t_in: float, t_out: float) -> None:
        slot = per_model.setdefault((role, model), [0.0, 0.0, 0.0])
        slot[0] += calls
        slot[1] += calls * t_in
        slot[2] += calls * t_out

    generator = Spec.parse("generator", roles["generator"]).model if roles.get("generator") else None
    if generator:
        gen_in = PROMPT_CHARS["generator"] / 4 + tok["question"] + tok["contexts"]
        add("generator", generator, n_items, gen_in, answer_out)
    default_judge = Spec.parse("judge", roles["judge"]).model if roles.get("judge") else None
    semantic = False
    families: set[str] = set()
    for metric in metrics:
        semantic = semantic or getattr(metric, "kind", None) == "semantic"
        if not getattr(metric, "needs_llm", False):
            continue
        spec = getattr(metric, "judge", None)  # a judged metric's resolved judge (a Spec)
        model = spec.model if spec is not None else default_judge
        if not model:
            continue
        family = getattr(metric, "llm_family", None)
        if family is not None:
            if family in families:
                continue
            families.add(family)
        shapes = [call_shape(s, top_k) for s in samples] if samples else [call_shape(None, top_k)]
        per_item = [metric_calls(metric, shape) for shape in shapes]
        calls = float(sum(per_item)) if len(per_item) == n_items else float(max(per_item)) * n_items
        prompt = float(getattr(metric, "llm_prompt_chars", PROMPT_CHARS["judge"]))  # a rubric brings its own text
        t_in = prompt / 4 + tok["question"] + answer_out + tok["contexts"]
        add("judge", model, calls, t_in, float(getattr(metric, "llm_tokens_out", 150)))
    embedder = Spec.parse("embedder", roles["embedder"]).model if roles.get("embedder") else None
    if embedder and n_items:
        texts = n_items * (3 if semantic else 1)
        total = n_items * (tok["question"] + (tok["answer"] + tok["references"] if semantic else 0))
        calls = math.ceil(texts / EMBED_BATCH)
        add("embedder", embedder, calls, total / calls, 0)

    estimates, unpriced, total_cost = [], [], None
    for (role, model), (calls, t_in, t_out) in per_model.items():
        cost = cost_usd(model, t_in, t_out, prices)
        if cost is None:
            unpriced.append(model)
        else:
            total_cost = (total_cost or 0.0) + cost
        estimates.append(RoleEstimate(role, model, math.ceil(calls), math.ceil(t_in), math.ceil(t_out), cost))
    return RunEstimate(
        calls=sum(e.calls for e in estimates), tokens_in=sum(e.tokens_in for e in estimates),
        tokens_out=sum(e.tokens_out for e in estimates), cost_usd=total_cost,
        roles=tuple(estimates), unpriced=tuple(sorted(set(unpriced))),
    )


