"""Plotly figures for the pages (a helper module, not a page): readable in light and dark themes.

Figures carry no colours of their own beyond one qualitative palette; ``st.plotly_chart``'s
Streamlit theme sets backgrounds and text for the active theme. Plotly.js is served by the
Streamlit server itself: nothing is fetched from an outside host.
"""
from __future__ import annotations

from typing import Sequence

import pandas as pd
import plotly.graph_objects as go

from rageval.report.meaning import info

PALETTE = ["#2f5fd0", "#e07b39", "#2a9d8f", "#c44e9a", "#8a8f2b", "#6c5ce7"]
_LAYOUT = dict(margin=dict(l=10, r=10, t=40, b=10), legend=dict(orientation="h", y=-0.2), height=360)


def means_bars(table: pd.DataFrame, metrics: Sequence[str]) -> go.Figure:
    """Grouped bars: one group per metric, one bar per run (rows of a leaderboard table)."""
    fig = go.Figure()
    labels = [f"{m} {'↑' if info(m).higher_is_better else '↓'}" for m in metrics]
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


def scatter(pairs: pd.DataFrame, metric: str, name_a: str, name_b: str) -> go.Figure:
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
