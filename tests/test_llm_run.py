"""A full run through the real openai client against the fake server: faults, parse errors, cache.

What the LLM layer promises: the demo QA set with the LLM generator and judge, 10% of calls failing
transiently and 5% of replies broken; every item ends scored or unscored-with-reason, and an
unchanged re-run makes zero calls.
"""
import pytest

from rageval.config import RunConfig
from rageval.demo import DEMO_CORPUS, DEMO_QA
from rageval.errors import LLMError
from rageval.runs.pipeline import execute, start_run
from rageval.project import open_project
from rageval.store import runs as store
from devtools.judge_responder import respond
from devtools.projects import demo_project

JUDGED = ("faithfulness", "contradicted_share", "context_relevance", "answer_relevance", "groundedness",
          "hedging", "token_f1")


@pytest.fixture(scope="module")
def _demo_home(tmp_path_factory):
    """The demo corpus and QA set in one project for this module's tests (devtools.projects.demo_project)."""
    home = tmp_path_factory.mktemp("llm-run") / "home"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAGEVAL_HOME", str(home))
        demo_project("llm")
    return home


@pytest.fixture()
def llm_project(_demo_home, monkeypatch):
    """The shared demo project (each test starts its own runs in it)."""
    monkeypatch.setenv("RAGEVAL_HOME", str(_demo_home))
    return open_project("llm")


def _config(**kw):
    return RunConfig(corpus=DEMO_CORPUS, qa_set=DEMO_QA, generator="openai:test-model", judge="openai:test-model",
                     metrics=JUDGED, top_k=4, **kw)


def test_run_survives_faults_and_reruns_from_cache(llm_project, llm_env):
    llm_env.script(responder=respond, seed=7,
                   rates={"500": 0.04, "429": 0.03, "503": 0.03, "truncated": 0.02, "prose": 0.02, "empty": 0.01})
    run_id = start_run(llm_project, _config())
    summary = execute(llm_project, run_id)
    assert summary.status == "finished" and summary.done == summary.items == 43
    faults = {kind for _, kind in llm_env.faults_seen()}
    assert {"500", "429", "503"} <= faults and faults & {"truncated", "prose", "empty"}
    answers = store.answers(llm_project.db_path, run_id)
    # transient faults were retried; an empty reply (not retried) fails only its own item, with a reason
    assert all((a["status"] == "ok" and a["answer"]) or (a["status"] == "failed" and a["reason"]) for a in answers)
    ok_items = [a["item_id"] for a in answers if a["status"] == "ok"]
    assert len(ok_items) >= 40
    scores = store.scores(llm_project.db_path, run_id)
    assert len(scores) == len(ok_items) * len(JUDGED)
    for s in scores:  # scored, or not scored with a reason: never a silent gap
        assert (s["status"] == "ok" and s["value"] is not None) or (s["value"] is None and s["reason"]), s
    from collections import Counter
    bad = Counter((s["metric"], s["reason"]) for s in scores if s["status"] != "ok")
    assert sum(s["status"] == "ok" for s in scores) >= 0.9 * len(scores), bad
    assert any(s["metric"] == "faithfulness" and s["signature"].find("judge:openai:test-model") >= 0 for s in scores)
    assert store.claims(llm_project.db_path, run_id)

    # An unchanged re-run replays the cache: no model calls except for the items whose replies
    # never parsed (broken replies are not cached, so those are asked again), and the same values.
    unparsed = sum(s["reason"] == "judge_parse_error" for s in scores)
    calls_before = llm_env.count("/v1/chat/completions")
    llm_env.script(responder=respond)  # no faults now
    rerun = start_run(llm_project, _config())
    assert execute(llm_project, rerun).done == 43
    failed_items = 43 - len(ok_items)  # their generation is asked again, then judged
    assert llm_env.count("/v1/chat/completions") - calls_before <= 2 * unparsed + 20 * failed_items
    first = {(s["item_id"], s["metric"]): s["value"] for s in scores if s["status"] == "ok"}
    second = {(s["item_id"], s["metric"]): s["value"] for s in store.scores(llm_project.db_path, rerun)}
    assert {k: second[k] for k in first} == first


def test_unreachable_server_fails_before_any_item(llm_project, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    run_id = start_run(llm_project, _config())
    with pytest.raises(LLMError, match="unreachable"):
        execute(llm_project, run_id)
    assert store.answers(llm_project.db_path, run_id) == []
    assert store.get_run(llm_project.db_path, run_id).status == "failed"


def _judge_json(tmp_path, run_id):
    from rageval.llm.client import make_llm_client

    client = make_llm_client({"judge": "openai:test-model"}, store_path=tmp_path / "c.duckdb", run_id=run_id)
    try:
        return client.chat_json("judge", [{"role": "user", "content": "Reply with JSON please"}],
                                validate=lambda v: v if isinstance(v, dict) and "echo" in v else _bad())
    finally:
        client.close()


def _bad():
    raise ValueError('expected {"echo": ...}')


def test_reask_answer_is_cached_under_the_original_request(tmp_path, llm_env):
    llm_env.script(plan={1: "prose"})
    first = _judge_json(tmp_path, "r1")
    assert first.status == "ok" and first.reasked and llm_env.count("/v1/chat/completions") == 2
    again = _judge_json(tmp_path, "r2")
    assert again.status == "ok" and again.value == first.value
    assert llm_env.count("/v1/chat/completions") == 2  # replayed from the cache, no re-ask either


def test_reply_that_never_parsed_is_not_cached(tmp_path, llm_env):
    llm_env.script(plan={1: "prose", 2: "truncated"})
    first = _judge_json(tmp_path, "r1")
    assert first.status == "unscored" and first.reason == "judge_parse_error" and first.raw
    again = _judge_json(tmp_path, "r2")  # asked again on the re-run, and this time it parses
    assert again.status == "ok" and llm_env.count("/v1/chat/completions") == 3


def test_ingest_and_run_with_an_openai_compatible_embedder(tmp_path, monkeypatch, llm_env, capsys):
    from rageval.cli import main
    from devtools.projects import QA, write_docs
    import json

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    assert main(["ingest", str(write_docs(tmp_path / "docs")), "--corpus", "c", "--embedder", "openai:emb-model",
                 "--json"]) == 0
    assert llm_env.count("/v1/embeddings") >= 1
    (tmp_path / "qa.jsonl").write_text("".join(json.dumps(r) + "\n" for r in QA), encoding="utf-8")
    assert main(["qa", "import", str(tmp_path / "qa.jsonl"), "--name", "qa"]) == 0
    capsys.readouterr()
    assert main(["run", "--corpus", "c", "--qa", "qa", "--embedder", "openai:emb-model", "--metrics",
                 "token_f1,recall@3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["done"] == 5


def test_two_runs_with_an_online_embedder_in_one_process_both_finish(tmp_path, monkeypatch, llm_env, capsys):
    """Each run closes its LLM client at the end; the second one (as in the app) must embed its
    new questions through its own client, never through the first run's closed one."""
    from rageval.cli import main
    from devtools.projects import QA, write_docs
    import json

    from rageval.llm.client import LLMClient

    closed_calls = []
    real_embed = LLMClient.embed

    def embed(self, texts, **kw):
        if not self._finalizer.alive:
            closed_calls.append(len(texts))  # a closed client still answers (it reconnects), but must not be used
        return real_embed(self, texts, **kw)

    monkeypatch.setattr(LLMClient, "embed", embed)
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    assert main(["ingest", str(write_docs(tmp_path / "docs")), "--corpus", "c", "--json"]) == 0
    for n, suffix in enumerate(("", " Answer briefly.")):
        rows = [{**r, "question": r["question"] + suffix} for r in QA]
        (tmp_path / f"qa{n}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        assert main(["qa", "import", str(tmp_path / f"qa{n}.jsonl"), "--name", f"qa{n}"]) == 0
    for n in range(2):
        embedded = llm_env.count("/v1/embeddings")
        capsys.readouterr()
        assert main(["run", "--corpus", "c", "--qa", f"qa{n}", "--embedder", "openai:emb-model", "--metrics",
                     "token_f1,recall@3", "--json"]) == 0, capsys.readouterr().err
        assert json.loads(capsys.readouterr().out)["done"] == 5
        assert llm_env.count("/v1/embeddings") > embedded  # the new questions went to the server
    assert closed_calls == []
