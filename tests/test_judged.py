"""RAGAS answer correctness / relevance, the RAG triad, hedging and the hallucination diagnosis."""
from __future__ import annotations

import dataclasses
import json
import re

import pytest

from rageval.metrics.base import evaluate, get_metric
from rageval.types import Resources, Sample, Spec
from rageval.claims.diagnose import diagnose, gold_ranks, holds_answer
from rageval.metrics.triad import mapped_cosine
from tests.test_claims import FAIL, BowEmbedder, FakeJudge

CTX = ("Amoxicillin is a penicillin antibiotic used to treat bacterial infections. "
       "The usual adult dose is 500 mg every 8 hours.",
       "Paris is the capital of France.")
AMOX = Sample(id="a", question="What is the usual adult dose of amoxicillin?", contexts=CTX,
              answer="The usual adult dose is 500 mg every 8 hours.", references=("500 mg every 8 hours",))


def offline():
    return Resources(embedder_factory=BowEmbedder)


def judged(responder, model="m"):
    return Resources(embedder_factory=BowEmbedder, llm=FakeJudge(responder, model))


def one(name, sample, resources, **options):
    return evaluate([sample], [get_metric(name, **options)], resources)[name][0]


# --- RAGAS answer correctness -------------------------------------------------------------

def test_answer_correctness_offline_identical_answer_scores_one():
    same = dataclasses.replace(AMOX, references=(AMOX.answer,))
    s = one("ragas_answer_correctness", same, offline())
    assert s.details["tp"] == [AMOX.answer] and s.details["fp"] == [] and s.details["fn"] == []
    assert s.details["f1"] == 1.0 and s.details["coverage"] == 1.0
    assert s.status == "ok" and s.value == pytest.approx(1.0)


def test_answer_correctness_offline_leaves_what_it_cannot_decide_unscored():
    # offline nothing decides a wrong figure (no offline contradiction) nor a short reference: unscored, with why
    wrong = Sample(id="w", question=AMOX.question, answer="The usual adult dose is 250 mg every 12 hours.",
                   references=("The usual adult dose is 500 mg every 8 hours.",))
    for sample in (wrong, AMOX):
        s = one("ragas_answer_correctness", sample, offline())
        assert (len(s.details["tp"]), len(s.details["fp"]), len(s.details["fn"])) == (0, 0, 0)
        assert s.status == "unscored" and s.reason.startswith("no_decided_claims") and s.details["coverage"] == 0.0


def test_answer_correctness_judge_counts_and_weights():
    def reply(prompt):
        assert "Reference answer:\n<reference>\n500 mg every 8 hours" in prompt
        return json.dumps({"tp": ["dose 500 mg"], "fp": ["taken with food"], "fn": []})

    s = one("ragas_answer_correctness", AMOX, judged(reply), judge="openai:m")
    assert s.details["f1"] == pytest.approx(1 / 1.5)
    assert s.value == pytest.approx(0.75 * (1 / 1.5) + 0.25 * s.details["similarity"])
    from rageval.metrics.judged import RagasAnswerCorrectness

    m = RagasAnswerCorrectness(judge=Spec.parse("judge", "openai:m"), factuality_weight=1.0, similarity_weight=0.0)
    (s2,) = m.score_batch([AMOX], judged(reply))
    assert s2.value == pytest.approx(1 / 1.5) and "w:1/0" in m.signature()
    assert one("ragas_answer_correctness", AMOX, judged(lambda p: FAIL), judge="openai:m").status == "failed"
    bad = one("ragas_answer_correctness", AMOX, judged(lambda p: '{"tp": 3}'), judge="openai:m")
    assert (bad.status, bad.reason) == ("unscored", "judge_parse_error")


# --- RAGAS answer relevance ---------------------------------------------------------------

def questions(*flags):
    return lambda p: json.dumps({"questions": [
        {"question": "What is the usual adult dose of amoxicillin?", "noncommittal": f} for f in flags]})


def test_answer_relevance_judge_mean_cosine_and_noncommittal():
    s = one("ragas_answer_relevance", AMOX, judged(questions(0, 0, 1)), judge="openai:m")
    assert s.value == pytest.approx(1.0, abs=1e-6) and len(s.details["generated"]) == 3
    s = one("ragas_answer_relevance", AMOX, judged(questions(1, 1, 1)), judge="openai:m")
    assert s.value == 0.0 and s.details["noncommittal"] is True


def test_answer_relevance_offline_zero_for_abstention():
    idk = Sample(id="i", question=AMOX.question, answer="I don't know; the documents do not say.")
    s = one("ragas_answer_relevance", idk, offline())
    assert s.value == 0.0 and s.details["method"] == "heuristic" and s.details["noncommittal"]
    assert one("ragas_answer_relevance", AMOX, offline()).value > 0.5


# --- the triad ----------------------------------------------------------------------------

def test_context_relevance_offline_ranks_relevant_chunk_higher():
    s = one("context_relevance", AMOX, offline())
    first, second = s.details["chunks"]
    assert first["score"] > second["score"] and s.value == pytest.approx((first["score"] + second["score"]) / 2)
    assert mapped_cosine(0.05) == 0.0 and mapped_cosine(0.9) == 1.0


def test_context_relevance_judge_ratings():
    def rate(prompt):
        return json.dumps({"rating": 3 if "Amoxicillin" in prompt.split("Passage:")[1] else 0, "reason": "r"})

    s = one("context_relevance", AMOX, judged(rate), judge="openai:m")
    assert s.value == pytest.approx(0.5) and [c["rating"] for c in s.details["chunks"]] == [3, 0]
    bad = one("context_relevance", AMOX, judged(lambda p: '{"rating": 7}'), judge="openai:m")
    assert (bad.status, bad.reason) == ("unscored", "judge_parse_error")


def test_groundedness_offline_and_judge():
    mixed = Sample(id="g", contexts=CTX, answer="The usual adult dose is 500 mg every 8 hours. It cures viral colds.")
    s = one("groundedness", mixed, offline())
    first, second = (r["verdict"] for r in s.details["sentences"])
    # offline the copied sentence is decided; the other is UNVERIFIED and left out of the mean
    assert (s.value, s.details["coverage"], first, second) == (1.0, 0.5, "SUPPORTED", "UNVERIFIED")

    def rate(prompt):
        lines = re.findall(r"^(\d+)\. (.*)$", prompt.split("Answer sentences:\n")[1], flags=re.M)
        return json.dumps({"ratings": [{"sentence": int(n), "rating": 3 if "500" in t else 1, "passage": 1,
                                        "quote": "The usual adult dose is 500 mg every 8 hours.", "reason": "r"}
                                       for n, t in lines]})

    s = one("groundedness", mixed, judged(rate), judge="openai:m")
    assert s.value == pytest.approx((3 + 1) / 6)
    assert CTX[0][slice(*s.details["sentences"][0]["span"])] == "The usual adult dose is 500 mg every 8 hours."
    assert one("groundedness", Sample(id="n", contexts=CTX, answer="Hello!"), offline()).reason == (
        "no_claims: the answer greets or signs off")


def test_answer_relevance_triad():
    assert one("answer_relevance", AMOX, judged(lambda p: '{"rating": 2, "reason": "partial"}'),
               judge="openai:m").value == pytest.approx(2 / 3)
    idk = Sample(id="i", question=AMOX.question, answer="I don't know the dose of amoxicillin.")
    assert one("answer_relevance", idk, offline()).value <= 1 / 3
    assert one("answer_relevance", AMOX, offline()).value > 0.8


# --- hedging ------------------------------------------------------------------------------

@pytest.mark.parametrize("answer, refs, value, abstained, right", [
    ("The usual adult dose is 500 mg every 8 hours.", ("500 mg",), 0.0, False, None),
    ("It is probably 500 mg.", ("500 mg",), 1.0, False, None),
    ("I don't know.", ("500 mg",), 1.0, True, False),       # the answer was in the context
    ("I don't know.", ("750 mg",), 1.0, True, True),        # nothing to answer from
    ("The context does not say.", (), 1.0, True, None),     # no reference: cannot tell
])
def test_hedging_flags_and_abstention_rightness(answer, refs, value, abstained, right):
    s = one("hedging", Sample(id="h", question="q", contexts=CTX, answer=answer, references=refs), offline())
    assert (s.value, s.details["abstained"], s.details["abstention_right"]) == (value, abstained, right)
    assert get_metric("hedging").higher_is_better is False


def test_hedging_judge():
    reply = lambda p: json.dumps({"hedge_phrases": ["I believe"], "abstains": False})  # noqa: E731
    s = one("hedging", AMOX, judged(reply), judge="openai:m")
    assert s.value == 1.0 and s.details["cues"] == ["I believe"]


# --- diagnosis ----------------------------------------------------------------------------

def unsupported(text="The dose is 900 mg.", **extra):
    return {"text": text, "verdict": "NOT_MENTIONED", **extra}


def test_diagnosis_rules_in_order():
    many = tuple(f"Unrelated passage number {i} about gardening." for i in range(5))
    base = Sample(id="d", answer="The dose is 900 mg.", contexts=CTX, references=("twice a week",))
    assert diagnose(base, [unsupported()])["claim_causes"] == ["sparse_retrieval"]
    diluted = Sample(id="d", answer="x", contexts=many[:4] + ("The dose is 500 mg every 8 hours.",),
                     references=("500 mg",))
    d = diagnose(diluted, [unsupported()])
    assert d["claim_causes"] == ["long_context_dilution"] and d["gold_ranks"] == [5]
    assert diagnose(base, [unsupported(conflict=True)])["claim_causes"] == ["conflicting_sources"]
    no_ref = Sample(id="d", answer="The usual adult dose is 500 mg every 8 hours for 14 days.", contexts=CTX)
    claim = unsupported("The usual adult dose is 500 mg every 8 hours for 14 days.")
    assert diagnose(no_ref, [claim])["claim_causes"] == ["over_specification"]
    assert diagnose(no_ref, [unsupported("It treats gout in horses.")])["claim_causes"] == ["invented_confidence"]
    hedged = Sample(id="d", answer="It probably treats gout in horses.", contexts=CTX)
    d = diagnose(hedged, [unsupported("It treats gout in horses."), {"text": "x", "verdict": "SUPPORTED"}])
    assert d["claim_causes"] == [None, None] and d["hedged"] and d["answer_cause"] is None


def test_answer_cause_is_most_common_claim_cause():
    s = Sample(id="d", answer="The dose is 900 mg.", contexts=CTX)
    d = diagnose(s, [unsupported(conflict=True), unsupported("It treats gout."), unsupported("It cures cats.")])
    assert d["answer_cause"] == "invented_confidence" and d["gold_in_contexts"] is None


def test_gold_answer_containment():
    assert holds_answer("The wall fell on 9 November 1989.", "9 november, 1989")
    assert not holds_answer("The wall fell in 1989.", "9 November 1989")
    assert holds_answer("Full-time employees are entitled to 25 days of paid annual leave each year.",
                        "Employees working full time get 25 days of paid annual leave per year")
    assert gold_ranks(Sample(id="x", contexts=("a", "Paris is nice"), references=("Paris",))) == [2]
