"""How far each metric agrees with the team's raters, read from the latest stored analysis, to
show beside the metric (its card, the leaderboard header) so a team sees which numbers to trust.

The source is the newest stored correlation analysis (:mod:`rageval.human.analysis`) that is not
grouped (``group_by = none``, one group ``all``); when every stored analysis is grouped, the
newest one's ``all`` group if it has one. Per metric: the cell ``(metric, human)``, i.e. the
correlation (Spearman's rho unless the analysis chose another method) of the metric with the
human consensus over the answers that have both, its n, p and CI. No analysis, or a metric the
analysis did not cover, gives no entry: nothing is shown rather than a number from elsewhere.
A metric stored with two signatures appears in the analysis as ``name#hash``; such columns are
not mapped back to the plain name (they are not one metric).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rageval.human.analysis import CEILING, list_analyses, open_analysis
from rageval.human.plain import plain_reason
from rageval.project import Project


@dataclass(frozen=True)
class Agreement:
    metric: str
    rho: float | None
    n: int
    p: float | None
    ci_low: float | None
    ci_high: float | None
    method: str
    analysis: str  # the stored analysis id
    runs: tuple[str, ...]
    reason: str | None = None  # why rho is None

    def short(self) -> str:
        """``ρ 0.62 (n 40)`` for a column header; ``ρ n/a (n 2)`` when undefined.

        >>> Agreement("m", 0.6234, 40, 0.001, 0.4, 0.8, "spearman", "a1", ("r",)).short()
        'ρ 0.62 (n 40)'
        """
        sym = {"spearman": "ρ", "kendall": "τ", "pearson": "r"}.get(self.method, self.method)
        return f"{sym} {'n/a' if self.rho is None else f'{self.rho:.2f}'} (n {self.n})"

    def words(self) -> str:
        """``raters 0.62`` for a column header (the statistic's name is in :meth:`sentence`, the tooltip).

        >>> Agreement("m", 0.6234, 40, 0.001, 0.4, 0.8, "spearman", "a1", ("r",)).words()
        'raters 0.62'
        """
        return f"raters {'n/a' if self.rho is None else f'{self.rho:.2f}'}"

    def sentence(self) -> str:
        """One line for a tooltip: what the number is and where it comes from."""
        name = {"spearman": "Spearman's rho", "kendall": "Kendall's tau", "pearson": "Pearson's r"}.get(
            self.method, self.method)
        if self.rho is None:
            value = f"undefined ({plain_reason(self.reason) or 'no value'})"
        else:
            ci = (f", 95% CI {self.ci_low:.2f} to {self.ci_high:.2f}" if self.ci_low is not None
                  and self.ci_high is not None else "")
            value = f"{self.rho:.2f}{ci}"
        return (f"Agreement with the human raters: {name} {value} over {self.n} rated answers "
                f"(stored analysis {self.analysis}, runs {', '.join(self.runs)}).")


def _latest(project: Project) -> tuple[Any, str] | None:
    found = list_analyses(project)
    ungrouped = [a for a in found if a["grouping"] == "none"]
    for meta in ungrouped or found:
        analysis = open_analysis(project, meta["id"])
        if "all" in analysis.groups:
            return analysis, "all"
    return None


def metric_agreement(project: Project) -> dict[str, Agreement]:
    """Metric name -> its :class:`Agreement` with the raters in the latest analysis (module docstring);
    empty when the project has no stored analysis."""
    latest = _latest(project)
    if latest is None:
        return {}
    analysis, group = latest
    out = {}
    for m in analysis.metrics:
        if m in ("human", CEILING):
            continue
        c = analysis.cell(group, m, "human")
        if c is None:
            continue
        out[m] = Agreement(m, c["rho"], int(c["n"] or 0), c["p"], c["ci_low"], c["ci_high"], analysis.method,
                           analysis.id, tuple(analysis.runs), c.get("reason"))
    return out
