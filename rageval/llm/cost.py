"""Prices and the usage summary after a run (the estimate before it is :mod:`rageval.runs.estimate`).

Cost of calls to one model, in USD, with prices per 1M tokens from the price table::

    cost = tokens_in / 1e6 * price_in + tokens_out / 1e6 * price_out

The table is ``rageval/prices.json``, overridden entry by entry by the JSON file named in
``RAGEVAL_PRICES``. A model is looked up by its exact name, then without a date suffix
(``gpt-4o-2024-08-06`` -> ``gpt-4o``). A model with no price has cost None (shown as
"unknown"), never 0. Cached calls cost nothing.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, Sequence

from rageval import settings
from rageval.errors import ConfigError

#: model -> {"input": USD per 1M tokens, "output": USD per 1M tokens}
Prices = Mapping[str, Mapping[str, float]]
_DATE_SUFFIX = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{4})$")


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
    override = path or settings.value("RAGEVAL_PRICES", env)
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


