"""An interval for a share (a proportion) that stays inside [0, 1] and has width when every label agrees.

Wilson's score interval (Wilson 1927) for ``k`` successes in ``n`` trials at level ``1 - alpha``,
with ``p = k / n`` and ``z`` the normal quantile ``1 - alpha / 2``::

    centre = (p + z^2 / (2n)) / (1 + z^2 / n)
    half   = z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / (4 n^2))

It lies inside [0, 1] by construction and, unlike the normal interval ``p ± z sqrt(p (1 - p) / n)``,
is not a point when ``k = 0`` or ``k = n``.
"""
from __future__ import annotations

import math
from statistics import NormalDist


def wilson_interval(k: int, n: int, *, alpha: float = 0.05) -> tuple[float, float]:
    """``(low, high)`` of the share ``k / n`` (module docstring); ``(0.0, 1.0)`` for ``n = 0``.

    >>> tuple(round(x, 3) for x in wilson_interval(10, 10))
    (0.722, 1.0)
    >>> tuple(round(x, 3) for x in wilson_interval(1, 2))
    (0.095, 0.905)
    """
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= k <= n:
        raise ValueError(f"k={k} must be between 0 and n={n}")
    z = NormalDist().inv_cdf(1 - alpha / 2)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)
