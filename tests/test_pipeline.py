"""Runs end to end on a small corpus: stored items, document-level relevance, resume, index recall."""
import numpy as np
import pytest

from rageval.config import RunConfig
from rageval.errors import ConfigError
from rageval.runs.pipeline import execute, start_run
from rageval.store import runs as store
from devtools.projects import small_project

METRICS = ("exact_match", "token_f1", "recall@5", "mrr")


@pytest.fixture()
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    return small_project(tmp_path)


def _results(project, run_id):
    answers = {a["item_id"]: (a["answer"], a["retrieved"]) for a in store.answers(project.db_path, run_id)}
    scores = {(s["item_id"], s["metric"]): (s["value"], s["status"]) for s in store.scores(project.db_path, run_id)}
    return answers, scores


def test_run_answers_and_scores_every_item(project):
    run_id = start_run(project, RunConfig(corpus="c", qa_set="qa", metrics=METRICS, top_k=3))
    summary = execute(project, run_id)
    assert summary.status == "finished" and summary.done == 5 and summary.failed == 0
    answers, scores = _results(project, run_id)
    assert set(answers) == {"q1", "q2", "q3", "q4", "q5"}
    assert all(len(retrieved) == 3 for _, retrieved in answers.values())
    assert "1964" in answers["q2"][0]
    # q1-q3 name their relevant documents, so retrieval is scored at document level
    assert scores[("q2", "recall@5")] == (1.0, "ok")
    # q4 and q5 give no relevant ids: unscored with the reason, never 0
    assert scores[("q5", "recall@5")] == (None, "unscored")
    assert len(scores) == 5 * len(METRICS)


def test_interrupted_run_resumes_to_the_same_results(project):
    config = RunConfig(corpus="c", qa_set="qa", metrics=METRICS, top_k=3)
    full = start_run(project, config)
    execute(project, full, batch_size=2)
    calls = iter(range(100))
    part = start_run(project, config)
    summary = execute(project, part, batch_size=2, should_stop=lambda: next(calls) >= 1)
    assert summary.status == "interrupted" and summary.done == 2
    summary = execute(project, part, batch_size=2)
    assert summary.status == "finished" and summary.done == 5
    assert _results(project, part) == _results(project, full)
    assert len(store.scores(project.db_path, part)) == 5 * len(METRICS)  # nothing duplicated


def test_start_run_rejects_unknown_corpus_and_metric(project):
    with pytest.raises(ConfigError, match="corpus 'nope' does not exist"):
        start_run(project, RunConfig(corpus="nope", qa_set="qa"))
    with pytest.raises(ConfigError, match="unknown metric 'bogus'"):
        start_run(project, RunConfig(corpus="c", qa_set="qa", metrics=("bogus",)))


def test_chroma_top10_matches_exact_cosine_search(project):
    from rageval.config import index_signature
    from rageval.ingest.corpus import ensure_chunks
    from rageval.index import VectorIndex
    from rageval.config import ChunkingConfig
    from rageval.embed.cache import get_embedder

    chunking = ChunkingConfig(size=120, overlap=20)  # many small chunks make the check meaningful
    embedder = get_embedder(project, "local")
    chunks = ensure_chunks(project, "c", chunking)
    index = VectorIndex(project, index_signature("c", chunking, "local"))
    index.sync(chunks, embedder.embed)
    vectors = embedder.embed([c["text"] for c in chunks])
    queries = embedder.embed(["volcano height", "tea temperature", "train speed", "Sicily", "1964 Osaka"])
    k = min(10, len(chunks))
    recalls = []
    for q, hits in zip(queries, index.search(queries, k)):
        exact = {chunks[i]["id"] for i in np.argsort(-(vectors @ q))[:k]}
        recalls.append(len(exact & {h.chunk_id for h in hits}) / k)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert np.mean(recalls) >= 0.99


def test_a_run_interrupted_while_storing_a_batch_resumes_to_the_same_results(project, monkeypatch):
    """Ctrl-C in the middle of a batch's transaction leaves none of that batch; resuming redoes it."""
    from contextlib import contextmanager

    from rageval.store import items as batch_store

    config = RunConfig(corpus="c", qa_set="qa", metrics=METRICS, top_k=3)
    full = start_run(project, config)
    execute(project, full, batch_size=2)
    real_connect = batch_store.connect
    inserts = {"n": 0}

    class Crashing:
        def __init__(self, con):
            self.con = con

        def execute(self, sql, *args):
            if sql.startswith("INSERT INTO metric_scores"):
                inserts["n"] += 1
                if inserts["n"] == 2:  # the second batch dies after its answers went in
                    raise KeyboardInterrupt
            return self.con.execute(sql, *args)

        def __getattr__(self, name):
            return getattr(self.con, name)

    @contextmanager
    def crashing_connect(path):
        with real_connect(path) as con:
            yield Crashing(con)

    monkeypatch.setattr(batch_store, "connect", crashing_connect)
    part = start_run(project, config)
    with pytest.raises(KeyboardInterrupt):
        execute(project, part, batch_size=2)
    assert store.get_run(project.db_path, part).status == "interrupted"
    assert {a["item_id"] for a in store.answers(project.db_path, part)} == {"q1", "q2"}
    assert len(store.scores(project.db_path, part)) == 2 * len(METRICS)
    monkeypatch.setattr(batch_store, "connect", real_connect)
    summary = execute(project, part, batch_size=2)
    assert summary.status == "finished" and summary.done == 5
    assert _results(project, part) == _results(project, full)
    assert len(store.scores(project.db_path, part)) == 5 * len(METRICS)


def test_a_run_reads_its_context_once_before_the_first_item(project, monkeypatch):
    """Run row, QA items and stored ids come from one store read; the metrics are parsed once."""
    from rageval.runs import context, pipeline

    run_id = start_run(project, RunConfig(corpus="c", qa_set="qa", metrics=METRICS, top_k=3))
    reads, parsed, at_first_batch = [], [], []
    for name in ("run_state", "get_run", "qa_items"):
        real = getattr(store, name)
        monkeypatch.setattr(store, name, lambda *a, _name=name, _real=real, **k: reads.append(_name) or _real(*a, **k))
    real_parse, real_save = context.parse_metric_list, pipeline.save_items
    monkeypatch.setattr(context, "parse_metric_list", lambda *a, **k: parsed.append(1) or real_parse(*a, **k))
    monkeypatch.setattr(pipeline, "save_items", lambda *a, **k: at_first_batch.append(list(reads)) or real_save(*a,
                                                                                                                **k))
    assert execute(project, run_id, batch_size=2).done == 5
    assert at_first_batch[0] == ["run_state"] and len(at_first_batch) == 3 and parsed == [1]
