"""The Answers table: one row per answer with verdict counts, diagnosis, flags and every metric.

Built from aggregate queries (no contexts, no details JSON parsed in Python), so a run of
10,000 answers x 20 metrics becomes a table in well under a second. Filters are plain pandas
over this table; a metric value is NaN where the metric did not score the answer, never 0.
"""
from __future__ import annotations

from typing import Sequence

import pandas as pd

from rageval.project import Project
from rageval.report.settle import PEOPLE, needs_settling, settled_claims, settled_values
from rageval.store import reports as report_store

VERDICT_COLUMNS = {"SUPPORTED": "supported", "CONTRADICTED": "contradicted", "NOT_MENTIONED": "not_mentioned",
                   "UNVERIFIED": "unverified"}


def answer_table(project: Project, run_id: str) -> pd.DataFrame:
    """Columns: ``#, id, question, answer, status, domain, supported, contradicted, not_mentioned,
    unverified, low_confidence`` (how many of those verdicts are low confidence), ``diagnosis, hedging_flag``
    then one column per metric (value, NaN when unscored). The verdicts and the claim metrics are the
    settled ones (:mod:`rageval.report.settle`), as the answer's own view shows them."""
    base, values, counts, diag = report_store.answer_table_frames(project.db_path, run_id)
    if needs_settling(project, run_id):
        counts, values = _settled(project, run_id, values)
    if len(counts):
        # one claim family per answer: the faithfulness claims when present, as the detail view shows
        counts["pref"] = ~counts["signature"].str.startswith("faithfulness|")
        first = counts.sort_values(["id", "pref", "signature"]).groupby("id")["signature"].first()
        counts = counts[counts["signature"] == counts["id"].map(first)]
        wide = counts.pivot_table(index="id", columns="verdict", values="n", aggfunc="sum", fill_value=0)
        wide = wide.rename(columns=VERDICT_COLUMNS).reset_index()
        low = counts.groupby("id")["low"].sum().rename("low_confidence").reset_index()
        base = base.merge(wide, on="id", how="left").merge(low, on="id", how="left")
    for col in (*VERDICT_COLUMNS.values(), "low_confidence"):
        base[col] = base[col].fillna(0).astype(int) if col in base else 0
    base = base.merge(diag, on="id", how="left")
    base["diagnosis"] = base["diagnosis"].fillna("").astype(str).str.replace("_", " ")
    if len(values):
        wide = values.pivot_table(index="id", columns="metric", values="value", aggfunc="first", dropna=False)
        wide.columns = [str(c) for c in wide.columns]
        base = base.merge(wide.reset_index(), on="id", how="left")
    base["hedging_flag"] = base["hedging"].fillna(0) > 0 if "hedging" in base else False
    return base


def _settled(project: Project, run_id: str, values: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The table's verdict counts (one row per settled claim) and metric values with the claim
    metrics on settled verdicts; a low-confidence verdict is a machine's, never people's."""
    settled = settled_claims(project, run_id)
    counts = pd.DataFrame([{"id": c.item_id, "signature": "settled", "verdict": c.verdict, "n": 1,
                            "low": int(c.authority != PEOPLE
                                       and bool((c.record.get("details") or {}).get("low_confidence")))}
                           for c in settled], columns=["id", "signature", "verdict", "n", "low"])
    by_item = settled_values(settled)
    values = values.copy()
    for i, (item, metric) in enumerate(zip(values["id"], values["metric"])):
        found = by_item.get(item, {}).get(metric)
        if found is not None:
            values.iat[i, values.columns.get_loc("value")] = found.value if found.value is not None else float("nan")
    return counts, values


def metric_columns(table: pd.DataFrame) -> list[str]:
    fixed = {"id", "#", "question", "answer", "status", "reason", "domain", "diagnosis", "hedging_flag",
             "low_confidence",
             *VERDICT_COLUMNS.values()}
    return [c for c in table.columns if c not in fixed]


def filter_table(table: pd.DataFrame, *, text: str = "", diagnosis: str = "", domain: str = "",
                 contradicted: bool = False, hedged: bool = False, failed: bool = False,
                 ids: Sequence[str] | None = None) -> pd.DataFrame:
    """Rows matching every condition given: text in question or answer, a diagnosis, a domain,
    at least one contradicted claim, hedging flagged, generation failed, id among ``ids``."""
    keep = pd.Series(True, index=table.index)
    if text.strip():
        needle = text.strip().lower()
        keep &= (table["question"].str.lower().str.contains(needle, regex=False)
                 | table["answer"].fillna("").str.lower().str.contains(needle, regex=False))
    if diagnosis:
        keep &= table["diagnosis"] == diagnosis
    if domain:
        keep &= table["domain"].fillna("") == domain
    if contradicted:
        keep &= table["contradicted"] > 0
    if hedged:
        keep &= table["hedging_flag"]
    if failed:
        keep &= table["status"] != "ok"
    if ids is not None:
        keep &= table["id"].isin(list(ids))
    return table[keep]


def filter_scores(table: pd.DataFrame, *, contradicted: bool = False, unscored: bool = False,
                  metric: str | None = None, below: float | None = None, at_least: float | None = None) -> pd.DataFrame:
    """Rows with a CONTRADICTED claim / an unscored metric / ``metric`` below or at least a value.

    Conditions combine with AND; ``unscored`` with ``metric`` means that metric is unscored
    (NaN); threshold filters keep only answers the metric scored.
    """
    keep = pd.Series(True, index=table.index)
    if contradicted:
        keep &= table["contradicted"] > 0
    metrics = metric_columns(table)
    if unscored:
        keep &= table[metric].isna() if metric in table else table[metrics].isna().any(axis=1)
    if metric and (below is not None or at_least is not None):
        values = table[metric] if metric in table else pd.Series(float("nan"), index=table.index)
        keep &= values.notna()
        if below is not None:
            keep &= values < below
        if at_least is not None:
            keep &= values >= at_least
    return table[keep]


def bounds(table: pd.DataFrame, metric: str) -> tuple[float, float]:
    """Slider bounds for ``metric``: its declared range where finite, widened to the values seen."""
    import math

    from rageval.report.meaning import info

    m = info(metric)
    seen = table[metric].dropna() if metric in table else pd.Series(dtype=float)
    low = m.low if math.isfinite(m.low) else float(seen.min()) if len(seen) else 0.0
    high = m.high if math.isfinite(m.high) else float(seen.max()) if len(seen) else 1.0
    if len(seen):
        low, high = min(low, float(seen.min())), max(high, float(seen.max()))
    return (float(low), float(high)) if high > low else (float(low), float(low) + 1.0)


def score_diff(a: dict, b: dict, metrics: Sequence[str]) -> pd.DataFrame:
    """Per metric: the value in run A and run B for one question, and B - A (None when either is missing)."""
    rows = []
    for m in metrics:
        va, vb = a.get(m), b.get(m)
        va = None if va is None or va != va else float(va)
        vb = None if vb is None or vb != vb else float(vb)
        rows.append({"metric": m, "A": va, "B": vb, "B - A": None if va is None or vb is None else vb - va})
    return pd.DataFrame(rows)


def default_metric_columns(metrics: Sequence[str], n: int = 4) -> list[str]:
    """The metric columns shown before a user picks others: the leaderboard's main metrics first
    (rageval.report.leaderboard.MAIN_METRICS order), then the rest, ``n`` at most, so the table fits
    a 1280-px screen.

    >>> default_metric_columns(["bleu", "token_f1", "mrr", "rouge1", "faithfulness"], n=3)
    ['faithfulness', 'token_f1', 'mrr']
    """
    from rageval.report.leaderboard import MAIN_METRICS

    ranked = [m for m in MAIN_METRICS if m in metrics] + [m for m in metrics if m not in MAIN_METRICS]
    return ranked[:n]
