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

**Few labels.** With fewer than :data:`SMALL_SAMPLE` labelled items the normal approximation
covers less than its nominal level (on NQ301, 0.92-0.93 at n = 30 for 95%). Below that threshold both
variances take the divisor ``n - 1`` (``N - 1``) and the quantile is Student t's with the
Welch-Satterthwaite effective degrees of freedom of the two-part variance,
``df = (a + b)^2 / (a^2 / (N - 1) + b^2 / (n - 1))``, ``a = lambda^2 var(Yhat~) / N``,
``b = var(Y - lambda Yhat) / n`` (``n - 1`` when both are 0); the human-only interval is then the
Student t interval ``mean(Y) +- t_{n-1} sd(Y) / sqrt(n)``. From ``SMALL_SAMPLE`` labels on, the
intervals are ppi-python's exactly. The threshold was chosen by simulation on real human labels
(validation/validate_ppi.py, docs/validation.md): from 100 labels the normal intervals covered
0.940-0.958 on NQ301 and EVOUNA, while at 30-75 labels they fell to 0.919-0.949 and Student t
lifted them by about 0.01.

**Shares** (labels 0/1: a share of claims a person calls SUPPORTED) use :func:`ppi_share`: the
human-only interval is Wilson's score interval, which stays in [0, 1] and has width when every
label agrees; the PPI interval is clipped to [0, 1] (the share cannot leave it, so clipping never
uncovers it), and where the labelled items show no disagreement between label and prediction (the
rectifier's variance is 0) or PPI is wider, Wilson's interval is the one given.

The effective number of labels is ``n * se_human^2 / se_ppi^2``: how many human labels alone
would give an interval as narrow as the PPI one.

A difference of two runs on the same items (paired) is the mean of ``Y_a - Y_b`` predicted by
``Yhat_a - Yhat_b``: the same estimator on the differences (:func:`ppi_mean_difference`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.stats import norm
from scipy.stats import t as student_t

#: below this many labelled items the intervals use Student t quantiles (module docstring)
SMALL_SAMPLE = 100


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
    # how the interval was made: "normal", "Student t, df 23.4", "... clipped to [0, 1]", "Wilson"
    method: str = "normal"
    df: float | None = None  # the t quantile's degrees of freedom (None: normal quantile)

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
                "effective_n": self.effective_n, "alpha": self.alpha, "method": self.method, "df": self.df}


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


def _interval(y: np.ndarray, yl: np.ndarray, yu: np.ndarray, lam: float, alpha: float, small: bool
              ) -> tuple[float, float, float | None]:
    """``(estimate, half width, df)``: the normal quantile and population variances, or with ``small``
    the sample variances and Student t with the effective df (module docstring; df None when normal)."""
    estimate = lam * yu.mean() + (y - lam * yl).mean()
    ddof = 1 if small else 0
    a = np.var(lam * yu, ddof=ddof if yu.size > 1 else 0) / yu.size
    b = np.var(y - lam * yl, ddof=ddof) / y.size
    if not small:
        return float(estimate), float(norm.isf(alpha / 2) * np.sqrt(a + b)), None
    parts = (a * a / (yu.size - 1) if yu.size > 1 else 0.0) + b * b / (y.size - 1)
    df = float((a + b) ** 2 / parts) if parts > 0 else float(y.size - 1)
    return float(estimate), float(student_t.isf(alpha / 2, df) * np.sqrt(a + b)), df


def ppi_mean(y, yhat_labelled, yhat_unlabelled, *, alpha: float = 0.05, tuned: bool = True,
             small_sample: int = SMALL_SAMPLE) -> PPIResult:
    """The PPI (``tuned=False``) or PPI++ (``tuned=True``) estimate of the mean of ``y`` with its
    ``1 - alpha`` interval, beside the human-only interval (formulas in the module docstring);
    Student t below ``small_sample`` labelled items (``0``: never, ppi-python's normal intervals).

    >>> r = ppi_mean([1, 0, 1, 1], [1, 0, 1, 0], [1, 1, 0, 1, 1, 0], tuned=False)
    >>> round(r.estimate, 4), r.lam, r.method
    (0.9167, 1.0, 'Student t, df 6.7')
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha={alpha} must be between 0 and 1")
    y, yl, yu = _arrays(y, yhat_labelled, yhat_unlabelled)
    small = y.size < small_sample
    human, human_half, human_df = _interval(y, yl, yu, 0.0, alpha, small)
    lam = tuned_lambda(y, yl, yu) if tuned else 1.0
    estimate, half, df = _interval(y, yl, yu, lam, alpha, small)
    if tuned and half > human_half:
        lam, estimate, half, df = 0.0, human, human_half, human_df
    naive = float(np.concatenate([yl, yu]).mean())
    method = "normal" if df is None else f"Student t, df {df:.1f}"
    return PPIResult(estimate, estimate - half, estimate + half, lam, int(y.size), int(yu.size), human,
                     human - human_half, human + human_half, naive, alpha, method, df)


def wilson(successes: int, n: int, *, alpha: float = 0.05) -> tuple[float, float]:
    """Wilson's score interval of a share: ``(c - h, c + h)`` with ``c = (p + z^2 / 2n) / (1 + z^2 / n)``,
    ``h = z / (1 + z^2 / n) sqrt(p (1 - p) / n + z^2 / 4n^2)``, ``p = successes / n``; inside [0, 1],
    with width even when every label agrees.

    >>> [round(v, 3) for v in wilson(20, 20)]
    [0.839, 1.0]
    """
    z = float(norm.isf(alpha / 2))
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    low, high = max(centre - half, 0.0), min(centre + half, 1.0)
    return (0.0 if successes == 0 else float(low)), (1.0 if successes == n else float(high))


def ppi_share(y, yhat_labelled, yhat_unlabelled, *, alpha: float = 0.05, tuned: bool = True,
              small_sample: int = SMALL_SAMPLE) -> PPIResult:
    """A share (labels 0/1) by :func:`ppi_mean`, kept in [0, 1]: the human-only interval is Wilson's,
    the PPI interval is clipped to [0, 1]; Wilson's is given instead where the labelled items show no
    disagreement between label and prediction (the rectifier's variance is 0, so the PPI interval
    would have no width), and with ``tuned`` where it is narrower or PPI++ chose lambda 0 (with
    classic PPI the caller decides, see :mod:`rageval.human.estimates`).

    >>> r = ppi_share([1] * 20, [1] * 20, [1] * 50 + [0] * 5)
    >>> r.method, round(r.low, 3), r.high
    ('Wilson (no disagreement among the labelled items)', 0.839, 1.0)
    """
    r = ppi_mean(y, yhat_labelled, yhat_unlabelled, alpha=alpha, tuned=tuned, small_sample=small_sample)
    y, yl, _ = _arrays(y, yhat_labelled, yhat_unlabelled)
    if not np.isin(y, (0.0, 1.0)).all():
        raise ValueError("a share's labels must be 0 or 1")
    low, high = wilson(int(y.sum()), int(y.size), alpha=alpha)
    human = dict(human_low=low, human_high=high)
    calm = r.lam > 0 and np.ptp(y - r.lam * yl) == 0
    if r.lam == 0 and tuned or calm or (tuned and min(r.high, 1.0) - max(r.low, 0.0) > high - low):
        why = (" (no disagreement among the labelled items)" if calm or np.ptp(y) == 0 and np.array_equal(y, yl)
               else " (human only: the predictor does not narrow it)")
        return replace(r, estimate=r.human, low=low, high=high, lam=0.0, df=None, method="Wilson" + why, **human)
    clipped = r.low < 0 or r.high > 1
    return replace(r, estimate=min(max(r.estimate, 0.0), 1.0), low=max(r.low, 0.0), high=min(r.high, 1.0),
                   method=r.method + (", clipped to [0, 1]" if clipped else ""), **human)


def ppi_mean_ci(y, yhat_labelled, yhat_unlabelled, alpha: float = 0.05, tuned: bool = True
                ) -> tuple[float, float, float]:
    """``(estimate, low, high)`` of :func:`ppi_mean`."""
    r = ppi_mean(y, yhat_labelled, yhat_unlabelled, alpha=alpha, tuned=tuned)
    return r.estimate, r.low, r.high


def ppi_mean_difference(y_a, y_b, yhat_a_labelled, yhat_b_labelled, yhat_a_unlabelled, yhat_b_unlabelled, *,
                        alpha: float = 0.05, tuned: bool = True, small_sample: int = SMALL_SAMPLE) -> PPIResult:
    """PPI for ``mean(Y_a - Y_b)`` over paired items (two runs' answers to the same questions):
    labelled items have both runs' human values and predictions, unlabelled ones both predictions."""
    def diff(a, b):
        a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
        if a.shape != b.shape:
            raise ValueError(f"paired values differ in length: {a.size} and {b.size}")
        return a - b

    return ppi_mean(diff(y_a, y_b), diff(yhat_a_labelled, yhat_b_labelled),
                    diff(yhat_a_unlabelled, yhat_b_unlabelled), alpha=alpha, tuned=tuned, small_sample=small_sample)


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
