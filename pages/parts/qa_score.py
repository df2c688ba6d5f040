"""Scoring answers produced by the user's own RAG system, for the QA sets page (a helper module, not a page)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pages.parts import common, data, nav
from rageval.errors import InputError
from rageval.views import qa_sets as view

TYPES = ["csv", "json", "jsonl"]


def row_errors(errors) -> None:
    if errors:
        st.warning(f"{len(errors)} row(s) rejected; the other rows were kept.")
        st.code("\n".join(str(e) for e in errors), language=None)


def score_own(p) -> None:
    st.subheader("Score your own answers")
    st.caption("Rows with `id, question, answer, contexts, reference` (RAGAS names accepted). "
               "The scored answers are kept as an import run and appear on the Answers page.")
    upload = st.file_uploader("Answers file", type=TYPES, key="answers_upload")
    options, default, cannot = view.metric_choice()
    if upload is not None:
        try:
            options, default, cannot = view.metric_choice(upload.name, upload.getvalue())
        except InputError as exc:
            st.error(common.md(str(exc)))
    c1, c2 = st.columns([3, 1])
    metrics = c1.multiselect("Metrics", options, default=default, key="score_metrics",
                             help="Hover a column of the Answers page for a metric's meaning; cards in docs/metrics.md")
    judge = common.spec_input("Judge", "heuristic", key="score_judge", model="gpt-4o-mini", container=c2)
    skipped = view.skipped(options, cannot)
    if skipped:
        st.caption("Not selected: " + common.md(", ".join(f"{m} ({cannot[m]})" for m in skipped)) + ".")
    if st.button("Score", type="primary", key="score_go", disabled=upload is None or not metrics):
        with st.spinner("Scoring…"):
            result, errors = view.score_answers(p, upload.name, upload.getvalue(), metrics=metrics, judge=judge)
        st.session_state["score_result"] = (result, errors)
        data.bump()
    if "score_result" not in st.session_state:
        return
    result, errors = st.session_state["score_result"]
    row_errors(errors)
    if result is None:
        st.error("No usable rows to score.")
        return
    table = pd.DataFrame(result.rows)
    st.success(f"Scored {len(table)} answer(s); stored as run {common.md(result.run_id)}.")
    common.dataframe(table, hide_index=True, width="stretch")
    c1, c2, c3 = st.columns([1, 1, 3])
    c1.download_button("Download JSONL", view.jsonl(result.rows), "scores.jsonl", "application/json", key="dl_jsonl")
    c2.download_button("Download CSV", view.table_csv(table), "scores.csv", "text/csv", key="dl_csv")
    c3.page_link(nav.PAGES["answers"], label="Inspect them on the Answers page", icon=":material/fact_check:")
