"""Agreement between annotators: Krippendorff's alpha, weighted Cohen's kappa, agreement shares.

``ratings`` is annotators x items (2-D array or DataFrame), NaN where an annotator did not rate.

- Krippendorff's alpha ``= 1 - (n - 1) sum_ck o_ck d_ck / sum_ck n_c n_k d_ck``, with the
  coincidence matrix ``o_ck = sum_u (pairs of values c, k from different annotators on item u) /
  (m_u - 1)`` over items with ``m_u >= 2`` ratings, ``n_c = sum_k o_ck``, ``n = sum_c n_c`` and the
  distance ``d_ck``: nominal ``[c != k]``; ordinal ``(sum_{g=c..k} n_g - (n_c + n_k)/2)^2``;
  interval ``(c - k)^2``; ratio ``((c - k) / (c + k))^2`` (Krippendorff 2011, as the
  ``krippendorff`` package with its default value domain: the values that occur).
- Weighted Cohen's kappa of two annotators ``= 1 - sum w_ij O_ij / sum w_ij E_ij``, with ``O`` the
  observed joint shares on the items both rated, ``E`` the product of their marginal shares and
  ``w_ij`` = ``|i - j|`` (linear), ``(i - j)^2`` (quadratic) or ``[i != j]`` (none) over the
  positions of the categories.
- Bootstrap CIs (:func:`kappa_ci`, :func:`alpha_ci`): percentile intervals over items resampled
  with replacement, seeded.
- Exact / within-one agreement: over every pair of annotators who rated the same item, the share
  of pairs giving the same rating / ratings at most 1 apart.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Sequence

import numpy as np
import pandas as pd

LEVELS = ("nominal", "ordinal", "interval", "ratio")


def _matrix(ratings) -> np.ndarray:
    arr = ratings.to_numpy(dtype=float) if isinstance(ratings, pd.DataFrame) else np.asarray(ratings, dtype=float)
    if arr.ndim != 2:
        raise ValueError("ratings must be 2-D: annotators x items")
    return arr


def _distance(values: np.ndarray, n_v: np.ndarray, level: str) -> np.ndarray:
    c, k = values[:, None], values[None, :]
    if level == "nominal":
        return (c != k).astype(float)
    if level == "interval":
        return (c - k) ** 2
    if level == "ratio":
        with np.errstate(invalid="ignore", divide="ignore"):
            d = ((c - k) / (c + k)) ** 2
        return np.nan_to_num(d)
    cum = np.concatenate([[0.0], np.cumsum(n_v)])
    i = np.arange(len(values))
    lo, hi = np.minimum(i[:, None], i[None, :]), np.maximum(i[:, None], i[None, :])
    between = cum[hi + 1] - cum[lo]
    return (between - (n_v[:, None] + n_v[None, :]) / 2.0) ** 2


def krippendorff_alpha(ratings, level: str = "ordinal", values: Sequence[float] | None = None) -> float | None:
    """Krippendorff's alpha of ``ratings`` (annotators x items, NaN missing); None if undefined
    (fewer than two pairable values, or no variation at all)."""
    if level not in LEVELS:
        raise ValueError(f"level={level!r} must be one of {', '.join(LEVELS)}")
    arr = _matrix(ratings)
    domain = np.unique(arr[np.isfinite(arr)]) if values is None else np.asarray(sorted(values), dtype=float)
    if domain.size == 0:
        return None
    index = {v: i for i, v in enumerate(domain)}
    v = domain.size
    counts = np.zeros((arr.shape[1], v))  # items x values
    for col in range(arr.shape[1]):
        for val in arr[np.isfinite(arr[:, col]), col]:
            counts[col, index[val]] += 1
    m_u = counts.sum(axis=1)
    keep = m_u >= 2
    counts, m_u = counts[keep], m_u[keep]
    if counts.size == 0:
        return None
    o = np.einsum("uc,uk->ck", counts / (m_u - 1)[:, None], counts)
    o -= np.diag((counts / (m_u - 1)[:, None]).sum(axis=0))  # pairs of a value with itself from one annotator
    n_v = o.sum(axis=0)
    n = n_v.sum()
    d = _distance(domain, n_v, level)
    expected = float((np.outer(n_v, n_v) * d).sum())
    if expected == 0:
        return None
    return float(1.0 - (n - 1.0) * float((o * d).sum()) / expected)


def cohen_kappa(a, b, *, weights: str | None = "linear", labels: Sequence[float] | None = None) -> float | None:
    """(Weighted) Cohen's kappa of two annotators on the items both rated (NaN = not rated)."""
    if weights not in (None, "linear", "quadratic"):
        raise ValueError(f"weights={weights!r} must be 'linear', 'quadratic' or None")
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ok = np.isfinite(a) & np.isfinite(b)
    a, b = a[ok], b[ok]
    if a.size == 0:
        return None
    cats = np.asarray(sorted(labels), dtype=float) if labels is not None else np.unique(np.concatenate([a, b]))
    pos = {c: i for i, c in enumerate(cats)}
    q = cats.size
    obs = np.zeros((q, q))
    for x, y in zip(a, b):
        obs[pos[x], pos[y]] += 1
    obs /= obs.sum()
    exp = np.outer(obs.sum(axis=1), obs.sum(axis=0))
    i = np.arange(q)
    diff = np.abs(i[:, None] - i[None, :]).astype(float)
    w = {None: (diff > 0).astype(float), "linear": diff, "quadratic": diff ** 2}[weights]
    denom = float((w * exp).sum())
    if denom == 0:
        return None
    return float(1.0 - (w * obs).sum() / denom)


def pairwise_kappa(ratings, names: Sequence[str] | None = None, *, weights: str | None = "linear",
                   labels: Sequence[float] | None = None) -> pd.DataFrame:
    """Weighted kappa of every pair of annotators (rows of ``ratings``) as a square DataFrame."""
    if isinstance(ratings, pd.DataFrame) and names is None:
        names = [str(i) for i in ratings.index]
    arr = _matrix(ratings)
    names = list(names) if names is not None else [f"a{i}" for i in range(arr.shape[0])]
    out = pd.DataFrame(np.eye(len(names)), index=names, columns=names)
    for i, j in combinations(range(arr.shape[0]), 2):
        k = cohen_kappa(arr[i], arr[j], weights=weights, labels=labels)
        out.iloc[i, j] = out.iloc[j, i] = np.nan if k is None else k
    return out


def agreement_shares(ratings) -> dict:
    """Exact and within-one agreement over all pairs of annotators rating the same item."""
    arr = _matrix(ratings)
    pairs = exact = within = 0
    for col in arr.T:
        vals = col[np.isfinite(col)]
        for x, y in combinations(vals, 2):
            pairs += 1
            exact += x == y
            within += abs(x - y) <= 1
    return {"pairs": pairs, "exact": exact / pairs if pairs else None, "within_one": within / pairs if pairs else None}


@dataclass(frozen=True)
class AgreementCI:
    """An agreement coefficient with its percentile bootstrap CI over the items (``n`` items used)."""

    value: float | None
    low: float | None
    high: float | None
    n: int
    n_boot: int

    def as_dict(self) -> dict:
        return {"value": self.value, "low": self.low, "high": self.high, "n": self.n, "n_boot": self.n_boot}


def _percentile(boot: np.ndarray, confidence: float) -> tuple[float | None, float | None]:
    boot = boot[np.isfinite(boot)]
    if boot.size == 0:
        return None, None
    lo, hi = np.percentile(boot, [50 * (1 - confidence), 50 * (1 + confidence)])
    return float(lo), float(hi)


def kappa_ci(a, b, *, labels: Sequence[float] | None = None, n_boot: int = 1000, seed: int = 0,
             confidence: float = 0.95) -> AgreementCI:
    """Unweighted (nominal) Cohen's kappa of two label sequences (NaN = not labelled) with a seeded
    percentile bootstrap CI: the items both labelled are resampled with replacement ``n_boot`` times
    (a resample where kappa is undefined, e.g. one category only, is left out)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ok = np.isfinite(a) & np.isfinite(b)
    a, b = a[ok], b[ok]
    value = cohen_kappa(a, b, weights=None, labels=labels)
    if a.size < 2 or not n_boot:
        return AgreementCI(value, None, None, int(a.size), 0)
    cats = np.asarray(sorted(labels), dtype=float) if labels is not None else np.unique(np.concatenate([a, b]))
    q = cats.size
    ia, ib = np.searchsorted(cats, a), np.searchsorted(cats, b)
    idx = np.random.default_rng(seed).integers(0, a.size, size=(n_boot, a.size))
    cell = ia[idx] * q + ib[idx]  # resample x item -> joint category
    counts = np.stack([np.bincount(row, minlength=q * q) for row in cell]).reshape(n_boot, q, q) / a.size
    p_o = np.trace(counts, axis1=1, axis2=2)
    p_e = np.einsum("ri,ri->r", counts.sum(axis=2), counts.sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = np.where(p_e < 1, (p_o - p_e) / (1 - p_e), np.nan)
    low, high = _percentile(boot, confidence)
    return AgreementCI(value, low, high, int(a.size), n_boot)


def alpha_ci(ratings, *, level: str = "nominal", n_boot: int = 1000, seed: int = 0,
             confidence: float = 0.95) -> AgreementCI:
    """Krippendorff's alpha of ``ratings`` (annotators x items) with a seeded percentile bootstrap CI
    over the items rated at least twice (resampled with replacement; undefined resamples left out)."""
    arr = _matrix(ratings)
    arr = arr[:, np.isfinite(arr).sum(axis=0) >= 2]
    value = krippendorff_alpha(arr, level=level) if arr.size else None
    domain = np.unique(arr[np.isfinite(arr)])
    if arr.shape[1] < 2 or not n_boot:
        return AgreementCI(value, None, None, int(arr.shape[1]), 0)
    rng = np.random.default_rng(seed)
    boot = np.array([np.nan if (v := krippendorff_alpha(arr[:, rng.integers(0, arr.shape[1], arr.shape[1])],
                                                        level=level, values=domain)) is None else v
                     for _ in range(n_boot)])
    low, high = _percentile(boot, confidence)
    return AgreementCI(value, low, high, int(arr.shape[1]), n_boot)


def kappa_labels_for_width(width: float, *, agreement: float = 0.8, chance: float = 0.5,
                           confidence: float = 0.95) -> int:
    """Items two labellers need for a kappa CI of ``width``, by Cohen's (1960) large-sample standard
    error ``se = sqrt(p_o (1 - p_o) / n) / (1 - p_e)``: ``n = ceil((2 z)^2 p_o (1 - p_o) / ((1 - p_e)^2
    width^2))``, with ``p_o`` the expected share of agreement and ``p_e`` the chance agreement.

    >>> kappa_labels_for_width(0.2, agreement=0.8, chance=0.5)
    246
    """
    from scipy.stats import norm

    if width <= 0 or not 0 <= chance < 1 or not 0 <= agreement <= 1:
        raise ValueError(f"width={width} must be positive, agreement in [0, 1], chance in [0, 1)")
    z = float(norm.isf((1 - confidence) / 2))
    return int(np.ceil((2 * z) ** 2 * agreement * (1 - agreement) / ((1 - chance) ** 2 * width ** 2)))
