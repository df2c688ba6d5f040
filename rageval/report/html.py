"""A one-page HTML report of a run, to mail to a customer: self-contained, no outside requests.

Sections: the run (what produced it), a summary table (mean over scored items, scored /
unscored counts, range, direction and meaning of each metric), each metric's distribution as
an inline SVG histogram, means per domain, Spearman correlations of the metrics with the mean
human rating when ratings exist (``scipy.stats.spearmanr`` over items with both), and the
worst answers with their claims and verdicts. Every piece of text is escaped with
``html.escape``, bidi controls removed; the page has no script, no link and no external asset.
"""
from __future__ import annotations

import html
import math
from datetime import datetime, timezone
from typing import Any, Sequence

from rageval.config import RunConfig
from rageval.errors import ConfigError
from rageval.project import Project
from rageval.report.leaderboard import MAIN_METRICS, domain_means, item_values, judge_label, run_name
from rageval.report.meaning import info
from rageval.report.settle import COPIED, PEOPLE, UNDECIDED, badge_counts, settled_claims
from rageval.report.summary import (LOW_CONFIDENCE, OFFLINE_VERDICT_NOTE, claim_hints, evidence_prefix,
                                    is_low_confidence, low_confidence_claims, low_confidence_text, run_summaries)
from rageval.store import runs as run_store
from rageval.store.record import Run
from rageval.text.hygiene import without_bidi
from rageval.util import shown

_VERDICT = {"SUPPORTED": ("#dcf5e3", "#1e6b3a"), "CONTRADICTED": ("#fde0e0", "#a61b1b"),
            "NOT_MENTIONED": ("#fff1cc", "#8a5a00"), "UNVERIFIED": ("#eef0f3", "#4a5261")}
_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;max-width:980px;
  margin:2rem auto;padding:0 1rem;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}
h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #dde2ea;padding-bottom:.2rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;padding:.3rem .45rem;border-bottom:1px solid #e8ebf1;vertical-align:top}
th{background:#f3f5f9}.num{text-align:right;font-variant-numeric:tabular-nums}.muted{color:#5f6878;font-size:.85rem}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:.8rem}
.card{border:1px solid #e3e7ee;border-radius:.5rem;padding:.5rem .6rem}
.badge{border-radius:999px;padding:0 .45rem;font-size:.75rem;font-weight:600;border:1px solid}
.box{white-space:pre-wrap;background:#fafbfd;border:1px solid #e3e7ee;border-radius:.4rem;
  padding:.4rem .6rem;margin:.2rem 0 .5rem}
@media (prefers-color-scheme: dark){
  body{background:#13161c;color:#e6e9ef}th{background:#1f242d}td,th{border-color:#2c323d}
  .box{background:#1a1e25;border-color:#2c323d}.card{border-color:#2c323d}.muted{color:#9aa3b2}
}
"""


def esc(text: Any) -> str:
    """``text`` escaped for HTML, without bidi controls (:func:`rageval.text.hygiene.without_bidi`)."""
    return html.escape(without_bidi("" if text is None else str(text)), quote=True)


def _fmt(x: Any) -> str:
    return shown(x)


def histogram_svg(values: Sequence[float], low: float, high: float, *, bins: int = 10,
                  width: int = 200, height: int = 60) -> str:
    """An inline SVG bar chart of ``values`` in ``bins`` equal bins over [low, high] (clamped)."""
    if not values:
        return '<span class="muted">no scored items</span>'
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        low, high = min(values), max(values)
        if high <= low:
            high = low + 1.0
    counts = [0] * bins
    for v in values:
        i = int((min(max(v, low), high) - low) / (high - low) * bins)
        counts[min(i, bins - 1)] += 1
    top = max(counts)
    bw = width / bins
    bars = "".join(
        f'<rect x="{i * bw + 1:.1f}" y="{height - 14 - c / top * (height - 18):.1f}" width="{bw - 2:.1f}" '
        f'height="{c / top * (height - 18):.1f}" fill="#2f5fd0"><title>{c}</title></rect>'
        for i, c in enumerate(counts))
    axis = (f'<text x="0" y="{height - 2}" font-size="9" fill="currentColor">{low:g}</text>'
            f'<text x="{width}" y="{height - 2}" font-size="9" text-anchor="end" fill="currentColor">{high:g}</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
            f'aria-label="histogram">{bars}{axis}</svg>')


def _badge(verdict: str, low_confidence: bool = False) -> str:
    """A verdict pill. A low-confidence verdict is grey and dashed and reads "possibly contradicted
    (low confidence)" and so on, so that it is never taken for a firm verdict."""
    if low_confidence:
        return (f'<span class="badge" style="background:#f4f5f7;color:#4a5160;border-color:#8a93a3;'
                f'border-style:dashed">{esc(_UNSURE.get(verdict, verdict))} ({LOW_CONFIDENCE})</span>')
    bg, fg = _VERDICT.get(verdict, ("#eceff4", "#444"))
    return f'<span class="badge" style="background:{bg};color:{fg};border-color:{fg}">{esc(verdict)}</span>'


_UNSURE = {"SUPPORTED": "possibly supported", "CONTRADICTED": "possibly contradicted",
           "NOT_MENTIONED": "possibly not mentioned"}


def _reason(claim: dict[str, Any]) -> str:
    """The claim's reason, then its hints (an UNVERIFIED claim's observations for a person)."""
    found = claim_hints(claim)
    return "; ".join(x for x in (claim.get("reason") or "", "hints: " + "; ".join(found) if found else "") if x)


def _confidence(claim: dict[str, Any]) -> str:
    conf = (claim.get("details") or {}).get("confidence")
    return f"{conf:.2f}" if isinstance(conf, (int, float)) else "—"


def _correlations(project: Project, run_id: str, values) -> list[tuple[str, float, float, int]]:
    """(metric, Spearman rho, p, n) of each metric against the item's mean human rating."""
    ratings = run_store.ratings(project.db_path, run_id)
    if not ratings:
        return []
    from scipy.stats import spearmanr

    per_item: dict[str, list[int]] = {}
    for r in ratings:
        per_item.setdefault(r["item_id"], []).append(r["rating"])
    mean_rating = {k: sum(v) / len(v) for k, v in per_item.items()}
    out = []
    ok = values[values["status"] == "ok"]
    for metric, group in ok.groupby("metric"):
        pairs = [(v, mean_rating[i]) for i, v in zip(group["item_id"], group["value"]) if i in mean_rating]
        if len(pairs) < 3 or len({p[0] for p in pairs}) < 2:
            continue
        res = spearmanr([p[0] for p in pairs], [p[1] for p in pairs])
        out.append((str(metric), float(res.statistic), float(res.pvalue), len(pairs)))
    return sorted(out, key=lambda x: -abs(x[1]))


def _worst_metric(summaries) -> str | None:
    names = [s.metric for s in summaries if s.mean is not None]
    for m in ("answer_correctness_offline", "ragas_answer_correctness", "faithfulness", "token_f1"):
        if m in names:
            return m
    return next((m for m in names if m in MAIN_METRICS), names[0] if names else None)


def run_report_html(project: Project, run_id: str, *, worst: int = 8, regressions: Any = None,
                    limit: int = 20, sections: Sequence[str] = ()) -> str:
    """The report of ``run_id`` as one self-contained HTML page; with ``regressions`` (the
    :class:`rageval.views.regressions.Regressions` of a baseline run against this one) it also
    lists the questions that got worse and better since the baseline, up to ``limit`` of each.
    ``sections`` are HTML sections put after the agreement with human ratings (the views' trust
    section: :func:`rageval.views.trust.report_section`)."""
    run = run_store.get_run(project.db_path, run_id)
    if run is None:
        raise ConfigError(f"run {run_id!r} does not exist in project {project.slug!r}")
    base_run = None
    if regressions is not None:
        if regressions.run_b != run_id:
            raise ConfigError(f"the per-question list compares {regressions.run_a} with {regressions.run_b}, "
                              f"not with run {run_id}")
        base_run = run_store.get_run(project.db_path, regressions.run_a)
    summaries = run_summaries(project, run_id)
    values = item_values(project, [run_id])
    cfg = run.config
    parts = [f"<h1>{esc(run_name(run))}</h1>",
             f'<p class="muted">Run {esc(run_id)} · project {esc(project.slug)} · {esc(run.status)} '
             f'{run.done}/{run.n_items} items, {run.failed} failed · {esc(judge_label(run))} · report made '
             f'{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC</p>']
    settings = {k: getattr(cfg, k, None) for k in ("corpus", "qa_set", "generator", "judge", "embedder", "top_k",
                                                   "chunking", "language", "source")}
    settings = {k: v for k, v in settings.items() if v not in (None, "")}
    if isinstance(cfg, RunConfig):
        settings["chunking"] = f"{cfg.chunking.method}, size {cfg.chunking.size}, overlap {cfg.chunking.overlap}"
    parts.append("<h2>Settings</h2><table>" + "".join(
        f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in settings.items()) + "</table>")
    parts.append("<h2>Summary</h2><p class='muted'>Means are over the items each metric scored; unscored "
                 "items (a missing input or a judge failure) are counted, never averaged in as 0.</p>")
    rows = []
    for s in summaries:
        i = info(s.metric)
        cov = "—" if s.coverage is None else f"{100 * s.coverage:.0f}%"
        rows.append(f"<tr><td><b>{esc(s.metric)}</b>{' <span class=muted>(heuristic)</span>' if s.heuristic else ''}"
                    f"</td><td class='num'>{_fmt(s.mean)}</td><td class='num'>{cov}</td><td class='num'>{s.n_ok}</td>"
                    f"<td class='num'>{s.n_unscored + s.n_failed}</td><td>{esc(i.range_text)}, {esc(i.direction)}</td>"
                    f"<td class='muted'>{esc(i.what)}</td></tr>")
    parts.append("<table><tr><th>metric</th><th class='num'>mean</th><th class='num'>coverage</th>"
                 "<th class='num'>scored</th><th class='num'>unscored</th><th>range</th><th>what it measures</th></tr>"
                 + "".join(rows) + "</table>")
    if any(s.coverage is not None for s in summaries):
        parts.append("<p class='muted'>Coverage: the share of claims decided. The claim metrics count decided "
                     "claims only; an UNVERIFIED claim is not an error, it is one nobody has decided yet.</p>")
    settled = settled_claims(project, run_id)
    if settled:
        offline = any(c.authority in (COPIED, UNDECIDED) for c in settled) and any(s.heuristic for s in summaries)
        parts.append(f"<p><b>Claims:</b> {esc(_verdict_counts(settled))}; settled {esc(badge_counts(settled))}. "
                     "A claim's verdict is settled by people's labels first, then a judge, then a copy from a "
                     "context; the claim metrics above count these settled verdicts."
                     + (f" {esc(OFFLINE_VERDICT_NOTE)}" if offline else "") + "</p>")
    low, total = low_confidence_claims(project, run_id)
    if low:
        parts.append(f"<p><b>Claims:</b> {esc(low_confidence_text(low, total))}. The verifier was not sure of these "
                     "verdicts; they are shown as \"possibly ...\" below and should be checked by a person "
                     "before anyone acts on them.</p>")
    parts.append("<h2>Distributions</h2><div class='grid'>")
    ok = values[values["status"] == "ok"]
    for s in summaries:
        i = info(s.metric)
        vals = [float(v) for v in ok[ok["metric"] == s.metric]["value"] if v is not None]
        parts.append(f"<div class='card'><b>{esc(s.metric)}</b> <span class='muted'>{esc(i.direction)}</span><br>"
                     f"{histogram_svg(vals, i.low, i.high)}</div>")
    parts.append("</div>")
    main = _worst_metric(summaries)
    if main and values["domain"].notna().any():
        dm = domain_means(values, main)
        parts.append(
            f"<h2>{esc(main)} by domain</h2><table><tr><th>domain</th><th class='num'>mean</th>"
            "<th class='num'>items scored</th></tr>"
            + "".join(
                f"<tr><td>{esc(r.domain)}</td><td class='num'>{_fmt(r.mean)}</td><td class='num'>{r.n}</td></tr>"
                for r in dm.itertuples()
            )
            + "</table>"
        )
    corr = _correlations(project, run_id, values)
    if corr:
        parts.append("<h2>Agreement with human ratings</h2><p class='muted'>Spearman's rho of each metric "
                     "against the item's mean human rating (1-5), over items with both.</p><table><tr><th>metric"
                     "</th><th class='num'>rho</th><th class='num'>p</th><th class='num'>n</th></tr>" + "".join(
                         f"<tr><td>{esc(m)}</td><td class='num'>{rho:.2f}</td><td class='num'>{p:.3g}</td>"
                         f"<td class='num'>{n}</td></tr>" for m, rho, p, n in corr) + "</table>")
    parts += list(sections)
    if regressions is not None:
        parts.append(_regression_section(run_name(base_run) if base_run else regressions.run_a, regressions, limit))
    if main:
        parts.append(_worst_section(project, run, ok, main, worst))
    body = "\n".join(parts)
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
            f'content="width=device-width,initial-scale=1"><title>rageval report: {esc(run_name(run))}</title>'
            f"<style>{_CSS}</style></head><body>{body}<p class='muted'>Made by rageval. Metric cards: "
            f"docs/metrics.md.</p></body></html>")


def _regression_section(name: str, r: Any, limit: int) -> str:
    """The questions that got worse and better against the baseline called ``name``."""
    out = [f"<h2>Per question against {esc(name)}</h2><p class='muted'>change = this run − baseline "
           f"on {esc(r.metric)} ({'higher' if r.higher_is_better else 'lower'} is better): {len(r.worse)} worse, "
           f"{len(r.better)} better, {r.unchanged} unchanged of {r.paired} answers scored by both"
           + (f"; {r.lost} scored in the baseline but unscored here" if r.lost else "") + ".</p>"]
    for title, df in (("Worse", r.worse), ("Better", r.better)):
        if not len(df):
            continue
        more = f" (first {limit} of {len(df)})" if len(df) > limit else f" ({len(df)})"
        out.append(
            f"<h3>{title}{more}</h3><table><tr><th>#</th><th>question</th><th class='num'>baseline</th>"
            "<th class='num'>this run</th><th class='num'>change</th><th class='num'>contradicted claims</th></tr>"
        )
        out += [f"<tr><td>{esc(x['#'])}</td><td>{esc(x['question'])}</td><td class='num'>{_fmt(x['a'])}</td>"
                f"<td class='num'>{_fmt(x['b'])}</td><td class='num'>{x['change']:+.3f}</td>"
                f"<td class='num'>{x['contradicted_a']} → {x['contradicted_b']}</td></tr>"
                for x in df.head(limit).to_dict("records")]
        out.append("</table>")
    return "".join(out)


def _verdict_counts(settled: Sequence[Any]) -> str:
    """``"17 claims: 9 SUPPORTED, 5 CONTRADICTED, 2 NOT_MENTIONED, 1 UNVERIFIED"`` over settled claims,
    verdicts in that order; ``""`` for no claim."""
    order = ("SUPPORTED", "CONTRADICTED", "NOT_MENTIONED", "UNVERIFIED")
    found = [(v, sum(c.verdict == v for c in settled)) for v in order]
    text = ", ".join(f"{n} {v}" for v, n in found if n)
    return f"{len(settled)} claim{'s' if len(settled) != 1 else ''}: {text}" if settled else ""


def _worst_section(project: Project, run: Run, ok, metric: str, n: int) -> str:
    higher = info(metric).higher_is_better
    chosen = ok[ok["metric"] == metric].sort_values("value", ascending=higher).head(n)
    answers = {a["item_id"]: a for a in run_store.answers(project.db_path, run.id)}
    claims: dict[str, list[Any]] = {}
    for c in settled_claims(project, run.id):
        claims.setdefault(c.item_id, []).append(c)
    out = [f"<h2>Worst answers by {esc(metric)}</h2><p class='muted'>Each claim shows its settled verdict: "
           "people's labels first, then a judge's verdict, then a claim copied from a context; the badge says "
           "who settled it and the last column what the other sources said.</p>"]
    for item_id, value in zip(chosen["item_id"], chosen["value"]):
        a = answers.get(item_id)
        if a is None:
            continue
        out.append(f"<h3>{esc(item_id)} · {esc(metric)} {_fmt(value)}</h3>"
                   f"<div><b>Question</b><div class='box'>{esc(a['question'])}</div>"
                   f"<b>Gold answer</b><div class='box'>{esc(' | '.join(a['references']) or '(none)')}</div>"
                   f"<b>Answer</b><div class='box'>{esc(a['answer'] or '(no answer)')}</div></div>")
        item_claims = claims.get(item_id, [])
        if item_claims:
            out.append("<table><tr><th>verdict</th><th>settled by</th><th class='num'>confidence</th><th>claim</th>"
                       "<th>evidence</th><th>reason</th><th>other sources</th></tr>" + "".join(
                f"<tr><td>{_badge(c.verdict, c.authority != PEOPLE and is_low_confidence(c.record))}</td>"
                f"<td>{esc(c.badge)}</td><td class='num'>{_confidence(c.record)}</td>"
                f"<td>{esc(c.claim)}</td><td>{esc(evidence_prefix(c.record) + (c.record.get('evidence') or '—'))}"
                f"</td><td class='muted'>{esc(_reason(c.record))}</td><td class='muted'>"
                f"{esc('; '.join(x for x in [c.note, *(f'{o.name}: {o.verdict}' for o in c.others())] if x))}</td></tr>"
                for c in item_claims) + "</table>")
    return "".join(out)
