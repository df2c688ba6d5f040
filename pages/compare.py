"""Compare: are runs really different on a metric (or the human score)? Tests and a verdict."""
from __future__ import annotations

import streamlit as st

from pages.parts import common, data, nav
from rageval.views import compare as view

_NUMBER = st.column_config.NumberColumn
_REGRESSION_CONFIG = {"link": st.column_config.LinkColumn("side by side", display_text="open"),
                      "question": st.column_config.TextColumn(width="large"), "a": _NUMBER("A", format="%.3f"),
                      "b": _NUMBER("B", format="%.3f"), "change": _NUMBER("B − A", format="%+.3f"),
                      "contradicted_a": _NUMBER("contradicted claims in A"), "contradicted_b": _NUMBER("in B")}


def regression_lists(p, runs, metric: str) -> None:
    """The answers that got worse and better from run A to run B (rageval.views.regressions),
    each with a link to the two answers side by side on the Answers page."""
    r = data.regressions(p, runs, metric)
    st.subheader("Per question: what got worse, what got better")
    st.caption(common.md(f"change = B − A on {metric} ({'higher' if r.higher_is_better else 'lower'} is better); "
                         f"{len(r.worse)} worse, {len(r.better)} better, {r.unchanged} unchanged of {r.paired} "
                         "answers scored by both" + (f"; {r.lost} scored in A but unscored in B" if r.lost else "")
                         + (f"; {r.gained} unscored in A but scored in B" if r.gained else "")))
    cols = ["#", "question", "a", "b", "change", "contradicted_a", "contradicted_b", "link"]
    for title, df, key in (("Worse in B", r.worse, "cmp_worse"), ("Better in B", r.better, "cmp_better")):
        with st.expander(f"{title} ({len(df)})", expanded=title.startswith("Worse") and len(df) > 0):
            st.dataframe(df[cols], hide_index=True, width="stretch", column_config=_REGRESSION_CONFIG, key=key)


def main() -> None:
    p = data.project()
    st.title("Compare runs")
    runs = data.finished_runs(p)
    common.need(len(runs) >= 2, "Comparing needs two or more finished runs over the same QA items.", "run",
                "Start a run")
    by_id = {r.id: r for r in runs}
    nav.url_state({"runs": ("cmp_runs", []), "metric": ("cmp_metric", "")})
    st.session_state["cmp_runs"] = [i for i in st.session_state.get("cmp_runs", []) if i in by_id] or list(by_id)[:2]
    chosen = st.multiselect("Runs", list(by_id), key="cmp_runs", format_func=lambda i: common.run_title(by_id[i]))
    common.need(len(chosen) >= 2, "Pick at least two runs.")
    picked = [by_id[i] for i in chosen]
    options = view.metric_options(data.human_frame(p, picked))
    common.need(options, "These runs have no metric scored on the same answers: pick runs of one QA set.")
    if st.session_state.get("cmp_metric") not in options:
        st.session_state["cmp_metric"] = view.default_metric(options)
    metric = st.selectbox("Metric", options, key="cmp_metric", format_func=common.label,
                          help="'human' is the consensus of the human ratings")
    c = data.comparison(p, picked, metric)
    (st.success if c.reliable else st.info)(common.md(c.verdict))
    if len(picked) == 2:  # the human rating's difference with a prediction-powered interval
        d = data.ppi_difference(p, picked, None if metric == "human" else metric)
        st.caption("PPI: " + common.md(view.estimate_sentence(d)))
    table = view.summary_table(c, view.run_coverage(p, chosen, metric))
    common.dataframe(table.round(3), width="stretch")
    st.download_button("Summary (CSV)", view.table_csv(table, index=True), "compare.csv", key="cmp_dl")
    if c.friedman.statistic is not None:
        st.caption(f"Friedman chi2 = {c.friedman.statistic:.3f}, p = {c.friedman.p:.3g}, n = {c.n} items; "
                   f"{'higher' if c.higher_is_better else 'lower'} is better; mean ranks count higher as better.")
    st.plotly_chart(view.cd_diagram(c), key="cmp_cd")
    if c.conover is not None:
        left, right = st.columns(2)
        left.markdown("**Conover post-hoc p-values (Holm)**")
        left.dataframe(c.conover.round(4))
        right.markdown("**Nemenyi post-hoc p-values**")
        right.dataframe(c.nemenyi.round(4))
        st.download_button("Post-hoc p-values (CSV)", view.table_csv(c.conover, index=True), "conover.csv",
                           key="cmp_dl_post")
    if c.wilcoxon is not None and c.wilcoxon.p is not None:
        st.caption(f"Wilcoxon signed-rank W = {c.wilcoxon.statistic:.1f}, p = {c.wilcoxon.p:.3g}; mean difference "
                   f"B − A {c.difference.diff:+.3f}, 95% bootstrap CI [{c.difference.ci_low:+.3f}, "
                   f"{c.difference.ci_high:+.3f}]; {c.changed} of {c.n} paired answers changed")
    if view.has_regressions(chosen, metric):
        regression_lists(p, picked, metric)


common.run_page(main)
