"""Prediction-powered estimates of a run's headline numbers (formulas in :mod:`rageval.stats.ppi`).

- The mean human rating of a run's answers (1-5): the labelled set is the answers with a human
  score (the consensus of their ratings, or the agreed score), the predictor a metric on every
  answer, mapped onto 1-5 by the affine map that sends the metric's declared range to 1 and 5
  (an affine map changes no correlation; the rectifier corrects its bias).
- The share of a verifier's claims a person would call SUPPORTED: the labelled set is its claims
  with a gold label (:func:`rageval.human.claim_labels.gold_labels`), ``Y = [gold = SUPPORTED]``,
  the predictor ``[verdict = SUPPORTED]`` on every claim of that verifier in the run.
- The difference of two runs' mean human rating (B - A) over the questions both answered:
  PPI on the per-question differences (what :func:`rageval.stats.ppi_mean_difference` computes),
  with both runs' mapped metric as predictor.

Each estimate carries PPI++ (or classic PPI), the human-only estimate with its interval, the
predictor's naive mean, the widths and the effective number of labels. Intervals follow
:mod:`rageval.stats.ppi` (Student t below 100 labels; shares by :func:`rageval.stats.ppi_share`,
inside [0, 1], the human-only one Wilson's). With classic PPI wider than the human-only interval,
the human-only one is given and ``note`` says so. With fewer than :data:`MIN_LABELS` labelled items
(chosen by simulation on real labels: below it the 95% intervals covered less than 0.93) or no
unlabelled items there is no PPI estimate, and ``reason`` says why and how many more labels are
needed, and how many a human-only interval 0.1 wide (0.5 for a 1-5 rating) would need, taking the
predictor's standard deviation for the labels' (:func:`rageval.stats.labels_for_width`).

A predictor's stored values must lie in the metric's declared range (``Metric.range``): a value
outside it is refused with its items named (ConfigError), and the 1-5 map sends the declared range,
not the run's lowest and highest value, to 1-5, so one outlier cannot squeeze the others.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from rageval import stats
from rageval.errors import ConfigError
from rageval.human.claim_agreement import verdict_frame
from rageval.human.claim_labels import gold_labels, labels_frame
from rageval.human.frame import build_frame, metric_columns
from rageval.metrics.base import RANGE_TOLERANCE
from rageval.metrics.ranges import bounds, range_text
from rageval.project import Project

PREFERRED = ("answer_correctness_offline", "faithfulness", "answer_similarity", "token_f1")


#: the fewest labelled items an estimate gets an interval from: with fewer, the product's 95% intervals
#: covered less than 0.93 of draws on real human labels (validation/validate_ppi.py, docs/validation.md)
MIN_LABELS = 50


@dataclass(frozen=True)
class Estimate:
    quantity: str
    predictor: str
    labelled: int
    total: int
    result: stats.PPIResult | None
    reason: str | None = None
    note: str | None = None  # said beside the interval: "classic PPI is wider: the human-only interval is shown"
    point: float | None = None  # with too few labels for an interval: the estimate alone (no interval)

    def as_dict(self) -> dict[str, Any]:
        return {"quantity": self.quantity, "predictor": self.predictor, "labelled": self.labelled,
                "total": self.total, "reason": self.reason, "note": self.note, "point": self.point,
                **(self.result.as_dict() if self.result else {})}


def interval_of(y: np.ndarray, yl: np.ndarray, yu: np.ndarray, *, share: bool, tuned: bool, alpha: float
                ) -> tuple[stats.PPIResult, str | None]:
    """The interval ``estimate`` gives for labels ``y`` (0/1 when ``share``), their predictions ``yl``
    and the unlabelled predictions ``yu``, with the note said beside it: :func:`rageval.stats.ppi_share`
    or :func:`rageval.stats.ppi_mean`; with classic PPI (``tuned=False``) wider than the human-only
    interval, the human-only one is given instead, and the note says so (PPI++ never is wider)."""
    r = (stats.ppi_share if share else stats.ppi_mean)(y, yl, yu, alpha=alpha, tuned=tuned)
    if tuned or r.width <= r.human_width:
        return r, None
    human_df = None if share or r.df is None else float(r.n - 1)
    method = "Wilson" if share else ("normal" if human_df is None else f"Student t, df {human_df:.1f}")
    shown = replace(r, estimate=r.human, low=r.human_low, high=r.human_high, lam=0.0, df=human_df,
                    method=f"human only, {method}")
    return shown, (f"classic PPI's interval ({r.low:.3f} to {r.high:.3f}) is wider than the people's own: the "
                   "human-only interval is shown")


def _ppi(quantity: str, predictor: str, y: np.ndarray, yhat: np.ndarray, labelled: np.ndarray, *, tuned: bool,
         alpha: float, share: bool = False) -> Estimate:
    n, total = int(labelled.sum()), int(labelled.size)
    least = max(MIN_LABELS, 2)
    if n < least:
        width = 0.5 if "1-5" in quantity else 0.1
        guess = float(np.std(yhat)) if yhat.size > 1 else 0.0
        needed = (f"; about {stats.labels_for_width(guess, width, alpha=alpha)} labels would give a human-only 95% "
                  f"CI {width:g} wide, if the labels spread like the predictor" if guess > 0 else "")
        point = None
        if 2 <= n < total:
            point = interval_of(y[labelled], yhat[labelled], yhat[~labelled], share=share, tuned=tuned,
                                alpha=alpha)[0].estimate
        return Estimate(quantity, predictor, n, total, None,
                        f"{n} labelled item(s): an interval needs at least {least} (with fewer, 95% intervals "
                        f"covered less than 93% of draws on real labels), so label {least - n} more{needed}",
                        point=point)
    if n == total:
        return Estimate(quantity, predictor, n, total, None, "every item is labelled: the human mean is exact")
    r, note = interval_of(y[labelled], yhat[labelled], yhat[~labelled], share=share, tuned=tuned, alpha=alpha)
    return Estimate(quantity, predictor, n, total, r, note=note)


def to_rating_scale(values: np.ndarray, bounds: tuple[float, float] | None = None) -> np.ndarray:
    """The affine map of ``values`` onto 1-5 that sends ``bounds`` (the metric's declared range) to 1 and
    5; without finite bounds, the lowest value to 1 and the highest to 5 (all 3 when constant)."""
    if bounds is not None and all(np.isfinite(bounds)) and bounds[1] > bounds[0]:
        lo, hi = map(float, bounds)
    else:
        lo, hi = float(np.min(values)), float(np.max(values))
    return np.full(values.shape, 3.0) if hi == lo else 1.0 + 4.0 * (values - lo) / (hi - lo)


def checked_predictions(frame: pd.DataFrame, metric: str) -> tuple[float, float]:
    """The metric's declared range, after refusing (ConfigError) any stored value outside it, items named:
    an outlier would otherwise be averaged as a prediction."""
    lo, hi = bounds(metric)
    values = frame[metric].to_numpy(dtype=float)
    bad = ~((values >= lo - RANGE_TOLERANCE) & (values <= hi + RANGE_TOLERANCE))
    if bad.any():
        where = frame.loc[bad, ["run_id", "item_id", metric]].head(5)
        listed = "; ".join(f"item {item!r} of run {run}: {float(value)!r}" for run, item, value in where.to_numpy())
        raise ConfigError(
            f"{int(bad.sum())} prediction(s) of {metric} outside its declared range {range_text(metric)}: "
            f"{listed}. Rescore those items or pick another predictor with --metric"
        )
    return lo, hi


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
    scale = checked_predictions(part, metric)
    y, labelled = part["human"].to_numpy(dtype=float), part["human"].notna().to_numpy()
    yhat = to_rating_scale(part[metric].to_numpy(dtype=float), scale) if len(part) else np.array([])
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
                        alpha=alpha, share=True))
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
    scale = checked_predictions(frame[frame[metric].notna()], metric)
    scaled = to_rating_scale(np.concatenate([both[f"{metric}_a"], both[f"{metric}_b"]]).astype(float), scale)
    ha, hb = scaled[:total], scaled[total:]
    ya, yb = both["human_a"].to_numpy(dtype=float), both["human_b"].to_numpy(dtype=float)
    return _ppi(quantity, metric, np.nan_to_num(yb - ya), hb - ha, labelled, tuned=tuned, alpha=alpha)
