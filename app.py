"""rageval dashboard: ``streamlit run app.py``.

The sidebar switches between projects under ``RAGEVAL_HOME`` and creates new ones. On the first
start the bundled demo project is built and evaluated (12 s on an idle 2-core machine, up to
about 100 s on a busy one), so a newcomer sees answers and scores at once; set
``RAGEVAL_NO_AUTODEMO=1`` to skip that (the tests do).
"""
from __future__ import annotations

import os
import threading
from pathlib import Path

import streamlit as st

from pages.common import PAGES, md, show_error
from rageval.project import list_projects, open_project

# a local favicon: a material page icon as favicon is fetched from fonts.gstatic.com
st.set_page_config(page_title="rageval", page_icon=str(Path(__file__).parent / "assets" / "favicon.png"), layout="wide")


@st.cache_resource(show_spinner=False)
def _demo_gate() -> dict:
    """One per server process: a lock so two sessions never build the demo at once."""
    return {"lock": threading.Lock(), "tried": False}


def ensure_demo() -> None:
    """Build the demo project once per server process when it has no finished run yet."""
    if os.environ.get("RAGEVAL_NO_AUTODEMO", "").strip() not in ("", "0"):
        return
    gate = _demo_gate()
    with gate["lock"]:
        if gate["tried"]:
            return
        from rageval.demo import demo_run_id, load_demo

        if demo_run_id() is not None:
            gate["tried"] = True
            return
        bar = st.progress(0.0, text="Building the demo project (first start only; 10-100 s, depending on the machine)…")

        def progress(phase: str, done: int, total: int) -> None:
            label = {"index": "embedding the demo documents", "items": "answering and scoring"}.get(phase, phase)
            bar.progress(min(done / max(total, 1), 1.0), text=f"Demo project: {label} {done}/{total}")

        try:
            with st.spinner("Preparing the demo project…"):
                load_demo(progress=progress)
            gate["tried"] = True
        except Exception as exc:  # noqa: BLE001 - the app must still open on other projects
            gate["tried"] = True  # a real failure is shown once, not retried on every page view
            show_error(exc, what="The demo project could not be built")
        finally:
            # a rerun or stop interrupting the build leaves "tried" unset: the next run resumes it
            bar.empty()


def _choose_project() -> None:
    st.session_state["project"] = st.session_state["project_select"]


def _create_project() -> None:
    """Callback (runs before the script, whichever page runs): create a project and switch to it."""
    name = (st.session_state.get("new_project_name") or "").strip()
    if not name:
        return
    try:
        created = open_project(name)
    except Exception as exc:  # noqa: BLE001 - shown as a message under the field, the app goes on
        st.session_state["new_project_error"] = str(exc)
    else:
        st.session_state.pop("new_project_error", None)
        st.session_state["project"] = created.slug
        st.session_state["new_project_name"] = ""  # the field is empty again after use
        st.session_state["new_project_done"] = created.slug


def project_switcher() -> None:
    if "project" not in st.session_state:
        ensure_demo()
        names = list_projects()
        st.session_state["project"] = "demo" if "demo" in names else (names[0] if names else "default")
    current = st.session_state["project"]
    options = sorted(set(list_projects()) | {current})
    st.session_state["project_select"] = current  # the widget follows the chosen project
    with st.sidebar:
        st.selectbox("Project", options, key="project_select", on_change=_choose_project,
                     help="Everything you upload and run belongs to the chosen project.")
        c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
        c1.text_input("New project", placeholder="my-handbook", key="new_project_name",
                      help="1-63 lowercase letters, digits, '-' or '_'; a new project starts empty")
        c2.button("Create", key="create_project", on_click=_create_project)
        if st.session_state.get("new_project_error"):
            st.error(md(st.session_state["new_project_error"]))
        elif st.session_state.pop("new_project_done", None) == current:  # shown once, after creating
            st.success(f"Created project {md(current)}: upload documents to start.")


# Navigation first, so the sidebar is right even while the demo is being built.
nav = st.navigation([
    st.Page(PAGES["home"], title="Home", icon=":material/home:", default=True),
    st.Page(PAGES["documents"], title="Documents", icon=":material/description:"),
    st.Page(PAGES["qa"], title="QA sets", icon=":material/quiz:"),
    st.Page(PAGES["run"], title="Run", icon=":material/play_circle:"),
    st.Page(PAGES["answers"], title="Answers", icon=":material/fact_check:"),
    # i14's pages go here, in this order: Human review, Correlations, Compare
])
project_switcher()
nav.run()
