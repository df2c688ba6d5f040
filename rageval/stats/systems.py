"""Comparing systems (runs) scored on the same items: Friedman, post-hoc tests, ranks, two-run tests.

``scores`` is items x systems (a DataFrame whose columns name the systems, or a 2-D array with
``names``). Items with a missing value for any system are dropped (complete blocks, as
scikit-posthocs does); ``n`` is the number of items kept. Ranks are within each item, 1 = the
lowest score, ties share their mean rank (so a *high* mean rank is a high score).

- Friedman: ``chi2 = [12 / (n k (k+1)) sum_j R_j^2 - 3 n (k+1)] / c`` with ``R_j`` the rank sum of
  system j and tie correction ``c = 1 - sum(t^3 - t) / (n k (k^2 - 1))``; p from chi2 with k-1 df
  (``scipy.stats.friedmanchisquare``).
- Nemenyi: ``q = |Rbar_i - Rbar_j| / sqrt(k (k+1) / (6 n))``; p = studentized range survival of
  ``q sqrt 2`` with k groups and infinite df (``posthoc_nemenyi_friedman``).
- Conover: ``t = |R_i - R_j| / sqrt(A B)``, ``S2 = (sum r^2 - n k (k+1)^2 / 4) / (k-1)``,
  ``T2 = sum_j (R_j - n (k+1)/2)^2 / S2``, ``A = 2 n (k-1) S2 / df``, ``B = 1 - T2 / (n (k-1))``,
  ``df = (n-1)(k-1)``; p two-sided from t, then Holm-adjusted (``posthoc_conover_friedman``).
- Critical difference (Demsar 2006): ``CD = q_alpha sqrt(k (k+1) / (6 n))`` with ``q_alpha`` the
  studentized range quantile at ``1 - alpha`` divided by sqrt 2.
- First-rank share: per item, the systems tied for the best score share one point; the share is
  the mean over items (AlignCheck's Table 2).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd
from scipy import stats as ss

from rageval.stats.correlation import rank


@dataclass(frozen=True)
class TestResult:
    """A test statistic with its p-value and the number of items it used."""

    statistic: float | None
    p: float | None
    n: int
    reason: str | None = None


def _frame(scores, names: Sequence[str] | None = None) -> pd.DataFrame:
    if isinstance(scores, pd.DataFrame):
        df = scores.astype(float)
    else:
        arr = np.asarray(scores, dtype=float)
        df = pd.DataFrame(arr, columns=list(names) if names is not None else [f"s{i}" for i in range(arr.shape[1])])
    return df.dropna(axis=0, how="any")


def mean_ranks(scores, names: Sequence[str] | None = None) -> pd.Series:
    """Mean within-item rank of each system (1 = lowest score)."""
    df = _frame(scores, names)
    return pd.Series(rank(df.to_numpy(), axis=1).mean(axis=0), index=df.columns, name="mean_rank")


def friedman(scores, names: Sequence[str] | None = None) -> TestResult:
    """Friedman's chi-square test that the systems' scores come from one distribution."""
    df = _frame(scores, names)
    n, k = df.shape
    if k < 2 or n < 2:
        return TestResult(None, None, n, "too_few_items_or_systems")
    r = rank(df.to_numpy(), axis=1)
    ties = float(_tie_sum(r))
    c = 1.0 - ties / (n * k * (k * k - 1))
    if c <= 0:
        return TestResult(None, None, n, "all_tied")
    sums = r.sum(axis=0)
    chi2 = (12.0 / (n * k * (k + 1)) * float((sums ** 2).sum()) - 3.0 * n * (k + 1)) / c
    return TestResult(chi2, float(ss.chi2.sf(chi2, k - 1)), n)


def _tie_sum(r: np.ndarray) -> int:
    """``sum over rows and tie groups of t^3 - t`` (t: the size of a group of equal values in a row),
    for all rows at once: the runs of equal values in each sorted row, which never cross rows."""
    s = np.sort(r, axis=1)
    starts = np.ones(s.shape, dtype=bool)
    starts[:, 1:] = s[:, 1:] != s[:, :-1]
    first = np.flatnonzero(starts.ravel())
    t = np.diff(np.append(first, s.size)).astype(np.int64)
    return int((t ** 3 - t).sum())


def holm(p: Sequence[float]) -> np.ndarray:
    """Holm step-down adjustment: ``p_(i) * (m - i + 1)``, made monotone, capped at 1."""
    p = np.asarray(p, dtype=float)
    order = np.argsort(p)
    m = p.size
    adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adj
    return out


def _square(names, upper: np.ndarray) -> pd.DataFrame:
    k = len(names)
    vs = np.ones((k, k))
    iu = np.triu_indices(k, 1)
    vs[iu] = upper
    vs[(iu[1], iu[0])] = upper
    return pd.DataFrame(vs, index=list(names), columns=list(names))


def nemenyi(scores, names: Sequence[str] | None = None) -> pd.DataFrame:
    """Nemenyi post-hoc p-values after Friedman (square DataFrame indexed by system)."""
    df = _frame(scores, names)
    n, k = df.shape
    mr = rank(df.to_numpy(), axis=1).mean(axis=0)
    iu = np.triu_indices(k, 1)
    q = np.abs(mr[iu[0]] - mr[iu[1]]) / np.sqrt(k * (k + 1.0) / (6.0 * n))
    return _square(df.columns, ss.studentized_range.sf(q * np.sqrt(2.0), k, np.inf))


def conover(scores, names: Sequence[str] | None = None, *, p_adjust: str | None = "holm") -> pd.DataFrame:
    """Conover post-hoc p-values after Friedman, Holm-adjusted by default (``p_adjust=None``: raw)."""
    if p_adjust not in (None, "holm"):
        raise ValueError(f"p_adjust={p_adjust!r} must be 'holm' or None")
    df = _frame(scores, names)
    n, k = df.shape
    r = rank(df.to_numpy(), axis=1)
    sums = r.sum(axis=0)
    s2 = (float((r ** 2).sum()) - k * n * (k + 1.0) ** 2 / 4.0) / (k - 1.0)
    if s2 <= 1e-12:  # every item ties every system: no pair differs
        return _square(df.columns, np.ones(k * (k - 1) // 2))
    t2 = float(((sums - n * (k + 1.0) / 2.0) ** 2).sum()) / s2
    dof = n * k - k - n + 1.0
    a = s2 * 2.0 * n * (k - 1.0) / dof
    b = 1.0 - t2 / (n * (k - 1.0))
    iu = np.triu_indices(k, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(sums[iu[0]] - sums[iu[1]]) / np.sqrt(a) / np.sqrt(b)
    p = 2.0 * ss.t.sf(t, dof)
    return _square(df.columns, holm(p) if p_adjust == "holm" else p)


def critical_difference(k: int, n: int, alpha: float = 0.05) -> float:
    """Nemenyi critical difference of mean ranks for ``k`` systems on ``n`` items."""
    q = _studentized_range_quantile(1.0 - alpha, k) / np.sqrt(2.0)
    return float(q * np.sqrt(k * (k + 1.0) / (6.0 * n)))


@functools.lru_cache(maxsize=64)
def _studentized_range_quantile(level: float, k: int) -> float:
    """scipy's studentized-range quantile at infinite degrees of freedom, kept per ``(level, k)``: it is
    found by root-finding over numerical integrals, about 0.1 CPU-s a call, and every comparison of
    ``k`` runs asks for the same one (Compare's first render of each metric)."""
    return ss.studentized_range.ppf(level, k, np.inf)


def first_rank_share(scores, names: Sequence[str] | None = None, *, higher_is_better: bool = True) -> pd.Series:
    """Share of items on which each system is best; systems tied for best split the item."""
    df = _frame(scores, names)
    arr = df.to_numpy() if higher_is_better else -df.to_numpy()
    best = arr == arr.max(axis=1, keepdims=True)
    share = (best / best.sum(axis=1, keepdims=True)).mean(axis=0) if len(arr) else np.zeros(df.shape[1])
    return pd.Series(share, index=df.columns, name="first_rank_share")


def wilcoxon(a, b) -> TestResult:
    """Wilcoxon signed-rank test of paired scores (pairs with a missing value dropped; scipy's default
    ``zero_method='wilcox'`` drops zero differences)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ok = np.isfinite(a) & np.isfinite(b)
    a, b = a[ok], b[ok]
    if not np.any(a != b):
        return TestResult(None, None, int(a.size), "no_differences")
    res = ss.wilcoxon(a, b)
    return TestResult(float(res.statistic), float(res.pvalue), int(a.size))


@dataclass(frozen=True)
class Difference:
    """Mean paired difference ``mean(a - b)`` with a seeded percentile bootstrap CI."""

    diff: float | None
    ci_low: float | None
    ci_high: float | None
    n: int


#: resamples averaged at once: the gathered values of 64 resamples of 5,000 items (2.5 MB) stay in
#: cache, where all 2,000 at once made an 80 MB array (each row's mean is the same either way)
_BOOT_BLOCK = 64
#: the most resample indices drawn in one call (64 MB of int32): up to it the draws are one
#: (n_boot, n) array, as they always were; past it (more than 8,388 items at 2,000 resamples) they
#: are drawn a block of rows at a time, so memory stays at about 2**24 x 12 bytes whatever n is
_BOOT_DRAWN = 1 << 24


def paired_bootstrap(a, b, *, n_boot: int = 2000, seed: int = 0, confidence: float = 0.95) -> Difference:
    """Bootstrap CI of the mean difference of two systems on the same items (items resampled).

    ``d = a - b`` over the pairs where both are finite; ``n_boot`` resamples of ``n`` indices drawn
    uniformly with replacement (``numpy.random.default_rng(seed)``); the CI is the percentile
    interval of the resamples' means. Up to ``n_boot * n = 2**24`` the indices are one draw of
    shape ``(n_boot, n)``; larger inputs draw them a block of rows at a time (another stream of the
    same seed: seeded and repeatable, a different sample of resamples), so a million pairs need
    tens of MB instead of 8 GB.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ok = np.isfinite(a) & np.isfinite(b)
    d = a[ok] - b[ok]
    n = int(d.size)
    if n == 0:
        return Difference(None, None, None, 0)
    rng = np.random.default_rng(seed)
    # int32 indices are the same draws as int64 ones (one 32-bit stream for any range below 2**32)
    dtype = np.int32 if n < 2**31 else np.int64
    means = np.empty(n_boot)
    if n_boot * n <= _BOOT_DRAWN:
        idx = rng.integers(0, n, size=(n_boot, n), dtype=dtype)
        for lo in range(0, n_boot, _BOOT_BLOCK):
            means[lo:lo + _BOOT_BLOCK] = d[idx[lo:lo + _BOOT_BLOCK]].mean(axis=1)
    else:
        rows = max(1, min(_BOOT_BLOCK, _BOOT_DRAWN // (4 * n)))  # a block's indices and values: ~12 x 4M bytes at most
        for lo in range(0, n_boot, rows):
            block = rng.integers(0, n, size=(min(rows, n_boot - lo), n), dtype=dtype)
            means[lo:lo + len(block)] = d[block].mean(axis=1)
    lo, hi = np.quantile(means, [0.5 - confidence / 2.0, 0.5 + confidence / 2.0])
    return Difference(float(d.mean()), float(lo), float(hi), n)
