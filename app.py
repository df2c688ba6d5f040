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

import pandas as pd
import streamlit as st

from pages.parts.common import dataframe, demo_building, demo_gate as _demo_gate, md, show_error
from pages.parts.data import auth_configured, identity, project
from pages.parts.nav import PAGES, url_arrived
from rageval.errors import AccessError, RagevalError
from rageval.views import frame
from rageval.views.frame import (DEMO_PROJECT, Progress, autodemo, build_demo, create_project, demo_ready,
                                 open_project, visible_projects)

# a local favicon: a material page icon as favicon is fetched from fonts.gstatic.com
st.set_page_config(page_title="rageval", page_icon=str(Path(__file__).parent / "assets" / "favicon.png"), layout="wide")


def sign_in() -> None:
    """The gate every page passes (docs/access.md): a demo link (``?demo=TOKEN``) makes the session its
    project's viewer; else with ``[auth]`` the page stops at a sign-in button until the person has signed
    in; else the local user acts. The identity is worked out again on every run (pages/parts/data.py)."""
    if st.query_params.get("demo"):  # it stays in the address bar (nav.url_write), so a reload keeps it
        st.session_state["_demo_token"] = st.query_params["demo"]  # kept: a dead link stays dead
    if not st.session_state.get("_demo_token") and auth_configured() and not st.user.is_logged_in:
        st.title("rageval")
        st.markdown("Sign in with your organisation's account to see your projects.")
        st.button("Sign in", type="primary", key="sign_in", on_click=st.login)
        st.stop()
    try:
        who = identity()
    except AccessError as exc:
        st.error(md(str(exc)))
        st.stop()
    if who.via == "demo":
        st.session_state["project"] = who.demo_project
        st.sidebar.caption("Read-only demo: this link opens one project")
    elif not who.local:
        st.sidebar.caption(f"Signed in as {md(who.email)}")
        st.sidebar.button("Sign out", key="sign_out", on_click=st.logout)


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
        created = create_project(name, identity())
    except Exception as exc:  # noqa: BLE001 - shown as a message under the field, the app goes on
        st.session_state["new_project_error"] = str(exc)
    else:
        st.session_state.pop("new_project_error", None)
        st.session_state["project"] = created.slug
        st.session_state["new_project_name"] = ""  # the field is empty again after use
        st.session_state["new_project_done"] = created.slug


def project_switcher() -> None:
    who = identity()
    if who.via == "demo":
        return  # a demo link shows its one project: nothing to switch to or create
    names = visible_projects(who)
    if "project" not in st.session_state or (not who.local and st.session_state["project"] not in names):
        if who.local:
            ensure_demo()
        names = visible_projects(who)
        st.session_state["project"] = "demo" if "demo" in names else (names[0] if names else
                                                                        "default" if who.local else None)
    current = st.session_state["project"]
    options = sorted(set(names) | ({current} if current else set()))
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
        elif current and st.session_state.pop("new_project_done", None) == current:  # shown once, after creating
            st.success(f"Created project {md(current)}: upload documents to start.")


def _access_action(action: str) -> None:
    """Callback of the owner's box: add or remove a member, make or revoke a demo link."""
    p, state = project(), st.session_state
    try:
        if action == "add":
            m = frame.add_member(p, state.get("acc_email") or "", state["acc_role"])
            state["acc_done"] = f"{m['email']} is now {m['role']}"
        elif action == "remove":
            frame.remove_member(p, state.get("acc_email") or "")
            state["acc_done"] = f"{state['acc_email'].strip().lower()} removed"
        elif action == "link":
            base = str(getattr(st.context, "url", "") or "").split("?")[0].rsplit("/", 1)[0]
            state["acc_link"] = frame.create_link(p, days=float(state["acc_days"])).url(base)
        elif action == "revoke":
            frame.revoke_link(p, state.get("acc_revoke") or "")
            state["acc_done"] = f"demo link {state['acc_revoke']} revoked"
        state.pop("acc_error", None)
    except RagevalError as exc:
        state["acc_error"] = str(exc)


def access_box() -> None:
    """A signed-in owner's sidebar box for the open project: members by e-mail and role, read-only demo
    links (made, listed, revoked) and the audit trail (newest rows, all of it as CSV)."""
    who = identity()
    if who.local or who.via == "demo" or not st.session_state.get("project"):
        return
    p = project()
    if not frame.may(p, "manage"):
        return
    with st.sidebar.container(border=True):  # not an expander: a click in it reruns and would close one
        st.markdown("**Members, demo links, audit trail**")
        dataframe(pd.DataFrame([{k: m[k] for k in ("email", "role")} for m in frame.list_members(p)]),
                  hide_index=True, key="acc_members")
        st.text_input("E-mail", key="acc_email", placeholder="someone@example.com")
        st.radio("Role", frame.ROLES, index=1, key="acc_role", horizontal=True)
        c1, c2 = st.columns(2)
        c1.button("Add", key="acc_add", on_click=_access_action, args=("add",))
        c2.button("Remove", key="acc_remove", on_click=_access_action, args=("remove",))
        st.number_input("Demo link lasts (days)", 1, 90, 7, key="acc_days")
        st.button("Make a read-only demo link", key="acc_make_link", on_click=_access_action, args=("link",))
        if st.session_state.get("acc_link"):
            st.code(st.session_state["acc_link"], language=None)
            st.caption("Copy it now: only its hash is kept. Whoever holds it sees this project, read-only, until "
                       "it expires or is revoked.")
        live = [r["id"] for r in frame.list_links(p) if r["live"]]
        if live:
            st.selectbox("Live demo links", live, key="acc_revoke")
            st.button("Revoke", key="acc_revoke_go", on_click=_access_action, args=("revoke",))
        if st.session_state.get("acc_error"):
            st.error(md(st.session_state["acc_error"]))
        elif st.session_state.get("acc_done"):
            st.success(md(st.session_state.pop("acc_done")))
        st.download_button("Audit trail (CSV)", frame.audit_csv(p), f"{p.slug}-audit.csv", "text/csv", key="acc_audit")
        trail = [{"when": str(r["created"]), "who": r["email"], "action": r["action"], "target": r["target"] or ""}
                 for r in frame.audit_trail(p, limit=20)]
        dataframe(pd.DataFrame(trail, columns=["when", "who", "action", "target"]), hide_index=True, key="acc_trail")


# Navigation first, so the sidebar is right even while the demo is being built.
_ICONS = {"home": "home", "documents": "description", "qa": "quiz", "run": "play_circle", "answers": "fact_check",
          "human_review": "rate_review", "correlations": "grid_on", "compare": "compare_arrows"}
_TITLES = {"home": "Home", "documents": "Documents", "qa": "QA sets", "run": "Run", "answers": "Answers",
           "human_review": "Human review", "correlations": "Correlations", "compare": "Compare"}
_NAV = {key: st.Page(PAGES[key], title=_TITLES[key], icon=f":material/{_ICONS[key]}:", default=key == "home")
        for key in _TITLES}
nav = st.navigation(list(_NAV.values()))
_page = next((key for key, page in _NAV.items() if page is nav), "home")

sign_in()
url_arrived(_page)  # a pasted link or a reload: open its project (pages apply the rest)
project_switcher()
if not identity().local and st.session_state.pop("_url_refused", None):  # the same words whether it exists or not
    st.warning("That link names a project you cannot open: ask its owner to add you.")
access_box()
if identity().local and _page == "home":  # said in one place: Home
    st.info("Sign-in is off: this app acts as one local user who owns every project, as on a laptop. To share it, "
            "add an [auth] section to .streamlit/secrets.toml (docs/access.md).", icon=":material/lock_open:")
if demo_building() and st.session_state.get("project") == "demo":
    demo_progress()
if _demo_gate()["error"] is not None and not st.session_state.get("demo_error_shown"):
    st.session_state["demo_error_shown"] = True
    show_error(_demo_gate()["error"], what="The demo project could not be built")
nav.run()
