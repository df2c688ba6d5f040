"""Run: settings, presets, the estimate, a refused start, live progress, the finished message, stopped runs."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pages.parts import common, data, nav, run_parts
from rageval.errors import ConfigError, LLMError
from rageval.views import run as view


def start(p, config) -> None:
    """Check the model settings, then create the run and hand it to the background worker."""
    missing = view.llm_warnings(config)
    if missing:
        st.error("Not started: " + common.md("; ".join(missing)) + ".  \nSet them in the environment (or "
                 "`.streamlit/secrets.toml`) and restart the app, or choose the offline options.")
        return
    try:
        with st.spinner("Checking the model server…"):
            view.check_models(p, config)
    except (ConfigError, LLMError) as exc:
        st.error(f"Not started: {common.md(str(exc))}")
        return
    run_id = view.start_run(p, config)
    common.workers().start(p, run_id)
    st.session_state.setdefault("run_watch", []).append(run_id)
    data.bump()


def live(p) -> None:
    """The bars of the runs executing here and the runs table, from one state (refreshed every second
    while a run executes): the table's status is the bar's text, never a stale 'pending'."""
    workers = common.workers()
    active = workers.live(p)
    if active:
        run_parts.progress(p)
    run_parts.finished(p)
    rows = view.run_rows(p, live=active)
    if rows:
        st.subheader("Runs")
        common.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch",
                     column_config={"name": st.column_config.TextColumn(width="medium"), "run": None,
                                    "status": st.column_config.TextColumn(width="medium"),
                                    "generator": st.column_config.TextColumn(width="small"),
                                    "error": st.column_config.TextColumn(width="small")})
        st.download_button("Runs as CSV", lambda: view.table_csv(rows), "runs.csv", "text/csv", key="runs_csv")
    if st.session_state.get("_live_was") and not active:
        st.session_state["_live_was"] = False
        st.rerun(scope="app")  # a run ended: redraw the page (resume list, no 1 s refresh)
    st.session_state["_live_was"] = bool(active)


def start_box(p, corpora, sets) -> None:
    with st.container(border=True):
        run_parts.presets(p)
        config = run_parts.settings(p, corpora, sets)
        run_parts.rubric_form(p)
        for warning in view.llm_warnings(config):
            st.warning(common.md(warning) + " (see docs/cli.md, 'Using an LLM').")
        c1, c2, c3 = st.columns([1, 1, 4])
        clicked = c1.button("Start run", type="primary", key="run_start", disabled=config is None or not config.metrics)
        with c2:
            run_parts.save_preset(p, config)
        estimate = view.estimate_text(p, config) if config is not None and config.metrics else None
        if estimate is not None:
            c3.caption("Estimate: " + common.md(estimate))
        elif config is not None:
            c3.caption("Everything offline: no model calls, no cost.")
    if clicked and config is not None:
        start(p, config)


def main() -> None:
    p = data.project()
    st.title("Run")
    corpora, sets = view.sources(p)
    common.need(corpora, "A run needs a corpus with documents.", "documents", "Upload documents")
    common.need(sets, "A run needs a QA set.", "qa", "Import a QA set")
    if data.can("run"):
        start_box(p, corpora, sets)
    workers = common.workers()
    st.fragment(live, run_every=1.0 if workers.active(p) else None)(p)
    runs = view.runs(p)
    common.need(runs, "No runs yet: choose the settings above and start one.")
    stopped = [r for r in runs if view.resumable(r, active=r.id in workers.active(p))]
    if stopped and data.can("run"):
        c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
        by_id = {r.id: r for r in stopped}
        run_id = c1.selectbox("Stopped runs", list(by_id), key="resume_pick", format_func=lambda i: (
            f"{common.run_title(by_id[i])} · {by_id[i].status} {by_id[i].done}/{by_id[i].n_items} · {i}"))
        if c2.button("Resume", key="run_resume", help="continues where it stopped; finished items are kept"):
            workers.start(p, run_id)
            st.session_state.setdefault("run_watch", []).append(run_id)
            data.bump()
            st.rerun()
    st.page_link(nav.PAGES["answers"], label="Inspect the answers", icon=":material/fact_check:")


common.run_page(main)
