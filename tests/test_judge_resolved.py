"""The judge is parsed once, where a text enters (get_metric, RunConfig.metric_options), and metrics
hold the resolved Spec; their signatures are the ones they had while they held the text."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from devtools.record_signatures import JUDGES, signatures
from rageval.config import RunConfig
from rageval.errors import ConfigError
from rageval.metrics.base import get_metric, metric_names, parse_metric_list
from rageval.types import OFFLINE_JUDGE, Spec

RECORDED = Path(__file__).parent / "data" / "signatures_recorded.json"
#: what the judge does not decide: content hashes of prompts, rule tables and weights, and package
#: versions (other changes move them; the record pins everything the judge's text and server decide)
VOLATILE = re.compile(r"(?<![0-9a-z])[0-9a-f]{8,}(?![0-9a-z])|\d+(?:\.\d+)+")


def stable(signature: str) -> str:
    return VOLATILE.sub("#", signature)


def test_the_volatile_parts_are_all_that_is_masked():
    sig = "aligncheck_f1|judge:openai:gpt-x|prompt:74346de2|server:http://127.0.0.1:8000/v1|ner:spacy-3.8.18|v1"
    assert stable(sig) == "aligncheck_f1|judge:openai:gpt-x|prompt:#|server:http://#:8000/v1|ner:spacy-#|v1"
    assert stable(sig) != stable(sig.replace("gpt-x", "gpt-y")) != stable(sig.replace("|v1", "|v2"))


def test_every_signature_is_the_one_recorded_while_metrics_held_the_judge_text(monkeypatch):
    # recorded with `python -m devtools.record_signatures tests/data/signatures_recorded.json` at commit
    # fb74582, before metrics held a Spec; values stored then stay comparable and cached
    for var in ("OPENAI_BASE_URL", "RAGEVAL_JUDGE_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    now = signatures()
    assert sorted(now) == sorted(recorded)  # the same metrics, judges and servers
    assert {k: stable(v) for k, v in now.items()} == {k: stable(v) for k, v in recorded.items()}
    assert len(now) == len(JUDGES) * 2 * (len(metric_names()) + 1)


@pytest.mark.parametrize("name", [n.replace("@K", "@5") for n in metric_names()
                                  if getattr(get_metric(n.replace("@K", "@5")), "needs_llm", False)])
def test_a_judged_metric_holds_the_resolved_judge(name):
    resolved = Spec("judge", model="gpt-x")
    assert get_metric(name).judge == OFFLINE_JUDGE
    assert get_metric(name, judge=" OpenAI : gpt-x ").judge == resolved  # a text is parsed here, once
    assert get_metric(name, judge=resolved).judge is resolved  # a resolved judge is taken as it is


def test_a_signature_never_parses_a_judge_text(monkeypatch):
    metrics = parse_metric_list([n.replace("@K", "@5") for n in metric_names()], judge="openai:gpt-x")
    offline = parse_metric_list([n.replace("@K", "@5") for n in metric_names()])

    def refuse(cls, role, text):
        raise AssertionError(f"{role} {text!r} parsed again")

    monkeypatch.setattr(Spec, "parse", classmethod(refuse))
    for metric in metrics + offline:
        assert metric.signature()


def test_a_run_config_hands_its_metrics_the_parsed_judge():
    options = RunConfig(corpus="c", qa_set="q", judge=" OpenAI:gpt-4o").metric_options()
    assert options["judge"] == Spec("judge", model="gpt-4o")
    assert get_metric("faithfulness", **options).judge is options["judge"]


def test_an_unreadable_judge_text_is_refused_naming_the_metric_that_takes_it():
    with pytest.raises(ConfigError, match=r"answer_equivalence: judge 'gpt-4o' is not a known backend"):
        get_metric("answer_equivalence", judge="gpt-4o")
    with pytest.raises(ConfigError, match=r"faithfulness: judge 'openai:' names no model"):
        parse_metric_list("token_f1,faithfulness", judge="openai:")
    assert [m.name for m in parse_metric_list("token_f1", judge="gpt-4o")] == ["token_f1"]  # takes no judge
