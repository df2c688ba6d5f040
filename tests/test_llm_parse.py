"""The pure parts of the LLM layer: tolerant JSON parsing, the re-ask protocol, specs, roles, keys."""
from __future__ import annotations

import pytest

from rageval.errors import ConfigError
from rageval.llm.roles import display_url, role_config, roles_from_env, scrub
from rageval.types import Spec
from rageval.llm.replies import (
    ChatReply, ask_json, parse_and_validate, parse_json_reply, request_key, strip_trailing_commas,
)

PARSES = [
    ('{"a": 1}', {"a": 1}),
    ('  [1, 2, 3]\n', [1, 2, 3]),
    ('```json\n{"verdict": "SUPPORTED"}\n```', {"verdict": "SUPPORTED"}),
    ('```\n[{"c": "x"}]\n```', [{"c": "x"}]),
    ('Sure, here it is:\n```json\n{"a": [1, 2,],}\n```\nAnything else?', {"a": [1, 2]}),
    ('Here you go: {"claims": ["x", "y"]} - hope that helps', {"claims": ["x", "y"]}),
    ('The result is {"a": {"b": [1, {"c": 2}]}}.', {"a": {"b": [1, {"c": 2}]}}),
    ('{"text": "a, }", "n": 2,}', {"text": "a, }", "n": 2}),
    ('{"quote": "she said \\"hi\\", then left",}', {"quote": 'she said "hi", then left'}),
    ('Answer: [\n  {"k": 1},\n  {"k": 2},\n]', [{"k": 1}, {"k": 2}]),
    ('I rate it [5/10]. {"score": 5}', {"score": 5}),
    ('{"ok": true, "items": [null, false]}', {"ok": True, "items": [None, False]}),
]

FAILS = [
    (None, "empty"),
    ("", "empty"),
    ("   \n", "empty"),
    ("The claim is supported by the context.", "no JSON object"),
    ('{"claims": ["a", "b', "truncated"),
    ('Here: {"verdict": "SUPP', "truncated"),
    ('42', "bare JSON int"),
    ('"yes"', "bare JSON str"),
    ('{"a": 1}\n{"b": 2}', "more than one"),
    ('{"a": {"b": 1}, "c": [1, 2', "truncated"),  # never a fragment from inside a cut-off reply
]


@pytest.mark.parametrize("text,expected", PARSES)
def test_tolerant_parsing_accepts(text, expected):
    assert parse_json_reply(text) == expected


@pytest.mark.parametrize("text,message", FAILS)
def test_tolerant_parsing_rejects_with_reason(text, message):
    with pytest.raises(ValueError, match=message):
        parse_json_reply(text)


def test_strip_trailing_commas_leaves_strings_alone():
    assert strip_trailing_commas('["a,]", "b",]') == '["a,]", "b"]'
    assert strip_trailing_commas('{"a": 1 , }') == '{"a": 1  }'


def _needs_verdict(value):
    if not isinstance(value, dict) or value.get("verdict") not in ("yes", "no"):
        raise ValueError("expected {\"verdict\": \"yes\" | \"no\"}")
    return value["verdict"]


def test_parse_and_validate_reports_shape_errors():
    assert parse_and_validate('{"verdict": "yes"}', _needs_verdict) == ("yes", None)
    value, error = parse_and_validate('{"verdict": 3}', _needs_verdict)
    assert value is None and "expected shape" in error and "verdict" in error
    value, error = parse_and_validate('{"x": 1}', lambda v: v["verdict"])  # a KeyError counts too
    assert value is None and "verdict" in error


def _reply(text, status="ok", reason=None):
    return ChatReply(text, status, reason, False, 1, 1, 1.0)


def _scripted(*replies):
    asked = []

    def chat(messages):
        asked.append(messages)
        return replies[len(asked) - 1]

    return chat, asked


def test_ask_json_reasks_once_with_the_error_then_succeeds():
    chat, asked = _scripted(_reply("I think yes."), _reply('{"verdict": "yes"}'))
    got = ask_json(chat, [{"role": "user", "content": "q"}], _needs_verdict)
    assert (got.status, got.value, got.reasked) == ("ok", "yes", True)
    assert len(asked) == 2
    assert asked[1][1] == {"role": "assistant", "content": "I think yes."}
    assert "no JSON object" in asked[1][2]["content"]


def test_ask_json_gives_unscored_with_raw_text_never_a_value():
    chat, asked = _scripted(_reply('{"verdict": "maybe"}'), _reply('{"verdict": "perhaps"'))
    got = ask_json(chat, [{"role": "user", "content": "q"}], _needs_verdict)
    assert (got.status, got.reason, got.value) == ("unscored", "judge_parse_error", None)
    assert got.raw == '{"verdict": "perhaps"' and "not valid JSON" in got.error
    assert len(asked) == 2


def test_ask_json_passes_call_failures_through():
    chat, _ = _scripted(_reply(None, "failed", "llm_error: timeout"))
    got = ask_json(chat, [], _needs_verdict)
    assert (got.status, got.reason, got.value, got.raw) == ("failed", "llm_error: timeout", None, None)


def test_request_key_depends_on_what_changes_the_reply():
    base = {"kind": "chat", "model": "m", "messages": [{"role": "user", "content": "x"}],
            "temperature": 0.0, "seed": 0, "response_format": None, "max_tokens": None}
    key = request_key(base)
    assert len(key) == 64 and key == request_key(dict(reversed(list(base.items()))))
    for field, value in [("model", "m2"), ("temperature", 0.7), ("seed", 1), ("max_tokens", 5),
                         ("response_format", {"type": "json_object"}), ("kind", "json"),
                         ("messages", [{"role": "user", "content": "y"}])]:
        assert request_key({**base, field: value}) != key, field


@pytest.mark.parametrize("role,spec,model", [
    ("judge", "heuristic", None), ("generator", "extractive", None), ("embedder", "local", None),
    ("judge", "openai:gpt-4o", "gpt-4o"), ("embedder", " openai:text-embedding-3-small ", "text-embedding-3-small"),
    ("generator", "OpenAI:llama3:8b", "llama3:8b"), ("judge", " openai: gpt-4o", "gpt-4o"),
    ("judge", "Heuristic", None), ("embedder", "MiniLM", None),
])
def test_parse_spec(role, spec, model):
    assert Spec.parse(role, spec).model == model


def test_one_spec_text_everywhere():
    from rageval.config import RunConfig
    from rageval.metrics.base import get_metric

    config = RunConfig(corpus="c", qa_set="q", judge=" OpenAI:gpt-4o", generator="EXTRACTIVE", embedder="minilm")
    assert (config.judge, config.generator, config.embedder) == ("openai:gpt-4o", "extractive", "local")
    assert config.config_hash() == RunConfig(corpus="c", qa_set="q", judge="openai:gpt-4o").config_hash()
    assert get_metric("faithfulness", judge="OpenAI: gpt-4o").judge == Spec("judge", model="gpt-4o")
    for bad, message in (("openai: ", "names no model"), ("", "not a known backend")):
        with pytest.raises(ConfigError, match=message):
            RunConfig(corpus="c", qa_set="q", judge=bad)


@pytest.mark.parametrize("role,spec,message", [
    ("judge", "openai:", "names no model"), ("judge", "anthropic:claude", "not a known backend"),
    ("judge", "extractive", "not a known backend"), ("critic", "heuristic", "unknown model role"),
    ("judge", "", "not a known backend"),
])
def test_parse_spec_rejects(role, spec, message):
    with pytest.raises(ConfigError, match=message):
        Spec.parse(role, spec)


def test_role_config_prefers_per_role_then_shared_and_secrets_over_env():
    env = {"OPENAI_BASE_URL": "http://shared:8000/v1/", "OPENAI_API_KEY": "k1",
           "RAGEVAL_JUDGE_BASE_URL": "http://judge:9000/v1", "RAGEVAL_JUDGE_API_KEY": "k2"}
    judge = role_config("judge", "m", env=env)
    assert (judge.base_url, judge.api_key_env, judge.base_url_env) == (
        "http://judge:9000/v1", "RAGEVAL_JUDGE_API_KEY", "RAGEVAL_JUDGE_BASE_URL")
    gen = role_config("generator", "m", env=env)
    assert (gen.base_url, gen.api_key_env) == ("http://shared:8000/v1", "OPENAI_API_KEY")
    from_secrets = role_config("generator", "m", env=env, secrets={"OPENAI_BASE_URL": "http://s/v1"})
    assert from_secrets.base_url == "http://s/v1"
    assert role_config("embedder", "m", env={}) == role_config("embedder", "m", env={}, secrets={})
    assert "k1" not in repr(gen) and "k2" not in repr(judge)


def test_roles_from_env_keeps_only_online_roles():
    roles = roles_from_env({"generator": "extractive", "judge": "openai:gpt-4o-mini", "embedder": "local"},
                           env={"OPENAI_API_KEY": "x"})
    assert list(roles) == ["judge"] and roles["judge"].model == "gpt-4o-mini"


def test_display_url_and_scrub():
    assert display_url(None) == "https://api.openai.com/v1"
    assert display_url("http://a:b@host:1/v1?k=1") == "http://host:1/v1"
    text = "bad key sk-proj-ABCDEF123456 and Bearer tok123 and custom-secret-value"
    assert scrub(text, ["custom-secret-value"]) == "bad key *** and *** and ***"
