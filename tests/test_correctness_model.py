"""The learned answer_correctness_offline model: recorded outputs of the training script, labelled
cases (wrong number, negated rule, abstention low; equivalent number forms high) and its signature."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rageval.errors import ConfigError
from rageval.metrics.base import evaluate, get_metric
from rageval.types import Resources, Sample
from rageval.metrics.correctness_long import LONG_REFERENCE_TOKENS
from rageval.metrics.correctness import MODEL_PATH, load_model, score_references

RECORDED = Path(__file__).parent / "data" / "correctness_recorded.json"


def test_numpy_inference_equals_the_training_scripts_outputs():
    rows = json.loads(RECORDED.read_text(encoding="utf-8"))
    assert len(rows) >= 30 and {r["source"] for r in rows} == {"evouna-tq", "generated"}
    for r in rows:
        p, best, _ = score_references(r["question"], r["answer"], r["references"], r["similarities"])
        # the recorded similarities are rounded to 8 decimals; |w_similarity| < 10, so 1e-6 is ample
        assert p == pytest.approx(r["probability"], abs=1e-6), r
        assert best == r["best_reference"], r


@pytest.fixture(scope="module")
def minilm_resources():
    from rageval.embed.minilm import MiniLMEmbedder

    try:
        embedder = MiniLMEmbedder()
    except Exception as exc:  # the weights package is an install step of its own
        pytest.skip(f"MiniLM weights not installed: {exc}")
    return Resources(embedder_factory=lambda: embedder)


LOW = [  # (question, reference, answer): wrong, must score below 0.5
    ("How long is the return window?", "Items can be returned within 7 days.", "Items can be returned within 14 days."),
    ("How long is the return window?", "7 days", "14 days"),
    (
        "Is a receipt required for a refund?",
        "A receipt is required for a refund.",
        "A receipt is not required for a refund.",
    ),
    ("Who wrote Dracula?", "Bram Stoker", "I don't know."),
    ("Who wrote Dracula?", "Bram Stoker", "The context does not say who wrote it."),
    ("Entro quanti giorni si paga?", "Si paga entro 30 giorni.", "Non lo so."),
    ("Quanto costa?", "Costa 1.200 euro.", "Costa 120 euro."),
    ("What was the profit?", "EUR 1,500,000,000", "1.5 million euros"),
    ("When was it signed?", "3 March 2021", "3 March 2012"),
]
HIGH = [  # equivalent answers written another way, must score above 0.5
    ("How long is the return window?", "7 days", "one week"),
    ("What was the profit?", "EUR 1,500,000,000", "1.5 billion euros"),
    ("When was it signed?", "3 March 2021", "2021-03-03"),
    ("What is the rate?", "0,75% all'anno", "0.75% a year"),
    ("Quanto costa?", "Costa 1.200 euro.", "milleduecento euro"),
    ("Who wrote Dracula?", "Bram Stoker", "Dracula was written by Bram Stoker."),
    ("Is a receipt required for a refund?", "A receipt is required for a refund.", "Yes, a receipt is required."),
]


def _scores(resources, cases):
    samples = [Sample(id=str(i), question=q, answer=a, references=(r,)) for i, (q, r, a) in enumerate(cases)]
    return [
        s.value
        for s in evaluate(samples, [get_metric("answer_correctness_offline")], resources)["answer_correctness_offline"]
    ]


@pytest.mark.parametrize("case", LOW, ids=[c[2] for c in LOW])
def test_wrong_numbers_negations_and_abstentions_score_low(minilm_resources, case):
    assert _scores(minilm_resources, [case])[0] < 0.5


@pytest.mark.parametrize("case", HIGH, ids=[c[2] for c in HIGH])
def test_equivalent_forms_score_high(minilm_resources, case):
    assert _scores(minilm_resources, [case])[0] > 0.5


def test_the_best_reference_decides(minilm_resources):
    sample = Sample(
        id="1", question="Who wrote Dracula?", answer="Bram Stoker", references=("Mary Shelley", "Bram Stoker")
    )
    got = evaluate([sample], [get_metric("answer_correctness_offline")], minilm_resources)[
        "answer_correctness_offline"
    ][0]
    assert got.details["best_reference"] == 1 and got.value > 0.5


def test_signature_pins_the_weights_hash_and_version():
    sig = get_metric("answer_correctness_offline").signature()
    assert f"weights:{load_model()['hash']}" in sig and sig.endswith("|v3") and "+numbers" in sig
    assert f"long:sentalign-gt{LONG_REFERENCE_TOKENS}tok" in sig  # the long-answer route is pinned too


STORY = ("The crew of the Explorer lands on Mars to look for the lost colony. They find the domes empty and the "
         "greenhouses dead. A log left by the governor says the colonists walked into the desert after a dust storm. "
         "The captain follows their tracks and finds them living in caves under the ice cap. They refuse to come "
         "back, and the crew leaves them supplies before flying home.")


def test_a_paragraph_reference_takes_the_sentence_alignment_route(minilm_resources):
    right = ("The explorers reach Mars and find the colony's domes abandoned. The governor's log tells them the "
             "colonists left for the desert after a storm. The captain tracks them to caves under the ice, where "
             "they choose to stay, and the crew leaves them supplies.")
    wrong = ("A detective in London investigates a stolen painting. He questions the museum guard and finds the "
             "thief hiding in a train station. The painting is returned to the gallery.")
    samples = [Sample(id=k, question="What is the plot of the story?", answer=a, references=(STORY,))
               for k, a in (("right", right), ("wrong", wrong))]
    got = evaluate(samples, [get_metric("answer_correctness_offline")], minilm_resources)["answer_correctness_offline"]
    assert [s.details["route"] for s in got] == ["long", "long"]
    assert got[0].value > got[1].value + 0.15  # covering the plot beats an unrelated plot by a margin
    assert got[0].details["reference_sentences"] == 5 and got[0].details["answer_sentences"] == 3
    assert 0.0 <= got[1].value <= 1.0


def test_short_references_keep_the_learned_head_in_a_mixed_batch(minilm_resources):
    short = Sample(id="s", question="Who wrote Dracula?", answer="Bram Stoker", references=("Bram Stoker",))
    long = Sample(id="l", question="What is the plot?", answer="The crew lands on Mars.", references=(STORY,))
    metric = get_metric("answer_correctness_offline")
    mixed = evaluate([long, short], [metric], minilm_resources)[metric.name]
    alone = evaluate([short], [metric], minilm_resources)[metric.name][0]
    assert [s.details["route"] for s in mixed] == ["long", "short"]
    assert mixed[1].value == alone.value and "features" in mixed[1].details


def test_other_weights_give_another_hash_and_wrong_features_are_refused(tmp_path):
    copy = tmp_path / "m.json"
    shutil.copy(MODEL_PATH, copy)
    model = json.loads(copy.read_text())
    model["bias"] += 1.0
    copy.write_text(json.dumps(model))
    assert load_model(str(copy))["hash"] != load_model()["hash"]
    model["features"] = model["features"][:-1]
    copy.write_text(json.dumps(model))
    with pytest.raises(ConfigError, match="trained on features"):
        load_model.__wrapped__(str(copy))
    with pytest.raises(ConfigError, match="training.train_correctness"):
        load_model.__wrapped__(str(tmp_path / "missing.json"))
