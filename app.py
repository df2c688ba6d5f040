"""rageval dashboard: ``streamlit run app.py``.

The sidebar switches between projects under ``RAGEVAL_HOME`` and creates new ones. On the first
start the bundled demo project is made in a background thread: loaded from its shipped snapshot
(1.6 CPU-seconds, rageval.demo.snapshot), or, when the code that made the snapshot has changed,
built and evaluated from nothing (about 12 CPU-seconds) while the app stays usable, with a progress
bar; set ``RAGEVAL_NO_AUTODEMO=1`` to skip that (the tests do).
"""
from __future__ import annotations

import threading
from pathlib import Path

import streamlit as st

from pages.parts.common import PAGES, demo_building, demo_gate as _demo_gate, md, show_error, url_arrived
from rageval.views.frame import DEMO_PROJECT, Progress, autodemo, build_demo, demo_ready, list_projects, open_project

# a local favicon: a material page icon as favicon is fetched from fonts.gstatic.com
st.set_page_config(page_title="rageval", page_icon=str(Path(__file__).parent / "assets" / "favicon.png"), layout="wide")


def ensure_demo() -> None:
    """Start building the demo project once per server process, in a background thread.

    The app stays usable meanwhile: a progress bar (every page, every tab) shows the build and
    the page refreshes when it is done. An interrupted build resumes on the next start.
    """
    if not autodemo():
        return
    gate = _demo_gate()
    with gate["lock"]:
        if gate["thread"] is not None:
            return
        if demo_ready():
            gate["thread"] = "done"
            return
        open_project(DEMO_PROJECT)  # exists at once, so the session can open on it

        gate["progress"] = Progress()

        def progress(phase: str, done: int, total: int) -> None:
            gate["progress"] = gate["progress"].update(phase, done, total)

        def build() -> None:
            try:
                gate["runs"] = build_demo(progress)  # not announced as news: Home shows the demo
            except Exception as exc:  # noqa: BLE001 - shown once on the page; the app opens on other projects
                gate["error"] = exc

        gate["thread"] = threading.Thread(target=build, name="rageval-demo", daemon=True)
        gate["thread"].start()


@st.fragment(run_every=1.0)
def demo_progress() -> None:
    """The demo build's progress; reruns the page once the build has finished."""
    gate = _demo_gate()
    if not demo_building():
        st.rerun(scope="app")
    prog = gate["progress"] or Progress()
    st.progress(prog.fraction(), text=f"Building the demo project in the background (first start only): "
                                      f"{prog.text()}. This page refreshes when it is ready.")


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
_ICONS = {"home": "home", "documents": "description", "qa": "quiz", "run": "play_circle", "answers": "fact_check",
          "human_review": "rate_review", "correlations": "grid_on", "compare": "compare_arrows"}
_TITLES = {"home": "Home", "documents": "Documents", "qa": "QA sets", "run": "Run", "answers": "Answers",
           "human_review": "Human review", "correlations": "Correlations", "compare": "Compare"}
_NAV = {key: st.Page(PAGES[key], title=_TITLES[key], icon=f":material/{_ICONS[key]}:", default=key == "home")
        for key in _TITLES}
nav = st.navigation(list(_NAV.values()))
_page = next((key for key, page in _NAV.items() if page is nav), "home")

url_arrived(_page)  # a pasted link or a reload: open its project (pages apply the rest)
project_switcher()
if demo_building() and st.session_state.get("project") == "demo":
    demo_progress()
if _demo_gate()["error"] is not None and not st.session_state.get("demo_error_shown"):
    st.session_state["demo_error_shown"] = True
    show_error(_demo_gate()["error"], what="The demo project could not be built")
nav.run()
