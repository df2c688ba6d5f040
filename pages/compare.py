"""Compare: are runs really different on a metric (or the human score)? Tests and a verdict."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pages import common
from rageval import human
from rageval.views import charts
from rageval.report.exports import table_csv


def main() -> None:
    p = common.project()
    st.title("Compare runs")
    runs = common.finished_runs(p)
    common.need(len(runs) >= 2, "Comparing needs two or more finished runs over the same QA items.", "run",
                "Start a run")
    by_id = {r["id"]: r for r in runs}
    common.url_state({"runs": ("cmp_runs", []), "metric": ("cmp_metric", "")})
    st.session_state["cmp_runs"] = [i for i in st.session_state.get("cmp_runs", []) if i in by_id] or list(by_id)[:2]
    chosen = st.multiselect("Runs", list(by_id), key="cmp_runs", format_func=lambda i: common.run_title(by_id[i]))
    common.need(len(chosen) >= 2, "Pick at least two runs.")
    picked = [by_id[i] for i in chosen]
    frame = common.human_frame(p, picked)
    options = human.shared_metric_columns(frame)
    common.need(options, "These runs have no metric scored on the same answers: pick runs of one QA set.")
    from rageval.demo import DEMO_COMPARE_METRIC

    if st.session_state.get("cmp_metric") not in options:
        st.session_state["cmp_metric"] = DEMO_COMPARE_METRIC if DEMO_COMPARE_METRIC in options else options[0]
    metric = st.selectbox("Metric", options, key="cmp_metric", format_func=common.label,
                          help="'human' is the consensus of the human ratings")
    c = common.comparison(p, picked, metric)
    (st.success if c.reliable else st.info)(common.md(c.verdict))
    labels = {r: f"{chr(65 + i)} · {c.name(r)}" for i, r in enumerate(c.runs)}
    table = pd.DataFrame({"mean": c.means, "mean rank": c.mean_ranks, "first-rank share": c.first_rank_share})
    table.index = [labels[r] for r in table.index]
    common.dataframe(table.round(3), width="stretch")
    st.download_button("Summary (CSV)", table_csv(table, index=True), "compare.csv", key="cmp_dl")
    if c.friedman.statistic is not None:
        st.caption(f"Friedman chi2 = {c.friedman.statistic:.3f}, p = {c.friedman.p:.3g}, n = {c.n} items; "
                   f"{'higher' if c.higher_is_better else 'lower'} is better; mean ranks count higher as better.")
    st.plotly_chart(charts.cd_diagram(c), key="cmp_cd")
    if c.conover is not None:
        l, r = st.columns(2)
        l.markdown("**Conover post-hoc p-values (Holm)**")
        l.dataframe(c.conover.round(4))
        r.markdown("**Nemenyi post-hoc p-values**")
        r.dataframe(c.nemenyi.round(4))
        st.download_button("Post-hoc p-values (CSV)", table_csv(c.conover, index=True), "conover.csv",
                           key="cmp_dl_post")
    if c.wilcoxon is not None and c.wilcoxon.p is not None:
        st.caption(f"Wilcoxon signed-rank W = {c.wilcoxon.statistic:.1f}, p = {c.wilcoxon.p:.3g}; mean difference "
                   f"B − A {c.difference.diff:+.3f}, 95% bootstrap CI [{c.difference.ci_low:+.3f}, "
                   f"{c.difference.ci_high:+.3f}]; {c.changed} of {c.n} paired answers changed")
    if len(chosen) == 2 and metric != "human" and "#" not in metric:
        common.regression_lists(p, picked, metric)


common.run_page(main)
