"""Claim extraction, the heuristic verifier, the faithfulness family and the judge path.

The judge path runs against ``FakeJudge``: an in-process LLMClient stand-in whose replies are a
pure function of each claim's text, so verdicts must not change with batching.
"""
from __future__ import annotations

import dataclasses
import json
import re

import pytest

from rageval.claims import judge as claim_judge
from rageval.claims.cues import antonym_clash, names
from rageval.claims.extract import extract_claims, resolved_sentences
from training.claim_verifiers import LearnedVerifier
from rageval.errors import ConfigError
from rageval.llm.replies import JSONReply, validator
from rageval.metrics.base import evaluate, get_metric
from rageval.types import Resources, Sample
from rageval.text.hedges import hedge_cues
from rageval.text.sentences import split_sentences
from tests.fakes import BowEmbedder


FAIL = object()


class FakeJudge:
    """LLMClient stand-in: ``responder(prompt) -> str | FAIL``; parses and validates like the
    real client (no re-ask), runs ``map`` in order."""

    def __init__(self, responder, model="fake-judge"):
        self.responder, self._model, self.prompts = responder, model, []

    def has_role(self, role):
        return role == "judge"

    def model(self, role):
        return self._model

    def map(self, fn, items):
        return [fn(x) for x in items]

    def chat_json(self, role, messages, *, validate=None, schema=None, temperature=0.0):
        validate = validator(schema, validate)  # the reply model, then the metric's check, as the client does
        prompt = messages[-1]["content"]
        self.prompts.append(prompt)
        raw = self.responder(prompt)
        if raw is FAIL:
            return JSONReply(None, "failed", "llm_error: scripted failure", None)
        try:
            return JSONReply(validate(json.loads(raw)), "ok", None, raw)
        except (ValueError, json.JSONDecodeError):
            return JSONReply(None, "unscored", "judge_parse_error", raw)


def section(prompt: str, title: str) -> str:
    """The fenced data after the line ``title:`` (its ``<tag>`` lines dropped)."""
    block = prompt.split(f"{title}:\n", 1)[1]
    tag = block.split(">", 1)[0].lstrip("<")
    return block.split(f"<{tag}>\n", 1)[1].split(f"\n</{tag}>", 1)[0]


def scripted(prompt: str, *, broken_verify=False):
    """Extraction: one claim per sentence. Verification: a verdict from the claim text alone."""
    if "separate factual claims" in prompt:
        answer = section(prompt, "Answer")
        if "EXPLODE" in answer:
            return FAIL
        return json.dumps({"claims": [s.text for s in split_sentences(answer) if len(s.text.split()) > 1]})
    if "check claims against numbered passages" in prompt:
        if broken_verify:
            return "this is not json"
        passages = re.findall(r"^\[(\d+)\] (.*)$", section(prompt, "Passages"), flags=re.M)
        lines = re.findall(r"^(\d+)\. (.*)$", section(prompt, "Claims"), flags=re.M)
        verdicts = []
        for n, text in lines:
            verdict = "SUPPORTED" if "1989" in text else "CONTRADICTED" if "Soviet" in text else "NOT_MENTIONED"
            quote = split_sentences(passages[-1][1])[0].text if verdict != "NOT_MENTIONED" else ""
            verdicts.append({"claim": int(n), "verdict": verdict, "passage": int(passages[-1][0]) if quote else None,
                             "quote": quote, "reason": f"scripted for {text[:20]}", "conflict": False})
        return json.dumps({"verdicts": verdicts})
    raise AssertionError("unexpected prompt")


CTX = (
    "The Berlin Wall was built in 1961 by the German Democratic Republic. It divided the city for 28 years.",
    "The wall fell on 9 November 1989. German reunification followed in October 1990.",
)
WALL = Sample(id="w", question="When did the Berlin Wall fall?", contexts=CTX, context_ids=("doc1#0", "doc1#1"),
              references=("9 November 1989",),
              answer="Hello! The wall fell on 9 November 1989. The Berlin Wall was built in 1961 by the Soviet Union.")


# --- text helpers and extraction ----------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("Hi! Marie Curie was born in 1867 and won two Nobel Prizes. She died in 1934.",
     ["Marie Curie was born in 1867.", "Marie Curie won two Nobel Prizes.", "Marie Curie died in 1934."]),
    ("I don't know. The documents do not say.", []),
    ("Based on the context, the fund charges no entry fee; the fee is 0.45% per year.",
     ["The fund charges no entry fee.", "The fee is 0.45% per year."]),
    ("Revenue rose 12%, but operating margin fell to 18%. Let me know if you need more!",
     ["Revenue rose 12%.", "Operating margin fell to 18%."]),
    ("Python 3.12 was released in 2023. It removed the distutils module, which had been deprecated.",
     ["Python 3.12 was released in 2023.", "Python 3.12 removed the distutils module.",
      "The distutils module had been deprecated."]),
    ("It removed distutils, which had been deprecated.", ["It removed distutils, which had been deprecated."]),
    ("Curie studied chemistry and physics at the Sorbonne.", ["Curie studied chemistry and physics at the Sorbonne."]),
    ("Is that what you meant? Thanks!", []),
    ("1. Employees get 25 days.\n2. Up to 5 days can be carried over.",
     ["Employees get 25 days.", "Up to 5 days can be carried over."]),
])
def test_extract_claims(text, expected):
    assert extract_claims(text) == expected


def test_resolved_sentences_keep_sentences_whole():
    assert resolved_sentences("Usain Bolt won in 2009 and retired in 2017. He is Jamaican.") == [
        "Usain Bolt won in 2009 and retired in 2017.", "Usain Bolt is Jamaican."]


def test_text_helpers():
    assert antonym_clash("Leave is unpaid", "Leave is paid") == ("unpaid", "paid")
    assert antonym_clash("Business class is prohibited", "Business class is permitted") == ("prohibit", "permit")
    assert antonym_clash("The fee rose", "The fee rose again") is None
    assert names("Marie Curie met Pierre Curie in Paris.") == {"marie curie", "pierre curie", "paris"}
    assert hedge_cues("It is probably about 70 degrees") == ["probably"]
    spans = split_sentences("One. Two!\nThree")
    assert [(s.start, s.end) for s in spans] == [(0, 4), (5, 9), (10, 15)]


# --- the offline verifier ---------------------------------------------------------------

#: claims about CTX of each kind: supported, a changed date, a changed number, a swapped entity, a
#: negation, one not mentioned
CLAIMS = ["The wall fell on 9 November 1989.", "The wall fell on 9 November 1991.",
          "The wall divided the city for 35 years.", "The Berlin Wall was built by the Soviet Union.",
          "The wall did not fall in 1989.", "About 140 people died at the wall."]


def test_verifier_is_independent_of_batching_and_of_other_claims():
    from rageval.embed.cache import make_embedder

    together = LearnedVerifier(make_embedder("local")).verify(CLAIMS, CTX)
    alone = [LearnedVerifier(make_embedder("local")).verify([t], CTX)[0] for t in CLAIMS]
    assert together == alone


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@pytest.fixture(scope="module")
def minilm():
    from rageval.embed.cache import make_embedder

    return make_embedder("local")


# The team's hand-written sets (tests/data/claims_gold*.jsonl) are development data only (the rules
# were changed while looking at them): their figures are reported by validation/validate_claims.py,
# never used as a CI floor.


def test_gold_set_covers_domains_and_contradiction_types():
    rows = load("tests/data/claims_gold.jsonl")
    assert {r["domain"] for r in rows} >= {"science", "hr", "history", "finance", "medicine", "sport", "tech"}
    types = {r["type"] for r in rows if r["label"] == "CONTRADICTED"}
    assert types >= {"numbers", "dates", "negation", "entities", "antonyms"}


# --- the metrics, offline -----------------------------------------------------------------

def offline():
    return Resources(embedder_factory=BowEmbedder)


def test_faithfulness_family_offline_with_details():
    metrics = [get_metric(n) for n in ("faithfulness", "contradicted_share", "not_mentioned_share")]
    sample = dataclasses.replace(WALL, answer="Hello! The wall fell on 9 November 1989. "
                                               "The wall divided the city for 35 years.")
    res = evaluate([sample], metrics, offline())
    f, c, n = (res[m.name][0] for m in metrics)
    # offline only the copied claim is decided: each share is over 1 decided claim of 2 (coverage 0.5)
    assert (f.value, c.value, n.value) == (1.0, 0.0, 0.0)
    assert [s.details["coverage"] for s in (f, c, n)] == [0.5, 0.5, 0.5]
    got = f.details["claims"]
    assert [x["text"] for x in got] == ["The wall fell on 9 November 1989.",
                                        "The wall divided the city for 35 years."]
    assert [x["verdict"] for x in got] == ["SUPPORTED", "UNVERIFIED"]
    assert set(got[0]) >= {"text", "verdict", "evidence", "evidence_chunk", "span", "reason", "cause", "hints"}
    for x in got:  # the UNVERIFIED claim keeps its most likely evidence, whole, with its span
        i = WALL.context_ids.index(x["evidence_chunk"])
        assert CTX[i][x["span"][0]:x["span"][1]] == x["evidence"]
    assert got[1]["evidence_role"] == "likely evidence" and got[1]["hints"]  # 35 years vs the sentence's figure
    assert got[0]["cause"] is None and got[1]["cause"] is None  # nothing says the UNVERIFIED claim is wrong
    assert f.details["counts"] == {"SUPPORTED": 1, "CONTRADICTED": 0, "NOT_MENTIONED": 0, "UNVERIFIED": 1}
    assert f.details["judge"] == "heuristic" and f.details["embedder"] == "bow-test"
    json.dumps(f.details)


def test_no_claims_is_unscored_and_missing_context_too():
    samples = [Sample(id="a", answer="I don't know, sorry.", contexts=CTX),
               Sample(id="b", answer="The wall fell in 1989.", contexts=())]
    res = evaluate(samples, [get_metric("faithfulness")], offline())["faithfulness"]
    assert [(s.status, s.reason) for s in res] == [("unscored", "no_claims: the answer abstains"),
                                                   ("unscored", "no_contexts")]


def test_claims_are_computed_once_per_sample_and_judge():
    emb = BowEmbedder()
    res = Resources(embedder_factory=lambda: emb)
    evaluate([WALL], [get_metric(n) for n in ("faithfulness", "contradicted_share", "not_mentioned_share")], res)
    assert emb.calls == 1


def test_chunk_ids_fall_back_to_positions():
    s = Sample(id="x", answer="The wall fell on 9 November 1989.", contexts=CTX)
    (score,) = evaluate([s], [get_metric("faithfulness")], offline())["faithfulness"]
    assert score.details["claims"][0]["evidence_chunk"] == "context[1]"


# --- the judge path -----------------------------------------------------------------------

def judged(responder, model="fake-judge"):
    return Resources(embedder_factory=BowEmbedder, llm=FakeJudge(responder, model))


def test_judge_path_signature_details_and_located_quotes():
    m = get_metric("faithfulness", judge="openai:fake-judge")
    assert re.fullmatch(r"faithfulness\|judge:openai:fake-judge\|prompt:[0-9a-f]{8}\|emb:local\|text-[0-9a-f]{8}\|v1",
                        m.signature())
    (score,) = evaluate([WALL], [m], judged(scripted))["faithfulness"]
    assert score.value == 0.5 and score.details["method"] == "llm"
    sup = score.details["claims"][0]
    assert sup["verdict"] == "SUPPORTED" and sup["evidence_chunk"] == "doc1#1"
    assert CTX[1][sup["span"][0]:sup["span"][1]] == sup["evidence"]


def test_judge_verdicts_do_not_shift_with_batching():
    texts = [f"Claim {i} about the year {1989 if i % 3 == 0 else 1961}." for i in range(11)]
    texts += ["The Soviet Union built it.", "Nothing relevant here."]
    llm = FakeJudge(scripted)
    batched = claim_judge.verify(llm, [(texts, CTX)], per_call=8)[0]
    single = claim_judge.verify(llm, [(texts, CTX)], per_call=1)[0]
    assert [v.label for v in batched] == [v.label for v in single]
    assert batched == single
    assert sum("check claims" in p for p in llm.prompts) == 2 + 13


def test_judge_failures_mark_only_their_item():
    ok = WALL
    boom = Sample(id="b", answer="EXPLODE. The wall fell in 1989.", contexts=CTX)
    res = evaluate([ok, boom], [get_metric("faithfulness", judge="openai:fake-judge")], judged(scripted))
    assert res["faithfulness"][0].status == "ok"
    assert (res["faithfulness"][1].status, res["faithfulness"][1].reason) == ("failed", "llm_error: scripted failure")

    broken = judged(lambda p: scripted(p, broken_verify=True))
    (s,) = evaluate([ok], [get_metric("faithfulness", judge="openai:fake-judge")], broken)["faithfulness"]
    assert (s.status, s.reason, s.value) == ("unscored", "judge_parse_error", None)
    assert s.details["raw"] == "this is not json"


def test_judge_configuration_errors():
    m = get_metric("faithfulness", judge="openai:fake-judge")
    with pytest.raises(ConfigError, match="needs an LLM judge"):
        m.score_batch([WALL], Resources(embedder_factory=BowEmbedder))
    with pytest.raises(ConfigError, match="judge role runs 'other'"):
        m.score_batch([WALL], judged(scripted, model="other"))
    (s,) = evaluate([WALL], [m], Resources(embedder_factory=BowEmbedder))["faithfulness"]
    assert s.status == "failed" and "--judge heuristic" in s.reason
    with pytest.raises(ConfigError):
        get_metric("faithfulness", judge="gpt-4o").signature()


def test_verdict_validator_rejects_incomplete_replies():
    from rageval.llm.replies import validator
    from rageval.prompts.schemas import Verdicts

    validate = validator(Verdicts, claim_judge.check_verdicts(2, 1))
    good = {"verdicts": [{"claim": 1, "verdict": "supported", "passage": 1, "quote": "q", "reason": "r"},
                         {"claim": 2, "verdict": "NOT MENTIONED", "passage": None, "quote": "", "reason": "r"}]}
    assert [v["verdict"] for v in validate(good)] == ["SUPPORTED", "NOT_MENTIONED"]
    for bad in ({"verdicts": good["verdicts"][:1]}, {"verdicts": [{"claim": 1, "verdict": "MAYBE"}] * 2},
                {"verdicts": [{**good["verdicts"][0], "passage": 5}, good["verdicts"][1]]}, ["x"]):
        with pytest.raises(ValueError):
            validate(bad)


def test_locate_quotes():
    assert claim_judge.locate("the wall  fell on 9 November 1989.", CTX, 2) == (1, (0, 33))
    assert claim_judge.locate("It divided the city for 28 years.", CTX, 2) == (0, (69, 102))
    assert claim_judge.locate("not there", CTX, 1) == (0, None)
    assert claim_judge.locate("", CTX, None) == (None, None)


def test_a_copied_claim_is_supported_before_the_judge_sees_it():
    """Containment runs before the judge too: the copied claim is SUPPORTED at confidence 1.0 with its
    whole sentence, and only the other claim reaches the verification prompt."""
    llm = FakeJudge(scripted)
    sample = Sample(id="c", answer="The wall fell on 9 November 1989. The Soviet Union built it.", contexts=CTX,
                    context_ids=("doc1#0", "doc1#1"))
    (score,) = evaluate([sample], [get_metric("faithfulness", judge="openai:fake-judge")],
                        Resources(embedder_factory=BowEmbedder, llm=llm))["faithfulness"]
    copied, judged_claim = score.details["claims"]
    assert copied["verdict"] == "SUPPORTED" and copied["confidence"] == 1.0 and "verbatim" in copied["reason"]
    assert copied["evidence"] == "The wall fell on 9 November 1989." and copied["evidence_chunk"] == "doc1#1"
    assert judged_claim["verdict"] == "CONTRADICTED"
    verify = [p for p in llm.prompts if "check claims" in p]
    assert len(verify) == 1 and "Soviet" in verify[0] and "9 November 1989" not in section(verify[0], "Claims")
