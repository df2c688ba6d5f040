"""The one AUROC of the training and validation scripts."""
from __future__ import annotations

import numpy as np
from scipy.stats import rankdata


def auroc(scores, positive) -> float:
    """Area under the ROC curve by the Mann-Whitney statistic, ties at their average rank:
    ``(R_pos - n_pos (n_pos + 1) / 2) / (n_pos n_neg)`` with ``R_pos`` the rank sum of the positives
    (``positive`` true or 1). ``nan`` when either class is empty (the area is undefined).

    >>> auroc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    0.75
    """
    s, pos = np.asarray(scores, float), np.asarray(positive) == 1
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    if not n_pos or not n_neg:
        return float("nan")
    ranks = rankdata(s)
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))
