"""Hostile rows in what the app and the HTML report show: bidi controls never reach a
rendered view; a ratings file the importer rejects as a whole is one line, the page intact."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rageval.cli import main

APP = Path(__file__).resolve().parents[1] / "app.py"
BIDI = "\u202e\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
ROWS = [{"id": "evil", "question": "Which invoice\u202egpj.exe is due?", "answer": "The \u2067invoice\u2069 is due.",
         "reference": "The invoice is due\u202e.", "domain": "billing\u202ex", "contexts": ["Invoice\u202d due."]},
        {"id": "calm", "question": "How long do refunds take?", "answer": "Seven days.", "reference": "Seven days.",
         "domain": "billing", "contexts": ["Refunds take seven days."]}]


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_NO_AUTODEMO", "1")
    monkeypatch.delenv("RAGEVAL_PROJECT", raising=False)
    return tmp_path


def _import_run(home, capsys) -> str:
    src = home / "answers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    assert (
        main(["score", str(src), "--metrics", "token_f1,faithfulness", "--json", "--out", str(home / "o.jsonl")]) == 0
    )
    return json.loads(capsys.readouterr().out)["run_id"]


def _shown(at: AppTest) -> str:
    parts = [str(e.value) for kind in ("markdown", "caption", "info", "success", "warning", "error", "title",
                                       "subheader") for e in getattr(at, kind)]
    parts += [h.proto.body for h in at.get("html")]
    parts += [d.value.to_csv() + " ".join(map(str, d.value.index)) for d in at.dataframe]
    parts += [" ".join(map(str, s.options)) for s in at.selectbox]
    return "\n".join(parts)


def test_bidi_controls_never_reach_the_html_report(home, capsys):
    run_id = _import_run(home, capsys)
    assert main(["report", "--run", run_id, "--out", str(home / "r.html")]) == 0
    page = (home / "r.html").read_text(encoding="utf-8")
    assert not any(ch in page for ch in BIDI)
    assert "billingx" in page  # the domain, without its override


def test_bidi_controls_never_reach_the_answers_page(home, capsys):
    run_id = _import_run(home, capsys)
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.session_state["project"] = "default"
    at.run()
    at.switch_page("pages/answers.py").run()
    at.selectbox(key="ans_run").set_value(run_id).run()
    at.selectbox(key="ans_item").set_value("evil").run()
    assert not at.exception, [e.value for e in at.exception]
    shown = _shown(at)
    assert "Which invoicegpj.exe is due?" in shown and "billingx" in shown
    assert not [hex(ord(ch)) for ch in BIDI if ch in shown]


@pytest.fixture
def rated(home, monkeypatch):
    from tests.human_fixtures import make_runs

    project, _ = make_runs("h", n=4, runs=("r0",))
    return project


def _human_review(files, annotator: str | None = None) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.session_state["project"] = "h"
    at.run()
    at.switch_page("pages/human_review.py").run()
    if annotator is not None:
        at.text_input(key="hr_import_annotator").set_value(annotator).run()
    at.file_uploader(key="hr_upload").set_value(files).run()
    at.button(key="hr_import").click().run()
    return at


def test_a_ratings_file_without_annotator_is_one_line_in_the_app(rated):
    at = _human_review(("ratings.csv", b"item_id,rating\nq00,4\n", "text/csv"))
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "missing column annotator" in errors[0].replace("\\", "")
    assert "Traceback" not in errors[0]
    assert not any("Details" == ex.label for ex in at.expander)  # no crash box
    assert at.text_input(key="hr_annotator") is not None and at.selectbox(key="hr_run").value == "r0"


def test_a_ratings_file_without_annotator_is_imported_with_the_apps_annotator_field(rated):
    from rageval.store import human as hstore

    at = _human_review(("ratings.csv", b"item_id,rating\nq00,4\nq01,2\n", "text/csv"), annotator=" maria ")
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("2 rating(s) imported, 0 row(s) rejected" in s.value for s in at.success)
    stored = {(r["item_id"], r["annotator"], r["rating"]) for r in hstore.ratings(rated.db_path, ["r0"])}
    assert {("q00", "maria", 4), ("q01", "maria", 2)} <= stored


def test_infinite_ratings_in_the_apps_import_box_reject_only_their_rows(rated):
    body = b"item_id,annotator,rating\nq00,zoe,4\nq01,zoe,inf\nq02,zoe,1e400\nq03,zoe,-Infinity\n"
    at = _human_review(("ratings.csv", body, "text/csv"))
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("1 rating(s) imported, 3 row(s) rejected" in s.value for s in at.success)
    table = next(d.value for d in at.dataframe if "reason" in d.value.columns)
    assert list(table["row"]) == [2, 3, 4] and list(table["line"]) == [3, 4, 5]
    assert all("not a whole number 1-5" in r for r in table["reason"])
