"""QA sets: import questions with gold answers; score answers produced by your own RAG system."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import streamlit as st

from pages import common
from rageval.views import queries as q
from rageval.errors import InputError
from rageval.demo import sample_qa_csv
from rageval.ingest.qa import import_qa
from rageval.report import meaning, table_csv
from rageval.runs.scoring import parse_answers
from rageval.views import qa_sets as qa_view

_TYPES = ["csv", "json", "jsonl"]
TEMPLATE = "id,question,reference,relevant_ids,domain\nq1,Your question?,The gold answer,document.pdf,topic\n"


def row_errors(errors) -> None:
    if errors:
        st.warning(f"{len(errors)} row(s) rejected; the other rows were kept.")
        st.code("\n".join(str(e) for e in errors), language=None)


RELEVANT_IDS_HELP = """**`relevant_ids`** says which documents or chunks hold the answer, so retrieval can be scored
(recall@K, precision@K, hit_rate@K, nDCG@K, MAP, MRR). Give document file names
(`leave_policy.md`) or chunk ids from the Documents page's chunk browser, separated by `;`
(`a.pdf;b.txt`), or as a JSON list (`["a.pdf", "b.txt"]`) or a JSON object of graded relevance
(`{"a.pdf": 2, "b.txt": 1}`, higher is more relevant). File names make retrieval be judged per
document. Without `relevant_ids` the retrieval metrics are not selected (they would be unscored
for every question); the answer metrics still work. An empty `reference` is allowed too: then
only reference-free metrics (faithfulness, context relevance, hedging) can score that question."""


def templates() -> None:
    c1, c2, c3 = st.columns([1, 1, 2])
    c1.download_button("Sample QA set (CSV)", sample_qa_csv(), "sample_qa.csv", "text/csv", key="qa_sample",
                       help="11 questions about the demo documents, with gold answers, relevant_ids and domains")
    c2.download_button("Empty template (CSV)", TEMPLATE, "qa_template.csv", "text/csv", key="qa_template")
    with c3.popover("What are relevant_ids?"):
        st.markdown(RELEVANT_IDS_HELP)


def import_set(p) -> None:
    with st.container(border=True):
        st.markdown("**Import a QA set**: columns `id, question, reference` (a list is fine), optional "
                    "`relevant_ids, domain`; RAGAS names (`user_input`) work too.")
        templates()
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
            common.dataframe(pd.DataFrame(result.items).head(20), hide_index=True, width="stretch")
            st.page_link(common.PAGES["run"], label="Next: run it against a corpus", icon=":material/play_circle:")
        else:
            st.error("No usable rows; nothing was imported.")
        row_errors(result.errors)


def score_own(p) -> None:
    st.subheader("Score your own answers")
    st.caption("Rows with `id, question, answer, contexts, reference` (RAGAS names accepted). "
               "The scored answers are kept as an import run and appear on the Answers page.")
    upload = st.file_uploader("Answers file", type=_TYPES, key="answers_upload")
    options = q.metric_options()
    have = None
    if upload is not None:
        try:
            have = meaning.available_inputs(parse_answers(upload.name, upload.getvalue())[0])
        except InputError as exc:
            st.error(common.md(str(exc)))
    cannot = meaning.applicability(options, have) if have is not None else {}
    default = [m for m in q.default_metrics(options) if m not in cannot]
    c1, c2 = st.columns([3, 1])
    metrics = c1.multiselect("Metrics", options, default=default, key="score_metrics",
                             help="Hover a column of the Answers page for a metric's meaning; cards in docs/metrics.md")
    judge = common.spec_input("Judge", "heuristic", key="score_judge", model="gpt-4o-mini", container=c2)
    skipped = sorted(m for m in q.default_metrics(options) if m in cannot)
    if skipped:
        st.caption("Not selected: " + common.md(", ".join(f"{m} ({cannot[m]})" for m in skipped)) + ".")
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
    common.dataframe(table, hide_index=True, width="stretch")
    jsonl = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in result.rows)
    c1, c2, c3 = st.columns([1, 1, 3])
    c1.download_button("Download JSONL", jsonl, "scores.jsonl", "application/json", key="dl_jsonl")
    c2.download_button("Download CSV", table_csv(table), "scores.csv", "text/csv", key="dl_csv")
    c3.page_link(common.PAGES["answers"], label="Inspect them on the Answers page", icon=":material/fact_check:")


def view_set(p, names: list[str]) -> None:
    """A stored QA set's questions, gold answers, relevance labels and domains."""
    name = st.selectbox("View a QA set", names, key="qa_view")
    items = qa_view.qa_items(p, name)
    rows = [{"id": it["id"], "question": it["question"], "reference": " | ".join(it["references"]),
             "relevant_ids": "; ".join(f"{k} ({g:g})" if g != 1 else k for k, g in (it["relevant"] or {}).items()),
             "domain": it["domain"] or ""} for it in items]
    common.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", height=min(38 + 35 * len(rows), 320),
                 key="qa_items_table")
    no_ref = sum(not it["references"] for it in items)
    no_rel = sum(not it["relevant"] for it in items)
    st.caption(f"{len(items)} question(s); {no_ref} without a gold answer, {no_rel} without relevant_ids.")
    st.download_button("This set as CSV", table_csv(rows), f"{name}.csv", "text/csv", key="qa_view_csv")


def main() -> None:
    p = common.project()
    st.title("QA sets")
    import_set(p)
    sets = qa_view.qa_sets(p)
    if sets:
        st.markdown("**QA sets in this project**")
        common.dataframe(pd.DataFrame(sets, columns=["name", "items", "source", "created"]), hide_index=True,
                     width="stretch")
        view_set(p, [s_["name"] for s_ in sets])
    st.divider()
    score_own(p)


common.run_page(main)
