"""rageval.stats against its reference implementations: scipy, scikit-posthocs, krippendorff."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import krippendorff
import scikit_posthocs as sp
from scipy import stats as ss

from rageval import stats


def _tied(rng, n, levels=5):
    return rng.integers(1, levels + 1, size=n).astype(float)


@pytest.fixture
def rng():
    return np.random.default_rng(7)


# --- correlations --------------------------------------------------------------------------

@pytest.mark.parametrize("method,ref", [("spearman", ss.spearmanr), ("kendall", ss.kendalltau),
                                        ("pearson", ss.pearsonr)])
@pytest.mark.parametrize("n", [8, 40, 300])
def test_correlation_matches_scipy_with_ties_and_missing(rng, method, ref, n):
    x = _tied(rng, n)
    y = x + rng.normal(0, 1.5, n)
    y = np.round(y)  # ties in both
    x[rng.choice(n, n // 8 + 1, replace=False)] = np.nan
    y[rng.choice(n, n // 8 + 1, replace=False)] = np.nan
    ok = ~np.isnan(x) & ~np.isnan(y)
    expected = ref(x[ok], y[ok])
    got = stats.spearman(x, y, method=method, n_boot=200, seed=1)
    assert got.n == int(ok.sum())
    assert got.rho == pytest.approx(expected.statistic, abs=1e-12)
    assert got.p == pytest.approx(expected.pvalue, rel=1e-9, abs=1e-300)
    assert got.ci_low <= got.rho <= got.ci_high
    assert got.ci_method == "bootstrap"


def test_correlation_bootstrap_is_seeded_and_matches_a_direct_percentile_bootstrap(rng):
    x = _tied(rng, 60)
    y = x + rng.normal(0, 2, 60)
    a = stats.spearman(x, y, n_boot=300, seed=3)
    assert a == stats.spearman(x, y, n_boot=300, seed=3)
    assert a != stats.spearman(x, y, n_boot=300, seed=4)
    idx = np.random.default_rng(3).integers(0, 60, size=(300, 60))
    boots = [ss.spearmanr(x[i], y[i]).statistic for i in idx]
    lo, hi = np.nanquantile(boots, [0.025, 0.975])
    assert (a.ci_low, a.ci_high) == pytest.approx((lo, hi), abs=1e-12)


def test_correlation_undefined_cases_are_explicit():
    assert stats.spearman([1, 2], [2, 1]).reason == "too_few_pairs"
    c = stats.spearman([1, 1, 1, 1], [1, 2, 3, 4])
    assert c.rho is None and c.reason == "constant_input"
    c = stats.spearman([1, None, 3, float("nan"), 5, 6], [1, 2, None, 4, 6, 5], n_boot=0)
    assert c.n == 3 and c.ci_method == "fisher_z"
    with pytest.raises(ValueError):
        stats.spearman([1, 2, 3], [1, 2, 3], method="cosine")


def test_fisher_interval_is_used_above_the_budget_and_is_close_to_the_bootstrap(rng):
    x = rng.normal(size=3000)
    y = x + rng.normal(size=3000)
    boot = stats.spearman(x, y, n_boot=1000, seed=0)
    fisher = stats.spearman(x, y, n_boot=0)
    assert boot.ci_method == "bootstrap" and fisher.ci_method == "fisher_z"
    assert fisher.ci_low == pytest.approx(boot.ci_low, abs=0.01)
    assert fisher.ci_high == pytest.approx(boot.ci_high, abs=0.01)


@pytest.mark.parametrize("method", ["spearman", "pearson", "kendall"])
def test_matrix_cells_equal_pairwise_correlations(rng, method):
    """Every cell of the matrix is the pairwise correlation, its bootstrap interval included (60
    resamples: the same seed gives the same resamples whatever their number; Kendall's are one
    SciPy call each, 36 pairs twice)."""
    n = 80
    base = rng.normal(size=n)
    df = pd.DataFrame({f"m{j}": np.round(base + rng.normal(0, 1 + j, n), 1) for j in range(5)})
    df.loc[rng.choice(n, 9, replace=False), "m3"] = np.nan  # one column with its own missing items
    df.loc[:4, "m4"] = np.nan
    df["const"] = 1.0
    mat = stats.correlation_matrix(df, method=method, n_boot=60, seed=2)
    for a in df.columns:
        for b in df.columns:
            ref = stats.correlate(df[a].to_numpy(), df[b].to_numpy(), method=method, n_boot=60, seed=2)
            got = mat.get(a, b)
            assert got.n == ref.n and got.reason == ref.reason
            if ref.rho is not None:
                assert got.rho == pytest.approx(ref.rho, abs=1e-12)
                assert got.p == pytest.approx(ref.p, rel=1e-9, abs=1e-300)
                assert (got.ci_low, got.ci_high) == pytest.approx((ref.ci_low, ref.ci_high), abs=1e-12)
            if a != b and ref.rho is not None and method != "kendall":
                sref = {"spearman": ss.spearmanr, "pearson": ss.pearsonr}[method]
                ok = df[a].notna() & df[b].notna()
                assert got.rho == pytest.approx(sref(df[a][ok], df[b][ok]).statistic, abs=1e-12)
    assert len(mat.long()) == 6 * 5
    assert np.isnan(mat.values("rho")[0, 5])


def test_correlation_diff_paired_bootstrap(rng):
    h = _tied(rng, 120)
    good = h + rng.normal(0, 0.5, 120)
    bad = h + rng.normal(0, 4, 120)
    d = stats.correlation_diff(good, bad, h, n_boot=500, seed=0)
    assert d["diff"] == pytest.approx(ss.spearmanr(good, h).statistic - ss.spearmanr(bad, h).statistic)
    assert d["ci_low"] > 0 and d["p"] < 0.01
    same = stats.correlation_diff(good, good, h, n_boot=200, seed=0)
    assert same["diff"] == 0 and same["p"] == 1.0


# --- comparing systems ---------------------------------------------------------------------

def _systems(rng, n=30, k=4):
    base = rng.normal(size=(n, 1))
    return np.round(base + rng.normal(0, 1, (n, k)) + np.arange(k) * 0.4, 1)


@pytest.mark.parametrize("k", [3, 4, 6])
def test_friedman_matches_scipy(rng, k):
    x = _systems(rng, 25, k)
    x[3, 1] = x[3, 0]  # a tie within an item
    ref = ss.friedmanchisquare(*x.T)
    got = stats.friedman(x)
    assert got.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert got.p == pytest.approx(ref.pvalue, rel=1e-9)
    assert got.n == 25


def test_friedman_drops_incomplete_items(rng):
    x = _systems(rng, 20, 3)
    x[2, 1] = np.nan
    got = stats.friedman(pd.DataFrame(x, columns=["a", "b", "c"]))
    ref = ss.friedmanchisquare(*np.delete(x, 2, axis=0).T)
    assert got.n == 19 and got.statistic == pytest.approx(ref.statistic)


@pytest.mark.parametrize("k", [3, 5])
def test_nemenyi_and_conover_match_scikit_posthocs(rng, k):
    x = _systems(rng, 40, k)
    x[5, 2] = x[5, 0]
    names = [f"run{j}" for j in range(k)]
    df = pd.DataFrame(x, columns=names)
    ref_n = sp.posthoc_nemenyi_friedman(x)
    got_n = stats.nemenyi(df)
    assert list(got_n.index) == names
    np.testing.assert_allclose(got_n.to_numpy(), ref_n.to_numpy(), rtol=1e-7, atol=1e-12)
    for adjust in ("holm", None):
        ref_c = sp.posthoc_conover_friedman(x, p_adjust=adjust)
        got_c = stats.conover(df, p_adjust=adjust)
        np.testing.assert_allclose(got_c.to_numpy(), ref_c.to_numpy(), rtol=1e-9, atol=1e-12)


def test_mean_ranks_critical_difference_and_first_rank_share():
    x = np.array([[1.0, 2.0, 3.0], [2.0, 2.0, 1.0], [0.0, 5.0, 5.0], [3.0, 1.0, 2.0]])
    np.testing.assert_allclose(stats.mean_ranks(x).to_numpy(), ss.rankdata(x, axis=1).mean(axis=0))
    # item 2 ties a and b for best (half each), item 3 ties b and c
    np.testing.assert_allclose(stats.first_rank_share(x).to_numpy(), [1.5 / 4, 1.0 / 4, 1.5 / 4])
    np.testing.assert_allclose(stats.first_rank_share(x, higher_is_better=False).to_numpy(), [2 / 4, 1 / 4, 1 / 4])
    # Demsar (2006) Table 5: q_0.05 = 2.343 for k = 3, 2.569 for k = 4
    assert stats.critical_difference(3, 1) == pytest.approx(2.343 * np.sqrt(3 * 4 / 6), abs=2e-3)
    assert stats.critical_difference(4, 10) == pytest.approx(2.569 * np.sqrt(4 * 5 / 60), abs=2e-3)
    # the quantile is kept per (level, k): a second call, for another n, gives scipy's value to the bit
    q = ss.studentized_range.ppf(0.95, 4, np.inf) / np.sqrt(2.0)
    assert stats.critical_difference(4, 37) == float(q * np.sqrt(4 * 5 / (6.0 * 37)))


def test_wilcoxon_and_paired_bootstrap(rng):
    a = np.round(rng.normal(0.6, 0.2, 50), 2)
    b = np.round(a - rng.normal(0.1, 0.1, 50), 2)
    b[7] = a[7]
    a[9] = np.nan
    ok = ~np.isnan(a)
    ref = ss.wilcoxon(a[ok], b[ok])
    got = stats.wilcoxon(a, b)
    assert (got.statistic, got.p, got.n) == (pytest.approx(ref.statistic), pytest.approx(ref.pvalue), 49)
    d = stats.paired_bootstrap(a, b, n_boot=1000, seed=0)
    assert d.diff == pytest.approx(np.mean(a[ok] - b[ok]))
    idx = np.random.default_rng(0).integers(0, 49, size=(1000, 49))
    lo, hi = np.quantile((a[ok] - b[ok])[idx].mean(axis=1), [0.025, 0.975])
    assert (d.ci_low, d.ci_high) == pytest.approx((lo, hi))
    assert stats.wilcoxon([1, 2, 3], [1, 2, 3]).reason == "no_differences"


def test_holm_matches_the_textbook_step_down():
    p = [0.01, 0.04, 0.03, 0.005]
    # sorted 0.005, 0.01, 0.03, 0.04 -> x4, x3, x2, x1 -> 0.02, 0.03, 0.06, 0.06 (monotone)
    np.testing.assert_allclose(stats.holm(p), [0.03, 0.06, 0.06, 0.02])


# --- agreement -----------------------------------------------------------------------------

@pytest.mark.parametrize("level", ["ordinal", "interval", "nominal", "ratio"])
def test_krippendorff_alpha_matches_the_package(rng, level):
    truth = rng.integers(1, 6, size=40)
    r = np.array([np.clip(truth + rng.integers(-1, 2, size=40), 1, 5) for _ in range(4)], dtype=float)
    r[rng.random(r.shape) < 0.2] = np.nan
    r[:, 0] = np.nan
    r[1:, 1] = np.nan  # an item with a single rating is not pairable
    ref = krippendorff.alpha(reliability_data=r, level_of_measurement=level)
    assert stats.krippendorff_alpha(r, level=level) == pytest.approx(ref, rel=1e-10)


def test_krippendorff_alpha_on_krippendorffs_own_example():
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section C: nominal 0.743
    nan = np.nan
    data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
            [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
            [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
            [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    assert stats.krippendorff_alpha(data, level="nominal") == pytest.approx(0.743, abs=5e-4)
    assert stats.krippendorff_alpha(data, level="interval") == pytest.approx(0.849, abs=5e-4)
    assert stats.krippendorff_alpha([[3, 3], [3, 3]]) is None


def test_cohen_kappa_reference_values():
    # Wikipedia's worked example: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no -> kappa 0.4
    a = [1] * 20 + [1] * 5 + [0] * 10 + [0] * 15
    b = [1] * 20 + [0] * 5 + [1] * 10 + [0] * 15
    assert stats.cohen_kappa(a, b, weights=None) == pytest.approx(0.4)
    # weighted kappa by its definition with explicit loops (an independent computation)
    rng = np.random.default_rng(3)
    x = rng.integers(1, 6, 60).astype(float)
    y = np.clip(x + rng.integers(-1, 2, 60), 1, 5)
    for weights, power in (("linear", 1), ("quadratic", 2)):
        num = den = 0.0
        for i in range(1, 6):
            for j in range(1, 6):
                w = abs(i - j) ** power
                num += w * np.mean((x == i) & (y == j))
                den += w * np.mean(x == i) * np.mean(y == j)
        assert stats.cohen_kappa(x, y, weights=weights, labels=range(1, 6)) == pytest.approx(1 - num / den)
    k = stats.pairwise_kappa(pd.DataFrame([x, y, x], index=["a", "b", "c"]))
    assert k.loc["a", "c"] == pytest.approx(1.0) and k.loc["a", "b"] == k.loc["b", "a"]


def test_agreement_shares():
    r = np.array([[1, 3, 5, np.nan], [1, 4, 3, 2], [2, np.nan, 5, np.nan]])
    got = stats.agreement_shares(r)
    # pairs: item0 (1,1)(1,2)(1,2); item1 (3,4); item2 (5,3)(5,5)(3,5)
    assert got == {"pairs": 7, "exact": pytest.approx(2 / 7), "within_one": pytest.approx(5 / 7)}


def test_post_hoc_tests_when_every_item_ties():
    x = np.ones((6, 3))
    assert stats.friedman(x).reason == "all_tied"
    assert (stats.conover(x).to_numpy() == 1).all()
