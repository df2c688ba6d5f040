"""Statistics for meta-evaluation, pure and seeded: correlations, system comparisons, agreement,
prediction-powered estimates.

Everything here takes plain arrays or DataFrames of per-item values (the stored scores) and
returns small result objects; no module reads the database. Each formula is in its module's
docstring, and ``tests/test_stats.py`` checks every function against its reference
implementation (scipy, scikit-posthocs, krippendorff; ppi-python in ``tests/test_ppi.py``).
"""
from rageval.stats.agreement import agreement_shares, cohen_kappa, krippendorff_alpha, pairwise_kappa
from rageval.stats.correlation import METHODS, Correlation, correlate, correlation_diff, spearman
from rageval.stats.ppi import PPIResult, labels_for_width, ppi_mean, ppi_mean_ci, ppi_mean_difference
from rageval.stats.matrix import CorrelationMatrix, correlation_matrix
from rageval.stats.systems import (Difference, TestResult, conover, critical_difference, first_rank_share,
                                   friedman, holm, mean_ranks, nemenyi, paired_bootstrap, wilcoxon)

__all__ = [
    "METHODS", "Correlation", "CorrelationMatrix", "Difference", "PPIResult", "TestResult", "agreement_shares",
    "cohen_kappa", "conover", "correlate", "correlation_diff", "correlation_matrix", "critical_difference",
    "first_rank_share", "friedman", "holm", "krippendorff_alpha", "labels_for_width", "mean_ranks", "nemenyi",
    "paired_bootstrap", "pairwise_kappa", "ppi_mean", "ppi_mean_ci", "ppi_mean_difference", "spearman", "wilcoxon",
]
