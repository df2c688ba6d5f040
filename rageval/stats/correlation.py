"""Correlations between two score vectors, and between every pair of columns of a matrix.

Definitions (``x``, ``y`` after pairwise removal of missing values, ``n`` pairs):

- Pearson ``r = sum((x - mean x)(y - mean y)) / sqrt(sum (x - mean x)^2 * sum (y - mean y)^2)``;
  p from ``t = r sqrt((n - 2) / (1 - r^2))`` with ``n - 2`` degrees of freedom (as ``scipy.stats.pearsonr``
  for the two-sided test).
- Spearman ``rho`` = Pearson ``r`` of the average ranks (ties share their mean rank); p from the same
  t statistic (as ``scipy.stats.spearmanr``).
- Kendall ``tau_b = (C - D) / sqrt((n0 - n1)(n0 - n2))`` (ties in either vector), p as
  ``scipy.stats.kendalltau`` (computed by it).

Confidence intervals: a seeded percentile bootstrap over items (the pair of values resampled
together, ranks recomputed in each resample) when ``n * n_boot`` is at most ``BOOT_BUDGET``;
above that, or with ``n_boot=0``, the Fisher z interval ``tanh(atanh(r) +- z se)`` with
``se = 1/sqrt(n-3)`` (Pearson), ``sqrt((1 + rho^2/2)/(n-3))`` (Spearman, Bonett & Wright 2000) or
``sqrt(0.437/(n-4))`` (Kendall, Fieller et al. 1957). ``ci_method`` says which one was used: on
100,000 items the two agree to the third decimal, and the bootstrap would cost minutes.

Undefined cases are explicit: fewer than 3 pairs, or a constant vector, give ``rho=None`` with
a ``reason`` (``too_few_pairs``, ``constant_input``), never a silent NaN.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy import stats as ss

METHODS = ("spearman", "kendall", "pearson")
BOOT_BUDGET = 20_000_000  # n * n_boot above which the Fisher z interval replaces the bootstrap


@dataclass(frozen=True)
class Correlation:
    """One correlation with its two-sided p-value, number of pairs and 95% (or other) CI."""

    rho: float | None
    p: float | None
    n: int
    ci_low: float | None = None
    ci_high: float | None = None
    method: str = "spearman"
    ci_method: str | None = None
    reason: str | None = None

    def as_dict(self) -> dict:
        return {"rho": self.rho, "p": self.p, "n": self.n, "ci_low": self.ci_low, "ci_high": self.ci_high,
                "method": self.method, "ci_method": self.ci_method, "reason": self.reason}


def _check_method(method: str) -> None:
    if method not in METHODS:
        raise ValueError(f"method={method!r} must be one of {', '.join(METHODS)}")


def _as_float(x: Sequence[float] | np.ndarray) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in x], dtype=float) if not isinstance(x, np.ndarray) \
        else x.astype(float)


def rank(values: np.ndarray, axis: int = 0) -> np.ndarray:
    """Average ranks (1-based, ties share their mean rank) along ``axis``."""
    return ss.rankdata(values, axis=axis, method="average")


def _pearson_cols(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson r of matching columns (or of the last axis' rows) of ``a`` and ``b`` along axis -2."""
    a = a - a.mean(axis=-2, keepdims=True)
    b = b - b.mean(axis=-2, keepdims=True)
    num = (a * b).sum(axis=-2)
    den = np.sqrt((a * a).sum(axis=-2) * (b * b).sum(axis=-2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.clip(num / den, -1.0, 1.0)


def _t_p(r: np.ndarray | float, n: int) -> np.ndarray:
    """Two-sided p of the t test of a correlation (scipy's pearsonr / spearmanr)."""
    r = np.asarray(r, dtype=float)
    if n <= 2:
        return np.full(r.shape, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = r * np.sqrt((n - 2) / np.maximum(1e-300, (1.0 - r) * (1.0 + r)))
    return np.where(np.abs(r) >= 1.0, 0.0, 2.0 * ss.t.sf(np.abs(t), n - 2))


def fisher_ci(r: float, n: int, method: str, confidence: float = 0.95) -> tuple[float | None, float | None]:
    """Fisher z interval for a correlation (see the module docstring for the standard errors)."""
    dof = n - 4 if method == "kendall" else n - 3
    if dof <= 0 or r is None:
        return None, None
    se = {"pearson": 1.0, "spearman": np.sqrt(1.0 + r * r / 2.0), "kendall": np.sqrt(0.437)}[method] / np.sqrt(dof)
    z = np.arctanh(np.clip(r, -0.999999999, 0.999999999))
    q = ss.norm.ppf(0.5 + confidence / 2.0)
    return float(np.tanh(z - q * se)), float(np.tanh(z + q * se))


def _boot_corr(x: np.ndarray, y: np.ndarray, method: str, idx: np.ndarray) -> np.ndarray:
    """Correlation in each bootstrap resample (rows of ``idx``); NaN where a resample is constant."""
    bx, by = x[idx], y[idx]  # (B, n)
    if method == "kendall":
        return np.array([ss.kendalltau(a, b).statistic for a, b in zip(bx, by)])
    if method == "spearman":
        bx, by = rank(bx, axis=1), rank(by, axis=1)
    return _pearson_cols(bx[..., None], by[..., None])[..., 0]


def _percentile_ci(boot: np.ndarray, confidence: float) -> tuple[float | None, float | None]:
    boot = boot[np.isfinite(boot)]
    if boot.size == 0:
        return None, None
    lo, hi = np.quantile(boot, [0.5 - confidence / 2.0, 0.5 + confidence / 2.0])
    return float(lo), float(hi)


def _point(x: np.ndarray, y: np.ndarray, method: str) -> tuple[float, float]:
    if method == "kendall":
        res = ss.kendalltau(x, y)
        return float(res.statistic), float(res.pvalue)
    if method == "spearman":
        x, y = rank(x), rank(y)
    r = float(_pearson_cols(x[:, None], y[:, None])[0])
    return r, float(_t_p(r, len(x)))


def correlate(x, y, *, method: str = "spearman", n_boot: int = 1000, seed: int = 0,
              confidence: float = 0.95, boot_budget: int = BOOT_BUDGET) -> Correlation:
    """Correlation of ``x`` and ``y`` (None / NaN excluded pairwise) with p, n and a CI.

    >>> c = correlate([1, 2, 3, 4, 5], [2, 1, 4, 3, 5], n_boot=0)
    >>> round(c.rho, 3), c.n, round(c.p, 3)
    (0.8, 5, 0.104)
    """
    _check_method(method)
    x, y = _as_float(x), _as_float(y)
    if x.shape != y.shape:
        raise ValueError(f"x has {x.size} values and y has {y.size}: they must be paired")
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    n = int(x.size)
    if n < 3:
        return Correlation(None, None, n, method=method, reason="too_few_pairs")
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return Correlation(None, None, n, method=method, reason="constant_input")
    r, p = _point(x, y, method)
    if n_boot and n * n_boot <= boot_budget:
        idx = np.random.default_rng(seed).integers(0, n, size=(n_boot, n))
        lo, hi = _percentile_ci(_boot_corr(x, y, method, idx), confidence)
        ci_method = "bootstrap"
    else:
        lo, hi = fisher_ci(r, n, method, confidence)
        ci_method = "fisher_z"
    return Correlation(r, p, n, lo, hi, method=method, ci_method=ci_method)


def spearman(x, y, *, method: str = "spearman", n_boot: int = 1000, seed: int = 0,
             confidence: float = 0.95) -> Correlation:
    """Spearman's rho (or ``method="kendall"`` / ``"pearson"``): see :func:`correlate`."""
    return correlate(x, y, method=method, n_boot=n_boot, seed=seed, confidence=confidence)


def correlation_diff(metric_a, metric_b, human, *, method: str = "spearman", n_boot: int = 1000,
                     seed: int = 0, confidence: float = 0.95) -> dict:
    """Does metric A agree with humans better than metric B? Paired bootstrap over items.

    ``diff = corr(A, human) - corr(B, human)`` on the items where all three are present; each
    resample draws items with replacement and recomputes both correlations on the same items.
    ``p = min(1, 2 min(P*(diff* <= 0), P*(diff* >= 0)))`` (two-sided, share of resamples crossing 0).
    """
    _check_method(method)
    a, b, h = _as_float(metric_a), _as_float(metric_b), _as_float(human)
    ok = np.isfinite(a) & np.isfinite(b) & np.isfinite(h)
    a, b, h = a[ok], b[ok], h[ok]
    n = int(a.size)
    ra, rb = correlate(a, h, method=method, n_boot=0), correlate(b, h, method=method, n_boot=0)
    if ra.rho is None or rb.rho is None:
        return {"diff": None, "p": None, "n": n, "ci_low": None, "ci_high": None,
                "rho_a": ra.rho, "rho_b": rb.rho, "reason": ra.reason or rb.reason}
    idx = np.random.default_rng(seed).integers(0, n, size=(n_boot, n))
    diffs = _boot_corr(a, h, method, idx) - _boot_corr(b, h, method, idx)
    diffs = diffs[np.isfinite(diffs)]
    lo, hi = _percentile_ci(diffs, confidence)
    p = min(1.0, 2.0 * min(float(np.mean(diffs <= 0)), float(np.mean(diffs >= 0)))) if diffs.size else None
    return {"diff": ra.rho - rb.rho, "p": p, "n": n, "ci_low": lo, "ci_high": hi,
            "rho_a": ra.rho, "rho_b": rb.rho, "reason": None}
