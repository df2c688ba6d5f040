"""The page frame (not a page): shared widgets, the error boundary and guards, the finished-run
announcer and the per-process resources. What they show comes from :mod:`rageval.views.frame`; the
cached loaders live in pages/parts/data.py and the navigation and the state in the URL in
pages/parts/nav.py: pages import those from there.

Safety rule for everything shown: text that comes from documents, uploads or models is either
escaped with ``html.escape`` inside HTML we build ourselves (``st.html``), escaped for Markdown
with :func:`md`, or shown in widgets that render plain text (:func:`dataframe`, ``st.code``); each
of them removes bidi controls first, so a U+202E in an answer cannot reverse what follows it.
"""
from __future__ import annotations

import html
import re
import traceback
from pathlib import Path
from typing import Any, Callable, Sequence

import streamlit as st

from rageval.errors import ConfigError, InputError, LLMError, ProjectBusyError, RagevalError
from rageval.views import frame
from rageval.views.frame import IngestJobs, Run, RunWorkers, without_bidi
from pages.parts.data import bump, can, ended_runs, identity, project
from pages.parts.nav import PAGES, url_arrived, url_write, view_link

COLOURS = {  # verdict -> (background, accent)
    "SUPPORTED": ("#dcf5e3", "#1e8a44"),
    "CONTRADICTED": ("#fde0e0", "#c62828"),
    "NOT_MENTIONED": ("#fff1cc", "#b7791f"),
    "UNVERIFIED": ("#eef0f3", "#5a6372"),  # neutral grey: not decided, never an error
}
_BOX = ("white-space:pre-wrap;line-height:1.65;padding:0.7rem 0.9rem;border:1px solid #e3e7ee;"
        "border-radius:0.5rem;background:#fafbfd;color:#1d2330;font-size:0.97rem;"
        "overflow-wrap:anywhere")  # readable in dark themes too
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=^])")


# --- escaping ---------------------------------------------------------------------------------

def md(text: Any) -> str:
    """``text`` made inert for Streamlit Markdown: every special character backslash-escaped, bidi
    controls removed (:func:`rageval.text.hygiene.without_bidi`)."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(without_bidi(str(text)).split()))


def plain(text: Any) -> str:
    """``text`` for a plain-text label (a selectbox option): bidi controls removed."""
    return without_bidi(str(text))


def esc(text: Any) -> str:
    return html.escape(without_bidi(str(text)), quote=True)


def dataframe(frame: Any, **kwargs: Any) -> Any:
    """``st.dataframe`` with bidi controls removed from every text cell, the column names and the index."""
    import pandas as pd

    if isinstance(frame, pd.DataFrame):
        frame = frame.copy()
        for col in frame.columns:
            if frame[col].dtype == object or str(frame[col].dtype) in ("str", "string"):
                frame[col] = frame[col].map(without_bidi)
        frame.columns = [without_bidi(c) for c in frame.columns]
        frame.index = [without_bidi(i) for i in frame.index]
    return st.dataframe(frame, **kwargs)


def text_box(text: str | None, *, empty: str = "(empty)") -> None:
    """Show untrusted text as text, keeping its line breaks."""
    body = esc(text) if text else f'<span style="color:#8a93a3">{esc(empty)}</span>'
    st.html(f'<div style="{_BOX}">{body}</div>')


def sentence_picker(texts: Sequence[str], chosen: int | None, *, key: str, on_pick: Callable[[int], None]) -> None:
    """The claim labels' evidence: one button per sentence of the contexts (``chosen`` filled, the list
    scrolling past 8); a click calls ``on_pick(index)`` before the rerun. Buttons, as a focused radio
    input would swallow the keys 1-4 (Streamlit's shortcuts ignore key presses in an input)."""
    if not texts:
        st.caption("No retrieved context, so no evidence sentence to pick.")
        return
    st.markdown("**Evidence**: the filled sentence; click another sentence to make it the evidence ([n]: context n)")
    with st.container(height=300 if len(texts) > 8 else "content", gap="xxsmall", key=f"{key}_list"):
        for k, text in enumerate(texts):
            st.button(md(text), key=f"{key}_{k}", type="primary" if k == chosen else "tertiary", on_click=on_pick,
                      args=(k,))


def highlight_html(segments: Sequence[frame.Segment]) -> str:
    """HTML of ``segments``: our own <span>s coloured by verdict around escaped text only; a
    low-confidence verdict (``"CONTRADICTED?"``) is underlined dashed on a pale background."""
    parts = []
    for seg in segments:
        if seg.verdict is None:
            parts.append(esc(seg.text))
            continue
        unsure = seg.verdict.endswith("?")
        bg, accent = COLOURS.get(seg.verdict.rstrip("?"), ("#eceff4", "#5a6372"))
        bg, line, title = (("#f4f5f7", "dashed", f"{seg.verdict} (low confidence)") if unsure
                           else (bg, "solid", seg.verdict))
        marks = ",".join(str(n) for n in seg.labels)
        parts.append(
            f'<span title="{esc(title)}" style="background:{bg};border-bottom:2px {line} {accent};'
            f'border-radius:3px;padding:1px 2px">{esc(seg.text)}</span>'
            + (f'<sup style="color:{accent};font-weight:600">{esc(marks)}</sup>' if marks else "")
        )
    return f'<div style="{_BOX}">{"".join(parts) or "&nbsp;"}</div>'


def badge(verdict: str, *, low_confidence: bool = False) -> str:
    """A verdict pill; a low-confidence verdict is dashed, pale and says so ("CONTRADICTED?")."""
    bg, accent = COLOURS.get(verdict, ("#eceff4", "#5a6372"))
    line, text = ("dashed", f"{verdict}?") if low_confidence else ("solid", verdict)
    if low_confidence:
        bg = "transparent"
    return (f'<span style="background:{bg};color:{accent};border:1px {line} {accent};border-radius:999px;'
            f'padding:0 0.5rem;font-size:0.78rem;font-weight:600">{esc(text)}</span>')


def legend() -> None:
    st.html('<div style="display:flex;gap:0.5rem;flex-wrap:wrap;justify-content:flex-end">'
            + "".join(badge(v) for v in frame.VERDICTS) + "</div>")


# --- page boundary ------------------------------------------------------------------------------

_ADVICE = (
    (ProjectBusyError, "Another process (a CLI run?) is using this project. Wait a moment and reload."),
    (LLMError, "Check OPENAI_BASE_URL and the API key variables, or choose the offline options."),
    (InputError, "Fix the file or row named above and upload it again."),
    (ConfigError, "Change the setting named above and try again."),
    (RagevalError, "Change the input named above and try again."),
)


def show_error(exc: BaseException, *, what: str = "This page could not finish") -> None:
    """A short message with what to do; the details (type, message, trace) in an expander."""
    advice = next((a for cls, a in _ADVICE if isinstance(exc, cls)),
                  "Reload the page; if it happens again, report it with the details below.")
    message = str(exc) if isinstance(exc, RagevalError) else f"{type(exc).__name__}"
    st.error(f"{md(what)}: {md(message)}  \n{md(advice)}")
    with st.expander("Details"):
        st.code("".join(traceback.format_exception(exc)), language=None)


def _through_app_shell() -> None:
    """Rerun through app.py when Streamlit ran this page directly.

    On the very first request after the server starts, Streamlit runs a deep link such as
    ``/answers`` through its legacy ``pages/`` folder mode, without app.py (so no project
    switcher, and helper modules listed as pages). app.py always sets ``project`` before
    navigating; without it we switch the server to st.navigation mode (what calling
    st.navigation does) and rerun, which lands on the same page through app.py.
    """
    if "project" in st.session_state:
        return
    from streamlit.runtime.pages_manager import PagesManager

    PagesManager.uses_pages_directory = False
    st.rerun()


def run_page(main: Callable[[], None]) -> None:
    """Run a page's ``main`` catching every exception at the page boundary (st.stop passes through)."""
    _through_app_shell()
    opening = st.session_state.pop("_open_answers", None)  # "Open its answers" was clicked in the announcer
    if opening is not None:
        st.switch_page(PAGES["answers"], query_params=opening)
    if not st.session_state.pop("_url_run_open", False):  # run without app.py (AppTest's pages mode)
        url_arrived({Path(f).stem: k for k, f in PAGES.items()}.get(Path(main.__code__.co_filename).stem, "home"))
        st.session_state.pop("_url_run_open", None)
    try:
        announce_finished()
        ingest_progress()
        main()
    except Exception as exc:  # noqa: BLE001 - the page boundary: nothing may escape as a traceback
        show_error(exc)
    finally:  # the address bar shows the view (after need()'s st.stop() it was written there already)
        url_write()


def rater_name(action: str, *, key: str, container: Any = st, **field: Any) -> str:
    """Who rates or labels: the name typed in a "Your name" field without sign-in (as before), the
    signed-in e-mail with it (the library signs with it anyway), "" for a viewer (the page says why)."""
    who = identity()
    if not can(action):
        return ""
    if who.local:
        return container.text_input("Your name", key=key, **field).strip()
    container.caption(f"Signed as {md(who.email)}")
    return who.email


def need(ok: Any, message: str, page: str | None = None, label: str = "") -> None:
    """Stop the page with ``message`` (and a link to ``page``, where to get it) unless ``ok``."""
    if not ok:
        st.info(message)
        if page:
            st.page_link(PAGES[page], label=label, icon=":material/arrow_forward:")
        url_write()  # now: after st.stop() every Streamlit call raises, so run_page's own write never happens
        st.stop()


def rerun_fragment() -> None:
    """Rerun the fragment this is called from, or the whole page when the click came in a full run
    (Streamlit refuses ``scope="fragment"`` outside a fragment rerun)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    st.rerun(scope="fragment" if ctx is not None and ctx.fragment_ids_this_run else "app")


# --- finished runs, announced in every tab -------------------------------------------------------

@st.fragment(run_every=2.0)
def announce_finished() -> None:
    """Every page, every tab: a message (with its link) for each run of the open project that finished
    or failed since this session started, once each, read from the database (so runs started in another
    tab, or by the CLI, are announced too). Between writes it costs one stat() of the database."""
    p = project()
    ended = ended_runs(p)
    seen = st.session_state.setdefault("_ended_seen", {})
    if p.slug not in seen:  # what had already ended when this session opened the project: not news
        seen[p.slug] = {r.id for r in ended}
    if p.slug == frame.DEMO_PROJECT:  # nor are the demo build's own runs: Home shows it, then opens it
        built, building = demo_gate()["runs"], demo_building()
        seen[p.slug].update(r.id for r in ended if building or r.id in built)
    news = st.session_state.setdefault("_ended_news", [])
    for r in ended:
        if r.id not in seen[p.slug]:
            seen[p.slug].add(r.id)
            news.append((p.slug, r))
            st.toast(f"Run {'finished' if r.status == 'finished' else 'failed'}: {md(run_title(r))}",
                     icon=":material/check_circle:" if r.status == "finished" else ":material/error:")
    for i, (slug, r) in enumerate(list(news)):
        if slug != p.slug:
            continue
        # the message across, its buttons under it on the left: the toast (top right) never covers them
        if r.status == "finished":
            st.success(f"Finished: {md(run_title(r))} — {r.done} answers, {r.failed} failed.")
        else:
            st.error(f"Run {md(run_title(r))} failed: {md(r.error or 'see the Run page')}")
        c2, c3, _ = st.columns([2, 1, 4], vertical_alignment="center")
        if r.status == "finished":
            if c2.button("Open its answers", key=f"open_{r.id}", type="primary", icon=":material/fact_check:"):
                news.remove((slug, r))
                st.session_state["ans_run"] = r.id
                # the page is switched by a full run (run_page), not from inside this fragment's run, whose
                # timer could then rerun a fragment the new page does not have
                st.session_state["_open_answers"] = {"project": p.slug, "run": r.id}
                st.rerun(scope="app")
        else:
            with c2:
                view_link("run", "See the Run page", icon=":material/play_circle:")
        if c3.button("Dismiss", key=f"dismiss_{r.id}"):
            news.remove((slug, r))
            rerun_fragment()


def label(metric: str) -> str:
    """The readable name of a metric (rageval.views.frame.metric_label); its identifier is in the tooltip."""
    return frame.metric_label(metric)


def tooltip(metric: str, n_unscored: int | None = None, more: str = "") -> str:
    """Tooltip text: the identifier (what the CLI and exports call it), then what the metric means (and ``more``)."""
    return f"{metric}: {frame.metric_help(metric, n_unscored)}{more}"


def metric_help(metric: str, n_unscored: int | None = None, more: str = "") -> str:
    """:func:`tooltip` escaped for Markdown (:func:`md`)."""
    return md(tooltip(metric, n_unscored, more))


def higher_is_better(metric: str) -> bool:
    return frame.higher_is_better(metric)


def heading(metric: str) -> str:
    """A metric's column or card title: its readable name and direction, ``Faithfulness ↑``."""
    return f"{label(metric)} {frame.arrow(metric)}"


def run_title(run: Run) -> str:
    """The one readable name of a run on every page (rageval.views.frame.run_name)."""
    return frame.run_name(run)


# --- background runs ---------------------------------------------------------------------------

@st.cache_resource(show_spinner=False)
def demo_gate() -> dict:
    """One per server process: the demo build's thread, progress, error and the ids of the runs it
    made (shared by all sessions)."""
    import threading

    return {"lock": threading.Lock(), "thread": None, "progress": None, "error": None, "runs": set()}


def demo_building() -> bool:
    """Whether the demo project is being built in this server process right now."""
    import threading

    thread = demo_gate()["thread"]
    return isinstance(thread, threading.Thread) and thread.is_alive()


@st.cache_resource(show_spinner=False)
def workers() -> RunWorkers:
    """One per server process: every tab sees the same runs (rageval.runs.worker)."""
    return RunWorkers()


@st.cache_resource(show_spinner=False)
def ingests() -> IngestJobs:
    """One per server process: an ingest goes on when its page is left (rageval.runs.ingest_worker)."""
    return IngestJobs()


def ingest_progress() -> None:
    """Every page: the open project's ingests running in this server process, with their progress."""
    if ingests().active(project()):
        _ingest_bars()


@st.fragment(run_every=1.0)
def _ingest_bars() -> None:
    """The bars, redrawn each second; when the last ingest ends the whole page reruns on the new data."""
    active = ingests().active(project())
    if not active:
        bump()
        st.rerun(scope="app")
    for job in active:
        st.progress(job.progress.fraction(), text=md(job.text()))


def spec_input(label: str, offline: str, *, key: str, model: str, container: Any = st) -> str:
    """An offline choice or ``openai:MODEL`` (any OpenAI-compatible server configured by env)."""
    kind = container.selectbox(label, [offline, "openai"], key=key,
                               help="'openai' uses OPENAI_BASE_URL / OPENAI_API_KEY (or per-role variables)")
    if kind == offline:
        return offline
    name = container.text_input(f"{label} model", value=model, key=f"{key}_model").strip()
    return f"openai:{name}" if name else offline
