"""Home: the project, its runs as a leaderboard (best per column marked), a picture, what next."""
from __future__ import annotations

import streamlit as st

from pages import common
from rageval.views import charts


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
    counts = common.project_counts(p)
    st.subheader(f"Project {common.md(p.slug)}")
    building = p.slug == "demo" and common.demo_building()
    cols = st.columns(4)
    if building:  # not "Documents 0" and "Upload documents" while the demo is on its way
        prog = common.demo_gate()["progress"]
        for col, name in zip(cols, ("Documents", "QA sets", "Runs")):
            col.metric(name, "…", border=True, help="building the demo: the bar above shows the phase")
        cols[3].caption("Building the demo" + (f": {common.md(prog.short())}" if prog else "") +
                        ". Its documents, questions and scored answers appear here when it is done.")
        return
    cols[0].metric("Documents", counts["documents"], help=f"in {counts['corpora']} corpora", border=True)
    cols[1].metric("QA sets", counts["qa_sets"], help=f"{counts['qa_items']} questions in all", border=True)
    cols[2].metric("Runs", counts["runs"], help=f"{counts['finished_runs']} finished", border=True)
    cols[3].caption("Switch or create projects in the sidebar; a new project starts empty.")
    runs = common.finished_runs(p)
    if runs:
        st.subheader("Leaderboard")
        board = common.leaderboard(p, runs)
        common.leaderboard_table(board, agreement=common.agreement(p))
        by_id = {r["id"]: r for r in runs}
        common.url_state({"runs": ("home_runs", [])})
        if "home_runs" not in st.session_state or not set(st.session_state["home_runs"]) <= set(by_id):
            st.session_state["home_runs"] = [i for i in st.session_state.get("home_runs", []) if i in by_id] \
                or list(by_id)[:2]
        picked = st.multiselect("Compare runs", list(by_id), key="home_runs",
                                format_func=lambda i: common.run_title(by_id[i]))
        shown = board.table[board.table["id"].isin(picked)]
        if len(shown) and board.metrics:
            st.plotly_chart(charts.means_bars(shown, board.metrics), key="home_bars")
    next_steps(counts)


common.run_page(main)
