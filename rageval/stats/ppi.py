"""Prediction-powered inference (PPI) for a mean: a few human labels plus many predictions.

The labelled set has the human value ``Y_i`` and the predictor's value ``Yhat_i`` (a metric or
a judge) for ``i = 1..n``; the unlabelled set has only the prediction ``Yhat~_j``, ``j = 1..N``.
For a weight ``lambda``:

- estimate ``theta = lambda mean(Yhat~) + mean(Y - lambda Yhat)`` (the predictor's mean on the
  unlabelled items, corrected by the mean error measured on the labelled ones: the rectifier);
- standard error ``se^2 = lambda^2 var(Yhat~) / N + var(Y - lambda Yhat) / n``, with population
  variances (divisor n, N), and the normal-approximation interval ``theta +- z_{1-alpha/2} se``.

``lambda = 1`` is classic PPI (Angelopoulos, Bates, Fannjiang, Jordan, Zrnic, "Prediction-powered
inference", Science 2023); ``lambda = 0`` is the human-only (classical) interval
``mean(Y) +- z sd(Y) / sqrt(n)``. PPI++ (Angelopoulos, Duchi, Zrnic, "PPI++: Efficient
prediction-powered inference", 2023) tunes lambda to the plug-in minimiser of the variance,
``lambda = cov(Y, Yhat) / ((1 + n / N) var([Yhat, Yhat~]))``, with ``cov`` the population covariance
on the labelled items and ``var`` the sample variance (divisor n + N - 1) of all predictions,
then clipped to ``[0, 1]``: exactly what the reference package ``ppi-python`` (0.2.3, its
``ppi_mean_ci`` with ``lam=None``) computes. Because that lambda is only a plug-in estimate of
the minimiser, its interval can, on odd samples, come out wider than the human-only one; then
``tuned=True`` takes ``lambda = 0`` (the human-only interval), so PPI++ is never wider than the
human-only interval. When every prediction is the same, the predictor carries nothing and lambda
is 0.

The effective number of labels is ``n * se_human^2 / se_ppi^2``: how many human labels alone
would give an interval as narrow as the PPI one.

A difference of two runs on the same items (paired) is the mean of ``Y_a - Y_b`` predicted by
``Yhat_a - Yhat_b``: the same estimator on the differences (:func:`ppi_mean_difference`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import norm


@dataclass(frozen=True)
class PPIResult:
    """A PPI estimate of a mean beside the human-only one and the predictor's naive mean."""

    estimate: float
    low: float
    high: float
    lam: float  # the weight of the predictor (1 = classic PPI, 0 = human only)
    n: int  # labelled items
    n_unlabelled: int
    human: float  # mean of the labels
    human_low: float
    human_high: float
    naive: float  # mean of the predictor over every item, labelled or not
    alpha: float

    @property
    def width(self) -> float:
        return self.high - self.low

    @property
    def human_width(self) -> float:
        return self.human_high - self.human_low

    @property
    def effective_n(self) -> float:
        """``n * (human width / PPI width)^2`` (see the module docstring); ``inf`` for a zero-width PPI
        interval beside a wider human-only one, ``n`` when both are zero."""
        if self.width == 0:
            return float(self.n) if self.human_width == 0 else float("inf")
        return self.n * (self.human_width / self.width) ** 2

    def as_dict(self) -> dict:
        return {"estimate": self.estimate, "low": self.low, "high": self.high, "width": self.width, "lam": self.lam,
                "n": self.n, "n_unlabelled": self.n_unlabelled, "human": self.human, "human_low": self.human_low,
                "human_high": self.human_high, "human_width": self.human_width, "naive": self.naive,
                "effective_n": self.effective_n, "alpha": self.alpha}


def _arrays(y, yhat_labelled, yhat_unlabelled) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y, yl, yu = (np.asarray(v, dtype=float).ravel() for v in (y, yhat_labelled, yhat_unlabelled))
    if y.shape != yl.shape:
        raise ValueError(f"y has {y.size} values but yhat_labelled has {yl.size}: one prediction per label")
    if y.size < 2:
        raise ValueError(f"PPI needs at least 2 labelled items, got {y.size}")
    if yu.size < 1:
        raise ValueError("PPI needs at least 1 unlabelled item")
    if not (np.isfinite(y).all() and np.isfinite(yl).all() and np.isfinite(yu).all()):
        raise ValueError("y and the predictions must be finite (drop the items without a value first)")
    return y, yl, yu


def tuned_lambda(y, yhat_labelled, yhat_unlabelled) -> float:
    """PPI++'s power-tuning weight ``cov(Y, Yhat) / ((1 + n/N) var(all Yhat))`` clipped to [0, 1]
    (module docstring); 0 when every prediction is the same."""
    y, yl, yu = _arrays(y, yhat_labelled, yhat_unlabelled)
    n, big_n = y.size, yu.size
    var_all = float(np.var(np.concatenate([yl, yu]), ddof=1))
    if var_all == 0:
        return 0.0
    cov = float(np.mean((y - y.mean()) * (yl - yl.mean())))
    return float(np.clip(cov / ((1 + n / big_n) * var_all), 0.0, 1.0))


def _interval(y: np.ndarray, yl: np.ndarray, yu: np.ndarray, lam: float, z: float) -> tuple[float, float]:
    estimate = lam * yu.mean() + (y - lam * yl).mean()
    se = np.sqrt(np.var(lam * yu) / yu.size + np.var(y - lam * yl) / y.size)
    return float(estimate), float(z * se)


def ppi_mean(y, yhat_labelled, yhat_unlabelled, *, alpha: float = 0.05, tuned: bool = True) -> PPIResult:
    """The PPI (``tuned=False``) or PPI++ (``tuned=True``) estimate of the mean of ``y`` with its
    ``1 - alpha`` interval, beside the human-only interval (formulas in the module docstring).

    >>> r = ppi_mean([1, 0, 1, 1], [1, 0, 1, 0], [1, 1, 0, 1, 1, 0], tuned=False)
    >>> round(r.estimate, 4), r.lam
    (0.9167, 1.0)
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha={alpha} must be between 0 and 1")
    y, yl, yu = _arrays(y, yhat_labelled, yhat_unlabelled)
    z = float(norm.isf(alpha / 2))
    human, human_half = _interval(y, yl, yu, 0.0, z)
    lam = tuned_lambda(y, yl, yu) if tuned else 1.0
    estimate, half = _interval(y, yl, yu, lam, z)
    if tuned and half > human_half:
        lam, estimate, half = 0.0, human, human_half
    naive = float(np.concatenate([yl, yu]).mean())
    return PPIResult(estimate, estimate - half, estimate + half, lam, int(y.size), int(yu.size), human,
                     human - human_half, human + human_half, naive, alpha)


def ppi_mean_ci(y, yhat_labelled, yhat_unlabelled, alpha: float = 0.05, tuned: bool = True
                ) -> tuple[float, float, float]:
    """``(estimate, low, high)`` of :func:`ppi_mean`."""
    r = ppi_mean(y, yhat_labelled, yhat_unlabelled, alpha=alpha, tuned=tuned)
    return r.estimate, r.low, r.high


def ppi_mean_difference(y_a, y_b, yhat_a_labelled, yhat_b_labelled, yhat_a_unlabelled, yhat_b_unlabelled, *,
                        alpha: float = 0.05, tuned: bool = True) -> PPIResult:
    """PPI for ``mean(Y_a - Y_b)`` over paired items (two runs' answers to the same questions):
    labelled items have both runs' human values and predictions, unlabelled ones both predictions."""
    def diff(a, b):
        a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
        if a.shape != b.shape:
            raise ValueError(f"paired values differ in length: {a.size} and {b.size}")
        return a - b

    return ppi_mean(diff(y_a, y_b), diff(yhat_a_labelled, yhat_b_labelled),
                    diff(yhat_a_unlabelled, yhat_b_unlabelled), alpha=alpha, tuned=tuned)


def labels_for_width(sd: float, width: float, *, alpha: float = 0.05) -> int:
    """Human labels a human-only interval of ``width`` needs: ``ceil((2 z sd / width)^2)``, with ``sd``
    the labels' standard deviation (a guess, or measured on a pilot).

    >>> labels_for_width(0.5, 0.1)
    385
    """
    if width <= 0:
        raise ValueError(f"width={width} must be positive")
    z = float(norm.isf(alpha / 2))
    return int(np.ceil((2 * z * sd / width) ** 2))
