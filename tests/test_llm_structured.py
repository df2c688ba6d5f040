"""Structured outputs against the LLM test server: the reply schema goes out as a json_schema
response_format, a server that rejects it falls back to JSON mode and then to the prompt alone,
the choice is remembered per (server, model) across clients and is part of the stored signature."""
import pytest

from rageval.llm.client import make_llm_client
from rageval.types import Resources, Sample, Spec
from rageval.metrics.triad import ContextRelevance
from rageval.runs.pipeline import score_rows
from rageval.prompts.schemas import REPLIES, RatingReply, Verdicts
from devtools.judge_responder import respond

SAMPLES = [Sample(id=str(i), question=f"When did the Berlin Wall fall? ({i})", answer="In 1989.",
                  contexts=("The Berlin Wall fell on 9 November 1989.", "Paris is in France.")) for i in range(3)]


def _client(server, store, concurrency=1):
    env = {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-test-not-a-real-key"}
    return make_llm_client({"judge": "openai:test-model"}, store, "r", concurrency, True, env=env,
                           backoff_base=0.01)


def _score(server, store, concurrency=1):
    metric = ContextRelevance(judge=Spec.parse("judge", "openai:test-model"))
    with _client(server, store, concurrency) as llm:
        scores = metric.score_batch(SAMPLES, Resources(llm=llm))
        rows = score_rows(SAMPLES, {metric.name: scores}, [metric], str(metric.judge), llm)
    return scores, rows[0][0][0]["signature"]


@pytest.mark.parametrize("setting,mode,formats", [
    ({}, "json_schema", ["json_schema"]),
    ({"reject_json_schema": True}, "json_object", ["json_schema", "json_object"]),
    ({"reject_json_mode": True}, "prompt", ["json_schema", "json_object", None]),
])
def test_fallback_ladder_is_remembered_and_signed(fake_llm, tmp_path, setting, mode, formats):
    fake_llm.script(responder=respond, **setting)
    store = tmp_path / "p.duckdb"
    scores, signature = _score(fake_llm, store)
    assert all(s.status == "ok" and s.value == 1.0 for s in scores)
    assert signature.endswith(f"|out:{mode}")
    sent = [(b.get("response_format") or {}).get("type") for b in fake_llm.bodies()]
    assert sent[:len(formats)] == formats  # one rejection per mode the server does not speak...
    # ...then only the one it does
    assert set(sent[len(formats):]) <= {formats[-1]} and len(sent) == len(formats) - 1 + 6
    first = fake_llm.bodies()[0]["response_format"]
    assert first["json_schema"]["schema"] == RatingReply.model_json_schema()

    # a new client on the same project starts in the remembered mode: no rejection, and with
    # another question (a cache miss) exactly one call, in that mode
    fake_llm.reset().script(responder=respond, **setting)
    with _client(fake_llm, store) as llm:
        assert llm.output_mode("judge") == mode
        reply = llm.chat_json("judge", [{"role": "user", "content": "Question: x\n\nPassage:\ny\n\n"
                                         "Reply with one JSON object and nothing else:\n{\"rating\": 0}"}],
                              schema=RatingReply)
    assert reply.status == "ok" and reply.mode == mode and fake_llm.count("/v1/chat/completions") == 1


def test_concurrent_first_calls_all_fall_back(fake_llm, tmp_path):
    fake_llm.script(responder=respond, reject_json_mode=True)
    scores, signature = _score(fake_llm, tmp_path / "p.duckdb", concurrency=6)
    assert all(s.status == "ok" for s in scores) and signature.endswith("|out:prompt")


def test_a_reply_that_breaks_its_schema_is_reasked_then_unscored(fake_llm, tmp_path):
    fake_llm.script(responder=lambda body: '{"verdicts": [{"claim": 1, "verdict": "PROBABLY"}]}')
    with _client(fake_llm, tmp_path / "p.duckdb") as llm:
        reply = llm.chat_json("judge", [{"role": "user", "content": "judge claim 1"}], schema=Verdicts)
    assert (reply.status, reply.reason) == ("unscored", "judge_parse_error") and reply.reasked
    assert "verdicts.0.verdict" in reply.error  # the pydantic location of the bad field, sent in the re-ask
    assert "verdicts.0.verdict" in fake_llm.bodies()[1]["messages"][-1]["content"]


def test_every_judge_prompt_has_a_reply_model():
    from rageval.prompts import PROMPT_DIR

    judge_prompts = {p.stem for p in PROMPT_DIR.glob("*.txt") if "JSON" in p.read_text(encoding="utf-8")}
    assert judge_prompts == set(REPLIES)


@pytest.mark.parametrize("flag,expected", [(1, True), (0, False), (True, True), ("yes", True), ("Yes", True),
                                           ("1", True), ("true", True), ("no", False), ("0", False), ("", False)])
def test_noncommittal_flag_reads_yes_as_its_docstring_says(flag, expected):
    from rageval.prompts.schemas import Questions

    reply = Questions.model_validate({"questions": [{"question": "Q?", "noncommittal": flag}]})
    assert reply.questions[0].noncommittal is expected
