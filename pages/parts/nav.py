"""The navigation and the state in the URL (not a page): the pages app.py lists (:data:`PAGES`), links
to a view, and the address bar that holds it.

The address bar holds the view: the project, the run(s), the question, the filters and the tab, so
a reload or a pasted link opens the same view. Session state stays the source of truth inside a
session; the URL mirrors it. Parameter names shared by every page (and by links other pages and
reports build): project, run, run_b, question, metric, tab; filters have their own short names.
At the start of a script run the URL is either what this session wrote at the end of its previous
run (a widget changed: the widgets win), empty (the sidebar navigation clears it: the session's
state stays), or anything else (a reload, a pasted link, a page link with parameters, an edited
address): then the page applies it to its widgets before drawing them.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from rageval.views import frame
from pages.parts.data import identity

#: app.py's navigation: page key -> its file
PAGES = {
    "home": "pages/home.py", "documents": "pages/documents.py", "qa": "pages/qa_sets.py",
    "run": "pages/run.py", "answers": "pages/answers.py", "human_review": "pages/human_review.py",
    "correlations": "pages/correlations.py", "compare": "pages/compare.py",
}


#: the parameters a page passes on when the navigation keeps its address: the view's identity
CARRIED = ("project", "run", "run_b", "question")


def view_url(page: str, **params: Any) -> str:
    """The relative address of ``page`` (a key of PAGES) showing ``params``: ``answers?project=demo&run=..``.

    For links in text; inside the app :func:`view_link` is the same link as a page link.
    """
    from urllib.parse import urlencode

    query = {k: v for k, v in frame.view_params(page, params).items() if k != "_page"}
    path = "" if page == "home" else Path(PAGES[page]).stem  # st.navigation's url path of the page
    return path + ("?" + urlencode(query) if query else "")


def view_link(page: str, label: str, *, icon: str | None = None, **params: Any) -> None:
    """A page link to ``page`` opening the view ``params`` (project added when not given)."""
    params.setdefault("project", st.session_state.get("project"))
    query = {k: v for k, v in frame.view_params(page, params).items() if k != "_page"}
    st.page_link(PAGES[page], label=label, icon=icon, query_params=query)


def _url_now() -> dict[str, str]:
    return {k: st.query_params[k] for k in st.query_params}


def url_arrived(page: str) -> dict[str, str]:
    """Called once per script run by app.py before anything is drawn: the URL's parameters when they
    came from outside this session's last run (to apply), else an empty dict."""
    now = _url_now()
    known = [st.session_state.get("_url_written"), st.session_state.get("_url_seen")]  # this session's own
    arrived = now if now and (page, now) not in known else {}
    if arrived and arrived == (st.session_state.get("_url_written") or (None, None))[1]:
        # what another page of this session wrote, kept by the navigation: only what names the view
        # (project, run, question) goes on; that page's own settings (Compare's runs, metric) do not
        arrived = {k: v for k, v in arrived.items() if k in CARRIED}
    st.session_state["_url_seen"] = (page, now)
    st.session_state["_url_arrived"] = arrived
    st.session_state["_url_page"] = page
    st.session_state["_url_keys"] = {}
    st.session_state["_url_run_open"] = True  # this script run has read the URL (run_page clears it)
    try:
        visible = frame.visible_projects(identity())
    except frame.AccessError:  # not signed in, or a dead demo link: the page itself stops (data.project)
        visible = []
    if arrived.get("project") in visible:  # a link to another project opens it
        st.session_state["project"] = arrived["project"]  # (it must exist, and this session may open it)
    elif arrived.get("project"):
        st.session_state["_url_refused"] = arrived["project"]
    return arrived


def url_state(bindings: dict[str, tuple[str, Any]]) -> None:
    """Bind URL parameters to widget keys, ``{"run": ("ans_run", ""), "unscored": ("ans_unscored", False)}``
    (the second item is the widget's default, which gives the value's type and is left out of the
    address unless it is a float). Call before the widgets are drawn: a parameter that
    arrived from outside is applied to its key; at the end of the run :func:`url_write` writes every
    bound key back. A value the widget does not offer is dropped by the page's own checks."""
    arrived = st.session_state.get("_url_arrived") or {}
    for name, (key, like) in bindings.items():
        if name in arrived:
            try:
                st.session_state[key] = frame.decode(arrived[name], like)
            except ValueError:
                pass  # a hand-edited value that does not parse: the widget keeps its own
    st.session_state.setdefault("_url_keys", {}).update(bindings)


def url_write(page: str | None = None) -> None:
    """Write the project and every bound key's current value to the address bar (when it changed)."""
    page = page or st.session_state.get("_url_page") or "home"
    values = {"project": st.session_state.get("project")}
    for name, (key, default) in (st.session_state.get("_url_keys") or {}).items():
        value = st.session_state.get(key)
        values[name] = None if value == default and not isinstance(default, float) else value  # short links
    wanted = {k: v for k, v in frame.view_params(page, values).items() if k != "_page"}
    if st.session_state.get("_demo_token"):  # a demo link's session: a reload opens a new session with it
        wanted["demo"] = st.session_state["_demo_token"]
    if wanted != _url_now():
        st.query_params.from_dict(wanted)
    st.session_state["_url_written"] = (page, wanted)
