"""The learned claim verifier of training/ (the feature MLP, no part of the product): NumPy inference against the
training script's recorded
outputs, a version that follows the weights, and labelled cases of every claim type."""
import json
import re
from pathlib import Path

import numpy as np
import pytest

from training import claim_mlp as M
from rageval.claims.diagnose import holds_answer
from rageval.claims.features import NAMES
from training.claim_verifiers import LearnedVerifier
from rageval.claims.offline import version as verifier_version
from rageval.metrics.base import evaluate, get_metric
from rageval.types import Resources, Sample
from rageval.text.lang import guess_language
from rageval.text.numbers import quantities

RECORDED = Path(__file__).resolve().parents[1] / "training" / "data" / "claim_verifier_recorded.json"


def test_numpy_inference_reproduces_the_training_script():
    import dataclasses

    rec = json.loads(RECORDED.read_text())
    model = M.shipped()
    # recorded at the training script's temperature 1; the shipped file adds the calibration's T
    got = dataclasses.replace(model, temperature=1.0).probabilities(np.array(rec["features"]))
    np.testing.assert_allclose(got, np.array(rec["probabilities"]), rtol=0, atol=1e-9)
    assert len(rec["features"][0]) == len(NAMES)


def test_the_version_follows_the_weights(tmp_path):
    """Re-recording is required after retraining: the recorded version is the shipped one, and
    any change to the parameter file gives another version."""
    rec = json.loads(RECORDED.read_text())
    assert rec["version"] == M.shipped().version  # (re-recorded when the calibration was added)
    data = json.loads(M.MODEL_PATH.read_text())
    data["W2"][0][0] += 1e-3
    other = tmp_path / "m.json"
    other.write_text(json.dumps(data))
    assert M.load(other).version != M.shipped().version
    assert re.fullmatch(r"mlp-[0-9a-f]{10}", M.shipped().version)


def test_the_product_signature_names_the_offline_checker_not_a_learned_model():
    from rageval.claims import offline

    assert re.fullmatch(r"contain-r\d+/[0-9a-f]{8}", offline.version())
    assert f"verifier:{offline.version()}" in get_metric("faithfulness").signature()
    assert "mlp-" not in get_metric("faithfulness").signature()


def test_a_model_for_other_features_is_refused(tmp_path):
    from rageval.errors import ConfigError

    data = json.loads(M.MODEL_PATH.read_text())
    data["features"] = data["features"][:-1]
    bad = tmp_path / "m.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(ConfigError, match="other features"):
        M.load(bad)
    with pytest.raises(ConfigError, match="cannot be read"):
        M.load(tmp_path / "missing.json")


def test_italian_numbers_are_read_by_the_shared_parser():
    assert guess_language("Il fatturato della società è cresciuto del 5% nel 2021.") == "it"
    assert [q.canonical for q in quantities("ricavi per 1,5 miliardi di euro", "it")] == ["1500000000 eur"]
    assert [q.canonical for q in quantities("12 mila spettatori", "it")] == ["12000"]
    assert [q.canonical for q in quantities("il 3 marzo 2021", "it")] == ["2021-03-03"]


@pytest.fixture(scope="module")
def verifier():
    from rageval.embed.cache import make_embedder

    return LearnedVerifier(make_embedder("local"))


POLICY = ("Full-time employees receive 25 working days of paid annual leave per calendar year. "
          "Up to 5 unused days may be carried over into the next year. Requests must be submitted no more "
          "than 60 days in advance. The policy was last updated on 1 March 2024 by Ingrid Solberg.")
LIBRARY = ("The city library opens at 9 am and closes at 7 pm. Members can borrow up to 12 books for "
           "three weeks. The library was founded in 1921 by Clara Berg.")
TENT = "The Trailhead 2 tent weighs 2.1 kg and packs to 45 cm. It is not suitable for winter camping."
IT = ("Il fatturato di Veltra è stato di 1,5 miliardi di euro nel 2023, in aumento del 4% rispetto al 2022. "
      "L'amministratore delegato è Marco Rossi.")

CASES = [
    # (type, context, claim, label)
    ("verbatim", POLICY, "Requests must be submitted no more than 60 days in advance.", "SUPPORTED"),
    ("paraphrase", LIBRARY, "Members may borrow as many as 12 books for three weeks.", "SUPPORTED"),
    ("compression", POLICY, "Full-time employees receive 25 working days of paid annual leave.", "SUPPORTED"),
    ("numbers", POLICY, "Up to 10 unused days may be carried over into the next year.", "CONTRADICTED"),
    ("dates", LIBRARY, "The library was founded in 1931 by Clara Berg.", "CONTRADICTED"),
    ("units", TENT, "The Trailhead 2 tent weighs 2.1 g and packs to 45 cm.", "CONTRADICTED"),
    ("entities", LIBRARY, "The library was founded in 1921 by Anna Keller.", "CONTRADICTED"),
    ("negation", TENT, "The Trailhead 2 tent is suitable for winter camping.", "CONTRADICTED"),
    ("addition", LIBRARY, "The library includes free printing.", "NOT_MENTIONED"),
    ("world fact", TENT, "Paris is the capital of France.", "NOT_MENTIONED"),
    ("italian numbers", IT, "Nel 2023 Veltra ha fatturato 1,5 miliardi di euro.", "SUPPORTED"),
    ("italian numbers", IT, "Nel 2023 il fatturato di Veltra è stato di 2,5 miliardi di euro.", "CONTRADICTED"),
]


@pytest.mark.parametrize("kind, context, claim, label", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_labelled_cases_of_every_claim_type(verifier, kind, context, claim, label):
    (v,) = verifier.verify([claim], [context])
    assert v.label == label, (kind, v.label, v.probabilities, v.reason)
    assert 0.0 < v.confidence <= 1.0 and v.confidence == max(v.probabilities.values())


def test_not_mentioned_evidence_is_only_a_closest_passage(verifier):
    (v,) = verifier.verify(["The library includes free printing."], [LIBRARY])
    assert v.label == "NOT_MENTIONED" and v.evidence_role == "closest passage"
    assert "closest passage" in v.reason
    (s,) = verifier.verify(["Requests must be submitted no more than 60 days in advance."], [POLICY])
    assert s.evidence_role == "support" and POLICY[s.span[0]:s.span[1]] == s.evidence


def test_claims_carry_confidence_through_the_metric():
    from rageval.embed.cache import make_embedder

    emb = make_embedder("local")
    sample = Sample(id="p", answer="Up to 5 unused days may be carried over into the next year.", contexts=(POLICY,))
    (score,) = evaluate([sample], [get_metric("faithfulness")], Resources(embedder_factory=lambda: emb))["faithfulness"]
    (claim,) = score.details["claims"]
    assert claim["verdict"] == "SUPPORTED" and claim["confidence"] == 1.0  # copied: proven by containment
    assert claim["evidence_role"] == "support" and score.details["verifier"] == verifier_version()


@pytest.mark.parametrize("context, reference, expected", [
    ("Returns are accepted within 30 days of delivery.", "30 days", True),
    ("Returns are accepted within 30 days of delivery.", "thirty-one days", False),
    ("The Trailhead 2 weighs 2.1 kg.", "2.1 kg", True),
    ("The U.S. dollar fell.", "U.S. dollar", True),
])
def test_gold_in_chunk_uses_the_retrieval_rule(context, reference, expected):
    from rageval.text.tokenize import answer_tokens, contains_tokens

    assert holds_answer(context, reference) is expected
    if expected:  # whatever the evidence-mode retrieval metrics count as retrieved, the diagnosis does too
        assert contains_tokens(answer_tokens(context), answer_tokens(reference))


def test_answers_page_helpers_label_closest_passages_and_confidence():
    from rageval.report.summary import evidence_prefix
    from rageval.views.answers import claim_confidence

    nm = {"verdict": "NOT_MENTIONED", "details": {"confidence": 0.912, "evidence_role": "closest passage"}}
    sup = {"verdict": "SUPPORTED", "details": {"confidence": 0.5, "evidence_role": "support"}}
    judged = {"verdict": "NOT_MENTIONED", "details": {}}  # LLM judge: no confidence, still not support
    assert (evidence_prefix(nm), claim_confidence(nm)) == ("closest passage: ", "0.91")
    assert (evidence_prefix(sup), claim_confidence(sup)) == ("", "0.50")
    assert (evidence_prefix(judged), claim_confidence(judged)) == ("closest passage: ", "")
