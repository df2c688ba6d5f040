"""The correlation matrix of many score columns, vectorised.

Each cell is exactly :func:`rageval.stats.correlation.correlate` of its two columns (missing
values excluded pairwise, so each cell has its own ``n``). To stay fast on 100,000 items, the
columns are grouped by their pattern of missing values: inside a group every column is ranked
once and the whole block of correlations is one matrix product, with p-values from the t
statistic; only pairs whose missing values differ are recomputed pair by pair on their shared
items. The bootstrap CI of a block resamples items once for all its columns (a paired
bootstrap, so the cells of one resample are consistent with each other), in chunks that bound
memory; it is used when ``n * n_boot * columns <= MATRIX_BOOT_BUDGET`` and the Fisher z interval
is used above (``ci_method`` on each cell says which).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from rageval.stats.correlation import Correlation, _check_method, _t_p, correlate, fisher_ci, rank

MATRIX_BOOT_BUDGET = 10_000_000  # about 1 CPU-second of bootstrap ranks
_CHUNK_CELLS = 4_000_000  # values per bootstrap chunk (resamples x items x columns)


@dataclass(frozen=True)
class CorrelationMatrix:
    """``cells[(a, b)]`` is the :class:`Correlation` of columns ``a`` and ``b`` (both orders)."""

    names: tuple[str, ...]
    method: str
    cells: dict[tuple[str, str], Correlation] = field(repr=False)

    def get(self, a: str, b: str) -> Correlation:
        return self.cells[(a, b)]

    def values(self, attr: str = "rho") -> np.ndarray:
        """A square array of one attribute (``rho``, ``p``, ``n``, ``ci_low``, ``ci_high``); NaN if undefined."""
        out = np.full((len(self.names), len(self.names)), np.nan)
        for i, a in enumerate(self.names):
            for j, b in enumerate(self.names):
                v = getattr(self.cells[(a, b)], attr)
                out[i, j] = np.nan if v is None else v
        return out

    def long(self) -> list[dict]:
        """One row per ordered pair ``a != b``: metric_a, metric_b and the Correlation's fields."""
        return [{"metric_a": a, "metric_b": b, **self.cells[(a, b)].as_dict()}
                for a in self.names for b in self.names if a != b]


def _block(ranked: np.ndarray, method: str, n_boot: int, seed: int, confidence: float):
    """rho, p and CI arrays of the columns of one block (no missing values inside)."""
    n, g = ranked.shape
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.corrcoef(ranked, rowvar=False) if g > 1 else np.ones((1, 1))
    r = np.clip(np.atleast_2d(r), -1.0, 1.0)
    p = _t_p(r, n)
    lo = np.full((g, g), np.nan)
    hi = np.full((g, g), np.nan)
    boot = bool(n_boot) and n * n_boot * g <= MATRIX_BOOT_BUDGET and n >= 3
    if boot:
        idx = np.random.default_rng(seed).integers(0, n, size=(n_boot, n))
        step = max(1, _CHUNK_CELLS // max(1, n * g))
        boots = []
        for s in range(0, n_boot, step):
            sample = ranked[idx[s:s + step]]  # (b, n, g)
            if method == "spearman":
                sample = rank(sample, axis=1)
            c = sample - sample.mean(axis=1, keepdims=True)
            cov = np.einsum("bni,bnj->bij", c, c)
            sd = np.sqrt(np.einsum("bii->bi", cov))
            with np.errstate(invalid="ignore", divide="ignore"):
                boots.append(cov / sd[:, :, None] / sd[:, None, :])
        allb = np.concatenate(boots)
        with warnings.catch_warnings():  # a constant column's cells are all NaN; they are reported as undefined
            warnings.simplefilter("ignore", RuntimeWarning)
            qs = np.nanquantile(allb, [0.5 - confidence / 2.0, 0.5 + confidence / 2.0], axis=0)
        lo, hi = qs[0], qs[1]
    return r, p, lo, hi, ("bootstrap" if boot else "fisher_z")


def correlation_matrix(data, names: Sequence[str] | None = None, *, method: str = "spearman",
                       n_boot: int = 1000, seed: int = 0, confidence: float = 0.95) -> CorrelationMatrix:
    """Correlations between every pair of columns of ``data`` (items x columns; NaN = missing).

    ``data`` may be a 2-D array (then ``names`` names its columns) or a pandas DataFrame.
    """
    _check_method(method)
    if hasattr(data, "columns"):
        names = [str(c) for c in data.columns] if names is None else list(names)
        data = data.to_numpy(dtype=float)
    x = np.asarray(data, dtype=float)
    if x.ndim != 2:
        raise ValueError("data must be 2-D: items x columns")
    names = tuple(names if names is not None else [f"c{i}" for i in range(x.shape[1])])
    m = x.shape[1]
    cells: dict[tuple[str, str], Correlation] = {}
    valid = np.isfinite(x)
    groups: dict[bytes, list[int]] = {}
    for j in range(m):
        groups.setdefault(np.packbits(valid[:, j]).tobytes(), []).append(j)
    for cols in groups.values():
        rows = valid[:, cols[0]]
        n = int(rows.sum())
        sub = x[rows][:, cols]
        if method == "kendall" or n < 3:
            for a in cols:
                for b in cols:
                    cells[(names[a], names[b])] = correlate(x[:, a], x[:, b], method=method, n_boot=n_boot,
                                                            seed=seed, confidence=confidence,
                                                            boot_budget=MATRIX_BOOT_BUDGET // max(1, m))
            continue
        ranked = rank(sub, axis=0) if method == "spearman" else sub
        r, p, lo, hi, how = _block(ranked, method, n_boot, seed, confidence)
        const = np.ptp(sub, axis=0) == 0
        for ia, a in enumerate(cols):
            for ib, b in enumerate(cols):
                if const[ia] or const[ib]:
                    cells[(names[a], names[b])] = Correlation(None, None, n, method=method, reason="constant_input")
                    continue
                rho = float(r[ia, ib])
                if how == "bootstrap":
                    ci = (float(lo[ia, ib]), float(hi[ia, ib]))
                else:
                    ci = fisher_ci(rho, n, method, confidence)
                cells[(names[a], names[b])] = Correlation(rho, float(p[ia, ib]), n, ci[0], ci[1], method=method,
                                                          ci_method=how)
    for a in range(m):  # pairs across groups: their shared items differ from each column's own
        for b in range(a + 1, m):
            if (names[a], names[b]) not in cells:
                c = correlate(x[:, a], x[:, b], method=method, n_boot=n_boot, seed=seed, confidence=confidence,
                              boot_budget=MATRIX_BOOT_BUDGET // max(1, m))
                cells[(names[a], names[b])] = cells[(names[b], names[a])] = c
    return CorrelationMatrix(names, method, cells)

