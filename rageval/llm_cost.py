"""Prices, the estimate shown before a run, and the usage summary after it.

Cost of calls to one model, in USD, with prices per 1M tokens from the price table::

    cost = tokens_in / 1e6 * price_in + tokens_out / 1e6 * price_out

The table is ``rageval/prices.json``, overridden entry by entry by the JSON file named in
``RAGEVAL_PRICES``. A model is looked up by its exact name, then without a date suffix
(``gpt-4o-2024-08-06`` -> ``gpt-4o``). A model with no price has cost None (shown as
"unknown"), never 0. Cached calls cost nothing.

Before a run, tokens are estimated as ``ceil(characters / 4)`` - a rough rule for English text
and OpenAI tokenizers (typically within +-25%; more for code or other scripts). The estimate is
an upper bound on calls: it does not subtract cache hits.
"""
from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, Sequence

from rageval.errors import ConfigError
from rageval.llm_config import parse_spec
from rageval.store.llm_cache import call_rows

#: model -> {"input": USD per 1M tokens, "output": USD per 1M tokens}
Prices = Mapping[str, Mapping[str, float]]
_DATE_SUFFIX = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{4})$")
EMBED_BATCH = 64
#: characters of instructions a prompt adds around the item's own text (rough, for estimates)
PROMPT_CHARS = {"generator": 800, "judge": 1200}
#: average lengths assumed when no samples are given
DEFAULT_CHARS = {"question": 60, "answer": 400, "contexts": 5000, "references": 200}


def _models_of(data: Any, source: str) -> dict[str, dict[str, float]]:
    if not isinstance(data, dict):
        raise ConfigError(f"price table {source} must be a JSON object")
    table = data.get("models", data)
    out: dict[str, dict[str, float]] = {}
    for model, entry in table.items():
        if model.startswith("_") or (model in ("unit", "note") and not isinstance(entry, dict)):
            continue
        try:
            out[model] = {"input": float(entry["input"]), "output": float(entry.get("output", 0.0))}
        except (TypeError, KeyError, ValueError, AttributeError):
            raise ConfigError(
                f"price table {source}: entry {model!r} must look like {{\"input\": 2.5, \"output\": 10.0}}"
            ) from None
    return out


def load_prices(path: str | Path | None = None, *, env: Mapping[str, str] = os.environ) -> dict[str, dict[str, float]]:
    """The price table: the shipped one, then the file ``path`` (or ``RAGEVAL_PRICES``) on top."""
    shipped = json.loads(resources.files("rageval").joinpath("prices.json").read_text(encoding="utf-8"))
    prices = _models_of(shipped, "rageval/prices.json")
    override = path or env.get("RAGEVAL_PRICES")
    if override:
        try:
            data = json.loads(Path(override).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"cannot read the price table RAGEVAL_PRICES={override}: {exc.strerror}") from None
        except json.JSONDecodeError as exc:
            raise ConfigError(f"the price table {override} is not valid JSON: {exc.msg} (line {exc.lineno})") from None
        prices.update(_models_of(data, str(override)))
    return prices


def price_for(model: str, prices: Prices) -> Mapping[str, float] | None:
    """The ``{"input", "output"}`` price of ``model`` (exact name, then without a date suffix)."""
    if model in prices:
        return prices[model]
    base = _DATE_SUFFIX.sub("", model)
    return prices.get(base)


def cost_usd(model: str, tokens_in: float, tokens_out: float, prices: Prices) -> float | None:
    """``tokens_in/1e6 * input + tokens_out/1e6 * output``, or None when ``model`` has no price.

    >>> cost_usd("gpt-4o", 1_000_000, 100_000, {"gpt-4o": {"input": 2.5, "output": 10.0}})
    3.5
    """
    price = price_for(model, prices)
    if price is None:
        return None
    return tokens_in / 1e6 * price["input"] + tokens_out / 1e6 * price["output"]


def estimate_tokens(text: str | None) -> int:
    """``ceil(len(text) / 4)``: a rough token count for English text (see the module doc)."""
    return math.ceil(len(text or "") / 4)


# ---------------------------------------------------------------- before a run

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
    note: str = "upper bound; tokens ~ characters/4; cache hits not subtracted"


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
    max_answer_tokens: int | None = None,
) -> RunEstimate:
    """Estimate the model calls, tokens and cost of scoring ``n_items`` items.

    ``roles`` maps a role to its spec (``"openai:gpt-4o"`` or an offline name); offline roles
    cost nothing. ``metrics`` are metric objects: one counts when ``needs_llm`` is true and its
    ``judge`` is ``openai:MODEL``; it makes ``llm_calls_per_item`` calls per item (attribute,
    default 1) of about prompt + question + answer + contexts tokens in and
    ``llm_tokens_out`` (default 150) out. The generator (when online) makes one call per item;
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

    generator = parse_spec("generator", roles["generator"]) if roles.get("generator") else None
    if generator:
        gen_in = PROMPT_CHARS["generator"] / 4 + tok["question"] + tok["contexts"]
        add("generator", generator, n_items, gen_in, answer_out)
    default_judge = parse_spec("judge", roles["judge"]) if roles.get("judge") else None
    semantic = False
    for metric in metrics:
        semantic = semantic or getattr(metric, "kind", None) == "semantic"
        if not getattr(metric, "needs_llm", False):
            continue
        spec = getattr(metric, "judge", None)
        model = parse_spec("judge", spec) if spec else default_judge
        if not model:
            continue
        calls = float(getattr(metric, "llm_calls_per_item", 1.0)) * n_items
        t_in = PROMPT_CHARS["judge"] / 4 + tok["question"] + answer_out + tok["contexts"]
        add("judge", model, calls, t_in, float(getattr(metric, "llm_tokens_out", 150)))
    embedder = parse_spec("embedder", roles["embedder"]) if roles.get("embedder") else None
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


# ---------------------------------------------------------------- after a run

@dataclass(frozen=True)
class UsageSummary:
    """What a run's model calls used. Tokens and cost count network calls only (cache hits are free)."""

    calls: int
    cached: int
    failed: int
    tokens_in: int
    tokens_out: int
    cost_usd: float | None            # of the priced models; None when no model used has a price
    unpriced: tuple[str, ...] = ()
    by_role: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def network_calls(self) -> int:
        return self.calls - self.cached


def summarize_calls(rows: Sequence[Mapping[str, Any]], prices: Prices | None = None) -> UsageSummary:
    """Aggregate ``llm_calls`` rows (dicts with role, model, tokens_in, tokens_out, cached, status)."""
    prices = load_prices() if prices is None else prices
    by_role: dict[str, dict[str, Any]] = {}
    tokens: dict[str, list[int]] = {}
    for row in rows:
        slot = by_role.setdefault(row["role"], {"calls": 0, "cached": 0, "failed": 0, "tokens_in": 0, "tokens_out": 0})
        slot["calls"] += 1
        slot["cached"] += bool(row["cached"])
        slot["failed"] += row["status"] != "ok"
        if not row["cached"]:
            slot["tokens_in"] += int(row["tokens_in"] or 0)
            slot["tokens_out"] += int(row["tokens_out"] or 0)
            pair = tokens.setdefault(row["model"], [0, 0])
            pair[0] += int(row["tokens_in"] or 0)
            pair[1] += int(row["tokens_out"] or 0)
    total_cost, unpriced = None, []
    for model, (t_in, t_out) in tokens.items():
        cost = cost_usd(model, t_in, t_out, prices)
        if cost is None:
            if t_in or t_out:
                unpriced.append(model)
        else:
            total_cost = (total_cost or 0.0) + cost
    return UsageSummary(
        calls=len(rows), cached=sum(s["cached"] for s in by_role.values()),
        failed=sum(s["failed"] for s in by_role.values()),
        tokens_in=sum(s["tokens_in"] for s in by_role.values()),
        tokens_out=sum(s["tokens_out"] for s in by_role.values()),
        cost_usd=total_cost, unpriced=tuple(sorted(unpriced)), by_role=by_role,
    )


def usage_summary(store_path: str | Path, run_id: str | None, *, prices: Prices | None = None) -> UsageSummary:
    """The usage of one run (or of every run with ``run_id=None``) from the ``llm_calls`` table.

    A running client buffers its rows for up to about a second: call ``client.flush()`` first.
    """
    return summarize_calls(call_rows(store_path, run_id), prices)
