"""Correlations: how far each metric agrees with the human ratings, and with the other metrics."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pages import common
from rageval import human
from rageval.human import plain
from rageval.views import charts
from rageval.report.exports import table_csv
from rageval.util import shown


def compute_box(p, runs: list[dict]) -> None:
    by_id = {r["id"]: r for r in runs}
    with st.expander("New analysis", expanded=not human.list_analyses(p)):
        chosen = st.multiselect("Runs", list(by_id), default=list(by_id)[:1], key="co_runs",
                                format_func=lambda i: common.run_title(by_id[i]))
        c1, c2, c3 = st.columns(3)
        group = c1.selectbox("Group by", human.GROUPINGS, key="co_group")
        method = c2.selectbox("Method", ("spearman", "kendall", "pearson"), key="co_method")
        cons = c3.selectbox("Consensus", human.CONSENSUS, key="co_consensus")
        if st.button("Compute and store", key="co_compute", type="primary", disabled=not chosen):
            with st.spinner("Correlating (bootstrap CIs)…"):
                a = human.correlate_runs(p, chosen, group_by=group, method=method, consensus_method=cons)
            st.session_state["co_analysis"] = a.id
            common.bump()


def agreement_box(p, a: human.Analysis) -> None:
    """How far the annotators agree with each other (the ceiling any metric is read against)."""
    ag = human.agreement(p, list(a.runs), by="domain")
    o = ag["overall"]
    if not o["annotators"]:
        st.info("These runs have no human ratings yet: rate answers on the Human review page.")
        return
    show = shown

    st.markdown(f"**Annotators:** {o['annotators']} on {o['answers']} answers; Krippendorff's alpha (ordinal) "
                f"{show(o['alpha'], '{:.2f}')}; exact agreement {show(o['exact'], '{:.0%}')}, within one "
                f"{show(o['within_one'], '{:.0%}')} of {o['pairs']} pairs.")
    with st.expander("Agreement per domain and pairwise weighted kappa"):
        common.dataframe(pd.DataFrame({g: {k: v[k] for k in ("annotators", "answers", "alpha", "exact", "within_one")}
                                   for g, v in ag["groups"].items()}).T, width="stretch")
        common.dataframe(pd.DataFrame(o["kappa"]), width="stretch")


def table_text(a: human.Analysis) -> pd.DataFrame:
    """The paper-style table as text: rho [CI] (n) per metric and group, human ceiling last."""
    rows = {}
    for m in list(a.table().index):
        rows[m] = {}
        for g in a.groups:
            c = a.cell(g, m, "human")
            if c is None or c["rho"] is None:
                rows[m][g] = "n/a" if c is None else plain.na(c['reason'])
            elif c["ci_low"] is None:
                rows[m][g] = f"{c['rho']:.2f} (n={c['n']})"
            else:
                rows[m][g] = f"{c['rho']:.2f} [{c['ci_low']:.2f}, {c['ci_high']:.2f}] (n={c['n']})"
    return pd.DataFrame(rows).T


def main() -> None:
    p = common.project()
    st.title("Correlations")
    runs = common.finished_runs(p)
    common.need(runs, "No finished run yet: correlations need scored answers and human ratings.", "run", "Start a run")
    if p.slug == "demo":
        st.caption("The demo's human ratings are illustrative (written for the demo, not collected in a study).")
    compute_box(p, runs)
    stored = human.list_analyses(p)
    common.need(stored, "No stored analysis yet: choose runs above and compute one (rate answers on Human review).",
                "human_review", "Rate answers")
    ids = [s["id"] for s in stored]
    default = ids.index(st.session_state["co_analysis"]) if st.session_state.get("co_analysis") in ids else 0
    with st.expander(f"Stored analyses ({len(stored)})"):
        common.dataframe(pd.DataFrame([{k: s[k] for k in ("id", "method", "grouping", "groups", "created")}
                                   | {"runs": ", ".join(s["runs"])} for s in stored]), hide_index=True)
    aid = st.selectbox("Analysis", ids, index=default, key="co_open")
    a = human.open_analysis(p, aid)
    st.caption(f"{a.method}, runs {', '.join(a.runs)}, grouped by {a.grouping}; consensus "
               f"{a.settings.get('consensus')}, {a.settings.get('n_boot')} bootstrap resamples, "
               f"seed {a.settings.get('seed')}")
    agreement_box(p, a)
    st.subheader("Agreement with the human score", anchor=False)
    table = table_text(a)
    common.dataframe(table, width="stretch")
    st.download_button("Table (CSV)", table_csv(table, index=True), f"{aid}-table.csv", key="co_dl_table")
    st.download_button("All cells (CSV)", table_csv(a.cells), f"{aid}-cells.csv",
                       key="co_dl_cells")
    group = st.selectbox("Group", a.groups, key="co_groupsel") if len(a.groups) > 1 else a.groups[0]
    st.plotly_chart(charts.heatmap(a, group), key="co_heatmap")
    by_id = {r["id"]: r for r in runs}
    frame = common.human_frame(p, [by_id[i] for i in a.runs if i in by_id], a.settings.get("consensus", "median"))
    metrics = [m for m in human.metric_columns(frame) if m != "human"]
    if metrics and frame["human"].notna().any():
        metric = st.selectbox("Scatter: metric against the human score", metrics, key="co_scatter")
        st.plotly_chart(charts.scatter(frame, metric), key="co_scatter_fig")


common.run_page(main)
