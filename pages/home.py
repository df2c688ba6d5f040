"""Home: the project, its runs as a leaderboard (best per column marked), a picture, what next."""
from __future__ import annotations

import streamlit as st

from pages import common
from rageval.views import charts
from rageval.views import queries as q
from rageval.report.leaderboard import leaderboard


def next_steps(counts: dict[str, int]) -> None:
    st.subheader("What to do next")
    if not counts["documents"]:
        st.page_link(common.PAGES["documents"], label="1. Upload documents (PDF, TXT, Markdown)",
                     icon=":material/upload_file:")
    elif not counts["qa_sets"]:
        st.page_link(common.PAGES["qa"], label="2. Import a QA set (a sample file is offered there)",
                     icon=":material/quiz:")
    elif not counts["runs"]:
        st.page_link(common.PAGES["run"], label="3. Start a run", icon=":material/play_circle:")
    else:
        st.page_link(common.PAGES["answers"], label="Inspect the answers: claims, evidence, worst first",
                     icon=":material/fact_check:")
        st.page_link(common.PAGES["run"], label="Start another run with other settings", icon=":material/play_circle:")
    st.page_link(common.PAGES["qa"], label="Or score answers from your own RAG system", icon=":material/upload:")


def main() -> None:
    p = common.project()
    st.title("rageval")
    st.markdown("Evaluate retrieval-augmented QA on your own documents: every answer scored, every claim "
                "checked against the retrieved evidence. Unscored items are counted, never averaged in as zero.")
    counts = q.project_counts(p)
    st.subheader(f"Project {common.md(p.slug)}")
    cols = st.columns(4)
    cols[0].metric("Documents", counts["documents"], help=f"in {counts['corpora']} corpora", border=True)
    cols[1].metric("QA sets", counts["qa_sets"], help=f"{counts['qa_items']} questions in all", border=True)
    cols[2].metric("Runs", counts["runs"], help=f"{counts['finished_runs']} finished", border=True)
    cols[3].caption("Switch or create projects in the sidebar; a new project starts empty.")
    runs = q.finished_runs(p)
    if runs:
        st.subheader("Leaderboard")
        board = common.leaderboard(p, runs)
        common.leaderboard_table(board, agreement=common.agreement(p))
        by_id = {r["id"]: r for r in runs}
        picked = st.multiselect("Compare runs", list(by_id), default=list(by_id)[:2], key="home_runs",
                                format_func=lambda i: board.table.set_index("id").loc[i, "run"])
        shown = board.table[board.table["id"].isin(picked)]
        if len(shown) and board.metrics:
            st.plotly_chart(charts.means_bars(shown, board.metrics), key="home_bars")
    next_steps(counts)


common.run_page(main)
