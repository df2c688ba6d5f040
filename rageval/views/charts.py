"""Plotly figures of analyses and comparisons (built here so pages stay thin and tests can check them).

- Heatmap: rho in each cell, a star when p < 0.05 (two when p < 0.01), hover n / p / CI.
- Scatter of a metric against the human score, with a seeded vertical jitter of +-0.15 on the
  1-5 scale so that equal ratings do not hide each other (the jitter is only drawn, never stored).
- Critical-difference diagram (Demsar 2006): runs placed on their mean rank; runs whose mean
  ranks differ by less than the critical difference are joined by a bar.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from rageval.human.analysis import Analysis
from rageval.human.compare import Comparison


def _stars(p) -> str:
    if p is None or (isinstance(p, float) and np.isnan(p)):
        return ""
    return "**" if p < 0.01 else ("*" if p < 0.05 else "")


def heatmap(analysis: Analysis, group: str) -> go.Figure:
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
                trow.append("n/a")
                hrow.append(f"{a} vs {b}: undefined ({(c or {}).get('reason')}), n = {(c or {}).get('n')}")
            else:
                trow.append(f"{c['rho']:.2f}{_stars(c['p'])}")
                ci = f"[{c['ci_low']:.2f}, {c['ci_high']:.2f}]" if c["ci_low"] is not None else "n/a"
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
    fig.add_trace(go.Scatter(x=[r for _, r in ranks], y=[0] * k, mode="markers+text", text=[n for n, _ in ranks],
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
