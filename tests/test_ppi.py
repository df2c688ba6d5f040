"""rageval.stats.ppi against the reference package ppi-python and by seeded simulation."""
from __future__ import annotations

import zlib

import numpy as np
import pytest
from ppi_py import classical_mean_ci
from ppi_py import ppi_mean_ci as reference_ppi_mean_ci

from rageval.stats import ppi


def _draw(rng, n, big_n, kind):
    """Labels and predictions of three shapes: continuous, binary with a noisy judge, 1-5 ratings."""
    if kind == "normal":
        y_all = rng.normal(0.3, 1.0, n + big_n)
        yhat_all = 0.8 * y_all + rng.normal(0.1, 0.7, n + big_n)
    elif kind == "binary":
        y_all = (rng.random(n + big_n) < 0.7).astype(float)
        flip = rng.random(n + big_n) < 0.2
        yhat_all = np.where(flip, 1 - y_all, y_all)
    else:
        y_all = rng.integers(1, 6, n + big_n).astype(float)
        yhat_all = np.clip(y_all / 5 + rng.normal(0, 0.2, n + big_n), 0, 1)
    return y_all[:n], yhat_all[:n], yhat_all[n:], y_all


@pytest.mark.parametrize("kind", ["normal", "binary", "ratings"])
@pytest.mark.parametrize("n,big_n", [(20, 200), (100, 1000), (300, 300)])
@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_equals_ppi_python_both_variants(kind, n, big_n, alpha):
    rng = np.random.default_rng(zlib.crc32(f"{kind}-{n}-{big_n}".encode()))  # the same draws in every process
    tuned_used = 0
    for _ in range(5):
        y, yl, yu, _ = _draw(rng, n, big_n, kind)
        normal = dict(small_sample=0)  # ppi-python's normal quantile at every n (Student t: its own test)
        r = ppi.ppi_mean(y, yl, yu, alpha=alpha, tuned=False, **normal)
        est, low, high = r.estimate, r.low, r.high
        if n >= ppi.SMALL_SAMPLE:
            assert ppi.ppi_mean_ci(y, yl, yu, alpha=alpha, tuned=False) == (est, low, high)
        ref_low, ref_high = reference_ppi_mean_ci(y, yl, yu, alpha=alpha, lam=1)
        assert low == pytest.approx(float(ref_low[0]), abs=1e-9)
        assert high == pytest.approx(float(ref_high[0]), abs=1e-9)
        assert est == pytest.approx((low + high) / 2, abs=1e-12)

        result = ppi.ppi_mean(y, yl, yu, alpha=alpha, tuned=True, **normal)
        ref_low, ref_high = reference_ppi_mean_ci(y, yl, yu, alpha=alpha)  # lam=None: the package tunes
        human_low, human_high = classical_mean_ci(y, alpha=alpha)
        assert result.human_low == pytest.approx(float(human_low), abs=1e-9)
        assert result.human_high == pytest.approx(float(human_high), abs=1e-9)
        if float(ref_high[0] - ref_low[0]) <= float(human_high - human_low):
            assert result.low == pytest.approx(float(ref_low[0]), abs=1e-9)
            assert result.high == pytest.approx(float(ref_high[0]), abs=1e-9)
            tuned_used += result.lam > 0
        else:  # the plug-in weight widened the interval: PPI++ falls back to the human-only one
            assert (result.low, result.high, result.lam) == (result.human_low, result.human_high, 0.0)
    assert tuned_used >= 4  # the package's own tuning is what was compared, not the fallback


def test_tuned_is_never_wider_than_human_only():
    rng = np.random.default_rng(3)
    for _ in range(300):
        n = int(rng.integers(5, 40))
        y = rng.normal(size=n)
        yl = rng.normal(size=n) * rng.choice([0.1, 1, 10])  # mostly unrelated predictors
        yu = rng.normal(size=int(rng.integers(1, 30))) * rng.choice([0.1, 1, 10])
        r = ppi.ppi_mean(y, yl, yu)
        assert r.width <= r.human_width + 1e-12


def test_tuned_falls_back_to_human_only_when_the_plug_in_weight_widens_the_interval():
    # the labelled predictions vary far more than the unlabelled ones (n << N), and hardly with the
    # labels: the plug-in weight (pooled variance) comes out near 1 while the minimiser is near 0
    rng = np.random.default_rng(4)
    y = rng.normal(size=10)
    yl = y + 10 * rng.normal(size=10)
    yu = rng.normal(0, 0.1, 1000)
    ref_low, ref_high = reference_ppi_mean_ci(y, yl, yu, alpha=0.05)
    human_low, human_high = classical_mean_ci(y, alpha=0.05)
    assert float(ref_high[0] - ref_low[0]) > float(human_high - human_low)
    r = ppi.ppi_mean(y, yl, yu, small_sample=0)
    assert r.lam == 0.0
    assert (r.low, r.high) == pytest.approx((float(human_low), float(human_high)), abs=1e-12)


def test_constant_predictions_give_the_human_only_interval():
    y = np.array([1.0, 0.0, 1.0, 1.0])
    r = ppi.ppi_mean(y, np.ones(4), np.ones(10))
    assert r.lam == 0.0 and r.estimate == pytest.approx(0.75)
    assert (r.low, r.high) == (r.human_low, r.human_high)


@pytest.mark.parametrize("tuned", [False, True])
def test_simulated_coverage_and_width(tuned):
    """1,000 seeded draws of 100 labelled and 1,000 unlabelled items from a population with a known
    mean; the predictor correlates with the labels (r about 0.75)."""
    rng = np.random.default_rng(20231)
    true_mean, covered, narrower, widths, human_widths = 0.3, 0, 0, [], []
    for _ in range(1000):
        y_all = rng.normal(true_mean, 1.0, 1100)
        yhat_all = 0.8 * y_all + rng.normal(0.1, 0.7, 1100)
        r = ppi.ppi_mean(y_all[:100], yhat_all[:100], yhat_all[100:], alpha=0.05, tuned=tuned)
        covered += r.low <= true_mean <= r.high
        narrower += r.width < r.human_width
        widths.append(r.width)
        human_widths.append(r.human_width)
    assert 0.93 <= covered / 1000 <= 0.97
    assert narrower / 1000 > 0.95
    assert np.mean(widths) < 0.85 * np.mean(human_widths)


def test_effective_labels_is_n_times_the_variance_ratio():
    rng = np.random.default_rng(5)
    y, yl, yu, _ = _draw(rng, 80, 2000, "normal")
    r = ppi.ppi_mean(y, yl, yu)
    assert r.effective_n == pytest.approx(80 * (r.human_width / r.width) ** 2)
    assert r.effective_n > 80


def test_naive_mean_is_the_predictors_mean_over_every_item():
    r = ppi.ppi_mean([1, 0, 1], [0.5, 0.5, 0.5], [1.0, 0.0, 0.25], tuned=False)
    assert r.naive == pytest.approx(np.mean([0.5, 0.5, 0.5, 1.0, 0.0, 0.25]))


def test_paired_difference_is_ppi_on_the_differences():
    rng = np.random.default_rng(11)
    ya, yla, yua, _ = _draw(rng, 60, 600, "binary")
    yb, ylb, yub, _ = _draw(rng, 60, 600, "binary")
    d = ppi.ppi_mean_difference(ya, yb, yla, ylb, yua, yub, tuned=False, small_sample=0)
    ref_low, ref_high = reference_ppi_mean_ci(ya - yb, yla - ylb, yua - yub, alpha=0.05, lam=1)
    assert (d.low, d.high) == pytest.approx((float(ref_low[0]), float(ref_high[0])), abs=1e-9)
    with pytest.raises(ValueError, match="differ in length"):
        ppi.ppi_mean_difference(ya, yb[:-1], yla, ylb, yua, yub)


@pytest.mark.parametrize("tuned", [False, True])
def test_below_the_threshold_the_interval_is_student_t_with_the_effective_df(tuned):
    from scipy.stats import t as student_t

    rng = np.random.default_rng(21)
    y, yl, yu, _ = _draw(rng, 30, 400, "ratings")
    r = ppi.ppi_mean(y, yl, yu, tuned=tuned)
    normal = ppi.ppi_mean(y, yl, yu, tuned=tuned, small_sample=0)
    ref_low, ref_high = reference_ppi_mean_ci(y, yl, yu, alpha=0.05, lam=r.lam)
    assert r.estimate == pytest.approx(float(ref_low[0] + ref_high[0]) / 2, abs=1e-12)  # the same estimator
    a, b = np.var(r.lam * yu, ddof=1) / yu.size, np.var(y - r.lam * yl, ddof=1) / y.size
    df = (a + b) ** 2 / (a * a / (yu.size - 1) + b * b / (y.size - 1))
    assert r.df == pytest.approx(df) and r.method == f"Student t, df {df:.1f}"
    assert r.width / 2 == pytest.approx(student_t.isf(0.025, df) * np.sqrt(a + b), rel=1e-12)
    assert r.human_width / 2 == pytest.approx(student_t.isf(0.025, y.size - 1) * np.std(y, ddof=1) / np.sqrt(y.size))
    assert r.width > normal.width and normal.method == "normal" and normal.df is None
    big = _draw(rng, ppi.SMALL_SAMPLE, 400, "ratings")
    assert ppi.ppi_mean(*big[:3]).method == "normal"  # from the threshold on: ppi-python's intervals


@pytest.mark.parametrize("y, yl, yu", [
    ([1, 1, 0, 1] * 10, [1, 1, 0, 0] * 10, [0, 0, 0, 1] * 5),      # a low PPI bound below 0 without clipping
    ([1] * 30 + [0] * 2, [0.2] * 30 + [1.0] * 2, [0.0] * 200),      # a high bound above 1 without clipping
    ([1] * 40, [1] * 40, [1] * 100 + [0] * 10),                    # every label agrees with its prediction
    ([0] * 35, [0.1] * 35, [0.4] * 50),                            # every label 0
])
@pytest.mark.parametrize("tuned", [False, True])
def test_a_share_interval_stays_in_0_1_and_has_width(y, yl, yu, tuned):
    r = ppi.ppi_share(y, yl, yu, tuned=tuned)
    assert 0.0 <= r.low <= r.estimate <= r.high <= 1.0
    assert 0.0 <= r.human_low <= r.human <= r.human_high <= 1.0
    assert r.width > 0 and r.human_width > 0  # Wilson has width even when every label agrees
    low, high = ppi.wilson(int(np.sum(y)), len(y))
    assert (r.human_low, r.human_high) == (low, high)


def test_wilson_matches_statsmodels():
    # statsmodels' proportion_confint(7, 20, method="wilson"), recorded: (0.18119182410108203, 0.5671457233147638)
    low, high = ppi.wilson(7, 20)
    assert (low, high) == pytest.approx((0.18119182410108203, 0.5671457233147638), abs=1e-12)
    assert ppi.wilson(0, 20)[0] == 0.0 and ppi.wilson(20, 20)[1] == 1.0


def test_labels_for_width_gives_an_interval_of_that_width():
    rng = np.random.default_rng(8)
    n = ppi.labels_for_width(1.0, 0.2)
    widths = [ppi.ppi_mean(rng.normal(size=n), np.zeros(n), np.zeros(5)).human_width for _ in range(50)]
    assert np.mean(widths) == pytest.approx(0.2, rel=0.05)
    assert ppi.labels_for_width(1.0, 0.2 * 1.01) < n


@pytest.mark.parametrize("args,message", [
    (([1.0], [1.0], [0.5]), "at least 2 labelled"),
    (([1.0, 0.0], [1.0], [0.5]), "one prediction per label"),
    (([1.0, 0.0], [1.0, 0.0], []), "at least 1 unlabelled"),
    (([1.0, np.nan], [1.0, 0.0], [0.5]), "finite"),
])
def test_bad_input_is_named(args, message):
    with pytest.raises(ValueError, match=message):
        ppi.ppi_mean(*args)
    with pytest.raises(ValueError, match="alpha"):
        ppi.ppi_mean([1, 0], [1, 0], [1], alpha=1.5)
