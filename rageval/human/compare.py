"""Comparing runs over the same QA items on one metric (or the human score), with a verdict.

Items are matched by ``item_id``; only items every run scored are used (``n``). With three or
more runs: Friedman, Nemenyi and Conover-Holm post-hoc p-values, mean ranks, the Nemenyi critical
difference, and the first-rank share. With two: the same ranks plus the Wilcoxon signed-rank test
and a paired bootstrap CI of the mean difference. Formulas in :mod:`rageval.stats.systems`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import pandas as pd

from rageval import stats
from rageval.errors import ConfigError
from rageval.human.frame import build_frame, metric_columns
from rageval.project import Project


@dataclass(frozen=True)
class Comparison:
    runs: tuple[str, ...]
    metric: str
    n: int
    higher_is_better: bool
    means: dict[str, float]
    mean_ranks: dict[str, float]
    first_rank_share: dict[str, float]
    critical_difference: float | None
    friedman: stats.TestResult | None
    nemenyi: pd.DataFrame | None = field(repr=False, default=None)
    conover: pd.DataFrame | None = field(repr=False, default=None)
    wilcoxon: stats.TestResult | None = None
    difference: stats.Difference | None = None
    verdict: str = ""

    def as_dict(self) -> dict[str, Any]:
        def frame(df):
            return None if df is None else {a: {b: float(v) for b, v in row.items()} for a, row in df.iterrows()}

        def test(t):
            return None if t is None else {"statistic": t.statistic, "p": t.p, "n": t.n, "reason": t.reason}

        return {"runs": list(self.runs), "metric": self.metric, "n": self.n, "higher_is_better": self.higher_is_better,
                "means": self.means, "mean_ranks": self.mean_ranks, "first_rank_share": self.first_rank_share,
                "critical_difference": self.critical_difference, "friedman": test(self.friedman),
                "nemenyi": frame(self.nemenyi), "conover_holm": frame(self.conover), "wilcoxon": test(self.wilcoxon),
                "difference": None if self.difference is None else vars(self.difference), "verdict": self.verdict}


def _higher_is_better(metric: str) -> bool:
    if metric == "human":
        return True
    from rageval.metrics.base import get_metric

    try:
        return bool(get_metric(metric.split("#")[0].replace("@K", "@10")).higher_is_better)
    except Exception:  # a metric stored by an older version: scores are "higher is better" by convention
        return True


def _fmt_p(p: float | None) -> str:
    return "n/a" if p is None else ("< 0.001" if p < 0.001 else f"= {p:.3f}")


def score_table(project: Project, run_ids: Sequence[str], metric: str, frame: pd.DataFrame | None = None) -> pd.DataFrame:
    """Items x runs of one metric (``human`` for the consensus), complete items only; ``frame`` is
    :func:`build_frame` of these runs when the caller has it already."""
    frame = build_frame(project, run_ids) if frame is None else frame
    if metric not in frame.columns:
        names = metric_columns(frame)
        raise ConfigError(f"no metric {metric!r} in runs {', '.join(run_ids)}; available: {', '.join(names)}")
    table = frame.pivot_table(index="item_id", columns="run_id", values=metric, aggfunc="first")
    return table.reindex(columns=list(run_ids)).dropna(how="any")


def compare_runs(project: Project, run_ids: Sequence[str], metric: str, *, alpha: float = 0.05,
                 n_boot: int = 2000, seed: int = 0, frame: pd.DataFrame | None = None) -> Comparison:
    """Compare two or more runs on ``metric`` and say in one sentence what the tests show
    (``frame``: the runs' :func:`build_frame`, when the caller has it already)."""
    run_ids = list(dict.fromkeys(run_ids))
    if len(run_ids) < 2:
        raise ConfigError("compare needs at least two different runs: --runs A,B")
    table = score_table(project, run_ids, metric, frame)
    n, k = table.shape
    hib = _higher_is_better(metric)
    if n < 2:
        raise ConfigError(f"the runs share {n} item(s) scored on {metric}; a comparison needs at least 2")
    means = {r: float(table[r].mean()) for r in run_ids}
    signed = table if hib else -table
    ranks = stats.mean_ranks(signed)
    share = stats.first_rank_share(table, higher_is_better=hib)
    fr = stats.friedman(table)
    result: dict[str, Any] = dict(runs=tuple(run_ids), metric=metric, n=n, higher_is_better=hib, means=means,
                                  mean_ranks={r: float(v) for r, v in ranks.items()},
                                  first_rank_share={r: float(v) for r, v in share.items()},
                                  critical_difference=stats.critical_difference(k, n, alpha), friedman=fr)
    if k == 2:
        a, b = run_ids
        w = stats.wilcoxon(table[a], table[b])
        d = stats.paired_bootstrap(table[a], table[b], n_boot=n_boot, seed=seed)
        result.update(wilcoxon=w, difference=d, verdict=_verdict_two(a, b, metric, hib, w, d, alpha))
    else:
        nem, con = stats.nemenyi(table), stats.conover(table, p_adjust="holm")
        result.update(nemenyi=nem, conover=con, verdict=_verdict_many(run_ids, metric, ranks, fr, con, alpha))
    return Comparison(**result)


def _verdict_two(a, b, metric, hib, w, d, alpha) -> str:
    tail = f"p {_fmt_p(w.p)} (Wilcoxon), n = {d.n}, difference {d.diff:+.3g} [{d.ci_low:+.3g}, {d.ci_high:+.3g}]"
    if w.p is None or w.p >= alpha:
        return f"no significant difference between run {a} and run {b} on {metric}: {tail}"
    better = a if (d.diff > 0) == hib else b
    worse = b if better == a else a
    verb = "scores higher than" if hib else "scores lower (better) than"
    return f"run {better} {verb} run {worse} on {metric}: {tail}"


def _verdict_many(run_ids, metric, ranks, fr, con, alpha) -> str:
    if fr.p is None or fr.p >= alpha:
        return (f"no significant difference among the {len(run_ids)} runs on {metric}: Friedman p {_fmt_p(fr.p)},"
                f" n = {fr.n}")
    order = sorted(run_ids, key=lambda r: -ranks[r])
    pairs = [f"{x} > {y} (p {_fmt_p(float(con.loc[x, y]))})" for i, x in enumerate(order) for y in order[i + 1:]
             if float(con.loc[x, y]) < alpha]
    return (f"the {len(run_ids)} runs differ on {metric}: Friedman chi2 = {fr.statistic:.2f}, p {_fmt_p(fr.p)},"
            f" n = {fr.n}; best mean rank: run {order[0]} ({ranks[order[0]]:.2f});"
            f" significant pairs (Conover-Holm): {', '.join(pairs) if pairs else 'none'}")
