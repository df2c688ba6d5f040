"""Every Plotly figure the app draws (built here so pages stay thin and tests can check them).

Figures carry no colours of their own beyond one qualitative palette; ``st.plotly_chart``'s
Streamlit theme sets backgrounds and text for the active theme (readable in light and dark).

- Runs: mean per metric as grouped bars, distributions, per-domain bars, run-vs-run scatter.
- Heatmap: rho in each cell, a star when p < 0.05 (two when p < 0.01), hover n / p / CI.
- Scatter of a metric against the human score, with a seeded vertical jitter of +-0.15 on the
  1-5 scale so that equal ratings do not hide each other (the jitter is only drawn, never stored).
- Critical-difference diagram (Demsar 2006): runs placed on their mean rank; runs whose mean
  ranks differ by less than the critical difference are joined by a bar.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from rageval.report.meaning import info, label
from rageval.util import MISSING

if TYPE_CHECKING:  # rageval.human pulls in scipy.stats: imported when a heatmap is drawn, not with the app
    from rageval.human.analysis import Analysis
    from rageval.human.compare import Comparison


def _stars(p) -> str:
    if p is None or (isinstance(p, float) and np.isnan(p)):
        return ""
    return "**" if p < 0.01 else ("*" if p < 0.05 else "")


def heatmap(analysis: Analysis, group: str) -> go.Figure:
    from rageval.human.plain import plain_reason

    names = analysis.metrics
    rho = analysis.matrix(group, "rho")
    text, hover = [], []
    for a in names:
        trow, hrow = [], []
        for b in names:
            c = analysis.cell(group, a, b) if a != b else None
            if a == b:
                trow.append("1")
                hrow.append(a)
            elif c is None or c["rho"] is None:
                trow.append(MISSING)
                why = plain_reason((c or {}).get("reason")) or "no value"
                hrow.append(f"{a} vs {b}: undefined ({why}), n = {(c or {}).get('n')}")
            else:
                trow.append(f"{c['rho']:.2f}{_stars(c['p'])}")
                ci = f"[{c['ci_low']:.2f}, {c['ci_high']:.2f}]" if c["ci_low"] is not None else MISSING
                hrow.append(f"{a} vs {b}<br>rho = {c['rho']:.3f}, p = {c['p']:.3g}<br>n = {c['n']}, 95% CI {ci}")
        text.append(trow)
        hover.append(hrow)
    fig = go.Figure(go.Heatmap(z=rho.to_numpy(), x=names, y=names, zmin=-1, zmax=1, colorscale="RdBu",
                               text=text, texttemplate="%{text}", hovertext=hover, hoverinfo="text",
                               colorbar={"title": analysis.method}))
    fig.update_layout(height=120 + 38 * len(names), margin={"l": 10, "r": 10, "t": 30, "b": 10},
                      title=f"{analysis.method} ({group}); * p < 0.05, ** p < 0.01", yaxis={"autorange": "reversed"})
    return fig


def scatter(frame: pd.DataFrame, metric: str, *, seed: int = 0) -> go.Figure:
    part = frame[frame[metric].notna() & frame["human"].notna()]
    jitter = np.random.default_rng(seed).uniform(-0.15, 0.15, len(part))
    fig = go.Figure(go.Scatter(x=part[metric], y=part["human"] + jitter, mode="markers",
                               text=part["item_id"] + " (" + part["run_id"] + ")", hoverinfo="text+x",
                               marker={"size": 8, "opacity": 0.7}))
    fig.update_layout(xaxis_title=metric, yaxis_title="human score (jittered)", height=380,
                      margin={"l": 10, "r": 10, "t": 20, "b": 10}, yaxis={"range": [0.5, 5.5]})
    return fig


def cd_diagram(c: Comparison) -> go.Figure:
    ranks = sorted(c.mean_ranks.items(), key=lambda kv: kv[1])
    k = len(ranks)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[r for _, r in ranks], y=[0] * k, mode="markers+text", text=[c.name(n) for n,
                                                                                            _ in ranks],
                             textposition=["top center" if i % 2 else "bottom center" for i in range(k)],
                             marker={"size": 12}, hovertemplate="%{text}: mean rank %{x:.2f}<extra></extra>"))
    level = 0.25
    cd = c.critical_difference or 0.0
    cliques: list[tuple[int, int]] = []
    for i in range(k):  # maximal groups of runs closer than CD, drawn as bars under the axis
        j = max(m for m in range(i, k) if ranks[m][1] - ranks[i][1] < cd)
        if j > i and not any(j2 >= j for _, j2 in cliques):
            fig.add_shape(type="line", x0=ranks[i][1], x1=ranks[j][1], y0=-level, y1=-level,
                          line={"width": 5, "color": "#777"})
            cliques.append((i, j))
            level += 0.15
    if cd:
        fig.add_shape(type="line", x0=1, x1=1 + cd, y0=0.8, y1=0.8, line={"width": 3, "color": "#c62828"})
        fig.add_annotation(x=1 + cd / 2, y=0.95, text=f"CD = {cd:.2f}", showarrow=False)
    fig.update_layout(height=260, showlegend=False, margin={"l": 10, "r": 10, "t": 20, "b": 10},
                      xaxis={"range": [0.8, k + 0.2], "title": "mean rank (higher = better)"},
                      yaxis={"visible": False, "range": [-level - 0.2, 1.2]})
    return fig


PALETTE = ["#2f5fd0", "#e07b39", "#2a9d8f", "#c44e9a", "#8a8f2b", "#6c5ce7"]
_LAYOUT = dict(margin=dict(l=10, r=10, t=40, b=10), legend=dict(orientation="h", y=-0.2), height=360)


def means_bars(table: pd.DataFrame, metrics: Sequence[str]) -> go.Figure:
    """Grouped bars: one group per metric, one bar per run (rows of a leaderboard table)."""
    fig = go.Figure()
    labels = [f"{label(m)} {'↑' if info(m).higher_is_better else '↓'}" for m in metrics]  # readable names
    for i, row in enumerate(table.to_dict(orient="records")):
        values = [row.get(m) for m in metrics]
        fig.add_bar(name=str(row["run"]), y=labels, x=values, orientation="h", marker_color=PALETTE[i % len(PALETTE)],
                    hovertemplate="%{y}: %{x:.3f}<extra>%{fullData.name}</extra>")
    layout = {**_LAYOUT, "height": 120 + 26 * len(metrics) * max(len(table), 1)}
    fig.update_layout(barmode="group", title="Mean per metric (↑ higher is better, ↓ lower is better)", **layout)
    fig.update_yaxes(autorange="reversed")
    return fig


def distributions(values: pd.DataFrame, metric: str, names: dict[str, str]) -> go.Figure:
    """Histogram of ``metric`` over scored items, one trace per run, on the metric's own range."""
    m = info(metric)
    fig = go.Figure()
    ok = values[(values["metric"] == metric) & (values["status"] == "ok")]
    finite = m.low > float("-inf") and m.high < float("inf")
    bins = dict(start=m.low, end=m.high, size=(m.high - m.low) / 20) if finite else None
    for i, (run_id, group) in enumerate(ok.groupby("run_id", sort=False)):
        fig.add_histogram(x=group["value"], name=names.get(run_id, run_id), opacity=0.65,
                          marker_color=PALETTE[i % len(PALETTE)], **({"xbins": bins} if bins else {"nbinsx": 20}))
    fig.update_layout(barmode="overlay", title=f"{metric}: distribution over scored items ({m.direction})",
                      xaxis_title=metric, yaxis_title="answers", **_LAYOUT)
    if finite:
        fig.update_xaxes(range=[m.low, m.high])
    return fig


def domain_bars(frame: pd.DataFrame, metric: str, names: dict[str, str]) -> go.Figure:
    """Mean of ``metric`` per domain, one bar per run (``domain_means`` output)."""
    fig = go.Figure()
    for i, (run_id, group) in enumerate(frame.groupby("run_id", sort=False)):
        fig.add_bar(name=names.get(run_id, run_id), x=group["domain"], y=group["mean"],
                    customdata=group["n"], marker_color=PALETTE[i % len(PALETTE)],
                    hovertemplate="%{x}: %{y:.3f} over %{customdata} answers<extra>%{fullData.name}</extra>")
    fig.update_layout(barmode="group", title=f"{metric} per domain ({info(metric).direction})", **_LAYOUT)
    return fig


def run_scatter(pairs: pd.DataFrame, metric: str, name_a: str, name_b: str) -> go.Figure:
    """One point per question both runs scored: run A on x, run B on y, the diagonal for ties."""
    m = info(metric)
    low = m.low if m.low > float("-inf") else float(min(pairs["a"].min(), pairs["b"].min(), 0))
    high = m.high if m.high < float("inf") else float(max(pairs["a"].max(), pairs["b"].max(), 1))
    fig = go.Figure()
    fig.add_scatter(x=[low, high], y=[low, high], mode="lines", line=dict(dash="dot", color="#8a93a3"),
                    name="equal", hoverinfo="skip")
    fig.add_scatter(x=pairs["a"], y=pairs["b"], mode="markers", text=pairs["item_id"], name="questions",
                    marker=dict(size=9, color=PALETTE[0], opacity=0.75),
                    hovertemplate="%{text}<br>A %{x:.3f} · B %{y:.3f}<extra></extra>")
    fig.update_layout(title=f"{metric}: run vs run, one point per question", xaxis_title=f"A: {name_a}",
                      yaxis_title=f"B: {name_b}", **_LAYOUT)
    return fig
