"""AppTest of people's claim labels: the Human review claim queue and the Answers page's buttons."""
from __future__ import annotations

import re

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rageval.store import claim_labels as cstore
from tests.claim_fixtures import claims_project

APP = Path(__file__).resolve().parents[1] / "app.py"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_NO_AUTODEMO", "1")
    return claims_project("cl")[0]


def page(path: str) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.session_state["project"] = "cl"
    return at.switch_page(path).run()  # one script run: the page is named by its file before the first


def no_failure(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not [e.value for e in at.error], [e.value for e in at.error]


def _captions(at: AppTest) -> str:
    return "\n".join(str(e.value) for e in at.caption).replace("\\", "")


def test_the_claim_queue_labels_one_claim_per_click_unverified_first(project):
    at = page("pages/human_review.py")
    at.selectbox(key="hr_run").set_value("runA").run()
    at.text_input(key="hr_annotator").set_value("dana").run()
    at.segmented_control(key="hr_mode").set_value("Claims").run()
    no_failure(at)
    assert "36 claim(s) left for dana" in _captions(at) and "UNVERIFIED" in _captions(at)
    for label in ("SUPPORTED", "NOT_MENTIONED", "SKIP"):
        at.button(key=f"hr_claim_{label}").click().run()
        no_failure(at)
    assert "33 claim(s) left for dana" in _captions(at)
    stored = cstore.labels(project.db_path, ["runA"])
    assert sorted(r["label"] for r in stored) == ["NOT_MENTIONED", "SKIP", "SUPPORTED"]
    assert all(r["rater"] == "dana" for r in stored)
    assert {r["claim"] for r in stored} <= {f"Claim {k} of answer {i}." for i in range(12) for k in (1, 2)}


def test_the_answers_page_labels_a_claim_with_one_click(project):
    at = page("pages/answers.py")
    at.selectbox(key="ans_run").set_value("runA").run()
    no_failure(at)
    at.text_input(key="ans_rater").set_value("eve").run()
    no_failure(at)
    item = at.selectbox(key="ans_item").value
    at.button(key=f"ans_lab_{item}_1_CONTRADICTED").click().run()
    no_failure(at)
    (row,) = cstore.labels(project.db_path, ["runA"])
    assert (row["item_id"], row["rater"], row["label"], row["ordinal"]) == (item, "eve", "CONTRADICTED", 1)
    assert row["evidence"] and row["span_start"] is not None  # the proposed evidence sentence is kept


#: the contexts every answer of runA gets in the evidence tests: five sentences in two contexts
CONTEXTS = ["The first sentence of the first context. The second sentence says more. A third one ends it.",
            "The second context opens here. It closes here."]


def _with_contexts(project) -> None:
    from rageval.store.db import connect

    with connect(project.db_path) as con:
        con.execute("UPDATE answers SET contexts = ? WHERE run_id = 'runA'", [json.dumps(CONTEXTS)])


def _sentences(at: AppTest, key: str) -> tuple[list[str], int]:
    """The evidence picker's sentences (its Markdown escapes removed) and the index of the filled one."""
    buttons = sorted((b for b in at.button if b.key.startswith(f"{key}_") and b.key[len(key) + 1:].isdigit()),
                     key=lambda b: int(b.key.rsplit("_", 1)[1]))
    (filled,) = [k for k, b in enumerate(buttons) if b.proto.type == "primary"]
    return [b.label.replace("\\", "") for b in buttons], filled


def _keys_on(at: AppTest, item: str) -> dict[str, int]:
    """Shortcut key -> the claim number whose button carries it (on the Answers page)."""
    out = {}
    for b in at.button:
        if b.proto.shortcut and b.key.startswith(f"ans_lab_{item}_"):
            out[b.proto.shortcut] = int(b.key.split("_")[3])
    return out


def test_the_answers_page_keys_act_on_the_claim_in_the_box_and_move_on(project):
    _with_contexts(project)
    at = page("pages/answers.py")
    at.selectbox(key="ans_run").set_value("runA").run()
    at.text_input(key="ans_rater").set_value("eve").run()
    no_failure(at)
    item = at.selectbox(key="ans_item").value
    assert _keys_on(at, item) == {"1": 0, "2": 0, "3": 0, "4": 0}  # the first claim not labelled yet
    at.button(key=f"ans_lab_{item}_0_SUPPORTED").click().run()  # what key 1 presses
    no_failure(at)
    assert _keys_on(at, item) == {"1": 1, "2": 1, "3": 1, "4": 1}  # labelled: the box moved to the next
    at.button(key=f"ans_focus_{item}_2").click().run()  # a click on claim 3's text moves the box there
    no_failure(at)
    assert set(_keys_on(at, item).values()) == {2}
    shown, filled = _sentences(at, f"ans_ev_{item}_2")
    assert shown[filled].endswith("(proposed)")
    at.button(key=f"ans_ev_{item}_2_3").click().run()  # one click on another sentence: "[2] The second context ..."
    assert _sentences(at, f"ans_ev_{item}_2")[1] == 3
    at.button(key=f"ans_lab_{item}_2_NOT_MENTIONED").click().run()
    no_failure(at)
    assert set(_keys_on(at, item).values()) == {1}  # the one claim left without a label
    rows = {r["ordinal"]: r for r in cstore.labels(project.db_path, ["runA"])}
    assert (rows[0]["label"], rows[2]["label"]) == ("SUPPORTED", "NOT_MENTIONED")
    assert rows[2]["evidence"] == "The second context opens here." and rows[2]["span_start"] == 0


def test_a_click_on_another_sentence_changes_a_stored_labels_evidence(project):
    _with_contexts(project)
    at = page("pages/answers.py")
    at.selectbox(key="ans_run").set_value("runA").run()
    at.text_input(key="ans_rater").set_value("eve").run()
    item = at.selectbox(key="ans_item").value
    at.button(key=f"ans_lab_{item}_0_CONTRADICTED").click().run()
    (before,) = cstore.labels(project.db_path, ["runA"])
    at.button(key=f"ans_focus_{item}_0").click().run()  # back to the labelled claim: its stored sentence shown
    shown, filled = _sentences(at, f"ans_ev_{item}_0")
    assert shown[filled].split("] ", 1)[1].removesuffix(" (proposed)") == before["evidence"]
    at.button(key=f"ans_ev_{item}_0_1").click().run()
    no_failure(at)
    (after,) = cstore.labels(project.db_path, ["runA"])
    assert after["label"] == before["label"] == "CONTRADICTED"
    assert after["evidence"] == "The second sentence says more." != before["evidence"]
    assert _sentences(at, f"ans_ev_{item}_0")[1] == 1


def test_the_claim_queue_takes_the_clicked_sentence_as_evidence(project):
    _with_contexts(project)
    at = page("pages/human_review.py")
    at.selectbox(key="hr_run").set_value("runA").run()
    at.text_input(key="hr_annotator").set_value("dana").run()
    at.segmented_control(key="hr_mode").set_value("Claims").run()
    key = next(b.key for b in at.button if b.key.startswith("hr_ev_")).rsplit("_", 1)[0]
    shown, filled = _sentences(at, key)
    assert len(shown) == 5 and [k for k, t in enumerate(shown) if t.endswith("(proposed)")] == [filled]
    at.button(key=f"{key}_4").click().run()
    assert _sentences(at, key)[1] == 4
    at.button(key="hr_claim_SUPPORTED").click().run()
    no_failure(at)
    (row,) = cstore.labels(project.db_path, ["runA"])
    assert (row["label"], row["evidence"]) == ("SUPPORTED", "It closes here.")
    assert "35 claim(s) left for dana" in _captions(at)


def _label_some(project):
    from rageval.human.claim_labels import label_claim

    for i in range(6):
        for k, lab in enumerate(("SUPPORTED", "CONTRADICTED", "NOT_MENTIONED")):
            label_claim(project, "runA", f"q{i:02d}", f"Claim {k} of answer {i}.", "ann", lab, ordinal=k)


def test_correlations_show_every_verifier_against_people(project):
    _label_some(project)
    at = page("pages/correlations.py")
    no_failure(at)
    text = "\n".join(str(e.value) for e in at.markdown).replace("\\", "")
    assert "1 rater(s) labelled 18 claim(s)" in text
    table = next(d.value for d in at.dataframe if "verifier" in d.value.columns)
    assert len(table) == 2 and set(table["labelled"]) == {18}
    assert any("Confusion matrix" in e.label for e in at.expander)


def test_answers_show_each_verifiers_agreement_beside_its_verdicts(project):
    _label_some(project)
    at = page("pages/answers.py")
    at.selectbox(key="ans_run").set_value("runA").run()
    no_failure(at)
    said = [line for line in _captions(at).splitlines() if "agrees with people on" in line]
    assert len(said) == 2 and all("labelled claims" in line and "kappa" not in line for line in said)
    assert sum("agreement beyond chance is undefined" in line for line in said) == 1  # the rule gives one verdict
    assert sum(bool(re.search(r"agreement beyond chance (none|slight|fair|moderate|good|very good), -?\d\.\d\d \[",
                              line)) for line in said) == 1  # the judge's: in words, the value and its interval
    assert any(c.help and "Cohen's kappa" in c.help for c in at.caption)  # the statistic's name in a tooltip
    assert not any("faithfulness|" in line for line in said)  # no signature in a sentence: in the expander
    inside = [str(c.value) for e in at.expander for c in e.caption]
    assert any("faithfulness|" in c.replace("\\", "") for c in inside)
    outside = [str(c.value) for c in at.caption if str(c.value) not in inside]
    assert not any("faithfulness|" in c.replace("\\", "") for c in outside)
    table = next(d.value for d in at.dataframe if "precision NM" in d.value.columns)
    assert set(table["labelled"]) == {18} and {"n", "accuracy", "kappa 95% CI", "recall C"} <= set(table.columns)


def test_correlations_show_the_raters_agreement_on_claims(project):
    from rageval.human.claim_labels import label_claim

    _label_some(project)
    for i in range(6):  # a second rater: the same labels but on answer 0
        for k, lab in enumerate(("SUPPORTED", "CONTRADICTED", "NOT_MENTIONED")):
            label_claim(project, "runA", f"q{i:02d}", f"Claim {k} of answer {i}.", "bo",
                        "SUPPORTED" if i == 0 else lab, ordinal=k)
    at = page("pages/correlations.py")
    no_failure(at)
    text = "\n".join(str(e.value) for e in at.markdown).replace("\\", "")
    assert "2 rater(s) labelled 18 claim(s), 18 by two or more: Krippendorff's alpha" in text
    assert "kappa ann vs bo" in text


def test_without_claim_labels_home_shows_no_estimate_and_correlations_say_so(project):
    at = page("pages/home.py")
    no_failure(at)
    assert not any(e.label.startswith("How sure these numbers are") for e in at.expander)
    at = page("pages/correlations.py")
    no_failure(at)
    assert "No claim labels yet" in "\n".join(str(e.value) for e in [*at.markdown, *at.caption, *at.info])


def test_home_and_compare_show_ppi_estimates_where_labels_exist(project):
    _label_some(project)
    at = page("pages/home.py")
    no_failure(at)
    assert any(e.label.startswith("How sure these numbers are") for e in at.expander)
    said = [
        c
        for c in at.caption
        if "share of claims a person calls SUPPORTED (offline rule): " in str(c.value).replace("\\", "")
    ]
    assert said and all("PPI++" in c.help and "faithfulness|" in c.help for c in said)  # method, signature: tooltip
    shown = "\n".join(str(x.value) for x in [*at.caption, *at.markdown])
    assert "faithfulness|" not in shown and "PPI++" not in shown and " cov " not in shown and "ρ" not in shown
    at = page("pages/compare.py")
    no_failure(at)
    assert "PPI: difference of mean human rating (B - A)" in _captions(at)


def test_the_report_has_the_trust_section(project):
    from rageval.views.answers import export

    assert "How far to trust" not in export(project, "runB", "HTML report")
    _label_some(project)
    html = export(project, "runA", "HTML report")
    assert (
        "How far to trust the verdicts and the numbers" in html and "share of claims a person calls SUPPORTED" in html
    )
    assert all(f"{m} {v}</th>" in html for m in ("precision", "recall") for v in ("S", "C", "NM"))
