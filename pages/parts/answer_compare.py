"""Plots and run-vs-run views for the Answers page (a helper module, not a page)."""
from __future__ import annotations

import streamlit as st

from pages.parts import answer_view, common, data
from rageval.views import answers as view


def _diff_style(metrics_by_row: list[str]):
    def colour(col):
        out = []
        for i, v in zip(col.index, col):
            if v is None or v != v or abs(v) < 1e-12:
                out.append("")
                continue
            better = (v > 0) == common.higher_is_better(metrics_by_row[i])
            out.append("background-color: rgba(30,138,68,0.25)" if better else "background-color: rgba(198,40,40,0.25)")
        return out
    return colour


def side_by_side(answer: view.AnswerView, other: view.AnswerView | None, names: tuple[str, str]) -> None:
    """The same question answered by two runs, with the metric differences coloured by direction."""
    if other is None:
        st.info("The other run has no answer to this question.")
        return
    left, right = st.columns(2)
    for col, v, name in ((left, answer, names[0]), (right, other, names[1])):
        with col:
            st.markdown(f"**{common.md(name)}**")
            answer_view.answer_box(v)
            st.caption(view.verdict_counts(v))
    metrics = [m for m in answer.scores if m in other.scores]
    a = {m: answer.scores[m]["value"] for m in metrics}
    b = {m: other.scores[m]["value"] for m in metrics}
    table = view.score_diff(a, b, metrics)
    common.dataframe(table.style.apply(_diff_style(list(table["metric"])), subset=["B - A"]), hide_index=True,
                 width="stretch", key="cmp_diff",
                 column_config={c: st.column_config.NumberColumn(format="%.3f") for c in ("A", "B", "B - A")})
    st.caption("A is the run chosen above, B the one compared; green: B is better on that metric "
               "(by its direction), red: worse.")


def plots(p, run: common.Run, other: common.Run | None, metrics: list[str]) -> None:
    if not metrics:
        st.info("This run has no metric values to plot.")
        return
    metrics = view.plot_metrics(metrics)
    metric = st.selectbox("Metric", metrics, key="plot_metric", format_func=common.label,
                          help="hover a metric's card above for what it measures")
    runs = [run] + ([other] if other else [])
    names = {r.id: common.run_title(r) for r in runs}
    values = data.item_values(p, runs, [metric])
    st.plotly_chart(view.distributions(values, metric, names), key="plot_dist")
    domains = view.domain_means(values, metric)
    if len(domains) and set(domains["domain"]) != {"(no domain)"}:
        st.plotly_chart(view.domain_bars(domains, metric, names), key="plot_domain")
    else:
        st.caption("No domains in this QA set: add a `domain` column to see per-domain bars.")
    if other:
        pairs = view.paired(values, metric, run.id, other.id)
        if len(pairs):
            st.plotly_chart(view.run_scatter(pairs, metric, names[run.id], names[other.id]), key="plot_scatter")
        else:
            st.caption("No question was scored on this metric by both runs.")
    else:
        st.caption("Choose a run to compare with (above) for a run-vs-run scatter.")
