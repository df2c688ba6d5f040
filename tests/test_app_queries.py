"""The pure helpers behind the app's pages: highlight spans, summaries, filters, escaping."""
from __future__ import annotations

import pytest

from rageval.views import highlight as hl
from rageval.views import queries as q
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
    view = q.AnswerView(item_id="i", ordinal=0, question="", references=[], answer="", status="ok", reason=None,
                        contexts=[q.Context(1, "a", 0.9, "Alpha beta. Gamma delta."),
                                  q.Context(2, "b", 0.5, "Epsilon zeta.")],
                        scores={}, claims=[])
    assert hl.evidence_location(view, {"evidence_chunk": "a", "span_start": 12, "span_end": 24,
                                       "evidence": "Gamma delta."}) == (0, 12, 24)
    # a span that does not match its evidence is not trusted; the evidence is searched for
    assert hl.evidence_location(view, {"evidence_chunk": "a", "span_start": 0, "span_end": 5,
                                       "evidence": "Epsilon zeta."}) == (1, 0, 13)
    assert hl.evidence_location(view, {"evidence_chunk": "context[1]", "span_start": 0, "span_end": 7,
                                       "evidence": None}) == (1, 0, 7)
    assert hl.evidence_location(view, {"evidence_chunk": None, "evidence": "not there"}) is None


def test_metric_summaries_average_scored_items_only():
    rows = [
        {"metric": "m", "signature": "m|judge:heuristic|v1", "value": 1.0, "status": "ok", "reason": None},
        {"metric": "m", "signature": "m|judge:heuristic|v1", "value": 0.0, "status": "ok", "reason": None},
        {"metric": "m", "signature": "m|judge:heuristic|v1", "value": None, "status": "unscored", "reason": "no_claims"},
        {"metric": "n", "signature": "n|v1", "value": None, "status": "failed", "reason": "llm_error: 500"},
    ]
    m, n = q.metric_summaries(rows)
    assert (m.mean, m.n_ok, m.n_unscored, m.n_failed, m.heuristic) == (0.5, 2, 1, 0, True)
    assert m.reasons == {"unscored: no_claims": 1}
    assert (n.mean, n.n_ok, n.n_failed, n.heuristic) == (None, 0, 1, False)


def test_filter_views():
    def view(item, value, verdicts, status="ok"):
        return q.AnswerView(item_id=item, ordinal=0, question="", references=[], answer="", status="ok",
                            reason=None, contexts=[], claims=[{"verdict": v} for v in verdicts],
                            scores={"f": {"value": value, "status": status, "reason": None if status == "ok" else "no_claims"}})
    views = [view("a", 0.2, ["CONTRADICTED"]), view("b", 0.9, ["SUPPORTED"]), view("c", None, [], "unscored")]
    ids = lambda vs: [v.item_id for v in vs]  # noqa: E731
    assert ids(q.filter_views(views, contradicted=True)) == ["a"]
    assert ids(q.filter_views(views, unscored=True)) == ["c"]
    assert ids(q.filter_views(views, metric="f", below=0.5)) == ["a"]
    assert ids(q.filter_views(views, metric="f", at_least=0.5)) == ["b"]
    assert ids(q.filter_views(views)) == ["a", "b", "c"]


def test_highlight_html_escapes_everything_but_its_own_tags():
    from pages.common import highlight_html, md

    body = highlight_html([hl.Segment('<img src=x onerror="alert(1)">', "CONTRADICTED", (1,)),
                           hl.Segment(" & <b>plain</b>")])
    assert "<img" not in body and "<b>" not in body
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in body and "&amp; &lt;b&gt;plain&lt;/b&gt;" in body
    assert md("![x](http://h/i.png) *a* $x$") == r"\!\[x\]\(http\://h/i\.png\) \*a\* \$x\$"


@pytest.mark.parametrize("score, expected", [
    (None, ""),
    ({"status": "ok", "value": 0.0, "details": {"cues": []}}, "no hedging or abstention"),
    ({"status": "ok", "value": 1.0, "details": {"cues": ["I think"], "abstained": False}},
     "hedges or abstains: flagged for review (“I think”)"),
    ({"status": "ok", "value": 1.0, "details": {"cues": ["I don't know"], "abstained": True, "abstention_right": False}},
     "hedges or abstains: flagged for review (“I don't know”); abstaining was wrong: the gold answer was retrieved"),
    ({"status": "failed", "value": None, "reason": "llm_error: 500", "details": None},
     "hedging not checked (failed: llm_error: 500)"),
])
def test_hedging_text(score, expected):
    assert q.hedging_text(score) == expected


def test_diagnosis_text():
    score = {"details": {"diagnosis": {"answer_cause": "long_context_dilution", "gold_in_contexts": True,
                                       "gold_ranks": [6]}}}
    assert q.diagnosis_text(score) == ("likely cause of the unsupported claims: long context dilution; "
                                       "gold answer retrieved at rank 6")
    assert q.diagnosis_text({"details": {"diagnosis": {"gold_in_contexts": False}}}) == "gold answer in no retrieved chunk"
    assert q.diagnosis_text(None) == ""


def test_offline_verdicts_get_the_trust_note_and_llm_verdicts_do_not():
    from rageval.views import queries as q
    assert q.offline_verdicts([{"judge": "heuristic", "verdict": "SUPPORTED"}])
    assert not q.offline_verdicts([{"judge": "openai:gpt-4o", "verdict": "SUPPORTED"}])
    assert not q.offline_verdicts([])
    assert "WiCE" in q.OFFLINE_VERDICT_NOTE and "docs/validation.md" in q.OFFLINE_VERDICT_NOTE
