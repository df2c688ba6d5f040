"""Prices, the pre-run estimate and usage summaries."""
from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from rageval.errors import ConfigError
from rageval.llm.client import make_llm_client
from rageval.llm.cost import cost_usd, load_prices, price_for, summarize_calls
from rageval.runs.estimate import estimate_run, estimate_tokens
from rageval.types import OFFLINE_JUDGE, Spec

PRICES = {"gpt-4o": {"input": 2.5, "output": 10.0}, "emb": {"input": 0.02, "output": 0.0}}


def test_shipped_table_and_user_override(tmp_path):
    shipped = load_prices(env={})
    assert shipped["gpt-4o-mini"] == {"input": 0.15, "output": 0.6}
    assert all(p["input"] >= 0 and p["output"] >= 0 for p in shipped.values())
    override = tmp_path / "prices.json"
    override.write_text(json.dumps({"gpt-4o-mini": {"input": 1, "output": 2}, "llama3": {"input": 0, "output": 0}}))
    mine = load_prices(env={"RAGEVAL_PRICES": str(override)})
    assert mine["gpt-4o-mini"] == {"input": 1.0, "output": 2.0} and mine["llama3"]["input"] == 0
    assert mine["gpt-4o"] == shipped["gpt-4o"]


@pytest.mark.parametrize("content,message", [
    ("{not json", "not valid JSON"), ('{"m": {"output": 1}}', "entry 'm' must look like"), ("[1]", "JSON object"),
])
def test_bad_price_files_are_config_errors(tmp_path, content, message):
    path = tmp_path / "p.json"
    path.write_text(content)
    with pytest.raises(ConfigError, match=message):
        load_prices(path)
    with pytest.raises(ConfigError, match="cannot read"):
        load_prices(tmp_path / "missing.json")


@pytest.mark.parametrize("model,expected", [
    ("gpt-4o", 2.5 * 2 + 10.0 * 0.5), ("gpt-4o-2024-08-06", 2.5 * 2 + 10.0 * 0.5), ("llama3", None),
])
def test_cost_formula_and_lookup(model, expected):
    got = cost_usd(model, 2_000_000, 500_000, PRICES)
    assert got == pytest.approx(expected) if expected is not None else got is None
    assert (price_for(model, PRICES) is None) == (expected is None)


def test_estimate_tokens_is_a_quarter_of_the_characters():
    assert [estimate_tokens(t) for t in ("", "abcd", "abcde", None)] == [0, 1, 2, 0]


@dataclass(frozen=True)
class FakeMetric:
    name: str
    needs_llm: bool = False
    judge: Spec = OFFLINE_JUDGE  # as metrics hold it: resolved
    kind: str = "lexical"
    llm_calls_per_item: float = 1.0


def test_estimate_run_counts_calls_per_role_and_prices_them():
    gpt4o = Spec("judge", model="gpt-4o")
    metrics = [FakeMetric("token_f1"), FakeMetric("faithfulness", True, gpt4o, "claims", 2.0),
               FakeMetric("answer_relevance", True, gpt4o, "judged"),
               FakeMetric("offline_judged", True, OFFLINE_JUDGE, "judged"), FakeMetric("sem", kind="semantic")]
    samples = [{"question": "q" * 40, "answer": "a" * 400, "contexts": ["c" * 1000] * 3, "references": ["r" * 80]}] * 3
    roles = {"generator": "openai:local-llama", "judge": "openai:gpt-4o", "embedder": "openai:emb"}
    est = estimate_run(100, metrics, roles, samples=samples, prices=PRICES)
    by_role = {e.role: e for e in est.roles}
    assert by_role["generator"].calls == 100 and by_role["generator"].cost_usd is None
    assert by_role["judge"].calls == 300  # 2 + 1 calls per item; heuristic judges cost nothing
    judge_in = 1200 / 4 + 10 + 100 + 750
    assert by_role["judge"].tokens_in == pytest.approx(300 * judge_in, rel=0.01)
    assert by_role["judge"].tokens_out == 300 * 150
    assert by_role["embedder"].calls == 5  # 300 texts (questions, answers, references) / 64
    assert by_role["embedder"].tokens_in == 100 * (10 + 100 + 20)
    expected = cost_usd("gpt-4o", by_role["judge"].tokens_in, by_role["judge"].tokens_out, PRICES) + \
        cost_usd("emb", by_role["embedder"].tokens_in, 0, PRICES)
    assert est.cost_usd == pytest.approx(expected, rel=1e-6) and est.unpriced == ("local-llama",)
    assert est.calls == 405
    before_a_run = estimate_run(10, metrics[1:2], roles, samples=[{"question": "q" * 400}], prices=PRICES)
    judge = next(e for e in before_a_run.roles if e.role == "judge")
    assert judge.tokens_in == pytest.approx(20 * (1200 / 4 + 100 + 100 + 1250), rel=0.01)  # typical lengths
    offline = estimate_run(100, metrics[:1], {"generator": "extractive", "judge": "heuristic", "embedder": "local"})
    assert (offline.calls, offline.cost_usd, offline.roles) == (0, None, ())


def test_summarize_calls_counts_network_tokens_only():
    rows = [
        {"role": "judge", "model": "gpt-4o", "tokens_in": 1000, "tokens_out": 100, "cached": False, "status": "ok"},
        {"role": "judge", "model": "gpt-4o", "tokens_in": 1000, "tokens_out": 100, "cached": True, "status": "ok"},
        {"role": "judge", "model": "gpt-4o", "tokens_in": 0, "tokens_out": 0, "cached": False, "status": "failed"},
        {"role": "generator", "model": "llama3", "tokens_in": 50, "tokens_out": 5, "cached": False, "status": "ok"},
    ]
    s = summarize_calls(rows, PRICES)
    assert (s.calls, s.cached, s.failed, s.network_calls) == (4, 1, 1, 3)
    assert (s.tokens_in, s.tokens_out) == (1050, 105)
    assert s.cost_usd == pytest.approx(1000 / 1e6 * 2.5 + 100 / 1e6 * 10) and s.unpriced == ("llama3",)
    assert s.by_role["judge"]["calls"] == 3


def test_client_usage(fake_llm):
    client = make_llm_client({"judge": "openai:gpt-4o"}, env={"OPENAI_BASE_URL": fake_llm.url}, prices=PRICES)
    client.chat("judge", [{"role": "user", "content": "hi"}])
    client.chat("judge", [{"role": "user", "content": "hi"}])
    usage = client.usage()
    assert (usage.calls, usage.cached) == (2, 1) and usage.cost_usd > 0
    client.close()
