"""No Streamlit deprecation warning (nor any other Python warning from Streamlit or our pages, nor a
traceback Streamlit logs) on a walk through every page of a project with runs, ratings and an analysis: each page drawn,
a rating saved, an analysis computed, two runs compared. Streamlit reports a deprecated call with
``show_deprecation_warning`` (a log record of the ``streamlit`` loggers) and Python warnings; both
are collected here."""
from __future__ import annotations

import logging
import warnings
from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.human_fixtures import make_runs

APP = Path(__file__).resolve().parents[1] / "app.py"
PAGES = ["pages/home.py", "pages/documents.py", "pages/qa_sets.py", "pages/run.py", "pages/answers.py",
         "pages/human_review.py", "pages/correlations.py", "pages/compare.py"]
#: AppTest runs scripts without a browser session: this notice is about the test harness itself
HARNESS = ("missing ScriptRunContext",)


class _Collect(logging.Handler):
    """Warnings of Streamlit's loggers, and any record that prints a traceback in the terminal (a table
    Arrow cannot convert as it is: logged at INFO with its traceback, every redraw)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if (record.levelno >= logging.WARNING or record.exc_info) and not any(h in text for h in HARNESS):
            self.records.append(f"{record.name}: {text}")


def test_a_walk_through_every_page_raises_no_streamlit_warning(tmp_path, monkeypatch):
    from rageval.store import owners
    from rageval.store import runs as run_store
    from tests.test_app import build_project

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_NO_AUTODEMO", "1")
    make_runs("w", n=12, runs=("r0", "r1"))  # rated runs: Human review, Correlations, Compare
    data = build_project("t")["project"]  # a corpus, a QA set, a pipeline run and a scored file
    # a run in progress (owned by this live process): the Run page's list then mixes empty and set times
    run_store.create_run(data.db_path, "r-live", kind="pipeline", corpus="c", qa_set="qa", config={},
                         config_hash="h", n_items=3)
    run_store.set_run_status(data.db_path, "r-live", "running")
    owners.claim(data.db_path, "r-live")
    handler = _Collect()
    import streamlit.dataframe_util  # noqa: F401 - their loggers exist before the walk (a table that
    import streamlit.deprecation_util  # noqa: F401 - Arrow cannot convert as it is is logged there)

    loggers = [lg for name, lg in logging.root.manager.loggerDict.items()  # Streamlit's do not propagate
               if name.startswith("streamlit") and isinstance(lg, logging.Logger)]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            at = AppTest.from_file(str(APP), default_timeout=120)
            for project in ("t", "w"):
                at.session_state["project"] = project
                at.run()
                for page in PAGES:
                    at.switch_page(page).run()
                    assert not at.exception, (project, page, [e.value for e in at.exception])
            assert at.session_state["project"] == "w"
            at.switch_page("pages/human_review.py").run()
            at.text_input(key="hr_annotator").set_value("walker").run()
            at.switch_page("pages/correlations.py").run()
            at.button(key="co_compute").click().run()
            at.switch_page("pages/compare.py").run()
            at.switch_page("pages/answers.py").run()
            assert not at.exception, [e.value for e in at.exception]
    finally:
        for logger, level in zip(loggers, levels):
            logger.removeHandler(handler)
            logger.setLevel(level)
    ours = [f"{w.category.__name__}: {w.message} ({w.filename}:{w.lineno})" for w in caught
            if "streamlit" in w.filename or "/pages/" in w.filename or w.filename.endswith("app.py")]
    assert sorted(set(handler.records)) == [] and ours == []
    assert not [e.value for e in at.warning if "deprecat" in str(e.value).lower()]
