"""QA sets: import questions with gold answers; score answers produced by your own RAG system."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import streamlit as st

from pages import common
from rageval import app_queries as q
from rageval.errors import InputError
from rageval.qa import import_qa
from rageval.store import runs as run_store

_TYPES = ["csv", "json", "jsonl"]


def row_errors(errors) -> None:
    if errors:
        st.warning(f"{len(errors)} row(s) rejected; the other rows were kept.")
        st.code("\n".join(str(e) for e in errors), language=None)


def import_set(p) -> None:
    with st.container(border=True):
        st.markdown("**Import a QA set**: columns `id, question, reference` (a list is fine), optional "
                    "`relevant_ids, domain`; RAGAS names (`user_input`) work too.")
        upload = st.file_uploader("QA file", type=_TYPES, key="qa_upload")
        name = st.text_input("Name", placeholder="defaults to the file name", key="qa_name").strip()
        if st.button("Import", type="primary", key="qa_import", disabled=upload is None):
            name = name or Path(upload.name).stem
            try:
                st.session_state["qa_result"] = import_qa(p, upload.name, upload.getvalue(), name=name)
            except InputError as exc:
                st.session_state.pop("qa_result", None)
                st.error(common.md(str(exc)))
                return
            common.bump()
    result = st.session_state.get("qa_result")
    if result is not None:
        if result.items:
            st.success(f"Imported {len(result.items)} question(s) as {common.md(result.name)}.")
            st.dataframe(pd.DataFrame(result.items).head(20), hide_index=True, width="stretch")
        else:
            st.error("No usable rows; nothing was imported.")
        row_errors(result.errors)


def score_own(p) -> None:
    st.subheader("Score your own answers")
    st.caption("Rows with `id, question, answer, contexts, reference` (RAGAS names accepted). "
               "The scored answers are kept as an import run and appear on the Answers page.")
    upload = st.file_uploader("Answers file", type=_TYPES, key="answers_upload")
    options = q.metric_options()
    c1, c2 = st.columns([3, 1])
    metrics = c1.multiselect("Metrics", options, default=q.default_metrics(options), key="score_metrics")
    judge = common.spec_input("Judge", "heuristic", key="score_judge", model="gpt-4o-mini", container=c2)
    if st.button("Score", type="primary", key="score_go", disabled=upload is None or not metrics):
        with st.spinner("Scoring…"):
            result, errors = q.score_upload(p, upload.name, upload.getvalue(), metrics=metrics, judge=judge)
        st.session_state["score_result"] = (result, errors)
        common.bump()
    if "score_result" not in st.session_state:
        return
    result, errors = st.session_state["score_result"]
    row_errors(errors)
    if result is None:
        st.error("No usable rows to score.")
        return
    table = pd.DataFrame(result.rows)
    st.success(f"Scored {len(table)} answer(s); stored as run {common.md(result.run_id)}.")
    st.dataframe(table, hide_index=True, width="stretch")
    jsonl = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in result.rows)
    c1, c2, c3 = st.columns([1, 1, 3])
    c1.download_button("Download JSONL", jsonl, "scores.jsonl", "application/json", key="dl_jsonl")
    c2.download_button("Download CSV", table.to_csv(index=False), "scores.csv", "text/csv", key="dl_csv")
    c3.page_link(common.PAGES["answers"], label="Inspect them on the Answers page", icon=":material/fact_check:")


def main() -> None:
    p = common.project()
    st.title("QA sets")
    import_set(p)
    sets = run_store.qa_sets(p.db_path)
    if sets:
        st.markdown("**QA sets in this project**")
        st.dataframe(pd.DataFrame(sets, columns=["name", "items", "source", "created"]), hide_index=True,
                     width="stretch")
    st.divider()
    score_own(p)


common.run_page(main)
