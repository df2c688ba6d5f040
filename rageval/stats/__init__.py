"""Statistics for meta-evaluation, pure and seeded: correlations, system comparisons, agreement.

Everything here takes plain arrays or DataFrames of per-item values (the stored scores) and
returns small result objects; no module reads the database. Each formula is in its module's
docstring, and ``tests/test_stats.py`` checks every function against its reference
implementation (scipy, scikit-posthocs, krippendorff).
"""
from rageval.stats.agreement import agreement_shares, cohen_kappa, krippendorff_alpha, pairwise_kappa
from rageval.stats.correlation import METHODS, Correlation, correlate, correlation_diff, spearman
from rageval.stats.matrix import CorrelationMatrix, correlation_matrix
from rageval.stats.systems import (Difference, TestResult, conover, critical_difference, first_rank_share,
                                   friedman, holm, mean_ranks, nemenyi, paired_bootstrap, wilcoxon)

__all__ = [
    "METHODS", "Correlation", "CorrelationMatrix", "Difference", "TestResult", "agreement_shares", "cohen_kappa",
    "conover", "correlate", "correlation_diff", "correlation_matrix", "critical_difference", "first_rank_share",
    "friedman", "holm", "krippendorff_alpha", "mean_ranks", "nemenyi", "paired_bootstrap", "pairwise_kappa",
    "spearman", "wilcoxon",
]
