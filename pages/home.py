"""Home: what rageval does, what the current project holds, and the next step."""
from __future__ import annotations

import streamlit as st

from pages import common
from rageval import app_queries as q


def main() -> None:
    p = common.project()
    st.title("rageval")
    st.markdown(
        "Build a retrieval-augmented QA pipeline on your own documents, run it over a question set, "
        "and **judge every answer**: claim by claim against the retrieved evidence.  \n"
        "Scores carry the settings and judge that produced them, and unscored items are counted, "
        "never silently averaged as zero.  \n"
        "Everything works offline; point it at any OpenAI-compatible server for LLM generation and judging."
    )
    st.subheader(f"Project {common.md(p.slug)}")
    counts = q.project_counts(p)
    cols = st.columns(4)
    cols[0].metric("Corpora", counts["corpora"], border=True)
    cols[1].metric("Documents", counts["documents"], border=True)
    cols[2].metric("QA sets", counts["qa_sets"], help=f"{counts['qa_items']} questions in all", border=True)
    cols[3].metric("Runs", counts["runs"], help=f"{counts['finished_runs']} finished", border=True)

    runs = q.finished_runs(p)
    if runs:
        latest = runs[0]
        st.subheader("Latest finished run")
        st.caption(common.md(q.run_label(latest)))
        summaries = common.summaries(p, latest)
        if summaries:
            common.metric_cards(summaries)
        else:
            st.info("This run has no metric scores.")
    st.subheader("Next step")
    if not counts["documents"]:
        st.page_link(common.PAGES["documents"], label="Upload documents", icon=":material/upload_file:")
    elif not counts["qa_sets"]:
        st.page_link(common.PAGES["qa"], label="Import a QA set", icon=":material/quiz:")
    elif not counts["runs"]:
        st.page_link(common.PAGES["run"], label="Start a run", icon=":material/play_circle:")
    else:
        st.page_link(common.PAGES["answers"], label="Inspect the answers", icon=":material/fact_check:")
        st.page_link(common.PAGES["run"], label="Start another run", icon=":material/play_circle:")
    st.page_link(common.PAGES["qa"], label="Or score answers from your own RAG system",
                 icon=":material/upload:")


common.run_page(main)
