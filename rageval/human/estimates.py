"""Prediction-powered estimates of a run's headline numbers (formulas in :mod:`rageval.stats.ppi`).

- The mean human rating of a run's answers (1-5): the labelled set is the answers with a human
  score (the consensus of their ratings, or the agreed score), the predictor a metric on every
  answer, mapped onto 1-5 by the affine map that sends the metric's lowest and highest value in
  the run to 1 and 5 (an affine map changes no correlation; the rectifier corrects its bias).
- The share of a verifier's claims a person would call SUPPORTED: the labelled set is its claims
  with a gold label (:func:`rageval.human.claim_labels.gold_labels`), ``Y = [gold = SUPPORTED]``,
  the predictor ``[verdict = SUPPORTED]`` on every claim of that verifier in the run.
- The difference of two runs' mean human rating (B - A) over the questions both answered:
  :func:`rageval.stats.ppi_mean_difference` with both runs' mapped metric as predictor.

Each estimate carries PPI++ (or classic PPI), the human-only estimate with its interval, the
predictor's naive mean, the widths and the effective number of labels. With fewer than 2 labelled
or no unlabelled items there is no PPI estimate, and ``reason`` says why; with fewer than 2 labels
it also says how many labels a human-only interval 0.1 wide (0.5 for a 1-5 rating) would need,
taking the predictor's standard deviation for the labels' (:func:`rageval.stats.labels_for_width`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd

from rageval import stats
from rageval.errors import ConfigError
from rageval.human.claim_agreement import verdict_frame
from rageval.human.claim_labels import gold_labels, labels_frame
from rageval.human.frame import build_frame, metric_columns
from rageval.project import Project

PREFERRED = ("answer_correctness_offline", "faithfulness", "answer_similarity", "token_f1")


@dataclass(frozen=True)
class Estimate:
    quantity: str
    predictor: str
    labelled: int
    total: int
    result: stats.PPIResult | None
    reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"quantity": self.quantity, "predictor": self.predictor, "labelled": self.labelled,
                "total": self.total, "reason": self.reason, **(self.result.as_dict() if self.result else {})}


def _ppi(quantity: str, predictor: str, y: np.ndarray, yhat: np.ndarray, labelled: np.ndarray, *, tuned: bool,
         alpha: float) -> Estimate:
    n, total = int(labelled.sum()), int(labelled.size)
    if n < 2:
        width = 0.5 if "1-5" in quantity else 0.1
        guess = float(np.std(yhat)) if yhat.size > 1 else 0.0
        needed = (f"; about {stats.labels_for_width(guess, width, alpha=alpha)} labels would give a human-only 95% "
                  f"CI {width:g} wide, if the labels spread like the predictor" if guess > 0 else "")
        return Estimate(quantity, predictor, n, total, None, f"{n} labelled item(s): PPI needs at least 2{needed}")
    if n == total:
        return Estimate(quantity, predictor, n, total, None, "every item is labelled: the human mean is exact")
    r = stats.ppi_mean(y[labelled], yhat[labelled], yhat[~labelled], alpha=alpha, tuned=tuned)
    return Estimate(quantity, predictor, n, total, r)


def to_rating_scale(values: np.ndarray) -> np.ndarray:
    """The affine map of ``values`` onto 1-5 (lowest -> 1, highest -> 5); all 3 when constant."""
    lo, hi = float(np.min(values)), float(np.max(values))
    return np.full(values.shape, 3.0) if hi == lo else 1.0 + 4.0 * (values - lo) / (hi - lo)


def default_metric(frame: pd.DataFrame) -> str | None:
    cols = [c for c in metric_columns(frame) if c != "human" and frame[c].notna().any()]
    return next((m for m in PREFERRED if m in cols), cols[0] if cols else None)


def rating_estimate(project: Project, run_id: str, metric: str | None = None, *, tuned: bool = True,
                    alpha: float = 0.05, frame: pd.DataFrame | None = None) -> Estimate:
    """PPI estimate of the run's mean human rating with ``metric`` (default: :data:`PREFERRED`'s first
    in the run) as predictor, over the answers the metric scored."""
    frame = build_frame(project, [run_id]) if frame is None else frame
    metric = metric or default_metric(frame)
    if metric is None or metric not in frame.columns:
        raise ConfigError(f"no metric {metric!r} in run {run_id}; available: "
                          f"{', '.join(c for c in metric_columns(frame) if c != 'human')}")
    part = frame[frame[metric].notna()]
    y, labelled = part["human"].to_numpy(dtype=float), part["human"].notna().to_numpy()
    yhat = to_rating_scale(part[metric].to_numpy(dtype=float)) if len(part) else np.array([])
    return _ppi("mean human rating (1-5)", metric, np.nan_to_num(y), yhat, labelled, tuned=tuned, alpha=alpha)


def supported_estimates(project: Project, run_id: str, *, tuned: bool = True, alpha: float = 0.05) -> list[Estimate]:
    """PPI estimate of the share of claims a person would call SUPPORTED, one per verifier of the run."""
    rows = verdict_frame(project, [run_id])
    gold = gold_labels(labels_frame(project, [run_id]))
    out = []
    for sig, part in rows.groupby("signature", sort=True):
        g = [gold.get(k) for k in zip(part["run_id"], part["item_id"], part["claim"])]
        labelled = np.array([x is not None for x in g])
        y = np.array([1.0 if x == "SUPPORTED" else 0.0 for x in g])
        yhat = (part["verdict"] == "SUPPORTED").to_numpy(dtype=float)
        out.append(_ppi("share of claims a person calls SUPPORTED", str(sig), y, yhat, labelled, tuned=tuned,
                        alpha=alpha))
    return out


def run_estimates(project: Project, run_id: str, *, metric: str | None = None, tuned: bool = True,
                  alpha: float = 0.05) -> list[Estimate]:
    """The run's headline numbers with PPI: the mean human rating (when the run has a metric) and the
    share of SUPPORTED claims per verifier."""
    frame = build_frame(project, [run_id])
    out = []
    if metric is not None or default_metric(frame) is not None:
        out.append(rating_estimate(project, run_id, metric, tuned=tuned, alpha=alpha, frame=frame))
    return out + supported_estimates(project, run_id, tuned=tuned, alpha=alpha)


def difference_estimate(project: Project, run_a: str, run_b: str, metric: str | None = None, *, tuned: bool = True,
                        alpha: float = 0.05, frame: pd.DataFrame | None = None) -> Estimate:
    """PPI estimate of mean human rating B - A over the questions both runs answered and ``metric`` scored;
    labelled where both answers have a human score. ``frame``: the two runs' :func:`build_frame`
    (median consensus) when the caller has it (the Compare page), else built here."""
    frame = build_frame(project, [run_a, run_b]) if frame is None else frame
    metric = metric or default_metric(frame)
    if metric is None or metric not in frame.columns:
        raise ConfigError(f"no metric {metric!r} shared by runs {run_a} and {run_b}")
    wide = {r: frame[frame["run_id"] == r].set_index("item_id")[[metric, "human"]] for r in (run_a, run_b)}
    both = wide[run_a].merge(wide[run_b], left_index=True, right_index=True, suffixes=("_a", "_b"))
    both = both[both[f"{metric}_a"].notna() & both[f"{metric}_b"].notna()]
    quantity = "difference of mean human rating (B - A)"
    labelled = (both["human_a"].notna() & both["human_b"].notna()).to_numpy()
    n, total = int(labelled.sum()), int(len(both))
    if n < 2 or n == total:
        return _ppi(quantity, metric, np.zeros(total), np.zeros(total), labelled, tuned=tuned, alpha=alpha)
    scaled = to_rating_scale(np.concatenate([both[f"{metric}_a"], both[f"{metric}_b"]]).astype(float))
    ha, hb = scaled[:total], scaled[total:]
    ya, yb = both["human_a"].to_numpy(dtype=float), both["human_b"].to_numpy(dtype=float)
    r = stats.ppi_mean_difference(yb[labelled], ya[labelled], hb[labelled], ha[labelled], hb[~labelled],
                                  ha[~labelled], alpha=alpha, tuned=tuned)
    return Estimate(quantity, metric, n, total, r)


def estimate_runs(project: Project, run_ids: Sequence[str], **kw: Any) -> dict[str, list[Estimate]]:
    """:func:`run_estimates` of several runs (Home's leaderboard), keyed by run."""
    return {r: run_estimates(project, r, **kw) for r in run_ids}
