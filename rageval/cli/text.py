"""Plain-text renderings for the CLI: analyses, comparisons, regressions, agreement and PPI estimates.

What only the CLI prints lives here; :mod:`rageval.views` holds what the pages show.
"""
from __future__ import annotations

from typing import Any

from rageval.human.analysis import CEILING, Analysis
from rageval.human.compare import Comparison
from rageval.human.plain import plain_reason
from rageval.human.trust_rows import estimate_sentence, fmt_ci, fmt_num, verifier_sentence
from rageval.util import MISSING, shown
from rageval.views.regressions import Regressions


def _num(v, fmt="{:.3f}") -> str:
    return shown(v, fmt)


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
            lines += ["", f"[{g}] matrix ({a.method})", mat.round(2).to_string(na_rep=MISSING)]
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


def rating_agreement_text(out: dict) -> str:
    """The CLI's ``agreement``: raters' agreement on 1-5 ratings, overall and per group."""
    def one(name, a):
        return (f"{name}: {a['annotators']} annotator(s), {a['answers']} answer(s); Krippendorff's alpha (ordinal)"
                f" {_num(a['alpha'])}; exact {_num(a['exact'], '{:.0%}')}, within one"
                f" {_num(a['within_one'], '{:.0%}')} of {a['pairs']} pair(s)")
    return "\n".join([one("overall", out["overall"])] + [one(g, a) for g, a in out["groups"].items()])


def regression_text(r: Regressions, *, limit: int = 10, names: dict[str, str] | None = None) -> str:
    """Plain-text lists of the worst and best changes, for the CLI."""
    names = names or {}
    lines = [f"per question on {r.metric} ({'higher' if r.higher_is_better else 'lower'} is better), change = B - A "
             f"(A {names.get(r.run_a, r.run_a)}, B {names.get(r.run_b, r.run_b)}): {len(r.worse)} worse, "
             f"{len(r.better)} better, {r.unchanged} unchanged of {r.paired} paired answers"
             + (f"; {r.lost} scored in A but unscored in B" if r.lost else "")
             + (f"; {r.gained} unscored in A but scored in B" if r.gained else "")]
    for title, df in (("worse", r.worse), ("better", r.better)):
        if not len(df):
            continue
        lines.append(f"{title} ({len(df)}{', first ' + str(limit) if len(df) > limit else ''}):")
        for row in df.head(limit).itertuples(index=False):
            verdicts = (f"  contradicted claims {row.contradicted_a} -> {row.contradicted_b}"
                        if row.contradicted_a != row.contradicted_b else "")
            lines.append(f"  {row.change:+.3f}  {row.a:.3f} -> {row.b:.3f}  [{row.item_id}] "
                         f"{_cut(str(row.question))}{verdicts}")
    return "\n".join(lines)


def _cut(text: str, width: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def claim_agreement_text(rows: list[dict[str, Any]], raters: dict[str, Any]) -> str:
    """The CLI's ``agreement --claims``: raters' agreement, then each verifier with its confusion matrix."""
    alpha = raters["alpha"]
    lines = [f"Raters on claims: {raters['raters']} rater(s), {raters['claims']} labelled claim(s), "
             f"{raters['shared']} labelled by two or more; Krippendorff's alpha (nominal) "
             f"{fmt_num(alpha.value)}{fmt_ci(alpha.low, alpha.high)}"]
    for k in raters["kappa"]:
        lines.append(f"  Cohen's kappa {k['a']} vs {k['b']}: {fmt_num(k['value'])}{fmt_ci(k['low'], k['high'])}"
                     f" (n {k['n']})")
    if not rows:
        lines.append("No claim verdicts in these runs.")
    for row in rows:
        lines += ["", verifier_sentence(row)]
        pr = ", ".join(f"{v}: precision {fmt_num(row[f'precision {v}'])} recall {fmt_num(row[f'recall {v}'])}"
                       for v in ("S", "C", "NM"))
        lines.append(f"  {pr}")
        lines.append("  confusion (rows: people; columns: verdict)")
        lines += ["    " + line for line in row["confusion"].to_string().splitlines()]
    return "\n".join(lines)


def claim_agreement_payload(rows: list[dict[str, Any]], raters: dict[str, Any]) -> dict[str, Any]:
    return {"raters": {**{k: v for k, v in raters.items() if k != "alpha"}, "alpha": raters["alpha"].as_dict()},
            "verifiers": [{**{k: v for k, v in r.items() if k != "confusion"},
                           "confusion": r["confusion"].to_dict(orient="index")} for r in rows]}


def estimate_text(rows: list[dict[str, Any]], run_id: str) -> str:
    """The CLI's ``estimate``: each of the run's PPI estimates as a sentence."""
    if not rows:
        return f"run {run_id}: nothing to estimate (no metric and no claims)"
    return "\n".join([f"Run {run_id}, 95% intervals:"] + [f"- {estimate_sentence(r)}" for r in rows])
