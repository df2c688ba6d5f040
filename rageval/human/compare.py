"""Comparing runs over the same QA items on one metric (or the human score), with a verdict.

Items are matched by ``item_id``; only items every run scored are used (``n``). With three or
more runs: Friedman, Nemenyi and Conover-Holm post-hoc p-values, mean ranks, the Nemenyi critical
difference, and the first-rank share. With two: the same ranks plus the Wilcoxon signed-rank test
and a paired bootstrap CI of the mean difference ``B - A`` (A the first run named, B the second).
Formulas in :mod:`rageval.stats.systems`; the verdict's wording in :mod:`rageval.human.plain`.
Runs are called by :func:`rageval.report.leaderboard.run_name`, the readable name every page uses.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import pandas as pd

from rageval import stats
from rageval.config import CompareConfig
from rageval.errors import ConfigError
from rageval.human.frame import build_frame, metric_columns
from rageval.human.plain import min_pairs_for, na, paired_sentence
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
    difference: stats.Difference | None = None  # mean(B - A) over the paired answers, with its bootstrap CI
    verdict: str = ""
    names: dict[str, str] = field(default_factory=dict)  # run id -> readable name
    changed: int | None = None  # paired answers whose two scores differ (two runs only)
    reliable: bool = False  # both tests agree on a difference (two runs), or Friedman p < alpha (more)

    def name(self, run_id: str) -> str:
        return self.names.get(run_id, run_id)

    def as_dict(self) -> dict[str, Any]:
        def frame(df):
            return None if df is None else {a: {b: float(v) for b, v in row.items()} for a, row in df.iterrows()}

        def test(t):
            return None if t is None else {"statistic": t.statistic, "p": t.p, "n": t.n, "reason": t.reason}

        return {"runs": list(self.runs), "metric": self.metric, "n": self.n, "higher_is_better": self.higher_is_better,
                "means": self.means, "mean_ranks": self.mean_ranks, "first_rank_share": self.first_rank_share,
                "critical_difference": self.critical_difference, "friedman": test(self.friedman),
                "nemenyi": frame(self.nemenyi), "conover_holm": frame(self.conover), "wilcoxon": test(self.wilcoxon),
                "difference": None if self.difference is None else {**vars(self.difference), "of": "B - A"},
                "changed": self.changed, "names": self.names, "verdict": self.verdict}


def _higher_is_better(metric: str) -> bool:
    if metric == "human":
        return True
    from rageval.metrics.base import get_metric

    try:
        return bool(get_metric(metric.split("#")[0].replace("@K", "@10")).higher_is_better)
    except Exception:  # a metric stored by an older version: scores are "higher is better" by convention
        return True


def _fmt_p(p: float | None, reason: str | None = None) -> str:
    return na(reason) if p is None else ("< 0.001" if p < 0.001 else f"= {p:.3f}")


def run_names(project: Project, run_ids: Sequence[str]) -> dict[str, str]:
    """Run id -> the readable name every page shows (the id when the run is not stored)."""
    from rageval.report.leaderboard import run_name
    from rageval.store import runs as run_store

    runs = run_store.get_runs(project.db_path, run_ids)
    return {rid: run_name(runs[rid]) if rid in runs else rid for rid in run_ids}


def score_table(
    project: Project, run_ids: Sequence[str], metric: str, frame: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Items x runs of one metric (``human`` for the consensus), complete items only; ``frame`` is
    :func:`build_frame` of these runs when the caller has it already."""
    frame = build_frame(project, run_ids) if frame is None else frame
    if metric not in frame.columns:
        names = metric_columns(frame)
        raise ConfigError(f"no metric {metric!r} in runs {', '.join(run_ids)}; available: {', '.join(names)}")
    table = frame.pivot_table(index="item_id", columns="run_id", values=metric, aggfunc="first")
    return table.reindex(columns=list(run_ids)).dropna(how="any")


def compare_runs(
    project: Project,
    run_ids: Sequence[str],
    metric: str,
    *,
    alpha: float = 0.05,
    n_boot: int = CompareConfig.n_boot,
    seed: int = CompareConfig.seed,
    frame: pd.DataFrame | None = None,
) -> Comparison:
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
    names = run_names(project, run_ids)
    label = "the human score (consensus of the ratings, 1-5)" if metric == "human" else metric
    result: dict[str, Any] = dict(runs=tuple(run_ids), metric=metric, n=n, higher_is_better=hib, means=means,
                                  mean_ranks={r: float(v) for r, v in ranks.items()},
                                  first_rank_share={r: float(v) for r, v in share.items()},
                                  critical_difference=stats.critical_difference(k, n, alpha), friedman=fr, names=names)
    if k == 2:
        a, b = run_ids
        w = stats.wilcoxon(table[a], table[b])
        d = stats.paired_bootstrap(table[b], table[a], n_boot=n_boot, seed=seed)
        changed = int((table[a] != table[b]).sum())
        verdict = paired_sentence(f"A “{names[a]}”", f"B “{names[b]}”", label, diff=d.diff, ci_low=d.ci_low,
                                  ci_high=d.ci_high, p=w.p, n=d.n, nonzero=changed, higher_is_better=hib, alpha=alpha)
        reliable = (w.p is not None and w.p < alpha and changed >= min_pairs_for(alpha)
                    and (d.ci_low > 0 or d.ci_high < 0))
        result.update(wilcoxon=w, difference=d, changed=changed, verdict=verdict, reliable=reliable)
    else:
        nem, con = stats.nemenyi(table), stats.conover(table, p_adjust="holm")
        result.update(nemenyi=nem, conover=con, verdict=_verdict_many(run_ids, names, label, ranks, fr, con, alpha),
                      reliable=fr.p is not None and fr.p < alpha)
    return Comparison(**result)


def _verdict_many(run_ids, names, metric, ranks, fr, con, alpha) -> str:
    """The Friedman test's reading over three or more runs, runs called by their names."""
    if fr.p is None:
        return f"The {len(run_ids)} runs cannot be tested on {metric}: Friedman p {_fmt_p(fr.p, fr.reason)}."
    if fr.p >= alpha:
        return (f"No reliable difference among the {len(run_ids)} runs on {metric} (Friedman p {_fmt_p(fr.p)},"
                f" {fr.n} answers scored by every run).")
    order = sorted(run_ids, key=lambda r: -ranks[r])
    pairs = [f"{names[x]} ahead of {names[y]} (p {_fmt_p(float(con.loc[x, y]))})" for i, x in enumerate(order)
             for y in order[i + 1:] if float(con.loc[x, y]) < alpha]
    return (f"The {len(run_ids)} runs differ on {metric} (Friedman chi2 = {fr.statistic:.2f}, p {_fmt_p(fr.p)},"
            f" {fr.n} answers scored by every run); best mean rank: {names[order[0]]} ({ranks[order[0]]:.2f});"
            f" reliable pairs (Conover-Holm): {'; '.join(pairs) if pairs else 'none'}.")
