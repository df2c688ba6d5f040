"""Answers: per-run metric means, filters, and each answer's claims, evidence and scores."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pages import answer_view, common
from rageval import app_queries as q


def filters(views: list[q.AnswerView], summaries: list[q.MetricSummary]) -> list[q.AnswerView]:
    c1, c2, c3, c4, c5 = st.columns([1.3, 1, 1.2, 0.9, 1.4])
    contradicted = c1.toggle("With contradicted claims", key="ans_contradicted")
    unscored = c2.toggle("Unscored", key="ans_unscored", help="with a metric selected: unscored by that metric")
    metric = c3.selectbox("Metric", ["(any)"] + [s.metric for s in summaries], key="ans_metric")
    metric = None if metric == "(any)" else metric
    direction = c4.selectbox("Threshold", ["off", "below", "at least"], key="ans_direction", disabled=metric is None)
    low, high = q.value_bounds(views, metric) if metric else (0.0, 1.0)
    value = c5.slider("Value", low, high, (low + high) / 2, key=f"ans_value_{metric}",
                      disabled=metric is None or direction == "off")
    return q.filter_views(views, contradicted=contradicted, unscored=unscored, metric=metric,
                          below=value if metric and direction == "below" else None,
                          at_least=value if metric and direction == "at least" else None)


def main() -> None:
    p = common.project()
    st.title("Answers")
    runs = q.finished_runs(p)
    common.need(runs, "No finished run in this project yet.", "run", "Start a run")
    by_id = {r["id"]: r for r in runs}
    run = by_id[st.selectbox("Run", list(by_id), format_func=lambda i: q.run_label(by_id[i]), key="ans_run")]
    summaries = common.summaries(p, run)
    if summaries:
        common.metric_cards(summaries, per_row=5)
    else:
        st.info("This run has no metric scores.")
    reasons = [{"metric": s.metric, "reason": r, "items": n} for s in summaries for r, n in s.reasons.items()]
    if reasons:
        with st.expander(f"Unscored and why ({sum(r['items'] for r in reasons)} item-metric pairs)"):
            st.dataframe(pd.DataFrame(reasons), hide_index=True, width="stretch")
    views = common.answer_views(p, run)
    common.need(views, "This run has no stored answers yet.", "run", "See the run's progress")
    shown = filters(views, summaries)
    st.caption(f"{len(shown)} of {len(views)} answers match")
    if not shown:
        st.info("No answer matches these filters; loosen them to see more.")
        return
    items = {v.item_id: v for v in shown}
    view = items[st.selectbox("Question", list(items), key="ans_item",
                              format_func=lambda i: f"{items[i].ordinal + 1}. {items[i].question[:90]}")]
    if view.unscored():
        st.caption("Unscored here: " + common.md("; ".join(f"{m} ({r})" for m, r in view.unscored().items())))
    answer_view.show(view)


common.run_page(main)
