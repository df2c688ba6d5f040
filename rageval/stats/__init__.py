"""Statistics for meta-evaluation, pure and seeded: correlations, system comparisons, agreement,
prediction-powered estimates.

Everything here takes plain arrays or DataFrames of per-item values (the stored scores) and
returns small result objects; no module reads the database. Each formula is in its module's
docstring, and ``tests/test_stats.py`` checks every function against its reference
implementation (scipy, scikit-posthocs, krippendorff; ppi-python in ``tests/test_ppi.py``).
"""
from rageval.stats.agreement import (AgreementCI, agreement_shares, alpha_ci, cohen_kappa, kappa_ci,
                                     kappa_labels_for_width, krippendorff_alpha, pairwise_kappa)
from rageval.stats.correlation import METHODS, Correlation, correlate, correlation_diff, spearman
from rageval.stats.ppi import (PPIResult, labels_for_width, ppi_mean, ppi_mean_ci, ppi_mean_difference, ppi_share,
                               wilson)
from rageval.stats.matrix import CorrelationMatrix, correlation_matrix
from rageval.stats.systems import (Difference, TestResult, conover, critical_difference, first_rank_share,
                                   friedman, holm, mean_ranks, nemenyi, paired_bootstrap, wilcoxon)

__all__ = [
    "METHODS", "AgreementCI", "Correlation", "CorrelationMatrix", "Difference", "PPIResult", "TestResult",
    "agreement_shares", "alpha_ci", "cohen_kappa", "conover", "correlate", "correlation_diff", "correlation_matrix",
    "critical_difference", "first_rank_share", "friedman", "holm", "kappa_ci", "kappa_labels_for_width",
    "krippendorff_alpha", "labels_for_width", "mean_ranks", "nemenyi", "paired_bootstrap", "pairwise_kappa",
    "ppi_mean", "ppi_mean_ci", "ppi_mean_difference", "ppi_share", "spearman", "wilcoxon", "wilson",
]
