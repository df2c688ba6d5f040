"""The pure helpers behind the app's pages: highlight spans, summaries, filters, escaping."""
from __future__ import annotations

import pytest

from rageval.views import highlight as hl
from rageval.views import answer_view as av
from rageval.views import answers as q
@pytest.mark.parametrize("text, spans, expected", [
    ("abc", [], [("abc", None, ())]),
    ("one two", [(0, 3, "SUPPORTED", 1)], [("one", "SUPPORTED", (1,)), (" two", None, ())]),
    # overlapping claims: the overlap takes the most severe verdict and both numbers
    ("aaaa", [(0, 3, "SUPPORTED", 1), (2, 4, "CONTRADICTED", 2)],
     [("aa", "SUPPORTED", (1,)), ("a", "CONTRADICTED", (1, 2)), ("a", "CONTRADICTED", (2,))]),
    ("xy", [(0, 2, "NOT_MENTIONED", 1), (0, 2, "SUPPORTED", 2)], [("xy", "NOT_MENTIONED", (1, 2))]),
])
def test_segments_cover_the_text_exactly(text, spans, expected):
    got = hl.segments(text, spans)
    assert [(s.text, s.verdict, s.labels) for s in got] == expected
    assert "".join(s.text for s in got) == text


@pytest.mark.parametrize("answer, claim, expected", [
    ("Paris is big. It is old.", {"text": "It is old."}, (14, 24)),
    ("Paris is big. It is old.", {"text": "it is old"}, (14, 23)),            # case, no full stop
    ("Paris is big. It is very old.", {"text": "Paris is very old."}, (14, 29)),  # rewording: best sentence
    ("Paris is big.", {"text": "Rome has seven hills."}, None),              # nothing shared
    ("Paris is big.", {"text": "x", "details": {"answer_span": [0, 5]}}, (0, 5)),
])
def test_claim_span(answer, claim, expected):
    assert hl.claim_span(answer, claim) == expected


def test_evidence_location_uses_the_span_then_the_text():
    view = av.AnswerView(item_id="i", ordinal=0, question="", references=[], answer="", status="ok", reason=None,
                         contexts=[av.Context(1, "a", 0.9, "Alpha beta. Gamma delta."),
                                   av.Context(2, "b", 0.5, "Epsilon zeta.")],
                         scores={}, claims=[])
    assert hl.evidence_location(view, {"evidence_chunk": "a", "span_start": 12, "span_end": 24,
                                       "evidence": "Gamma delta."}) == (0, 12, 24)
    # a span that does not match its evidence is not trusted; the evidence is searched for
    assert hl.evidence_location(view, {"evidence_chunk": "a", "span_start": 0, "span_end": 5,
                                       "evidence": "Epsilon zeta."}) == (1, 0, 13)
    assert hl.evidence_location(view, {"evidence_chunk": "context[1]", "span_start": 0, "span_end": 7,
                                       "evidence": None}) == (1, 0, 7)
    assert hl.evidence_location(view, {"evidence_chunk": None, "evidence": "not there"}) is None


def test_run_summaries_average_scored_items_only(tmp_path, monkeypatch):
    from rageval.project import open_project
    from rageval.report.summary import run_summaries
    from rageval.store import runs as run_store

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path))
    project = open_project("s")
    run_store.create_run(project.db_path, "r", kind="import", corpus=None, qa_set=None,
                         config={"source": "a.jsonl", "metrics": ["m", "n"]}, config_hash="h", n_items=3)
    m_sig, n_sig = "m|judge:heuristic|v1", "n|v1"
    values = [(1.0, "ok", None), (0.0, "ok", None), (None, "unscored", "no_claims")]
    for i, (value, status, reason) in enumerate(values):
        scores = [{"metric": "m", "signature": m_sig, "value": value, "status": status, "reason": reason,
                   "details": None}]
        if i == 0:
            scores.append({"metric": "n", "signature": n_sig, "value": None, "status": "failed",
                           "reason": "llm_error: 500", "details": None})
        run_store.save_item(project.db_path, "r", {
            "item_id": f"q{i}", "ordinal": i, "question": "q", "answer": "a", "references": [], "contexts": [],
            "retrieved": [], "status": "ok", "reason": None, "details": {}}, scores, [])
    m, n = run_summaries(project, "r")
    assert (m.mean, m.n_ok, m.n_unscored, m.n_failed, m.heuristic) == (0.5, 2, 1, 0, True)
    assert m.reasons == {"unscored: no_claims": 1}
    assert (n.mean, n.n_ok, n.n_failed, n.heuristic) == (None, 0, 1, False)


def test_filter_scores():
    import pandas as pd

    from rageval.views.answer_table import filter_scores

    table = pd.DataFrame({"id": ["a", "b", "c"], "question": "", "answer": "", "status": "ok", "domain": "",
                          "diagnosis": "", "hedging_flag": False, "low_confidence": 0, "supported": [0, 1, 0],
                          "contradicted": [1, 0, 0], "not_mentioned": 0, "f": [0.2, 0.9, float("nan")]})
    ids = lambda t: list(t["id"])  # noqa: E731
    assert ids(filter_scores(table, contradicted=True)) == ["a"]
    assert ids(filter_scores(table, unscored=True)) == ["c"]
    assert ids(filter_scores(table, metric="f", below=0.5)) == ["a"]
    assert ids(filter_scores(table, metric="f", at_least=0.5)) == ["b"]
    assert ids(filter_scores(table)) == ["a", "b", "c"]


def test_highlight_html_escapes_everything_but_its_own_tags():
    from pages.parts.common import highlight_html, md

    body = highlight_html([hl.Segment('<img src=x onerror="alert(1)">', "CONTRADICTED", (1,)),
                           hl.Segment(" & <b>plain</b>")])
    assert "<img" not in body and "<b>" not in body
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in body and "&amp; &lt;b&gt;plain&lt;/b&gt;" in body
    assert md("![x](http://h/i.png) *a* $x$") == r"\!\[x\]\(http\://h/i\.png\) \*a\* \$x\$"


@pytest.mark.parametrize(
    "score, expected",
    [
        (None, ""),
        ({"status": "ok", "value": 0.0, "details": {"cues": []}}, "no hedging or abstention"),
        (
            {"status": "ok", "value": 1.0, "details": {"cues": ["I think"], "abstained": False}},
            "hedges or abstains: flagged for review (“I think”)",
        ),
        (
            {
                "status": "ok",
                "value": 1.0,
                "details": {"cues": ["I don't know"], "abstained": True, "abstention_right": False},
            },
            "hedges or abstains: flagged for review (“I don't know”); abstaining was wrong: the gold answer was "
            "retrieved",
        ),
        (
            {"status": "failed", "value": None, "reason": "llm_error: 500", "details": None},
            "hedging not checked (failed: llm_error: 500)",
        ),
    ],
)
def test_hedging_text(score, expected):
    assert q.hedging_text(score) == expected


def test_diagnosis_text():
    score = {"details": {"diagnosis": {"answer_cause": "long_context_dilution", "gold_in_contexts": True,
                                       "gold_ranks": [6]}}}
    assert q.diagnosis_text(score) == ("likely cause of the unsupported claims: long context dilution; "
                                       "gold answer retrieved at rank 6")
    assert (
        q.diagnosis_text({"details": {"diagnosis": {"gold_in_contexts": False}}}) == "gold answer in no retrieved chunk"
    )
    assert q.diagnosis_text(None) == ""


def test_offline_verdicts_get_the_trust_note_and_llm_verdicts_do_not():
    assert q.offline_verdicts([{"judge": "heuristic", "verdict": "SUPPORTED"}])
    assert not q.offline_verdicts([{"judge": "openai:gpt-4o", "verdict": "SUPPORTED"}])
    assert not q.offline_verdicts([])
    # one plain sentence: what offline verdicts are, and the CLI option / Run-page setting that adds a judge
    note = q.OFFLINE_VERDICT_NOTE
    assert note.count(". ") == 0 and "UNVERIFIED" in note and "--judge" in note and "Run page" in note
