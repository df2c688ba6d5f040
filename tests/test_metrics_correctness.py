"""answer_correctness_offline features and model, and answer_equivalence (heuristic and judge paths)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pytest

from rageval.llm.replies import validator

from rageval.errors import ConfigError
from rageval.metrics.base import evaluate, get_metric
from rageval.types import Resources, Sample
from rageval.metrics.correctness import equivalence_of, load_model, probability
from rageval.prompts.schemas import Equivalence
from rageval.prompts import render
from rageval.metrics.correctness_features import FEATURES, correctness_features
from tests.fakes import FakeEmbedder, fake_resources

FAKE = FakeEmbedder.name


def test_features_by_hand():
    f = correctness_features(
        "who wrote the novel dracula", "Dracula was written by Bram Stoker.", "Bram Stoker", 0.7
    )
    # reference tokens: dracula was written by bram stoker (6); answer tokens: bram stoker (2)
    assert f["contains"] == 0.0 and f["precision"] == 1.0 and f["recall"] == pytest.approx(2 / 6)
    assert f["f1"] == pytest.approx(2 * (2 / 6) / (1 + 2 / 6))
    assert f["novel_recall"] == pytest.approx(2 / 5)  # "dracula" is in the question: 5 novel tokens
    assert f["question_overlap"] == 0.0 and f["similarity"] == 0.7
    assert f["length"] == pytest.approx(math.log1p(2) / math.log1p(256))
    assert f["length_ratio"] == pytest.approx(math.log(3 / 7) / math.log(257))
    echo = correctness_features("who wrote the novel dracula", "Bram Stoker", "the novel dracula", -0.2)
    assert echo["question_overlap"] == 1.0 and echo["contains"] == 0.0 and echo["similarity"] == 0.0
    assert list(f) == list(FEATURES) and all(-1.0 <= v <= 1.0 for v in f.values())


def test_containment_needs_whole_tokens():
    assert correctness_features("", "1990", "in 1990s", 0.0)["contains"] == 0.0
    assert correctness_features("", "1990", "it was in 1990, I think", 0.0)["contains"] == 1.0


def test_model_file_says_what_it_was_trained_on():
    model = load_model()
    assert list(model["features"]) == list(FEATURES) and model["version"] == 2
    assert model["trained_on"]["evouna_tq"]["rows"] > 1000 and "evouna" in model["trained_on"]["evouna_tq"]["data"]
    assert model["trained_on"]["generated"]["rows"] > 1000 and model["trained_on"]["generated"]["italian_rows"] > 100
    assert model["embedder"] == "minilm-l6-v2-numpy" and len(model["hash"]) == 10
    x = {f: 0.5 for f in FEATURES}
    z = model["bias"] + 0.5 * sum(model["weights"].values())
    assert probability(x, model) == pytest.approx(1 / (1 + math.exp(-z)))


def test_correct_answer_scores_higher_than_wrong_one():
    samples = [
        Sample(id="right", question="who wrote dracula", answer="Bram Stoker", references=("Bram Stoker",)),
        Sample(id="wrong", question="who wrote dracula", answer="Mary Shelley", references=("Bram Stoker",)),
    ]
    got = evaluate(samples, [get_metric("answer_correctness_offline", embedder=FAKE)], fake_resources())
    right, wrong = got["answer_correctness_offline"]
    assert 0.0 <= wrong.value < right.value <= 1.0
    assert list(right.details["features"]) == list(FEATURES) and right.details["best_reference"] == 0
    assert "warning" in right.details  # the fake embedder is not the one the weights were fit with


def test_equivalence_heuristic_is_thresholded_correctness_and_says_bem_is_not_shipped():
    samples = [
        Sample(id="right", question="who wrote dracula", answer="Bram Stoker", references=("Bram Stoker",)),
        Sample(id="wrong", question="who wrote dracula", answer="Mary Shelley", references=("Bram Stoker",)),
    ]
    metrics = [get_metric("answer_equivalence", embedder=FAKE), get_metric("answer_correctness_offline", embedder=FAKE)]
    got = evaluate(samples, metrics, fake_resources())
    for eq, p in zip(got["answer_equivalence"], got["answer_correctness_offline"]):
        assert eq.value == float(p.value >= 0.5) and eq.details["probability"] == pytest.approx(p.value)
        assert "BEM checkpoint not shipped" in eq.details["note"]
    assert "BEM checkpoint is not shipped" in type(metrics[0]).__doc__
    assert "judge:heuristic" in metrics[0].signature()


def test_render_prompt_fills_each_slot_once():
    text = render("answer_equivalence", question="what is {candidate}?", references="a {references} | b",
                  candidate="c {question}")
    assert "Question:\n<question>\nwhat is {candidate}?\n</question>" in text
    assert "a {references} | b" in text and "Candidate answer:\n<candidate>\nc {question}\n</candidate>" in text
    assert '{"equivalent": true or false' in text


@pytest.mark.parametrize(
    "value,expected",
    [({"equivalent": True, "reason": "same"}, {"equivalent": True, "reason": "same"}),
     ({"equivalent": "no"}, {"equivalent": False, "reason": ""}),
     ({"equivalent": 1}, ValueError), (["yes"], ValueError), ({"reason": "x"}, ValueError)],
)
def test_validate_verdict(value, expected):
    validate_verdict = validator(Equivalence, equivalence_of)
    if expected is ValueError:
        with pytest.raises(ValueError):
            validate_verdict(value)
    else:
        assert validate_verdict(value) == expected


@dataclass(frozen=True)
class Reply:  # the contract's JSONReply
    value: Any
    status: str
    reason: str | None
    raw: str | None


class ScriptedLLM:
    """Stands in for LLMClient: answers chat_json from a script keyed by the candidate answer."""

    def __init__(self, replies: dict[str, Reply], model: str = "judge-model"):
        self.replies, self._model, self.prompts = replies, model, []

    def model(self, role: str) -> str:
        return self._model

    def chat_json(self, role, messages, *, validate=None, schema=None, temperature=0.0):
        assert role == "judge"
        validate = validator(schema, validate)
        self.prompts.append(messages[-1]["content"])
        reply = next(r for k, r in self.replies.items() if f"<candidate>\n{k}\n" in messages[-1]["content"])
        return Reply(validate(reply.value), "ok", None, reply.raw) if reply.status == "ok" else reply

    def map(self, fn, items):
        return [fn(x) for x in items]


def test_equivalence_with_judge_maps_statuses():
    llm = ScriptedLLM({
        "Stoker": Reply({"equivalent": True, "reason": "same person"}, "ok", None, "{}"),
        "Shelley": Reply({"equivalent": False, "reason": "different"}, "ok", None, "{}"),
        "garbled": Reply(None, "unscored", "judge_parse_error", "not json"),
        "down": Reply(None, "failed", "llm_error: 500", None),
    })
    samples = [Sample(id=a, question="who wrote dracula", answer=a, references=("Bram Stoker",))
               for a in ("Stoker", "Shelley", "garbled", "down")]
    metric = get_metric("answer_equivalence", judge="openai:judge-model")
    got = evaluate(samples, [metric], Resources(llm=llm))["answer_equivalence"]
    assert [s.value for s in got[:2]] == [1.0, 0.0]
    assert got[0].details["reason"] == "same person" and "BEM checkpoint not shipped" in got[0].details["note"]
    assert (got[2].status, got[2].reason) == ("unscored", "judge_parse_error")
    assert (got[3].status, got[3].reason) == ("failed", "llm_error: 500")
    assert "Gold answer (any one of these is correct):\n<gold>\nBram Stoker" in llm.prompts[0]
    sig = metric.signature()
    assert sig.startswith("answer_equivalence|judge:openai:judge-model|prompt:") and len(sig.split("prompt:")[1]) == 11


def test_equivalence_judge_needs_a_client_with_that_model():
    s = [Sample(id="1", question="q", answer="a", references=("a",))]
    got = evaluate(s, [get_metric("answer_equivalence", judge="openai:m")], Resources())["answer_equivalence"]
    assert got[0].status == "failed" and "OPENAI_BASE_URL" in got[0].reason
    got = evaluate(s, [get_metric("answer_equivalence", judge="openai:m")], Resources(llm=ScriptedLLM({}, "other")))
    assert "other" in got["answer_equivalence"][0].reason
    with pytest.raises(ConfigError):
        get_metric("answer_equivalence", judge="gpt-4")


def test_equivalence_through_the_real_llm_client(llm_env):
    """The judge path end to end: openai SDK -> scripted HTTP server, with a prose reply re-asked."""
    import json

    from rageval.llm.client import make_llm_client

    def responder(request):
        prompt = next(m["content"] for m in request["messages"] if m["role"] == "user")
        verdict = "<candidate>\nBram Stoker\n" in prompt
        return json.dumps({"equivalent": verdict, "reason": "compared with the gold answer"})

    llm_env.script(responder=responder, plan={2: "prose"})
    client = make_llm_client({"judge": "openai:fake-judge"}, concurrency=1, use_cache=False, max_retries=2,
                             timeout=5.0, backoff_base=0.01, backoff_cap=0.05)
    try:
        samples = [Sample(id=a, question="who wrote dracula", answer=a, references=("Stoker",))
                   for a in ("Bram Stoker", "Mary Shelley")]
        got = evaluate(samples, [get_metric("answer_equivalence", judge="openai:fake-judge")],
                       Resources(llm=client))["answer_equivalence"]
    finally:
        client.close()
    assert [(s.status, s.value) for s in got] == [("ok", 1.0), ("ok", 0.0)]
    assert got[0].details["judge"] == "openai:fake-judge"
    assert {f for _, f in llm_env.faults_seen()} == {"prose"}  # the prose reply was re-asked, not scored
