"""Home: the project, its runs as a leaderboard (best per column marked), a picture, what next."""
from __future__ import annotations

import streamlit as st

from pages.parts import common, data, nav
from rageval.views import home as view


def leaderboard_table(board: view.Leaderboard, *, key: str = "leaderboard", agreement: dict | None = None) -> None:
    """Runs as rows, metric means as columns; the best value per column highlighted and starred; with
    ``agreement`` (rageval.human.trust) each header also shows the metric's agreement with the raters."""
    agreement = agreement or {}
    best_rows = view.best_rows(board)

    def mark(col):
        return ["background-color: rgba(47,95,208,0.22); font-weight: 700" if best_rows.get(col.name) == i else ""
                for i in col.index]

    config = {"run": st.column_config.TextColumn("run", width="medium", help="what produced the answers, and when"),
              "kind": st.column_config.TextColumn("kind", help="pipeline run: retrieved and answered here; scored "
                                                  "file: answers scored from a file (never marked best beside runs)"),
              "judge": st.column_config.TextColumn("judge", help="heuristic = offline rules and learned models; "
                                                   "LLM = a model on an OpenAI-compatible server")}
    for m in board.metrics:
        agree = agreement.get(m)
        config[m] = st.column_config.TextColumn(common.heading(m) + (f" · {agree.words()}" if agree else ""),
                                                help=common.tooltip(m, more=" " + agree.sentence() if agree else ""),
                                                width="small")
    text = view.leaderboard_text(board)  # a missing mean reads "—" (not scored), never Streamlit's "None"
    styled = text.style.apply(mark, subset=[m for m in board.metrics if m in best_rows]) if best_rows else text
    st.dataframe(styled, hide_index=True, width="stretch", column_config=config, key=key)  # run labels: clean names
    st.download_button("Leaderboard as CSV", view.leaderboard_csv(board), "leaderboard.csv", "text/csv",
                       key=f"{key}_csv")
    st.caption(common.md(view.leaderboard_notes(board, agreement)))


def next_steps(counts: dict[str, int]) -> None:
    st.subheader("What to do next")
    if not counts["documents"]:
        st.page_link(nav.PAGES["documents"], label="1. Upload documents (PDF, TXT, Markdown)",
                     icon=":material/upload_file:")
    elif not counts["qa_sets"]:
        st.page_link(nav.PAGES["qa"], label="2. Import a QA set (a sample file is offered there)",
                     icon=":material/quiz:")
    elif not counts["runs"]:
        st.page_link(nav.PAGES["run"], label="3. Start a run", icon=":material/play_circle:")
    else:
        st.page_link(nav.PAGES["answers"], label="Inspect the answers: claims, evidence, worst first",
                     icon=":material/fact_check:")
        st.page_link(nav.PAGES["run"], label="Start another run with other settings", icon=":material/play_circle:")
    st.page_link(nav.PAGES["qa"], label="Or score answers from your own RAG system", icon=":material/upload:")


def main() -> None:
    p = data.project()
    st.title("rageval")
    st.markdown("Evaluate retrieval-augmented QA on your own documents: every answer scored, every claim "
                "checked against the retrieved evidence. Unscored items are counted, never averaged in as zero.")
    counts = data.project_counts(p)
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
    runs = data.finished_runs(p)
    if runs:
        st.subheader("Leaderboard")
        if any(r.kind != "pipeline" for r in runs):  # ad hoc scored files apart unless asked for
            shown = st.radio("Show", view.BOARD_VIEWS, index=view.BOARD_VIEWS.index(view.board_view(runs)),
                             horizontal=True, key="home_board", label_visibility="collapsed")
            runs = view.board_runs(runs, shown) or runs
        board = data.leaderboard(p, runs)
        leaderboard_table(board, agreement=data.agreement(p))
        if lines := data.ppi_lines(p, runs, common.run_title):  # where people labelled: PPI, in words
            with st.expander("How sure these numbers are, where people labelled"):
                for line, tip in lines:
                    st.caption(common.md(line), help=tip)
        by_id, _ = {r.id: r for r in runs}, nav.url_state({"runs": ("home_runs", [])})
        if "home_runs" not in st.session_state or not set(st.session_state["home_runs"]) <= set(by_id):
            st.session_state["home_runs"] = [i for i in st.session_state.get("home_runs", []) if i in by_id] \
                or list(by_id)[:2]
        picked = st.multiselect("Compare runs", list(by_id), key="home_runs",
                                format_func=lambda i: common.run_title(by_id[i]))
        shown = board.table[board.table["id"].isin(picked)]
        if len(shown) and board.metrics:
            st.plotly_chart(view.means_bars(shown, board.metrics), key="home_bars")
    next_steps(counts)


common.run_page(main)
