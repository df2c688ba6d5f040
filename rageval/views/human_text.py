"""Plain-text renderings of analyses, comparisons and agreement for the CLI."""
from __future__ import annotations

import math

from rageval.human.analysis import CEILING, Analysis
from rageval.human.compare import Comparison
from rageval.human.plain import plain_reason


def _num(v, fmt="{:.3f}") -> str:
    return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else fmt.format(v)


def analysis_text(a: Analysis) -> str:
    """The paper-style table (metric x group: rho [CI] n vs human, ceiling last) and each group's matrix."""
    lines = [f"analysis {a.id}: {a.method}, runs {', '.join(a.runs)}, grouped by {a.grouping}"
             f"{', filters ' + str(a.filters) if a.filters else ''}", ""]
    metrics = [m for m in a.metrics if m != "human"]
    width = max([len(m) for m in metrics + [CEILING]] + [8])
    for g in a.groups:
        lines.append(f"[{g}] correlation with the human score")
        for m in metrics + [CEILING]:
            c = a.cell(g, m, "human")
            if c is None:
                continue
            ci = f" [{_num(c['ci_low'])}, {_num(c['ci_high'])}]" if c["ci_low"] is not None else ""
            p = f" p={_num(c['p'], '{:.3g}')}" if c["p"] is not None else ""
            why = f" ({plain_reason(c['reason'])})" if c["reason"] else ""
            lines.append(f"  {m:<{width}}  rho={_num(c['rho'])}{ci}{p} n={c['n']}{why}")
        mat = a.matrix(g)
        if len(mat) > 1:
            lines += ["", f"[{g}] matrix ({a.method})", mat.round(2).to_string(na_rep="n/a")]
        lines.append("")
    return "\n".join(lines).rstrip()


def comparison_text(c: Comparison) -> str:
    lines = [c.verdict, "", f"metric {c.metric} ({'higher' if c.higher_is_better else 'lower'} is better), "
                            f"n = {c.n} items scored by every run"]
    lines.append(f"  {'':<2}{'run':<24} {'mean':>8} {'mean rank':>10} {'first-rank share':>17}  name")
    for label, r in zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", c.runs):
        lines.append(f"  {label:<2}{r:<24} {c.means[r]:>8.3f} {c.mean_ranks[r]:>10.2f} {c.first_rank_share[r]:>17.2f}"
                     f"  {c.name(r)}")
    if c.difference is not None and c.difference.diff is not None:
        d = c.difference
        lines.append(f"mean difference B - A = {d.diff:+.3f}, 95% bootstrap CI [{d.ci_low:+.3f}, {d.ci_high:+.3f}]; "
                     f"{c.changed} of {d.n} paired answers changed")
    if c.friedman is not None and c.friedman.statistic is not None:
        lines.append(f"Friedman chi2 = {c.friedman.statistic:.3f}, p = {c.friedman.p:.3g}; "
                     f"critical difference of mean ranks (Nemenyi, 0.05) = {_num(c.critical_difference)}")
    if c.conover is not None:
        lines += ["Conover post-hoc p-values (Holm):", c.conover.round(4).to_string()]
        lines += ["Nemenyi post-hoc p-values:", c.nemenyi.round(4).to_string()]
    return "\n".join(lines)


def agreement_text(out: dict) -> str:
    def one(name, a):
        return (f"{name}: {a['annotators']} annotator(s), {a['answers']} answer(s); Krippendorff's alpha (ordinal)"
                f" {_num(a['alpha'])}; exact {_num(a['exact'], '{:.0%}')}, within one"
                f" {_num(a['within_one'], '{:.0%}')} of {a['pairs']} pair(s)")
    return "\n".join([one("overall", out["overall"])] + [one(g, a) for g, a in out["groups"].items()])
