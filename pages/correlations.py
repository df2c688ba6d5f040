"""Correlations: how far each metric agrees with the human ratings, and with the other metrics."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pages.parts import common, data
from rageval.views import correlations as view


def compute_box(p, runs: list) -> None:
    if not data.can("run"):  # storing an analysis changes the project: not a viewer's
        return
    by_id = {r.id: r for r in runs}
    rated = view.rated_runs(p, list(by_id))
    with st.expander("New analysis", expanded=not view.analyses(p)):
        if not rated:
            st.info("None of the finished runs has human ratings yet: rate answers on the Human review page "
                    "first, then compute an analysis here.")
        chosen = st.multiselect("Runs", list(by_id), default=rated[:1], key="co_runs",
                                format_func=lambda i: common.run_title(by_id[i])
                                + ("" if i in rated else " (no ratings)"))
        c1, c2, c3 = st.columns(3)
        group = c1.selectbox("Group by", view.GROUPINGS, key="co_group")
        method = c2.selectbox("Method", view.METHODS, key="co_method")
        cons = c3.selectbox("Consensus", view.CONSENSUS, key="co_consensus")
        if st.button("Compute and store", key="co_compute", type="primary", disabled=not chosen):
            with st.spinner("Correlating (bootstrap CIs)…"):
                a = view.correlate(p, chosen, group_by=group, method=method, consensus=cons)
            st.session_state["co_analysis"] = a.id
            data.bump()


def agreement_box(p, a: view.Analysis) -> None:
    """How far the annotators agree with each other (the ceiling any metric is read against)."""
    ag = view.rater_agreement(p, a)
    o = ag["overall"]
    if not o["annotators"]:
        st.info("These runs have no human ratings yet: rate answers on the Human review page.")
        return
    st.markdown(view.agreement_sentence(o))
    with st.expander("Agreement per domain and pairwise weighted kappa"):
        common.dataframe(view.group_agreement(ag), width="stretch")
        common.dataframe(pd.DataFrame(o["kappa"]), width="stretch")


def claims_box(p) -> None:
    """People's claim labels: their agreement with each other, and every claim verifier's with them."""
    st.subheader("Claim verifiers against people", anchor=False)
    rows, raters = data.claim_trust(p)
    st.markdown(common.md(view.raters_sentence(raters)))
    if rows:
        common.dataframe(view.verifier_frame(rows).round(3), hide_index=True, width="stretch")
        for r in rows:
            with st.expander(f"Confusion matrix: {common.plain(r['verifier'])}"):
                st.caption(common.md(f"{view.verifier_sentence(r)}  \nsignature: {r['signature']}"))
                common.dataframe(r["confusion"], width="stretch")


def main() -> None:
    p = data.project()
    st.title("Correlations")
    runs = data.finished_runs(p)
    common.need(runs, "No finished run yet: correlations need scored answers and human ratings.", "run", "Start a run")
    if p.slug == "demo":
        st.caption("The demo's human ratings and claim labels are illustrative (written for the demo, not collected "
                   "in a study).")
    compute_box(p, runs)
    claims_box(p)
    stored = view.analyses(p)
    common.need(stored, "No stored analysis yet: choose runs above and compute one (rate answers on Human review).",
                "human_review", "Rate answers")
    ids = [s["id"] for s in stored]
    default = ids.index(st.session_state["co_analysis"]) if st.session_state.get("co_analysis") in ids else 0
    with st.expander(f"Stored analyses ({len(stored)})"):
        common.dataframe(pd.DataFrame(view.analysis_rows(stored)), hide_index=True)
    aid = st.selectbox("Analysis", ids, index=default, key="co_open")
    a = view.open_analysis(p, aid)
    st.caption(f"{a.method}, runs {', '.join(a.runs)}, grouped by {a.grouping}; consensus "
               f"{a.settings.get('consensus')}, {a.settings.get('n_boot')} bootstrap resamples, "
               f"seed {a.settings.get('seed')}")
    agreement_box(p, a)
    st.subheader("Agreement with the human score", anchor=False)
    table = view.table_text(a)
    common.dataframe(table, width="stretch")
    st.download_button("Table (CSV)", view.table_csv(table, index=True), f"{aid}-table.csv", key="co_dl_table")
    st.download_button("All cells (CSV)", view.table_csv(a.cells), f"{aid}-cells.csv",
                       key="co_dl_cells")
    group = st.selectbox("Group", a.groups, key="co_groupsel") if len(a.groups) > 1 else a.groups[0]
    st.plotly_chart(view.heatmap(a, group), key="co_heatmap")
    by_id = {r.id: r for r in runs}
    frame = data.human_frame(p, [by_id[i] for i in a.runs if i in by_id], a.settings.get("consensus", "median"))
    metrics = view.scatter_metrics(frame)
    if metrics:
        metric = st.selectbox("Scatter: metric against the human score", metrics, key="co_scatter")
        st.plotly_chart(view.scatter(frame, metric), key="co_scatter_fig")


common.run_page(main)
