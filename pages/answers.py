"""Answers: per-run metric means, a sortable filterable table of every answer, each answer's
claims, evidence and scores, plots, and the same question side by side across two runs."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pages import answer_compare, answer_view, common
from rageval.views import queries as q
from rageval.views import answer_table as at_model
from rageval.report import table_csv
from rageval.report.meaning import info


def filters(full, summaries: list[q.MetricSummary]):
    """Filters by verdicts, unscored metrics and a metric threshold, over the answers table."""
    common.url_state({"contradicted": ("ans_contradicted", False), "unscored": ("ans_unscored", False),
                      "metric": ("ans_metric", "(any)"), "threshold": ("ans_direction", "off")})
    c1, c2, c3, c4, c5 = st.columns([1.3, 1, 1.2, 0.9, 1.4])
    contradicted = c1.toggle("With contradicted claims", key="ans_contradicted")
    unscored = c2.toggle("Unscored", key="ans_unscored", help="with a metric selected: unscored by that metric")
    if st.session_state.get("ans_metric") not in ["(any)"] + [s.metric for s in summaries]:
        st.session_state.pop("ans_metric", None)
    metric = c3.selectbox("Metric", ["(any)"] + [s.metric for s in summaries], key="ans_metric",
                          format_func=lambda m: m if m == "(any)" else common.label(m))
    metric = None if metric == "(any)" else metric
    direction = c4.selectbox("Threshold", ["off", "below", "at least"], key="ans_direction", disabled=metric is None)
    low, high = at_model.bounds(full, metric) if metric else (0.0, 1.0)
    key = f"ans_value_{metric}"
    if metric and direction != "off":  # the value is part of the view only while a threshold is on
        common.url_state({"value": (key, 0.0)})
    if not low <= st.session_state.get(key, low) <= high:
        st.session_state.pop(key)
    st.session_state.setdefault(key, (low + high) / 2)
    value = c5.slider("Value", low, high, key=key, disabled=metric is None or direction == "off")
    return at_model.filter_scores(full, contradicted=contradicted, unscored=unscored, metric=metric,
                                  below=value if metric and direction == "below" else None,
                                  at_least=value if metric and direction == "at least" else None)


def table(p, run, full, shown):
    """The filtered answers as a sortable table; a selected row opens that answer below."""
    common.url_state({"search": ("ans_search", ""), "diagnosis": ("ans_diag", ""), "domain": ("ans_domain", ""),
                      "hedges": ("ans_hedged", False)})
    c1, c2, c3, c4, c5 = st.columns([2, 1.2, 1.2, 0.8, 0.8], vertical_alignment="bottom")
    text = c1.text_input("Search question or answer", key="ans_search")
    diagnosis = c2.selectbox("Diagnosis", [""] + sorted(d for d in full["diagnosis"].unique() if d), key="ans_diag",
                             format_func=lambda d: d or "(any)", help="likely cause of unsupported claims")
    domain = c3.selectbox("Domain", [""] + sorted(d for d in full["domain"].dropna().unique()), key="ans_domain",
                          format_func=lambda d: common.plain(d) or "(any)")
    hedged = c4.toggle("Hedges", key="ans_hedged", help="answers flagged by the hedging metric")
    rows = at_model.filter_table(shown, text=text, diagnosis=diagnosis, domain=domain, hedged=hedged)
    every = at_model.metric_columns(full)
    if st.session_state.get("ans_cols_of") != every:  # another run, other metrics: its own default columns
        st.session_state.pop("ans_cols", None)
        st.session_state["ans_cols_of"] = every
    with c5.popover("Columns", help="metric columns shown (the CSV has them all)"):
        metrics = st.multiselect("Metric columns", every, default=at_model.default_metric_columns(every),
                                 key="ans_cols", format_func=common.label)
    config = {m: st.column_config.NumberColumn(f"{common.label(m)} {'↑' if info(m).higher_is_better else '↓'}",
                                               help=common.metric_help(m), format="%.3f", width="small")
              for m in metrics}
    config.update({"#": st.column_config.NumberColumn(width=40), "id": None,  # the id: in the CSV, not on screen
                   "question": st.column_config.TextColumn(width="medium"),
                   "answer": st.column_config.TextColumn(width="medium"),
                   "supported": st.column_config.NumberColumn("✓", help="supported claims", width=40),
                   "contradicted": st.column_config.NumberColumn("✗", help="contradicted claims", width=40),
                   "not_mentioned": st.column_config.NumberColumn("?", help="claims the context does not mention",
                                                                  width=40),
                   "low_confidence": st.column_config.NumberColumn(
                       "low conf.", width=60, help="claims whose verdict the verifier gave with low confidence"),
                   "diagnosis": st.column_config.TextColumn(width="small"),
                   "hedging_flag": st.column_config.CheckboxColumn("hedges", width=60),
                   "domain": st.column_config.TextColumn(width="small")})
    base = ["#", "id", "question", "answer", "supported", "contradicted", "not_mentioned", "low_confidence",
            "diagnosis", "hedging_flag", "domain"]
    cols = [*base, *metrics]
    event = common.dataframe(rows[cols], hide_index=True, width="stretch", height=min(38 + 35 * len(rows), 360),
                         column_config=config, key="ans_table", on_select="rerun", selection_mode="single-row")
    c1, c2 = st.columns([4, 1])
    c1.caption("Click a column to sort, a row to open it below · a grey None in a metric column: not "
               "scored (a missing input), never counted as 0")
    c2.download_button("Table as CSV", lambda: table_csv(rows[[*base, *every]]), f"answers-{run['id']}.csv", "text/csv",
                       key="ans_csv")  # made when clicked, not on every rerun
    picked = getattr(getattr(event, "selection", None), "rows", None) or []
    if picked:
        st.session_state["ans_item"] = rows.iloc[picked[0]]["id"]
    return rows


def exports(p, run) -> None:
    """The run as a customer-ready HTML report, and as data (with contexts) to score elsewhere."""
    from rageval.report import export_run, run_report_html, run_table
    from rageval.report.exports import to_parquet_bytes

    with st.expander("Export this run: HTML report, JSONL, Parquet, RAGAS format, CSV"):
        st.caption("The HTML report is one self-contained page (summary, distributions, worst answers with "
                   "their claims) to mail to a customer. The data exports carry contexts and ids; the RAGAS "
                   "file (user_input, response, retrieved_contexts, reference) scores back with `rageval score`.")
        if not st.toggle("Prepare the files", key="ans_exports"):
            return
        rid = run["id"]
        c = st.columns(5)
        c[0].download_button("HTML report", run_report_html(p, rid), f"report-{rid}.html", "text/html", key="dl_report")
        c[1].download_button("JSONL", export_run(p, rid, "jsonl"), f"run-{rid}.jsonl", "application/json", key="dl_run_jsonl")
        c[2].download_button("Parquet", to_parquet_bytes(run_table(p, rid)), f"run-{rid}.parquet",
                             "application/octet-stream", key="dl_run_parquet")
        c[3].download_button("RAGAS JSONL", export_run(p, rid, "ragas"), f"ragas-{rid}.jsonl", "application/json",
                             key="dl_run_ragas")
        c[4].download_button("CSV", export_run(p, rid, "csv"), f"run-{rid}.csv", "text/csv", key="dl_run_csv")


@st.fragment
def question(p, run, other, rows) -> None:
    """The chosen answer (and the other run's, side by side): choosing another question reruns only this."""
    items = {i: common.plain(label) for i, label in
             zip(rows["id"], rows["#"].astype(str) + ". " + rows["question"].str.slice(0, 90))}
    if st.session_state.get("ans_item") not in items:
        st.session_state.pop("ans_item", None)
    item_id = st.selectbox("Question", list(items), key="ans_item", format_func=items.get,
                           on_change=common.url_write)
    view = common.answer_view(p, run, item_id)
    if view is None:
        st.info("This answer is no longer stored; reload the page.")
        return
    if view.unscored():
        st.caption("Unscored here: " + common.md("; ".join(f"{common.label(m)} ({r})" for m, r in view.unscored().items())))
    if other is not None:
        st.subheader("Side by side")
        answer_compare.side_by_side(view, common.answer_view(p, other, item_id),
                                    (common.run_title(run), common.run_title(other)))
        st.divider()
    answer_view.show(view)


def main() -> None:
    p = common.project()
    st.title("Answers")
    runs = common.finished_runs(p)
    common.need(runs, "No finished run in this project yet.", "run", "Start a run")
    by_id = {r["id"]: r for r in runs}
    common.url_state({"run": ("ans_run", ""), "run_b": ("ans_compare", ""), "question": ("ans_item", ""),
                      "tab": ("ans_tab", "Answers")})
    if st.session_state.get("ans_run") not in by_id:
        st.session_state.pop("ans_run", None)
    run = by_id[st.selectbox("Run", list(by_id), format_func=lambda i: common.run_title(by_id[i]), key="ans_run",
                             help="runs are named by what produced them and when; the id is in the address bar")]
    summaries = common.summaries(p, run)
    if summaries:
        common.metric_cards(summaries, per_row=4, notes=common.card_notes(p, run), agreement=common.agreement(p))
    else:
        st.info("This run has no metric scores.")
    reasons = [{"metric": common.label(s.metric), "reason": r, "items": n} for s in summaries for r, n in s.reasons.items()]
    if reasons:
        with st.expander(f"Unscored and why ({sum(r['items'] for r in reasons)} item-metric pairs)"):
            common.dataframe(pd.DataFrame(reasons), hide_index=True, width="stretch")
    exports(p, run)
    full = common.answer_table(p, run)
    common.need(len(full), "This run has no stored answers yet.", "run", "See the run's progress")
    others = [r for r in runs if r["id"] != run["id"]]
    if st.session_state.get("ans_compare") not in [""] + [r["id"] for r in others]:
        st.session_state.pop("ans_compare", None)
    other_id = st.selectbox("Compare with run", [""] + [r["id"] for r in others], key="ans_compare",
                            format_func=lambda i: common.run_title(by_id[i]) if i else "(none)",
                            help="the same questions answered by another run, side by side")
    other = by_id.get(other_id) if other_id else None
    if st.session_state.get("ans_tab") not in ("Answers", "Plots"):
        st.session_state.pop("ans_tab", None)
    answers_tab, plots_tab = st.tabs(["Answers", "Plots"], key="ans_tab", on_change="rerun")
    if plots_tab.open:  # drawn only when open: the plots read every value of the run
        with plots_tab:
            answer_compare.plots(p, run, other, [s.metric for s in summaries if s.mean is not None])
    if not answers_tab.open:
        return
    with answers_tab:
        rows = table(p, run, full, filters(full, summaries))
        st.caption(f"{len(rows)} of {len(full)} answers match")
        if not len(rows):
            st.info("No answer matches these filters; loosen them to see more.")
            return
        question(p, run, other, rows)


common.run_page(main)
