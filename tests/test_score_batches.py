"""A stored judged ``score`` in several batches: the next batch is scored while one finishes, yet the
server never sees more than ``concurrency`` requests at once (the reachability check included), and
the values are those of the same answers scored in one piece without the cache."""
from __future__ import annotations

import json
import threading

import pytest

from devtools.judge_responder import respond
from rageval.llm.session import model_session
from rageval.runs.scoring import in_order, score, score_file
from rageval.store.db import connect
from rageval.types import Sample
from devtools.projects import small_project

FOUR = ["faithfulness", "ragas_answer_correctness", "ragas_answer_relevance", "context_relevance"]


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    return small_project(tmp_path)


def _rows(n: int) -> list[dict]:
    return [{"id": f"r{i}", "question": f"When did bridge {i} open?",
             "answer": f"Bridge {i} opened in {1900 + i}. It cost {10 + i} million.",
             "contexts": [f"Bridge {i} opened in {1900 + i} after a long debate.", f"It cost {10 + i} million."],
             "reference": f"It opened in {1900 + i}."} for i in range(n)]


def test_judged_batches_overlap_within_the_concurrency_and_keep_their_values(project, llm_env):
    llm_env.script(responder=respond, latency=0.02)
    rows = _rows(20)  # concurrency 2: batches of 4 x 2 = 8 answers, so three batches
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    stored = score_file(project, "a.jsonl", data, FOUR, judge="openai:batch-judge", concurrency=2)
    assert llm_env.peak_in_flight == 2  # two batches at once share the client's 2 slots
    with connect(project.db_path) as con:
        kept = con.execute("SELECT count(DISTINCT item_id), count(*) FROM metric_scores "
                           "WHERE run_id = ?", [stored.run_id]).fetchone()
    assert kept == (20, 80)

    samples = [Sample(id=r["id"], question=r["question"], answer=r["answer"], contexts=tuple(r["contexts"]),
                      references=(r["reference"],)) for r in rows]
    with model_session({"judge": "openai:batch-judge"}, concurrency=2, use_cache=False) as session:
        alone = score(samples, FOUR, judge="openai:batch-judge", resources=session.resources())
    assert alone.rows == stored.rows
    assert all(row[m] is not None for row in stored.rows for m in FOUR)


def test_in_order_runs_the_next_one_while_one_is_unfinished_and_yields_in_order():
    second_ran = threading.Event()

    def work(k: int) -> int:
        if k == 1:
            second_ran.set()
        if k == 0 and not second_ran.wait(timeout=30):  # finishes only once work(1) has run
            raise AssertionError("work(1) did not run while work(0) was unfinished")
        return k * k

    assert list(in_order(work, 5, ahead=1)) == [(k, k * k) for k in range(5)]
    assert list(in_order(lambda k: k, 3)) == [(0, 0), (1, 1), (2, 2)]  # ahead=0: one after another
