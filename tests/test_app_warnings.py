"""No Streamlit deprecation warning (nor any other Python warning from Streamlit or our pages) on a
walk through every page of a project with runs, ratings and an analysis: each page drawn, a rating
saved, an analysis computed, two runs compared. Streamlit reports a deprecated call with
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
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if not any(h in text for h in HARNESS):
            self.records.append(f"{record.name}: {text}")


def test_a_walk_through_every_page_raises_no_streamlit_warning(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_NO_AUTODEMO", "1")
    make_runs("w", n=12, runs=("r0", "r1"))
    handler = _Collect()
    import streamlit.deprecation_util  # noqa: F401 - its logger exists before the walk

    loggers = [lg for name, lg in logging.root.manager.loggerDict.items()  # Streamlit's do not propagate
               if name.startswith("streamlit") and isinstance(lg, logging.Logger)]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            at = AppTest.from_file(str(APP), default_timeout=120)
            at.session_state["project"] = "w"
            at.run()
            for page in PAGES:
                at.switch_page(page).run()
                assert not at.exception, (page, [e.value for e in at.exception])
            at.switch_page("pages/human_review.py").run()
            at.text_input(key="hr_annotator").set_value("walker").run()
            at.switch_page("pages/correlations.py").run()
            at.button(key="co_compute").click().run()
            at.switch_page("pages/compare.py").run()
            at.switch_page("pages/answers.py").run()
            assert not at.exception, [e.value for e in at.exception]
    finally:
        for logger in loggers:
            logger.removeHandler(handler)
    ours = [f"{w.category.__name__}: {w.message} ({w.filename}:{w.lineno})" for w in caught
            if "streamlit" in w.filename or "/pages/" in w.filename or w.filename.endswith("app.py")]
    assert sorted(set(handler.records)) == [] and ours == []
    assert not [e.value for e in at.warning if "deprecat" in str(e.value).lower()]
