"""AppTest for the Human review, Correlations and Compare pages."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rageval import human
from rageval.store import human as hstore
from tests.human_fixtures import make_runs

APP = Path(__file__).resolve().parents[1] / "app.py"
PAGES = ["pages/human_review.py", "pages/correlations.py", "pages/compare.py"]


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_NO_AUTODEMO", "1")
    return tmp_path / "home"


@pytest.fixture
def rated(home):
    project, _ = make_runs("h", n=30, runs=("r0", "r1", "r2"))
    return project


def page(project: str, path: str) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.session_state["project"] = project
    return at.switch_page(path).run()  # one script run: the page is named by its file before the first


def no_failure(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not [e.value for e in at.error], [e.value for e in at.error]


def _text(at: AppTest) -> str:
    parts = [
        str(e.value) for kind in ("markdown", "caption", "info", "success", "subheader") for e in getattr(at, kind)
    ]
    parts += [p.proto.text for p in at.get("progress")]
    return "\n".join(parts).replace("\\", "")


@pytest.mark.parametrize("path", PAGES)
def test_pages_on_an_empty_project_say_what_is_missing(home, path):
    at = page("empty", path)
    no_failure(at)
    assert at.info and at.get("page_link")


def test_human_review_rates_resumes_and_counts_progress(rated):
    at = page("h", "pages/human_review.py")
    no_failure(at)
    at.text_input(key="hr_annotator").set_value("dana").run()
    no_failure(at)
    assert "dana: 0 of 30 answers rated" in _text(at)
    radio = next(r for r in at.radio if r.key.startswith("hr_rating_"))
    assert radio.options == ["1 Very Poor", "2 Poor", "3 Fair", "4 Good", "5 Very Good"]
    run_id, first_item = radio.key.split("_")[2:4]
    radio.set_value(4)
    next(b for b in at.button if b.label == "Save and next").click().run()
    no_failure(at)
    mine = {r["item_id"]: r["rating"] for r in hstore.ratings(rated.db_path, [run_id]) if r["annotator"] == "dana"}
    assert mine == {first_item: 4}
    assert "dana: 1 of 30 answers rated" in _text(at)
    # a new session resumes at the first answer dana has not rated
    at2 = page("h", "pages/human_review.py")
    at2.text_input(key="hr_annotator").set_value("dana").run()
    radio2 = next(r for r in at2.radio if r.key.startswith("hr_rating_"))
    assert radio2.key.rsplit("_", 1)[-1] != first_item and radio2.value is None
    # blinded by default: no metric scores or other annotators' ratings shown
    assert "token_f1" not in _text(at2) and "Token F1" not in _text(at2)
    at2.toggle(key="hr_blind").set_value(False).run()
    assert "Token F1" in _text(at2) and "ann " in _text(at2)
    # not blinded: answers whose ratings differ by 2+ can get an agreed score
    item = at2.selectbox(key="hr_agree_item").value
    at2.number_input(key="hr_agree_score").set_value(2)
    at2.button(key="hr_agree_set").click().run()
    no_failure(at2)
    cons = human.consensus(rated, [run_id]).set_index("item_id")
    assert cons.loc[item, "score"] == 2 and cons.loc[item, "source"] == "agreed"


def test_correlations_computes_stores_and_draws(rated):
    at = page("h", "pages/correlations.py")
    no_failure(at)
    assert any("No stored analysis" in i.value for i in at.info)
    at.multiselect(key="co_runs").set_value(["r0", "r1"])
    at.selectbox(key="co_group").set_value("run")
    at.button(key="co_compute").click().run()
    no_failure(at)
    stored = human.list_analyses(rated)
    assert len(stored) == 1 and stored[0]["grouping"] == "run"
    table = next(d.value for d in at.dataframe if human.CEILING in d.value.index)
    assert list(table.index)[-1] == human.CEILING and list(table.columns) == ["r0", "r1"]
    assert at.get("plotly_chart"), "no heatmap drawn"
    assert len(at.get("download_button")) >= 2


def test_compare_two_and_three_runs(rated):
    at = page("h", "pages/compare.py")
    no_failure(at)
    at.selectbox(key="cmp_metric").set_value("token_f1").run()
    no_failure(at)
    verdict = human.compare_runs(rated, at.multiselect(key="cmp_runs").value, "token_f1").verdict
    shown = [e.value.replace("\\", "") for e in list(at.success) + list(at.info)]
    assert verdict in shown
    assert "Per question: what got worse, what got better" in _text(at) and "change = B − A" in _text(at)
    assert any("answers?project=h&run=" in str(d.value) for d in at.dataframe), "no side-by-side links"
    at.multiselect(key="cmp_runs").set_value(["r0", "r1", "r2"]).run()
    no_failure(at)
    assert "Conover post-hoc p-values (Holm)" in _text(at) and at.get("plotly_chart")


def _unrate(project, *run_ids: str) -> None:
    from rageval.store.db import connect

    with connect(project.db_path) as con:
        con.execute(f"DELETE FROM human_ratings WHERE run_id IN ({', '.join('?' for _ in run_ids)})", list(run_ids))


def test_correlations_opens_on_a_run_with_ratings(rated):
    from rageval.store import runs as store

    newest = [r.id for r in store.runs(rated.db_path)]
    _unrate(rated, newest[0])  # the newest run has no ratings: it must not be the default
    at = page("h", "pages/correlations.py")
    no_failure(at)
    assert at.multiselect(key="co_runs").value == [newest[1]]
    assert "(no ratings)" in at.multiselect(key="co_runs").format_func(newest[0])
    at.button(key="co_compute").click().run()
    no_failure(at)
    assert list(next(d.value for d in at.dataframe if human.CEILING in d.value.index).columns) != []


def test_correlations_says_when_no_run_has_ratings(rated):
    from rageval.store import runs as store

    _unrate(rated, *[r.id for r in store.runs(rated.db_path)])
    at = page("h", "pages/correlations.py")
    no_failure(at)
    assert at.multiselect(key="co_runs").value == []
    assert any("None of the finished runs has human ratings yet" in i.value for i in at.info)
    assert at.button(key="co_compute").disabled
