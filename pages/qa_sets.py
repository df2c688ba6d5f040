"""QA sets: import questions with gold answers; score answers produced by your own RAG system."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pages.parts import common, data, nav, qa_generate, qa_score
from rageval.errors import InputError
from rageval.views import qa_sets as view



def templates() -> None:
    c1, c2, c3 = st.columns([1, 1, 2])
    c1.download_button("Sample QA set (CSV)", view.sample_qa_csv(), "sample_qa.csv", "text/csv", key="qa_sample",
                       help="11 questions about the demo documents, with gold answers, relevant_ids and domains")
    c2.download_button("Empty template (CSV)", view.TEMPLATE, "qa_template.csv", "text/csv", key="qa_template")
    with c3.popover("What are relevant_ids?"):
        st.markdown(view.RELEVANT_IDS_HELP)


def import_set(p) -> None:
    with st.container(border=True):
        st.markdown("**Import a QA set**: columns `id, question, reference` (a list is fine), optional "
                    "`relevant_ids, domain`; RAGAS names (`user_input`) work too.")
        templates()
        upload = st.file_uploader("QA file", type=qa_score.TYPES, key="qa_upload")
        name = st.text_input("Name", placeholder="defaults to the file name", key="qa_name").strip()
        if st.button("Import", type="primary", key="qa_import", disabled=upload is None):
            try:
                st.session_state["qa_result"] = view.import_file(p, upload.name, upload.getvalue(), name)
            except InputError as exc:
                st.session_state.pop("qa_result", None)
                st.error(common.md(str(exc)))
                return
            data.bump()
    result = st.session_state.get("qa_result")
    if result is not None:
        if result.items:
            st.success(f"Imported {len(result.items)} question(s) as {common.md(result.name)}.")
            common.dataframe(pd.DataFrame(result.items).head(20), hide_index=True, width="stretch")
            st.page_link(nav.PAGES["run"], label="Next: run it against a corpus", icon=":material/play_circle:")
        else:
            st.error("No usable rows; nothing was imported.")
        qa_score.row_errors(result.errors)


def view_set(p, names: list[str]) -> None:
    """A stored QA set's questions, gold answers, relevance labels and domains."""
    name = st.selectbox("View a QA set", names, key="qa_view")
    items = view.qa_items(p, name)
    rows = view.item_rows(items)
    common.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", height=min(38 + 35 * len(rows), 320),
                 key="qa_items_table")
    st.caption(view.item_counts(items))
    st.download_button("This set as CSV", view.table_csv(rows), f"{name}.csv", "text/csv", key="qa_view_csv")


def main() -> None:
    p = data.project()
    st.title("QA sets")
    if data.can("upload"):
        import_set(p)
        qa_generate.generate_section(p)
    sets = view.qa_sets(p)
    if sets:
        st.markdown("**QA sets in this project**")
        common.dataframe(pd.DataFrame(sets, columns=["name", "items", "source", "generator", "created"]),
                         hide_index=True,
                     width="stretch")
        view_set(p, [s_["name"] for s_ in sets])
    if data.can("upload"):
        st.divider()
        qa_score.score_own(p)


common.run_page(main)
