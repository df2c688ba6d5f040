"""Consensus of annotators per answer, agreement between them, and the human ceiling.

- Consensus of an answer's ratings: ``median`` (default), ``mean`` or ``majority`` (the most
  frequent rating; a tie between ratings is broken by their median, so 2, 4 gives 3 and never a
  silent pick). An agreed score, when set, overrides it (``source = "agreed"``).
- An answer is flagged for discussion when its ratings span 2 or more (max - min >= 2).
- Agreement: Krippendorff's alpha (ordinal), pairwise linear-weighted Cohen's kappa and exact /
  within-one shares (formulas in :mod:`rageval.stats.agreement`), overall and per group.
- Human ceiling: each annotator's ratings correlated with the consensus of the *other*
  annotators on the answers both cover (leave-one-annotator-out); the ceiling is the mean of
  those correlations over annotators (weighted by their number of answers; ``n`` is the number
  of answers rated at least twice), reported beside
  every metric's correlation with the consensus so a user sees how close a metric comes to a
  person.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from rageval import stats
from rageval.project import Project
from rageval.store import human as hstore

CONSENSUS = ("median", "mean", "majority")
FLAG_SPREAD = 2


def _majority(values: np.ndarray) -> float:
    vals, counts = np.unique(values, return_counts=True)
    top = vals[counts == counts.max()]
    return float(np.median(top))


def combine(values: Sequence[float], method: str = "median") -> float:
    """The consensus of one answer's ratings (see the module docstring)."""
    if method not in CONSENSUS:
        raise ValueError(f"consensus={method!r} must be one of {', '.join(CONSENSUS)}")
    arr = np.asarray(values, dtype=float)
    return float({"median": np.median, "mean": np.mean, "majority": _majority}[method](arr))


def ratings_frame(project: Project, run_ids: Sequence[str]) -> pd.DataFrame:
    """Long-form ratings: run_id, item_id, question, annotator, rating."""
    rows = hstore.ratings(project.db_path, run_ids)
    return pd.DataFrame(rows, columns=["run_id", "item_id", "question", "annotator", "rating", "created"])


def consensus(project: Project, run_ids: Sequence[str], method: str = "median") -> pd.DataFrame:
    """One row per rated answer: run_id, item_id, n (ratings), consensus, spread, flagged,
    agreed (or NaN), score (agreed if set, else consensus), source (``agreed`` / method)."""
    combine([3], method)  # validate the method once
    long = ratings_frame(project, run_ids)
    cols = ["run_id", "item_id", "n", "consensus", "spread", "flagged", "agreed", "score", "source"]
    if long.empty:
        return pd.DataFrame(columns=cols)
    g = long.groupby(["run_id", "item_id"], sort=False)["rating"]
    out = g.agg(n="size", spread=lambda v: float(v.max() - v.min())).reset_index()
    out["consensus"] = g.apply(lambda v: combine(v.to_numpy(), method)).to_numpy()
    out["flagged"] = out["spread"] >= FLAG_SPREAD
    agreed = hstore.agreed(project.db_path, run_ids)
    out["agreed"] = [agreed.get((r, i), np.nan) for r, i in zip(out["run_id"], out["item_id"])]
    has = out["agreed"].notna()
    out["score"] = out["consensus"].where(~has, out["agreed"])
    out["source"] = np.where(has, "agreed", method)
    return out[cols]


def wide(long: pd.DataFrame) -> pd.DataFrame:
    """Annotators x answers (``run_id/item_id``) with NaN where an annotator did not rate."""
    if long.empty:
        return pd.DataFrame()
    key = long["run_id"].astype(str) + "/" + long["item_id"].astype(str)
    return long.assign(key=key).pivot_table(index="annotator", columns="key", values="rating", aggfunc="first")


def agreement_of(long: pd.DataFrame) -> dict:
    """Alpha (ordinal), pairwise weighted kappa, exact / within-one shares of long-form ratings."""
    w = wide(long)
    if w.empty:
        return {"annotators": 0, "answers": 0, "alpha": None, "exact": None, "within_one": None,
                "pairs": 0, "kappa": {}}
    shares = stats.agreement_shares(w.to_numpy())
    kappa = stats.pairwise_kappa(w, weights="linear", labels=range(1, 6))
    return {"annotators": int(w.shape[0]), "answers": int(w.shape[1]),
            "alpha": stats.krippendorff_alpha(w.to_numpy(), level="ordinal"),
            **shares, "kappa": {a: {b: (None if np.isnan(v) else float(v)) for b, v in row.items()}
                                for a, row in kappa.iterrows()}}


def human_ceiling(long: pd.DataFrame, *, method: str = "spearman", consensus_method: str = "median") -> dict:
    """Leave-one-annotator-out correlation with the consensus of the others (module docstring)."""
    w = wide(long)
    per: dict[str, dict] = {}
    for annotator in (w.index if not w.empty else []):
        own = w.loc[annotator].to_numpy(dtype=float)
        others = w.drop(index=annotator).to_numpy(dtype=float)
        rest = np.array([combine(col[np.isfinite(col)], consensus_method) if np.isfinite(col).any() else np.nan
                         for col in others.T]) if others.size else np.full(own.shape, np.nan)
        c = stats.correlate(own, rest, method=method, n_boot=0)
        per[str(annotator)] = {"rho": c.rho, "n": c.n, "p": c.p, "reason": c.reason}
    valid = [v for v in per.values() if v["rho"] is not None]
    total = sum(v["n"] for v in valid)
    rho = sum(v["rho"] * v["n"] for v in valid) / total if total else None
    answers = int((np.isfinite(w.to_numpy(dtype=float)).sum(axis=0) >= 2).sum()) if not w.empty else 0
    reason = None
    if rho is None:
        reason = "fewer_than_two_annotators" if len(per) < 2 else next(
            (v["reason"] for v in per.values() if v["reason"]), "undefined")
    return {"rho": rho, "n": answers, "pairs": total, "annotators": per, "reason": reason}
